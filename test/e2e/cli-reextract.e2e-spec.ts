/**
 * `gleaner reextract` against the built service: a crawl's archived pages extracted again with a new
 * schema into --output (exactly the job's export), with the live progress line, not one request to
 * the site; the service's refusal (nothing failed to re-extract, a 409) is an exit 1 with its reason; a bad
 * --only is a usage error (exit 2) before any request.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { startModelServer, type ModelServer } from '../fixtures/model-server';
import { startFixtureSite, type FixtureSite } from '../fixtures/site';
import { assertCliBuilt, jsonLines, runCli, STACK_TRACE, type CliEnv } from './cli-helpers/cli';
import { apiGet, resultsJsonl, startService, waitForJobStatus, type Service } from './cli-helpers/service';
import { http, tempDir } from './helpers';

jest.setTimeout(240_000);

const JOB_ID = /\b(\w{26})\b/;
let site: FixtureSite;
let models: ModelServer;
let service: Service;
let env: CliEnv;
let crawlId: string;

beforeAll(async () => {
  assertCliBuilt();
  [site, models] = await Promise.all([startFixtureSite(), startModelServer()]);
  service = await startService();
  env = { url: service.url, key: service.key, GLEANER_MODEL_BASE_URL: models.openaiBaseUrl, GLEANER_MODEL_API_KEY: 'sk-cli-test' };
  const started = await http(service.url, 'POST', '/api/v1/crawl', {
    key: service.key,
    body: {
      url: `${site.url}/page/1/`,
      schema: { quotes: [{ text: 'string', author: 'string' }] },
      llm_config: { provider: 'openai', model: 'gpt-4o-mini', api_key: 'sk-cli-test', base_url: models.openaiBaseUrl },
      options: { max_pages: 3, max_depth: 1, follow_pattern: '/page/\\d+/$', respect_robots: false, fetch_mode: 'static' },
    },
  });
  expect(started.status).toBe(202);
  crawlId = started.body.job_id;
  expect(await waitForJobStatus(service, crawlId, ['completed', 'failed'])).toMatchObject({ status: 'completed', page_count: 3 });
});

afterAll(async () => {
  await service?.stop();
  await Promise.all([site?.close(), models?.close()]);
});

describe('gleaner reextract', () => {
  it('extracts the archived pages again with a new schema into --output, following the job; nothing is fetched', async () => {
    const out = join(tempDir('gleaner-cli-reextract-'), 'authors.jsonl');
    const before = site.requests.length;
    const run = await runCli(
      ['reextract', crawlId, '--schema', '{"authors": ["string"]}', '--model', 'openai/gpt-4o-mini', '-o', out],
      env,
    );
    expect(run.stderr).not.toMatch(STACK_TRACE);
    expect(run.code).toBe(0);
    expect(site.requests.length).toBe(before);
    const jobId = JOB_ID.exec(run.stdout)![1];
    expect(run.stderr).toContain(`Re-extraction ${jobId} of ${crawlId} started: 3 archived pages, nothing fetched`);
    expect(run.stderr).toMatch(new RegExp(`\\[${jobId}\\] (pending|re-extracting|completed) · \\d+ done / \\d+ discovered · \\d+ failed`));
    expect(run.stdout).toMatch(/pages {5}3 done · 0 failed/);
    const text = readFileSync(out, 'utf8');
    expect(jsonLines(text)).toHaveLength(3);
    expect(jsonLines(text).every((line: any) => Array.isArray(line.data.authors))).toBe(true);
    expect(text.split('\n').filter(Boolean).sort()).toEqual((await resultsJsonl(service, jobId)).split('\n').filter(Boolean).sort());
    expect(await apiGet(service, `/api/v1/jobs/${jobId}`)).toMatchObject({
      type: 'reextract',
      source_job_id: crawlId,
      status: 'completed',
    });
  });

  it('exits 1 with the reason when the service refuses (no failed page to re-extract), and 2 on a bad --only', async () => {
    const refused = await runCli(['reextract', crawlId, '--only', 'failed', '--model', 'openai/gpt-4o-mini'], env);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('The job has no failed pages to re-extract.');
    expect(refused.stderr).not.toMatch(STACK_TRACE);
    const bad = await runCli(['reextract', crawlId, '--only', 'some'], env);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/Allowed choices are all, failed, ungrounded/);
  });
});
