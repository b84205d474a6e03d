/**
 * Failover with the DEFAULT queue settings (no GLEANER_QUEUE_STALLED_MS / GLEANER_CRAWL_LEASE_MS
 * override), the built apps as real processes on Redis and the MongoDB-wire server:
 *
 * - kill -9 of the crawler running an extraction whose model takes seconds; a second crawler started
 *   afterwards finishes it: one result, one `complete` event, the model call in flight redone once;
 * - no false takeover: a job running for 2.5 lock durations on one of two live crawlers is never
 *   handed to the other (its model is called once).
 *
 * Outcomes only: how long a failover takes is measured by the chaos soak (`npm run soak`,
 * bench-results/soak.json), not asserted here.
 */
import { startModelServer, type ModelServer } from '../fixtures/model-server';
import { product, startPlayground, type Playground } from '../fixtures/playground/playground';
import { describeWith, serverUrl, uniqueDbName } from '../harness/require-server';
import { startRedis, type StartedServer } from '../harness/servers';
import { http, readSse, waitFor } from './helpers';
import { API_MAIN, CRAWLER_MAIN, assertBuilt, startProcess, type AppProcess } from './processes';

jest.setTimeout(180_000);

const KEY = 'glk_' + 'F'.repeat(20) + 'o'.repeat(20);
const SCHEMA = { name: 'string', price: 'string', sku: 'string' };
/** The default GLEANER_QUEUE_STALLED_MS: the busy job below runs for 2.5 times it. */
const DEFAULT_LOCK_MS = 10_000;

describeWith(['mongodb'], 'failover with default settings (cluster: 1 API, crawlers on Redis + MongoDB-wire)', () => {
  let play: Playground;
  let models: ModelServer;
  let redis: StartedServer;
  let env: Record<string, string>;
  let api: AppProcess;
  const processes: AppProcess[] = [];
  let serial = 0;

  const startCrawler = async () => {
    const crawler = await startProcess(`crawler-${++serial}`, CRAWLER_MAIN, [], env, 'CRAWLER_PORT');
    processes.push(crawler);
    return crawler;
  };
  const job = async (id: string) => (await http(api.url, 'GET', `/api/v1/jobs/${id}`, { key: KEY })).body;
  const callsFor = (path: string) => models.requests.filter((r) => r.userText.includes(path));
  const extract = (path: string, model: string) =>
    http(api.url, 'POST', '/api/v1/extract', {
      key: KEY,
      body: {
        url: play.url('shop.test', path),
        schema: SCHEMA,
        fetch_mode: 'static',
        llm_config: { provider: 'openai', model, api_key: 'sk-failover', base_url: models.openaiBaseUrl },
      },
    });

  beforeAll(async () => {
    assertBuilt();
    play = await startPlayground();
    models = await startModelServer();
    redis = await startRedis();
    env = {
      MONGODB_URI: `${serverUrl('mongodb')}/${uniqueDbName('gleaner_failover')}`,
      REDIS_URL: redis.url,
      GLEANER_SECRET: 'failover-test-secret-0123456789abcdef',
      GLEANER_BOOTSTRAP_KEY: KEY,
      GLEANER_ALLOW_NETWORKS: '127.0.0.0/8',
      GLEANER_RESOLVE: play.resolve,
      GLEANER_BROWSER_ENABLED: 'false',
      GLEANER_RATE_LIMIT_PER_MINUTE: '1000000',
      GLEANER_LLM_RETRIES: '0',
    };
    api = await startProcess('api', API_MAIN, ['--role=api'], env, 'PORT');
    processes.push(api);
  });

  afterAll(async () => {
    await Promise.all(processes.map((p) => p.stop('SIGKILL')));
    await redis?.stop();
    await play?.close();
    await models?.close();
  });

  it('kill -9 of the crawler mid-extract: a crawler started afterwards finishes the job once', async () => {
    const first = await startCrawler();
    const pending = extract('/product/7', 'slow-4000');
    // The model call is in flight on the only crawler: the job is provably running there.
    await waitFor(async () => callsFor('/product/7').length === 1, 60_000);
    first.child.kill('SIGKILL');
    await first.exited;
    const second = await startCrawler();

    const res = await pending;
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({ name: product(7).name, price: product(7).price, sku: product(7).sku });
    const id = res.body.job_id as string;
    expect(await job(id)).toMatchObject({ status: 'completed', page_count: 1, failed_count: 0 });
    const results = (await http(api.url, 'GET', `/api/v1/jobs/${id}/results`, { key: KEY })).body as unknown[];
    expect(results).toHaveLength(1);
    const stream = await readSse(`${api.url}/api/v1/jobs/${id}/stream`, { key: KEY, timeoutMs: 30_000 });
    expect(stream.ended).toBe(true);
    expect(stream.events.filter((e) => e.event === 'complete')).toHaveLength(1);
    expect(stream.events.filter((e) => e.event === 'result')).toHaveLength(1);
    // The call in flight at the kill was redone once, by the second crawler.
    expect(callsFor('/product/7')).toHaveLength(2);
    expect(second.output()).toContain(id);
    expect(second.output()).not.toMatch(/"level":(50|60)|"level":"(error|fatal)"/);
  });

  it('keeps a long job on its live, busy crawler (no false takeover by another crawler)', async () => {
    // Two live crawlers; the job runs 2.5 lock durations, across a dozen stalled checks of both.
    while (processes.filter((p) => p.name.startsWith('crawler') && p.child.exitCode === null && p.child.signalCode === null).length < 2) {
      await startCrawler();
    }
    const model = `slow-${DEFAULT_LOCK_MS * 2.5}`;
    const res = await extract('/product/11', model);
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ sku: product(11).sku });
    const id = res.body.job_id as string;
    expect(await job(id)).toMatchObject({ status: 'completed', page_count: 1 });
    expect(callsFor('/product/11')).toHaveLength(1);
    // Logs are written asynchronously: wait until the runner's "job finished" line is out, then check
    // that no other crawler ever logged the job.
    const runners = () => processes.filter((p) => p.name.startsWith('crawler') && p.output().includes(id));
    await waitFor(
      async () =>
        runners().some((p) =>
          p
            .output()
            .split('\n')
            .some((l) => l.includes(id) && l.includes('"job finished"')),
        ),
      30_000,
    );
    expect(runners().map((p) => p.name)).toHaveLength(1);
  });
});
