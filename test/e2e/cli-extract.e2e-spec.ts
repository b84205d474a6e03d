/**
 * `gleaner extract` and the error paths every API command shares, run as a user would: the built
 * CLI as a child process against the built service, a local fixture site and a local model server.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { freePort } from '../harness/servers';
import { startModelServer, type ModelServer } from '../fixtures/model-server';
import { startFixtureSite, type FixtureSite } from '../fixtures/site';
import { assertCliBuilt, runCli, STACK_TRACE, type CliEnv } from './cli-helpers/cli';
import { apiGet, startService, type Service } from './cli-helpers/service';
import { tempDir } from './helpers';

jest.setTimeout(180_000);

const QUOTES_SCHEMA = '{"quotes": [{"text": "string", "author": "string"}]}';

let site: FixtureSite;
let models: ModelServer;
let service: Service;
let env: CliEnv;

beforeAll(async () => {
  assertCliBuilt();
  [site, models] = await Promise.all([startFixtureSite(), startModelServer()]);
  // /extract answers 504 (the job goes on) after 3 s: long enough for the ordinary extractions here.
  service = await startService({ env: { GLEANER_EXTRACT_WAIT_MS: '3000' } });
  env = { url: service.url, key: service.key, GLEANER_MODEL_BASE_URL: models.openaiBaseUrl, GLEANER_MODEL_API_KEY: 'sk-cli-test' };
});

afterAll(async () => {
  await service?.stop();
  await Promise.all([site?.close(), models?.close()]);
});

describe('gleaner extract', () => {
  it('prints the extracted JSON, and a one-line usage note on stderr', async () => {
    const run = await runCli(
      ['extract', `${site.url}/`, '--schema', QUOTES_SCHEMA, '--model', 'openai/gpt-4o-mini', '--fetch-mode', 'static'],
      env,
    );
    expect(run.stderr).not.toMatch(STACK_TRACE);
    expect(run.code).toBe(0);
    const data = JSON.parse(run.stdout);
    expect(data.quotes).toHaveLength(10);
    expect(data.quotes[0]).toEqual({
      text: expect.stringContaining('The world as we have created it is a process of our thinking.'),
      author: 'Albert Einstein',
    });
    expect(run.stderr).toMatch(/job \w{26} · openai\/gpt-4o-mini · [\d,]+ in \/ [\d,]+ out tokens · \$[\d.]+/);
    // The model was called with the key and endpoint the CLI was given.
    expect(models.requests.some((r) => r.apiKey === 'sk-cli-test' && r.model === 'gpt-4o-mini')).toBe(true);
  });

  it('sends --extraction-mode: an auto extract answers with the template it learns from', async () => {
    const run = await runCli(
      [
        'extract',
        `${site.url}/page/2/`,
        '--schema',
        QUOTES_SCHEMA,
        '--model',
        'openai/gpt-4o-mini',
        '--fetch-mode',
        'static',
        '--extraction-mode',
        'auto',
        '--json',
      ],
      env,
    );
    expect(run.stderr).not.toMatch(STACK_TRACE);
    expect(run.code).toBe(0);
    const answer = JSON.parse(run.stdout);
    // The first page of a template goes to the model; only an auto extract has a template at all.
    expect(answer.metadata).toMatchObject({ method: 'model', template_id: expect.stringMatching(/^tpl_/) });
    expect(answer.data.quotes).toHaveLength(10);
  });

  it('sends --provenance and --grounding: the answer says where each value came from; fail_page fails on an invented one', async () => {
    const base = ['extract', `${site.url}/page/1/`, '--schema', QUOTES_SCHEMA, '--fetch-mode', 'static'];
    const full = await runCli([...base, '--model', 'openai/gpt-4o-mini', '--provenance', 'full', '--json'], env);
    expect(full.stderr).not.toMatch(STACK_TRACE);
    expect(full.code).toBe(0);
    const answer = JSON.parse(full.stdout);
    expect(answer.metadata.ungrounded_fields).toBe(0);
    expect(answer.metadata.fields['quotes[0].author']).toMatchObject({
      source: 'model',
      grounded: true,
      evidence: { in: 'page', text: expect.stringContaining('Albert Einstein') },
    });
    // A model that invents: the note says how many values are not on the page; fail_page fails the job.
    const reported = await runCli([...base, '--model', 'openai/gpt-4o-mini+invent'], env);
    expect(reported.code).toBe(0);
    expect(reported.stderr).toMatch(/\d+ values not on the page/);
    const failed = await runCli([...base, '--model', 'openai/gpt-4o-mini+invent', '--grounding', 'fail_page'], env);
    expect(failed.stderr).not.toMatch(STACK_TRACE);
    expect(failed.code).toBe(1);
    expect(failed.stderr).toContain('ungrounded_output');
    const bad = await runCli([...base, '--provenance', 'verbose'], env);
    expect(bad.code).toBe(2);
  });

  it('reads a YAML schema file, writes --output, and with --json the whole answer', async () => {
    const dir = tempDir('gleaner-cli-extract-');
    const schemaFile = join(dir, 'quotes.yaml');
    writeFileSync(schemaFile, 'quotes:\n  - text: string\n    author: string\n    tags: [string]\n');
    const out = join(dir, 'page2.json');
    const run = await runCli(
      ['extract', `${site.url}/page/2/`, '--schema', schemaFile, '--model', 'openai/gpt-4o-mini', '--output', out, '--json'],
      env,
    );
    expect(run.code).toBe(0);
    expect(run.stdout).toBe('');
    const answer = JSON.parse(readFileSync(out, 'utf8'));
    expect(answer).toMatchObject({ url: `${site.url}/page/2/`, metadata: { provider: 'openai', model: 'gpt-4o-mini' } });
    expect(answer.data.quotes.length).toBeGreaterThan(0);
    expect(answer.data.quotes[0]).toEqual(expect.objectContaining({ author: expect.any(String), tags: expect.any(Array) }));
    expect(answer.usage.input_tokens).toBeGreaterThan(0);
    // The job the CLI made is an ordinary job of the API.
    const job = await apiGet(service, `/api/v1/jobs/${answer.job_id}`);
    expect(job).toMatchObject({ type: 'extract', status: 'completed', url: `${site.url}/page/2/` });
  });

  it('reads the schema from stdin with --schema -', async () => {
    const run = await runCli(
      ['extract', `${site.url}/`, '--schema', '-', '--model', 'openai/gpt-4o-mini', '--fetch-mode', 'static', '-q'],
      env,
      {
        stdin: '{"first_author": "string: the author of the first quote"}',
      },
    );
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout)).toHaveProperty('first_author');
    expect(run.stderr).toBe('');
  });

  it('an extraction that outlives the service wait (504 with the job id): follows the job and prints its data', async () => {
    const run = await runCli(
      ['extract', `${site.url}/page/3/`, '--schema', QUOTES_SCHEMA, '--model', 'openai/slow-6000', '--fetch-mode', 'static'],
      env,
    );
    expect(run.stderr).not.toMatch(STACK_TRACE);
    expect(run.code).toBe(0);
    expect(run.stderr).toMatch(/The service stopped waiting \(.+\); following job \w{26}/);
    expect(JSON.parse(run.stdout).quotes.length).toBeGreaterThan(0);
    expect(run.stderr).toMatch(/job \w{26} · openai\/slow-6000 · [\d,]+ in \/ [\d,]+ out tokens/);
  });
});

describe('error paths', () => {
  it('a bad key: exit 3 and the problem title and detail, no stack trace', async () => {
    const run = await runCli(['extract', `${site.url}/`, '--schema', QUOTES_SCHEMA], { ...env, key: `glk_${'x'.repeat(40)}` });
    expect(run.code).toBe(3);
    expect(run.stdout).toBe('');
    expect(run.stderr).toContain('Unauthorized (401): Unknown API key.');
    expect(run.stderr).not.toMatch(STACK_TRACE);
    const jobs = await runCli(['jobs', 'list'], { url: service.url });
    expect(jobs.code).toBe(3);
    expect(jobs.stderr).toContain('Unauthorized (401): Missing API key');
  });

  it('a schema the service rejects: exit 2 with the 422 problem and its field errors', async () => {
    const run = await runCli(
      ['extract', `${site.url}/`, '--schema', '{"quotes": 42, "title": "strng"}', '--model', 'openai/gpt-4o-mini'],
      env,
    );
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('Validation failed (422): The schema is invalid.');
    expect(run.stderr).toMatch(
      /body\.schema\.quotes: expected a type name, a description, an object or a list; got a number \(value: 42\)/,
    );
    expect(run.stderr).not.toMatch(STACK_TRACE);

    const json = await runCli(['extract', `${site.url}/`, '--schema', '{"quotes": 42}', '--model', 'openai/gpt-4o-mini', '--json'], env);
    expect(json.code).toBe(2);
    const problem = JSON.parse(json.stderr.trim()).error;
    expect(problem).toMatchObject({
      status: 422,
      title: 'Validation failed',
      errors: [expect.objectContaining({ location: 'body.schema.quotes' })],
    });
  });

  it('crawl options the service rejects: exit 2 with every failing field', async () => {
    const run = await runCli(
      ['crawl', 'ftp://example.invalid/', '--schema', QUOTES_SCHEMA, '--max-depth', '11', '--follow', '(?=x)', '--detach'],
      env,
    );
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('Validation failed (422)');
    expect(run.stderr).toContain('body.url: must be an http or https URL');
    expect(run.stderr).toContain('body.options.max_depth: must not be greater than 10 (value: 11)');
    expect(run.stderr).toContain('body.options.follow_pattern: must be a valid RE2 regular expression');
  });

  it('usage errors found before any request: exit 2 with the reason', async () => {
    const cases: Array<[string[], RegExp]> = [
      [['extract', `${site.url}/`, '--schema', 'a: [b'], /--schema: the inline schema is neither valid JSON nor valid YAML/],
      [['extract', `${site.url}/`, '--schema', 'missing/schema.yaml'], /--schema: no such file "missing\/schema.yaml"/],
      [['extract', `${site.url}/`], /--schema .* is required/],
      [['extract', `${site.url}/`, '--schema', QUOTES_SCHEMA, '--model', 'gpt-4o-mini'], /--model must be provider\/model/],
      [['crawl', `${site.url}/`, '--schema', QUOTES_SCHEMA, '--max-pages', 'lots'], /--max-pages must be a whole number/],
      [['crawl', `${site.url}/`, '--schema', QUOTES_SCHEMA, '--fetch-mode', 'psychic'], /Allowed choices are auto, static, dynamic/],
      [['extract', `${site.url}/`, '--schema', QUOTES_SCHEMA, '--extraction-mode', 'magic'], /Allowed choices are model, auto/],
      [['results', 'JOB', '--format', 'csv'], /--format must be one of json, jsonl, yaml/],
      [['jobs', 'get'], /missing required argument 'job'/],
      [['frobnicate'], /unknown command 'frobnicate'/],
      [['crawl', '--bogus'], /unknown option '--bogus'/],
    ];
    for (const [args, message] of cases) {
      const run = await runCli(args, env);
      expect({ args, code: run.code }).toEqual({ args, code: 2 });
      expect(run.stderr).toMatch(message);
      expect(run.stderr).not.toMatch(STACK_TRACE);
    }
  });

  it('an unreachable service: exit 3 naming the address', async () => {
    const port = await freePort();
    const run = await runCli(['extract', `${site.url}/`, '--schema', QUOTES_SCHEMA], { ...env, url: `http://127.0.0.1:${port}` });
    expect(run.code).toBe(3);
    expect(run.stderr).toContain(`cannot reach the Gleaner service at http://127.0.0.1:${port}: ECONNREFUSED`);
    expect(run.stderr).not.toMatch(STACK_TRACE);
    const jobs = await runCli(['jobs', 'list', '--url', `http://127.0.0.1:${port}`], env);
    expect(jobs.code).toBe(3);
  });

  it('a job that does not exist: exit 1 with the 404 problem', async () => {
    const run = await runCli(['jobs', 'get', '01NOTAJOB0000000000000000'], env);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('Not found (404): Job not found.');
  });
});

describe('help', () => {
  it('every command has help with an example', async () => {
    const top = await runCli(['--help'], {});
    expect(top.code).toBe(0);
    for (const name of ['extract', 'crawl', 'jobs', 'results', 'crawl-map', 'convert', 'users']) expect(top.stdout).toContain(name);
    const commands = [
      ['extract'],
      ['crawl'],
      ['jobs'],
      ['jobs', 'list'],
      ['jobs', 'get'],
      ['jobs', 'cancel'],
      ['jobs', 'watch'],
      ['results'],
      ['crawl-map'],
    ];
    for (const command of commands) {
      const run = await runCli([...command, '--help'], {});
      expect({ command, code: run.code }).toEqual({ command, code: 0 });
      expect(run.stdout).toContain(`Usage: gleaner ${command.join(' ')}`);
      expect(run.stdout).toMatch(/Examples?:\n\s+\$ gleaner /);
    }
  });
});
