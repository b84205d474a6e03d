/**
 * The service restarts in the middle of a followed crawl: the crawl is handed back and resumed by
 * the new process (same port, same DATA_DIR), the CLI reconnects with Last-Event-ID, and its output
 * file ends up with every page exactly once.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { freePort } from '../harness/servers';
import { startModelServer, type ModelServer } from '../fixtures/model-server';
import { startFixtureSite, type FixtureSite } from '../fixtures/site';
import { assertCliBuilt, jsonLines, startCli, STACK_TRACE, type CliProcess } from './cli-helpers/cli';
import { apiGet, resultsJsonl, startService, type Service } from './cli-helpers/service';
import { tempDir, waitFor } from './helpers';

jest.setTimeout(300_000);

const MAX_PAGES = 10;
/**
 * SIGTERM lets pages in flight finish for this long before the crawl is handed back. The service
 * waits it out in full even once they are done (20 s by default), so a short one keeps the test quick.
 */
const SERVICE_ENV = { GLEANER_SHUTDOWN_GRACE_MS: '3000' };

let site: FixtureSite;
let models: ModelServer;
const services: Service[] = [];
let cli: CliProcess | undefined;

beforeAll(async () => {
  assertCliBuilt();
  [site, models] = await Promise.all([startFixtureSite(), startModelServer()]);
});

afterAll(async () => {
  await cli?.stop();
  for (const service of services) await service.stop('SIGKILL');
  await Promise.all([site?.close(), models?.close()]);
});

const lineCount = (path: string) => {
  try {
    return jsonLines(readFileSync(path, 'utf8')).length;
  } catch {
    return 0;
  }
};

it('a restart of the service mid-crawl: the CLI resumes the stream and writes every page once', async () => {
  const port = await freePort();
  const dataDir = tempDir('gleaner-cli-resume-');
  const first = await startService({ port, dataDir, env: SERVICE_ENV });
  services.push(first);
  const out = join(tempDir('gleaner-cli-resume-out-'), 'quotes.jsonl');

  // One page at a time, each with a slow model call: the crawl is surely mid-way when the service stops.
  const args = ['crawl', `${site.url}/`, '--schema', '{"quotes": [{"text": "string", "author": "string"}]}', '--model', 'openai/slow-600'];
  args.push('--fetch-mode', 'static', '--max-pages', String(MAX_PAGES), '--max-depth', '3', '--follow', '/page/\\d+/$', '--ignore-robots');
  args.push('--concurrency', '1', '--output', out);
  cli = startCli(args, {
    url: first.url,
    key: first.key,
    GLEANER_MODEL_BASE_URL: models.openaiBaseUrl,
    GLEANER_MODEL_API_KEY: 'sk-cli-test',
  });

  await waitFor(async () => lineCount(out) >= 2, 120_000, 50);
  const jobId = /Crawl (\w{26}) started/.exec(cli.stderr)![1];
  await first.stop('SIGTERM');
  // The old process is gone: whatever the file holds now is all the CLI could have received from it.
  const beforeRestart = lineCount(out);
  expect(beforeRestart).toBeLessThan(MAX_PAGES);
  await cli.waitForStderr(/connection to the job stream lost \(.+\); reconnecting/);

  const second = await startService({ port, dataDir, env: SERVICE_ENV });
  services.push(second);
  const run = await cli.exited;
  expect(run.stderr).not.toMatch(STACK_TRACE);
  expect(run.code).toBe(0);
  expect(run.stderr).toMatch(/reconnected; resuming after event \d+/);
  expect(run.stdout).toContain(`Crawl ${jobId} completed`);

  const job = await apiGet(second, `/api/v1/jobs/${jobId}`);
  expect(job.status).toBe('completed');
  const text = readFileSync(out, 'utf8');
  const lines = jsonLines(text);
  expect(lines.length).toBe(job.page_count + job.failed_count);
  expect(lines.length).toBeGreaterThan(beforeRestart);
  expect(new Set(lines.map((l) => l.id)).size).toBe(lines.length);
  expect(new Set(lines.map((l) => l.url)).size).toBe(lines.length);
  const exported = (await resultsJsonl(second, jobId)).split('\n').filter(Boolean).sort();
  expect(text.split('\n').filter(Boolean).sort()).toEqual(exported);
});
