/**
 * Monitors on the cluster deployment for real: 2 API replicas (both run the scheduler) and 2 crawlers as
 * separate processes on one Redis and one MongoDB-wire server. Every due slot starts exactly one run
 * (one crawl job), and after the kill -9 of a replica the next due runs still happen, once each.
 * The schedule is every 2 s (floor lowered to 1 s); the test waits for runs by polling their records and
 * asserts counts, never times.
 */
import { spawnSync } from 'node:child_process';
import { startModelServer, pageUrlOf, type Json, type ModelServer } from '../fixtures/model-server';
import { startMonitorSite, type MonitorSite } from '../fixtures/monitor-site';
import { describeWith, serverUrl, uniqueDbName } from '../harness/require-server';
import { http, waitFor } from './helpers';
import { API_MAIN, CRAWLER_MAIN, assertBuilt, startProcess, type AppProcess } from './processes';

jest.setTimeout(180_000);

const BOOTSTRAP = 'glk_' + 'M'.repeat(20) + 'c'.repeat(20);

describeWith(['redis', 'mongodb'], 'monitors on the cluster deployment (2 API + 2 crawler processes)', () => {
  const processes: AppProcess[] = [];
  let apiA: AppProcess;
  let apiB: AppProcess;
  let site: MonitorSite;
  let models: ModelServer;
  let monitorId = '';

  beforeAll(async () => {
    assertBuilt();
    site = await startMonitorSite(3);
    models = await startModelServer({
      answer: (request) => ((pageUrlOf(request) && site.truth(pageUrlOf(request)!)) || undefined) as Json,
    });
    const redisDb = 12;
    spawnSync('redis-cli', ['-u', `${serverUrl('redis')}/${redisDb}`, 'flushdb']);
    const env = {
      MONGODB_URI: `${serverUrl('mongodb')}/${uniqueDbName('gleaner_monitor_cluster')}`,
      REDIS_URL: `${serverUrl('redis')}/${redisDb}`,
      GLEANER_SECRET: 'monitor-cluster-secret-0123456789abcd',
      GLEANER_BOOTSTRAP_KEY: BOOTSTRAP,
      GLEANER_ALLOW_NETWORKS: '127.0.0.0/8',
      GLEANER_BROWSER_ENABLED: 'false',
      GLEANER_RATE_LIMIT_PER_MINUTE: '1000000',
      GLEANER_LLM_RETRIES: '0',
      GLEANER_QUEUE_STALLED_MS: '2000',
      GLEANER_SHUTDOWN_GRACE_MS: '300',
      GLEANER_MONITOR_TICK_MS: '50',
      GLEANER_MONITOR_JITTER_S: '0',
      GLEANER_MONITOR_MIN_INTERVAL_S: '1',
    };
    apiA = await startProcess('api-a', API_MAIN, ['--role=api'], env, 'PORT');
    apiB = await startProcess('api-b', API_MAIN, ['--role=api'], env, 'PORT');
    processes.push(apiA, apiB);
    processes.push(await startProcess('crawler-1', CRAWLER_MAIN, [], env, 'CRAWLER_PORT'));
    processes.push(await startProcess('crawler-2', CRAWLER_MAIN, [], env, 'CRAWLER_PORT'));
  });

  afterAll(async () => {
    await Promise.all(processes.map((p) => p.stop('SIGKILL')));
    await site?.close();
    await models?.close();
  });

  const runsVia = async (api: AppProcess) =>
    (await http(api.url, 'GET', `/api/v1/monitors/${monitorId}/runs?limit=100`, { key: BOOTSTRAP })).body.runs as Array<
      Record<string, any>
    >;

  /**
   * Each started run has its own crawl job, and every crawl job of the monitor belongs to one run. The monitor may
   * still be running every 2 s: the runs and jobs are read between two equal reads of the runs, none of them still
   * starting (a run is written before its job, then names it), so both lists are of the same moment.
   */
  async function expectOneJobPerRun(api: AppProcess): Promise<void> {
    const settled = (runs: Array<Record<string, any>>) => JSON.stringify(runs.map((r) => [r.id, r.status, r.job_id ?? null]));
    let snapshot: { runs: Array<Record<string, any>>; jobs: Array<Record<string, any>> } | null = null;
    await waitFor(
      async () => {
        const before = await runsVia(api);
        const jobs = (
          (await http(api.url, 'GET', '/api/v1/jobs?limit=100', { key: BOOTSTRAP })).body.jobs as Array<Record<string, any>>
        ).filter((j) => j.monitor_id === monitorId);
        const after = await runsVia(api);
        const still = after.some((r) => r.status === 'starting' || (r.status !== 'skipped' && !r.job_id));
        if (still || settled(before) !== settled(after)) return false;
        snapshot = { runs: after.filter((r) => r.status !== 'skipped'), jobs };
        return true;
      },
      30_000,
      50,
    );
    const { runs, jobs } = snapshot!;
    expect(new Set(runs.map((r) => r.due_at)).size).toBe(runs.length);
    expect(jobs.map((j) => j.id).sort()).toEqual(runs.map((r) => r.job_id).sort());
  }

  it('starts each due slot once although both API replicas run the scheduler', async () => {
    const created = await http(apiA.url, 'POST', '/api/v1/monitors', {
      key: BOOTSTRAP,
      body: {
        name: 'cluster',
        url: `${site.url}/`,
        schema: { name: 'string', price: 'number', items: [{ sku: 'string', price: 'number' }] },
        options: { max_depth: 1, fetch_mode: 'static' },
        llm_config: { provider: 'openai', model: 'gpt-4o-mini', api_key: 'sk-cluster', base_url: models.openaiBaseUrl },
        schedule: { every: '2s' },
      },
    });
    expect(created.status).toBe(201);
    monitorId = created.body.id;
    await waitFor(async () => (await runsVia(apiB)).filter((r) => r.status === 'completed').length >= 2, 90_000, 200);
    await expectOneJobPerRun(apiB);
  });

  it('after the kill -9 of a replica, the next due runs still start, once each', async () => {
    await apiA.stop('SIGKILL');
    const killedAt = new Date().toISOString();
    await waitFor(
      async () => (await runsVia(apiB)).filter((r) => r.status === 'completed' && r.due_at > killedAt).length >= 2,
      90_000,
      200,
    );
    const paused = await http(apiB.url, 'POST', `/api/v1/monitors/${monitorId}/pause`, { key: BOOTSTRAP });
    expect(paused.body.paused).toBe(true);
    // A run going on when paused ends normally; then the books are closed.
    await waitFor(async () => (await runsVia(apiB)).every((r) => r.status !== 'running' && r.status !== 'starting'), 90_000, 200);
    await expectOneJobPerRun(apiB);
    for (const p of processes) expect(p.output()).not.toContain('sk-cluster');
  });
});
