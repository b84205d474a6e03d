/**
 * `gleaner crawl`, `jobs`, `results` and `crawl-map` against the built service: the output file
 * against the API's own export, cancel by command and by Ctrl-C, detach.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { startModelServer, type ModelServer } from '../fixtures/model-server';
import { startFixtureSite, type FixtureSite } from '../fixtures/site';
import { assertCliBuilt, jsonLines, runCli, startCli, STACK_TRACE, type CliEnv, type CliProcess } from './cli-helpers/cli';
import { apiGet, resultsJsonl, startService, waitForJobStatus, type Service } from './cli-helpers/service';
import { tempDir, waitFor } from './helpers';

jest.setTimeout(240_000);

const QUOTES_SCHEMA = '{"quotes": [{"text": "string", "author": "string"}]}';
const JOB_ID = /\b(\w{26})\b/;

let site: FixtureSite;
let models: ModelServer;
let service: Service;
let env: CliEnv;
let dir: string;
const running: CliProcess[] = [];

/** A crawl of the fixture site (robots.txt skipped: its Crawl-delay would slow every test). */
function crawlArgs(options: { model?: string; maxPages?: number; concurrency?: number; output?: string } = {}): string[] {
  const args = ['crawl', `${site.url}/`, '--schema', QUOTES_SCHEMA, '--model', `openai/${options.model ?? 'gpt-4o-mini'}`];
  args.push(
    '--fetch-mode',
    'static',
    '--max-pages',
    String(options.maxPages ?? 6),
    '--max-depth',
    '2',
    '--follow',
    '/page/\\d+/$',
    '--ignore-robots',
  );
  args.push('--concurrency', String(options.concurrency ?? 2));
  if (options.output) args.push('--output', options.output);
  return args;
}

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
  dir = tempDir('gleaner-cli-crawl-');
});

afterEach(async () => {
  await Promise.all(running.splice(0).map((cli) => cli.stop()));
});

afterAll(async () => {
  await service?.stop();
  await Promise.all([site?.close(), models?.close()]);
});

describe('gleaner crawl', () => {
  let jobId: string;
  let fileText: string;

  it('crawls the fixture site into --output: exactly the lines GET /results?format=jsonl has, then a summary', async () => {
    const out = join(dir, 'quotes.jsonl');
    const run = await runCli(crawlArgs({ output: out }), env);
    expect(run.stderr).not.toMatch(STACK_TRACE);
    expect(run.code).toBe(0);
    // The summary goes to stdout when the results went to a file.
    jobId = JOB_ID.exec(run.stdout)![1];
    expect(run.stdout).toContain(`Crawl ${jobId} completed in`);
    expect(run.stdout).toMatch(/pages {5}6 done · 0 failed · \d+ skipped \(/);
    expect(run.stdout).toMatch(/tokens {4}[\d,]+ in · [\d,]+ out/);
    expect(run.stdout).toContain(`results   6 lines in ${out}`);

    fileText = readFileSync(out, 'utf8');
    const lines = jsonLines(fileText);
    expect(lines).toHaveLength(6);
    expect(new Set(lines.map((l) => l.url)).size).toBe(6);
    for (const line of lines) {
      expect(Object.keys(line)).toEqual(['id', 'url', 'status', 'data', 'metadata', 'warnings']);
      expect(line.status).toBe('completed');
      // How it was made, and where each value came from (provenance summary by default).
      // The quotes are a list: its count is in the metadata (docs/long-lists.md).
      expect(line.metadata).toEqual({
        method: 'model',
        fields: expect.any(Object),
        ungrounded_fields: 0,
        items: [expect.objectContaining({ path: 'quotes', chunks: 1 })],
      });
      expect(Object.values(line.metadata.fields).every((f: any) => f.source === 'model' && f.grounded !== false)).toBe(true);
      expect(line.data.quotes.length).toBeGreaterThan(0);
    }
    expect(sorted(fileText)).toEqual(sorted(await resultsJsonl(service, jobId)));

    // Not a terminal: plain progress lines, no cursor control.
    expect(run.stderr).toContain(`Crawl ${jobId} started at ${site.url}/`);
    expect(run.stderr).toMatch(new RegExp(`\\[${jobId}\\] (pending|crawling|completed) · \\d+ done / \\d+ discovered · \\d+ failed`));
    expect(run.stderr).not.toMatch(/[\r\x1b]/);
    // The last progress line adds up as the summary does (issue 40): every URL found is done, failed or skipped.
    const last = [...run.stderr.matchAll(/(\d+) done \/ (\d+) discovered · (\d+) failed(?: · (\d+) skipped)?/g)].at(-1)!;
    const skipped = Number(/pages {5}6 done · 0 failed · (\d+) skipped/.exec(run.stdout)![1]);
    expect(skipped).toBeGreaterThan(0);
    expect(last.slice(1).map((n) => Number(n ?? 0))).toEqual([6, 6 + skipped, 0, skipped]);
  });

  it('jobs list/get, results and crawl-map show that crawl', async () => {
    const list = await runCli(['jobs', 'list'], env);
    expect(list.code).toBe(0);
    expect(list.stdout).toMatch(/^ID +TYPE +STATUS +PAGES +FAILED +COST +CREATED +URL$/m);
    expect(list.stdout).toMatch(new RegExp(`^${jobId} +crawl +completed +6 +0 `, 'm'));
    const listJson = await runCli(['jobs', 'list', '--json', '--limit', '5'], env);
    expect(JSON.parse(listJson.stdout).jobs.map((j: { id: string }) => j.id)).toContain(jobId);

    const get = await runCli(['jobs', 'get', jobId], env);
    expect(get.code).toBe(0);
    expect(get.stdout).toMatch(/^status +completed$/m);
    expect(get.stdout).toMatch(/^pages +6 done · 0 failed/m);
    const getJson = await runCli(['jobs', 'get', jobId, '--json'], env);
    expect(JSON.parse(getJson.stdout)).toEqual(await apiGet(service, `/api/v1/jobs/${jobId}`));

    const jsonl = await runCli(['results', jobId, '--format', 'jsonl'], env);
    expect(jsonl.code).toBe(0);
    expect(jsonl.stdout).toBe(await resultsJsonl(service, jobId));
    const merged = await runCli(['results', jobId, '--merge', '--format', 'yaml', '--output', join(dir, 'merged.yaml')], env);
    expect(merged.code).toBe(0);
    const items = parseYaml(readFileSync(join(dir, 'merged.yaml'), 'utf8')) as Array<{ text: string; author: string }>;
    expect(items.length).toBeGreaterThan(6);
    expect(items[0]).toEqual({ text: expect.any(String), author: expect.any(String) });

    const map = await runCli(['crawl-map', jobId], env);
    expect(map.code).toBe(0);
    expect(map.stdout).toContain(`Crawl ${jobId}  seed ${site.url}/  max depth 2`);
    expect(map.stdout).toMatch(/^entries +\d+ · 6 completed · 0 failed · \d+ skipped/m);
    expect(map.stdout).toMatch(/^skipped +\w+ \d+/m);
    expect(map.stdout).toMatch(/^STATUS +DEPTH +HTTP +TOKENS +ERROR \/ REASON +URL$/m);
    expect(map.stdout).toMatch(new RegExp(`^completed +0 +200 +[\\d,]+ +${site.url}/$`, 'm'));
    const page = await runCli(['crawl-map', jobId, '--json', '--status', 'completed', '--limit', '2', '--offset', '1'], env);
    const mapJson = JSON.parse(page.stdout);
    expect(mapJson.entries).toHaveLength(2);
    expect(mapJson.entries.every((e: { status: string }) => e.status === 'completed')).toBe(true);
    expect(mapJson.completed).toBe(6);
  });

  it('jobs watch replays a finished crawl into a file, line for line', async () => {
    const out = join(dir, 'replay.jsonl');
    const run = await runCli(['jobs', 'watch', jobId, '-o', out, '--json'], env);
    expect(run.code).toBe(0);
    expect(readFileSync(out, 'utf8')).toBe(fileText);
    const summary = JSON.parse(run.stdout);
    expect(summary).toMatchObject({
      job_id: jobId,
      status: 'completed',
      pages: 6,
      failed: 0,
      results_written: 6,
      failures_by_category: {},
    });
    expect(summary.token_usage.input).toBeGreaterThan(0);
  });

  it('without --output: result lines on stdout, the summary (--json) on stderr', async () => {
    const run = await runCli([...crawlArgs({ maxPages: 2 }), '--json'], env);
    expect(run.code).toBe(0);
    const lines = jsonLines(run.stdout);
    expect(lines).toHaveLength(2);
    const summary = JSON.parse(run.stderr.trim().split('\n').at(-1)!);
    expect(summary).toMatchObject({ status: 'completed', pages: 2, output: null, results_written: 2 });
    expect(sorted(run.stdout)).toEqual(sorted(await resultsJsonl(service, summary.job_id)));
  });

  it('--as markdown --out-dir: no schema, no model; one markdown file per page, named by its URL', async () => {
    const out = join(dir, 'pages');
    const calls = models.requests.length;
    const args = ['crawl', `${site.url}/`, '--as', 'markdown', '--out-dir', out, '--fetch-mode', 'static'];
    args.push('--max-pages', '3', '--max-depth', '1', '--follow', '/page/\\d+/$', '--ignore-robots');
    const run = await runCli(args, { url: service.url, key: service.key });
    expect(run.stderr).not.toMatch(STACK_TRACE);
    expect(run.code).toBe(0);
    const id = JOB_ID.exec(run.stdout)![1];
    expect(run.stdout).toContain(`results   3 files in ${out}`);
    expect(models.requests.length).toBe(calls);
    const host = new URL(site.url).host.replace(':', '_');
    const home = readFileSync(join(out, host, 'index.md'), 'utf8');
    expect(home).toContain('Albert Einstein');
    const items = jsonLines(await resultsJsonl(service, id));
    expect(items).toHaveLength(3);
    for (const item of items) {
      const path = new URL(item.url).pathname;
      const file = join(out, host, ...(path === '/' ? ['index.md'] : `${path.replace(/\/$/, '/index')}.md`.split('/').slice(1)));
      expect(readFileSync(file, 'utf8').trim()).toBe(String(item.data.markdown).trim());
      expect(item.metadata.method).toBe('scrape');
    }
  });

  it('refuses --as beside a schema and --out-dir beside -o, before any job', async () => {
    const both = await runCli(['crawl', `${site.url}/`, '--as', 'markdown', '--schema', QUOTES_SCHEMA], env);
    expect(both.code).toBe(2);
    expect(both.stderr).toContain('--as stores pages without a schema');
    const two = await runCli(['crawl', `${site.url}/`, '--out-dir', join(dir, 'x'), '-o', join(dir, 'x.jsonl')], env);
    expect(two.code).toBe(2);
    expect(two.stderr).toContain('not both');
  });
});

describe('cancelling', () => {
  it('--detach prints the job id at once; gleaner jobs cancel cancels it (and a second cancel is a 409)', async () => {
    const run = await runCli([...crawlArgs({ model: 'slow-1000', maxPages: 30, concurrency: 1 }), '--detach'], env);
    expect(run.code).toBe(0);
    const id = run.stdout.trim();
    expect(id).toMatch(/^\w{26}$/);
    expect(run.stderr).toContain(`gleaner jobs watch ${id}`);

    const cancel = await runCli(['jobs', 'cancel', id], env);
    expect(cancel.code).toBe(0);
    expect(cancel.stdout).toContain(`Job ${id} cancelled`);
    await waitForJobStatus(service, id, ['cancelled']);

    const again = await runCli(['jobs', 'cancel', id], env);
    expect(again.code).toBe(1);
    expect(again.stderr).toMatch(/\(409\)/);
  });

  it('Ctrl-C asks; "c" cancels the crawl, the file keeps what arrived, exit 130', async () => {
    const out = join(dir, 'interrupted.jsonl');
    const cli = startCli(crawlArgs({ model: 'slow-1000', maxPages: 30, concurrency: 1, output: out }), env);
    running.push(cli);
    await cli.waitForStderr(/\[\w{26}\] (pending|crawling) · /);
    const id = JOB_ID.exec(cli.stderr)![1];
    cli.child.kill('SIGINT');
    await cli.waitForStderr(/Choice \[c\/d\/W\]: $/);
    expect(cli.stderr).toContain(`The crawl ${id} is still running on the service.`);
    cli.write('c\n');
    const run = await cli.exited;
    expect(run.code).toBe(130);
    expect(run.stderr).toContain(`cancel requested for ${id}`);
    expect(run.stdout).toContain(`Crawl ${id} cancelled in`);
    expect((await apiGet(service, `/api/v1/jobs/${id}`)).status).toBe('cancelled');
    // Every line written is the API's own result item, once. (A page whose result was being stored at
    // the instant of the cancel can be in the export without ever being announced, so no equality.)
    const written = sorted(readFileSync(out, 'utf8'));
    expect(new Set(written).size).toBe(written.length);
    const exported = new Set(sorted(await resultsJsonl(service, id)));
    for (const line of written) expect(exported.has(line)).toBe(true);
  });

  it('Ctrl-C then "d" detaches: exit 130, the crawl goes on', async () => {
    const cli = startCli(crawlArgs({ model: 'slow-1000', maxPages: 30, concurrency: 1 }), env);
    running.push(cli);
    await cli.waitForStderr(/\[\w{26}\] (pending|crawling) · /);
    const id = JOB_ID.exec(cli.stderr)![1];
    cli.child.kill('SIGINT');
    await cli.waitForStderr(/Choice \[c\/d\/W\]: $/);
    cli.write('d\n');
    const run = await cli.exited;
    expect(run.code).toBe(130);
    expect(run.stderr).toContain(`Detached. The crawl goes on: gleaner jobs watch ${id}`);
    expect((await apiGet(service, `/api/v1/jobs/${id}`)).status).toMatch(/^(pending|running)$/);
    // Clean up: the detached crawl is still running.
    expect((await runCli(['jobs', 'cancel', id], env)).code).toBe(0);
    await waitFor(async () => (await apiGet(service, `/api/v1/jobs/${id}`)).status === 'cancelled', 120_000, 100);
  });
});
