/**
 * `gleaner batch` and `gleaner map` against the built service: a URL file into --output (the lines the API's export has),
 * stdin with `-`, duplicates reported, the live progress line, and a list the service refuses.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startModelServer, type ModelServer } from '../fixtures/model-server';
import { startFixtureSite, type FixtureSite } from '../fixtures/site';
import { assertCliBuilt, jsonLines, runCli, STACK_TRACE, type CliEnv } from './cli-helpers/cli';
import { apiGet, resultsJsonl, startService, type Service } from './cli-helpers/service';
import { tempDir } from './helpers';

jest.setTimeout(240_000);

const QUOTES_SCHEMA = '{"quotes": [{"text": "string", "author": "string"}]}';
const JOB_ID = /\b(\w{26})\b/;

let site: FixtureSite;
let models: ModelServer;
let service: Service;
let env: CliEnv;
let dir: string;

const batchArgs = (file: string, extra: string[] = []) => [
  'batch',
  file,
  '--schema',
  QUOTES_SCHEMA,
  '--model',
  'openai/gpt-4o-mini',
  '--fetch-mode',
  'static',
  '--ignore-robots',
  ...extra,
];
const sorted = (text: string) =>
  text
    .split('\n')
    .filter((l) => l !== '')
    .sort();

beforeAll(async () => {
  assertCliBuilt();
  [site, models] = await Promise.all([startFixtureSite(), startModelServer()]);
  service = await startService();
  env = { url: service.url, key: service.key, GLEANER_MODEL_BASE_URL: models.openaiBaseUrl, GLEANER_MODEL_API_KEY: 'sk-cli-test' };
  dir = tempDir('gleaner-cli-batch-');
});

afterAll(async () => {
  await service?.stop();
  await Promise.all([site?.close(), models?.close()]);
});

describe('gleaner batch', () => {
  it('extracts a URL file into --output: exactly the export of the job, duplicates reported, plain progress lines', async () => {
    const list = join(dir, 'urls.txt');
    writeFileSync(
      list,
      ['# quotes', `${site.url}/page/1/`, `${site.url}/page/2/`, '', `${site.url}/page/1/#top`, `${site.url}/page/3/`].join('\n'),
    );
    const out = join(dir, 'quotes.jsonl');
    const run = await runCli(batchArgs(list, ['--concurrency', '2', '-o', out]), env);
    expect(run.stderr).not.toMatch(STACK_TRACE);
    expect(run.code).toBe(0);
    const jobId = JOB_ID.exec(run.stdout)![1];
    expect(run.stderr).toContain(`Batch ${jobId} started: 3 URLs, 1 duplicate(s) removed`);
    expect(run.stderr).toMatch(new RegExp(`\\[${jobId}\\] (pending|extracting|completed) · \\d+ done / \\d+ discovered · \\d+ failed`));
    expect(run.stdout).toContain(`Batch ${jobId} completed in`);
    expect(run.stdout).toMatch(/pages {5}3 done · 0 failed/);
    const text = readFileSync(out, 'utf8');
    expect(jsonLines(text)).toHaveLength(3);
    expect(sorted(text)).toEqual(sorted(await resultsJsonl(service, jobId)));
    expect(await apiGet(service, `/api/v1/jobs/${jobId}`)).toMatchObject({ type: 'batch', status: 'completed', page_count: 3 });
  });

  it('reads the list from stdin with "-", and exits 2 with the field errors when the service refuses a URL', async () => {
    const ok = await runCli(batchArgs('-', ['--json']), env, { stdin: `${site.url}/page/4/\n` });
    expect(ok.code).toBe(0);
    expect(jsonLines(ok.stdout).filter((l) => l.url === `${site.url}/page/4/`)).toHaveLength(1);

    const bad = await runCli(batchArgs('-'), env, { stdin: `${site.url}/page/4/\nftp://nope.example/\n` });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('body.urls[1]');
    expect(bad.stderr).not.toMatch(STACK_TRACE);
  });
});

describe('gleaner map', () => {
  it("prints the site's URLs one per line (--json: the whole answer)", async () => {
    const run = await runCli(['map', `${site.url}/`, '--no-sitemap', '--limit', '5'], env);
    expect(run.stderr).not.toMatch(STACK_TRACE);
    expect(run.code).toBe(0);
    const lines = run.stdout.trim().split('\n');
    expect(lines).toHaveLength(5);
    expect(lines[0]).toBe(`${site.url}/`);
    expect(run.stderr).toMatch(/^5 URLs/m);
    const json = await runCli(['map', `${site.url}/`, '--no-sitemap', '--search', 'page', '--json'], env);
    const answer = JSON.parse(json.stdout);
    expect(answer).toMatchObject({ complete: true, url: `${site.url}/` });
    expect(answer.urls[0].url).toContain('page');
  });
});
