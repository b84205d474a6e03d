/**
 * What apps/cli/README.md and `gleaner --help` promise, as a user meets it: `--help` on every command, exit
 * 1 (never 3) for a page the job could not fetch, `--json` errors and warnings as JSON lines, a failed page's
 * warning naming its URL and category, and `gleaner` started through a link (as after `npm link`) from any
 * shell, under the pinned Node.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, symlinkSync } from 'node:fs';
import { delimiter, dirname, join } from 'node:path';
import { startModelServer, type ModelServer } from '../fixtures/model-server';
import { startFixtureSite, type FixtureSite } from '../fixtures/site';
import { assertCliBuilt, CLI_MAIN, jsonLines, runCli, STACK_TRACE, type CliEnv } from './cli-helpers/cli';
import { startService, type Service } from './cli-helpers/service';
import { http, tempDir } from './helpers';

jest.setTimeout(180_000);

const SCHEMA = '{"title": "string"}';

let site: FixtureSite;
let models: ModelServer;
let service: Service;
let env: CliEnv;

beforeAll(async () => {
  assertCliBuilt();
  [site, models] = await Promise.all([startFixtureSite({ crawlDelaySeconds: 0 }), startModelServer()]);
  service = await startService({ env: { GLEANER_OPENAI_BASE_URL: models.openaiBaseUrl } });
  env = { url: service.url, key: service.key, GLEANER_MODEL_API_KEY: 'sk-cli-promises' };
});

afterAll(async () => {
  await service?.stop();
  await Promise.all([site?.close(), models?.close()]);
});

describe('--help', () => {
  const commands = [
    ['scrape'],
    ['extract'],
    ['crawl'],
    ['batch'],
    ['map'],
    ['jobs'],
    ['jobs', 'list'],
    ['jobs', 'get'],
    ['jobs', 'cancel'],
    ['jobs', 'watch'],
    ['results'],
    ['crawl-map'],
    ['mcp'],
    ['convert'],
    ['users'],
    ['users', 'create'],
  ];
  it.each(commands.map((c) => [c.join(' '), c] as const))('gleaner %s --help prints its usage and exits 0', async (_name, command) => {
    const run = await runCli([...command, '--help'], {});
    expect({ code: run.code, stderr: run.stderr }).toEqual({ code: 0, stderr: '' });
    expect(run.stdout).toMatch(/Usage: gleaner/);
  });
});

describe('exit codes', () => {
  it.each([
    ['extract', '/status/404'],
    ['extract', '/status/502'],
    ['scrape', '/status/404'],
    ['scrape', '/status/502'],
  ])('%s of a page that answers %s: the job failed (1), not "unreachable" (3)', async (command, path) => {
    const args = command === 'extract' ? ['--schema', SCHEMA, '--model', 'openai/gpt-4o-mini'] : [];
    const run = await runCli([command, `${site.url}${path}`, ...args, '--fetch-mode', 'static'], env);
    expect(run.stderr).not.toMatch(STACK_TRACE);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/\[http_error\]/);
  });
});

describe('--json', () => {
  it('makes a usage error one JSON line on stderr', async () => {
    const run = await runCli(['crawl', `${site.url}/`, '--max-page', '3', '--json'], env);
    expect(run.code).toBe(2);
    expect(run.stdout).toBe('');
    const lines = jsonLines(run.stderr);
    expect(lines).toEqual([{ error: { title: 'Usage error', detail: expect.stringContaining("unknown option '--max-page'") } }]);
    expect(lines[0].error.detail).toContain('--max-pages');
  });

  it('a failed page is a warning naming its URL and category; with --json a JSON line', async () => {
    const list = `${site.url}/page/1/\n${site.url}/status/404\n`;
    const args = [
      'batch',
      '-',
      '--schema',
      SCHEMA,
      '--model',
      'openai/gpt-4o-mini',
      '--fetch-mode',
      'static',
      '-o',
      join(tempDir(), 'out.jsonl'),
    ];
    const plain = await runCli(args, env, { stdin: list });
    expect(plain.stderr).toContain(`warning: ${site.url}/status/404 failed [http_error]: `);

    const json = await runCli([...args, '--json'], env, { stdin: list });
    const lines = jsonLines(json.stderr);
    expect(lines).toContainEqual({
      warning: { url: `${site.url}/status/404`, error_category: 'http_error', error_message: expect.any(String) },
    });
    // Every line on stderr is JSON with --json.
    expect(json.stderr.trim().split('\n').length).toBe(lines.length);
  });
});

describe('errors that point at the fix', () => {
  it('the API names a misspelt or misplaced field, says "is required", and points invalid JSON at the body', async () => {
    const base = { url: `${site.url}/`, schema: { title: 'string' } };
    const typo = await http(service.url, 'POST', '/api/v1/crawl', { key: service.key, body: { ...base, options: { max_page: 3 } } });
    expect(typo.status).toBe(422);
    expect(typo.body.errors).toEqual([{ location: 'body.options.max_page', message: 'unknown field: did you mean max_pages?' }]);
    const misplaced = await http(service.url, 'POST', '/api/v1/crawl', { key: service.key, body: { ...base, max_pages: 3 } });
    expect(misplaced.body.errors).toEqual([{ location: 'body.max_pages', message: 'unknown field: did you mean body.options.max_pages?' }]);
    const wrongType = await http(service.url, 'POST', '/api/v1/crawl', {
      key: service.key,
      body: { ...base, options: { max_pages: '20' } },
    });
    expect(wrongType.body.errors).toEqual([{ location: 'body.options.max_pages', message: 'must be an integer number', value: '20' }]);
    const missing = await http(service.url, 'PUT', '/api/v1/llm/keys', { key: service.key, body: { provider: 'openai', api_key: 'sk-1' } });
    expect(missing.body.errors).toEqual([{ location: 'body.is_enabled', message: 'is required' }]);
    const broken = await http(service.url, 'POST', '/api/v1/extract', {
      key: service.key,
      rawBody: '{"url": ',
      headers: { 'content-type': 'application/json' },
    });
    expect(broken.status).toBe(400);
    expect(broken.body.errors).toEqual([{ location: 'body', message: expect.stringMatching(/^is not valid JSON: /) }]);
  });

  it('a refused private address names the variables that open it; a refused crawl seed fails ssrf_blocked', async () => {
    const closed = await startService({ env: { GLEANER_ALLOW_PRIVATE_NETWORKS: 'false', GLEANER_OPENAI_BASE_URL: models.openaiBaseUrl } });
    try {
      const closedEnv = { url: closed.url, key: closed.key, GLEANER_MODEL_API_KEY: 'sk-cli-promises' };
      const extract = await runCli(['extract', `${site.url}/`, '--schema', SCHEMA, '--model', 'openai/gpt-4o-mini', '--json'], closedEnv);
      expect(extract.code).toBe(2);
      const problem = jsonLines(extract.stderr)[0].error;
      expect(problem).toMatchObject({ status: 422, error_category: 'ssrf_blocked' });
      expect(problem.detail).toContain('GLEANER_ALLOW_NETWORKS=127.0.0.1/32');
      expect(problem.detail).toContain('GLEANER_ALLOW_PRIVATE_NETWORKS=true');

      const crawl = await runCli(
        ['crawl', `${site.url}/`, '--schema', SCHEMA, '--model', 'openai/gpt-4o-mini', '--json', '-o', join(tempDir(), 'c.jsonl')],
        closedEnv,
      );
      expect(crawl.code).toBe(1);
      expect(JSON.parse(crawl.stdout)).toMatchObject({ status: 'failed', error_category: 'ssrf_blocked' });
    } finally {
      await closed.stop();
    }
  });
});

describe('gleaner through a link, from any shell', () => {
  it('runs under the pinned Node whichever node the shell finds first (as after npm link)', () => {
    // As `npm link` does: a `gleaner` link to the built entry point, on PATH, started from another folder.
    const bin = tempDir('gleaner-link-');
    symlinkSync(CLI_MAIN, join(bin, 'gleaner'));
    // The shell's own node first: a system Node (maybe older than the pinned one) if this machine has one.
    const systemNode = spawnSync('bash', ['-c', 'command -v node'], {
      env: {
        PATH: (process.env.PATH ?? '')
          .split(delimiter)
          .filter((dir) => !dir.includes('node_modules'))
          .join(delimiter),
      },
      encoding: 'utf8',
    }).stdout.trim();
    const nodeDir = systemNode ? dirname(systemNode) : dirname(process.execPath);
    const cwd = tempDir('gleaner-link-cwd-');
    const dataDir = join(cwd, 'store');
    mkdirSync(dataDir);
    // Started by its path as a shell would: the kernel reads `#!/usr/bin/env node`, env finds the first node.
    const run = (args: string[]) =>
      spawnSync(join(bin, 'gleaner'), args, {
        cwd,
        env: { PATH: `${bin}${delimiter}${nodeDir}${delimiter}/usr/bin:/bin` },
        encoding: 'utf8',
      });

    const version = run(['--version']);
    expect({ status: version.status, stderr: version.stderr }).toEqual({ status: 0, stderr: '' });
    expect(version.stdout.trim()).toMatch(/^\d+\.\d+\.\d+/);
    // `users` needs node:sqlite (Node 24): it works whichever node started the link.
    const created = run(['users', 'create', '--name', 'linked', '--data-dir', dataDir]);
    expect(created.stderr).toBe('');
    expect(created.status).toBe(0);
    expect(JSON.parse(created.stdout)).toMatchObject({ name: 'linked' });
  });
});
