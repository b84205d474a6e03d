/**
 * Politeness shared by every crawler replica, measured from the site's side (the playground logs
 * each request's arrival): the cluster deployment as built processes, 1 API and 2 crawlers, crawls
 * whose pages run on both crawlers. A paused host gets no request from anyone until its pause ends;
 * spacing (delay_ms, robots Crawl-delay) holds across crawls and replicas; a host that keeps
 * answering 429 is given up after the stall limit while the other hosts finish; robots.txt that
 * answers 404/403 allows everything, 500 or no answer disallows (after retries).
 */
import { startModelServer, type ModelServer } from '../fixtures/model-server';
import { startPlayground, type Playground, type PlaygroundRequest } from '../fixtures/playground/playground';
import { describeWith, serverUrl, uniqueDbName } from '../harness/require-server';
import { http, waitFor } from './helpers';
import { API_MAIN, CRAWLER_MAIN, assertBuilt, startProcess, type AppProcess } from './processes';

jest.setTimeout(180_000);

const KEY = 'glk_' + 'P'.repeat(20) + 'o'.repeat(20);
const SCHEMA = { name: 'string' };

describeWith(['mongodb', 'redis'], 'politeness across crawler replicas (1 API, 2 crawlers)', () => {
  let play: Playground;
  let models: ModelServer;
  const processes: AppProcess[] = [];
  let api: AppProcess;

  beforeAll(async () => {
    assertBuilt();
    play = await startPlayground();
    models = await startModelServer();
    const env = {
      MONGODB_URI: `${serverUrl('mongodb')}/${uniqueDbName('gleaner_politeness')}`,
      REDIS_URL: `${serverUrl('redis')}/11`,
      GLEANER_SECRET: 'politeness-test-secret-0123456789abcd',
      GLEANER_BOOTSTRAP_KEY: KEY,
      GLEANER_ALLOW_NETWORKS: '127.0.0.0/8',
      GLEANER_RESOLVE: play.resolve,
      GLEANER_BROWSER_ENABLED: 'false',
      GLEANER_RATE_LIMIT_PER_MINUTE: '1000000',
      // One request in flight per host, cluster-wide: a pause must stop the very next request.
      GLEANER_HOST_MAX_CONCURRENCY: '1',
      GLEANER_RATE_LIMIT_BACKOFF_BASE_MS: '700',
      // Well above the 2 s of refusals the first test makes, also when a busy machine slows everything.
      GLEANER_HOST_MAX_STALL_MS: '8000',
      GLEANER_ROBOTS_RETRY_MS: '300',
      GLEANER_FETCH_TIMEOUT_MS: '2500',
      GLEANER_LLM_RETRIES: '0',
    };
    api = await startProcess('api', API_MAIN, ['--role=api'], env, 'PORT');
    processes.push(api);
    processes.push(await startProcess('crawler-1', CRAWLER_MAIN, [], env, 'CRAWLER_PORT'));
    processes.push(await startProcess('crawler-2', CRAWLER_MAIN, [], env, 'CRAWLER_PORT'));
  });

  afterAll(async () => {
    await Promise.all(processes.map((p) => p.stop('SIGKILL')));
    await play?.close();
    await models?.close();
  });

  const llm = () => ({ provider: 'openai', model: 'gpt-4o-mini', api_key: 'sk-polite', base_url: models.openaiBaseUrl });
  async function crawl(url: string, options: Record<string, unknown>): Promise<string> {
    const res = await http(api.url, 'POST', '/api/v1/crawl', { key: KEY, body: { url, schema: SCHEMA, llm_config: llm(), options } });
    expect(res.status).toBe(202);
    return res.body.job_id;
  }
  const finished = (id: string) =>
    waitFor(async () => {
      const job = (await http(api.url, 'GET', `/api/v1/jobs/${id}`, { key: KEY })).body;
      return ['completed', 'failed', 'cancelled'].includes(job.status) ? job : null;
    }, 150_000);
  const crawlMap = async (id: string) => (await http(api.url, 'GET', `/api/v1/jobs/${id}/crawl-map`, { key: KEY })).body;
  const pages = (host: string, since: number) => play.requestsTo(host).filter((r) => r.at >= since && r.path !== '/robots.txt');
  /** After every refused request, the next request (from anyone) arrived no sooner than `pauseMs(r)` later. */
  function expectPausedAfterEachRefusal(requests: PlaygroundRequest[], pauseMs: (r: PlaygroundRequest) => number): void {
    const refused = requests.filter((r) => r.status === 429 || r.status === 503);
    expect(refused.length).toBeGreaterThan(0);
    for (const r of refused) {
      const next = requests.find((n) => n.at > r.at || (n.at === r.at && n !== r && requests.indexOf(n) > requests.indexOf(r)));
      if (next) expect([r.path, r.status, next.at - r.at >= pauseMs(r)]).toEqual([r.path, r.status, true]);
    }
  }

  it('pauses a host for every worker of every replica after a 429 with Retry-After, then finishes its pages', async () => {
    const since = Date.now();
    // Two refusals of 1 s each stay well inside the stall limit (GLEANER_HOST_MAX_STALL_MS above).
    play.limit('limited.test', { count: 2, status: 429, retryAfter: 1 });
    const [a, b] = [
      await crawl(play.url('limited.test', '/'), { max_depth: 1, concurrency: 4 }),
      await crawl(play.url('limited.test', '/'), { max_depth: 1, concurrency: 4 }),
    ];
    const [jobA, jobB] = [await finished(a), await finished(b)];
    play.unlimit('limited.test');
    expect(jobA).toMatchObject({ status: 'completed', page_count: 7, failed_count: 0 });
    expect(jobB).toMatchObject({ status: 'completed', page_count: 7, failed_count: 0 });
    expectPausedAfterEachRefusal(pages('limited.test', since), () => 1000);
    expect((await crawlMap(a)).error_summary.has_rate_limit || (await crawlMap(b)).error_summary.has_rate_limit).toBe(true);
  });

  it('reads Retry-After as an HTTP date, treats 0 and a missing one as the capped backoff, and 503 + Retry-After like 429', async () => {
    const until = new Date(Date.now() + 3000);
    let since = Date.now();
    play.limit('limited.test', { count: 1, status: 429, retryAfter: until.toUTCString() });
    expect((await finished(await crawl(play.url('limited.test', '/'), { max_depth: 0 }))).status).toBe('completed');
    const dated = pages('limited.test', since);
    expect(dated[0].status).toBe(429);
    expect(dated[1].at).toBeGreaterThanOrEqual(Math.floor(until.getTime() / 1000) * 1000);

    for (const retryAfter of [0, undefined]) {
      since = Date.now();
      play.limit('limited.test', { count: 2, status: 429, retryAfter });
      expect((await finished(await crawl(play.url('limited.test', '/'), { max_depth: 0 }))).status).toBe('completed');
      // Base 700 ms, then 1,400 ms for the second burst.
      const seen = pages('limited.test', since);
      expect(seen.map((r) => r.status)).toEqual([429, 429, 200]);
      expect(seen[1].at - seen[0].at).toBeGreaterThanOrEqual(700);
      expect(seen[2].at - seen[1].at).toBeGreaterThanOrEqual(1400);
    }

    since = Date.now();
    play.limit('limited.test', { count: 1, status: 503, retryAfter: 1 });
    const job = await finished(await crawl(play.url('limited.test', '/'), { max_depth: 0 }));
    expect(job).toMatchObject({ status: 'completed', page_count: 1 });
    expectPausedAfterEachRefusal(pages('limited.test', since), () => 1000);
    expect((await crawlMap(job.id)).entries[0]).toMatchObject({ status: 'completed', rate_limited: true });
  });

  it('gives up a host that keeps rate limiting past the stall limit; the other hosts finish', async () => {
    play.limit('h2.test', { count: Infinity, status: 429 });
    const job = await finished(
      await crawl(play.url('hub.test', '/?hosts=4'), { same_domain_only: false, max_depth: 2, concurrency: 4, max_pages: 50 }),
    );
    play.unlimit('h2.test');
    expect(job).toMatchObject({ status: 'completed', page_count: 1 + 3 * 4, failed_count: 1 });
    const map = await crawlMap(job.id);
    expect(map.entries.find((e: any) => e.url.startsWith('http://h2.test'))).toMatchObject({
      status: 'failed',
      error_category: 'rate_limit',
    });
    expect(map.error_summary).toMatchObject({ by_category: { rate_limit: 1 }, has_rate_limit: true });
  });

  it('spaces requests by delay_ms across two crawls on two replicas, and by robots Crawl-delay', async () => {
    let since = Date.now();
    const options = { follow_selector: 'a.product', max_depth: 1, max_pages: 5, delay_ms: 500, concurrency: 4 };
    const ids = [
      await crawl(play.url('shop.test', '/catalog/page/1'), options),
      await crawl(play.url('shop.test', '/catalog/page/2'), options),
    ];
    for (const id of ids) expect((await finished(id)).page_count).toBe(5);
    const arrivals = pages('shop.test', since).map((r) => r.at);
    expect(arrivals.length).toBe(10);
    for (let i = 1; i < arrivals.length; i++) expect(arrivals[i] - arrivals[i - 1]).toBeGreaterThanOrEqual(500);

    since = Date.now();
    const slow = [
      await crawl(play.url('slow.test', '/'), { max_depth: 2, concurrency: 4 }),
      await crawl(play.url('slow.test', '/'), { max_depth: 2, concurrency: 4 }),
    ];
    for (const id of slow) expect((await finished(id)).status).toBe('completed');
    const slowArrivals = pages('slow.test', since).map((r) => r.at);
    expect(slowArrivals.length).toBe(6);
    for (let i = 1; i < slowArrivals.length; i++) expect(slowArrivals[i] - slowArrivals[i - 1]).toBeGreaterThanOrEqual(1000);
  });

  it('robots.txt: 404 and 403 allow everything; 500 and no answer disallow, after retries', async () => {
    for (const host of ['robots404.test', 'robots403.test']) {
      const job = await finished(await crawl(play.url(host, '/'), { max_depth: 1 }));
      expect([host, job.status, job.page_count]).toEqual([host, 'completed', 2]);
    }
    for (const host of ['robots500.test', 'robotsdown.test']) {
      const job = await finished(await crawl(play.url(host, '/'), { max_depth: 1 }));
      expect([host, job.status, job.error_category]).toEqual([host, 'failed', 'robots_disallowed']);
      const seed = (await crawlMap(job.id)).entries[0];
      expect(seed).toMatchObject({ status: 'skipped', error_category: 'robots' });
      expect(play.requestsTo(host).filter((r) => r.path === '/robots.txt').length).toBeGreaterThanOrEqual(2);
      expect(pages(host, 0)).toEqual([]);
    }
  });
});
