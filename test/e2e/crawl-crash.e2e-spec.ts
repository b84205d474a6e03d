/**
 * The crawl's guarantees under process failure, with the built apps as real processes:
 * kill -9 of the owner (embedded: restart; cluster: another crawler takes over), kill -9 of a page
 * worker, SIGTERM hand-back, a Redis restart, a page that kills its worker, and a stalled owner
 * (SIGSTOP past its lease) whose writes must be refused once another owner took over.
 *
 * What is checked each time: the crawl ends once (one `complete` event), every page has exactly one
 * result and one `result` event, no page completed before the failure is fetched again, a page in
 * flight at the failure is fetched at most once more, and max_pages holds exactly.
 */
import { pageUrlOf, startModelServer, type ModelServer, type RecordedRequest } from '../fixtures/model-server';
import { SHOP_PAGES, SHOP_PRODUCTS, startPlayground, type Playground } from '../fixtures/playground/playground';
import { describeWith, serverUrl, uniqueDbName } from '../harness/require-server';
import { startRedis, type StartedServer } from '../harness/servers';
import { Redis } from 'ioredis';
import { http, readSse, tempDir, waitFor } from './helpers';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ProcessStartError, ROOT, TEST_API_MAIN, TEST_CRAWLER_MAIN, assertBuilt, startProcess, type AppProcess } from './processes';

/** Keeps what the processes said (for a failed test: .test-servers/logs/<test>-<process>.log). */
function keepLogs(test: string, processes: AppProcess[]): void {
  const dir = join(ROOT, '.test-servers', 'logs');
  mkdirSync(dir, { recursive: true });
  for (const p of processes) writeFileSync(join(dir, `${test}-${p.name}.log`), p.output());
}

/** Starts the embedded app; null when it died on the way up (the poison page can take it down at once). */
async function tryStart(name: string, env: Record<string, string>): Promise<AppProcess | null> {
  try {
    return await startProcess(name, TEST_API_MAIN, [], env, 'PORT');
  } catch (error) {
    if (error instanceof ProcessStartError) return null;
    throw error;
  }
}

jest.setTimeout(420_000);

const KEY = 'glk_' + 'C'.repeat(20) + 'r'.repeat(20);
const SCHEMA = { name: 'string', price: 'string', sku: 'string' };
const ALL_PAGES = SHOP_PAGES + SHOP_PRODUCTS;
/** /with-poison links /poison and six products: 7 pages with the seed, and the poison one. */
const POISON_OPTIONS = { follow_selector: null, follow_pattern: '/(poison|product/\\d+)$', max_depth: 1, max_pages: 20, concurrency: 2 };

let play: Playground;
let models: ModelServer;
/** A test's hold on model answers (none: answered at once). */
let holdModel: ((request: RecordedRequest) => Promise<void>) | null = null;

beforeAll(async () => {
  assertBuilt();
  play = await startPlayground();
  models = await startModelServer({ hold: (request) => holdModel?.(request) });
});
afterAll(async () => {
  await play?.close();
  await models?.close();
});

function baseEnv(): Record<string, string> {
  return {
    GLEANER_BOOTSTRAP_KEY: KEY,
    GLEANER_ALLOW_NETWORKS: '127.0.0.0/8',
    GLEANER_RESOLVE: play.resolve,
    GLEANER_BROWSER_ENABLED: 'false',
    GLEANER_RATE_LIMIT_PER_MINUTE: '1000000',
    // Short enough for quick takeovers, long enough that a starved-but-alive worker on a busy machine
    // keeps its queue lock and its crawl lease (a false takeover would redo a page and fail the checks).
    GLEANER_QUEUE_STALLED_MS: '6000',
    GLEANER_CRAWL_LEASE_MS: '5000',
    GLEANER_SHUTDOWN_GRACE_MS: '10000',
    GLEANER_LLM_RETRIES: '0',
    LOG_LEVEL: 'info',
  };
}

const llm = (model = 'slow-150') => ({ provider: 'openai', model, api_key: 'sk-crash', base_url: models.openaiBaseUrl });

async function startCrawl(
  api: string,
  options: Record<string, unknown>,
  url = play.url('shop.test', '/catalog/page/1'),
  model?: string,
): Promise<string> {
  const res = await http(api, 'POST', '/api/v1/crawl', {
    key: KEY,
    body: {
      url,
      schema: SCHEMA,
      llm_config: llm(model),
      // null: leave the default out (a request's options are absent or set, never null).
      options: Object.fromEntries(
        Object.entries({ follow_selector: 'li.next a, a.product', max_depth: 10, concurrency: 4, ...options }).filter(
          ([, v]) => v !== null,
        ),
      ),
    },
  });
  expect([res.status, res.status === 202 ? null : res.body]).toEqual([202, null]);
  return res.body.job_id;
}

const job = async (api: string, id: string) => (await http(api, 'GET', `/api/v1/jobs/${id}`, { key: KEY })).body;
const terminal = (api: string, id: string) =>
  waitFor(async () => {
    const j = await job(api, id).catch(() => null);
    return j && ['completed', 'failed', 'cancelled'].includes(j.status) ? j : null;
  }, 180_000);

/** Product and catalog URLs whose results exist now (their pages were completed). */
async function completedUrls(api: string, id: string): Promise<string[]> {
  const items = (await http(api, 'GET', `/api/v1/jobs/${id}/results`, { key: KEY })).body as Array<{ url: string; status: string }>;
  return items.filter((i) => i.status === 'completed').map((i) => i.url);
}

const fetchesOf = (url: string, since: number) => play.requests.filter((r) => url === play.url(r.host, r.path) && r.at >= since).length;
const modelCallsFor = (url: string) => models.requests.filter((r) => r.userText.includes(`Page URL: ${url}\n`)).length;

/**
 * What the cluster's queues hold, printed when a cluster test fails: the page tasks (the Redis list queue: waiting,
 * delayed, failed, and each worker process's running list, whether it is alive and since when it looks dead), and
 * the crawl's own message in Bull's `crawls` queue (where it is, its stalls, its lock), so a crawl that stopped
 * moving says whether its page tasks wait, run, sleep or failed for good, or whether nobody took the crawl over.
 */
async function queueState(redisUrl: string, jobId: string): Promise<string> {
  const redis = new Redis(redisUrl, { maxRetriesPerRequest: 1 });
  try {
    const pages = 'gleaner:lq:crawl-pages';
    const consumers = await redis.smembers(`${pages}:consumers`);
    const crawls = 'gleaner:crawls';
    const state = {
      pages: {
        wait: await redis.lrange(`${pages}:wait`, 0, 20),
        delayed: await redis.zrange(`${pages}:delayed`, 0, 20),
        failed: await redis.hkeys(`${pages}:failed`),
        dead: await redis.hgetall(`${pages}:dead`),
        consumers: await Promise.all(
          consumers.map(async (c) => ({
            c,
            alive: await redis.pttl(`${pages}:alive:${c}`),
            running: await redis.lrange(`${pages}:active:${c}`, 0, 20),
          })),
        ),
      },
      crawl: {
        waiting: (await redis.lrange(`${crawls}:wait`, 0, -1)).includes(jobId),
        active: (await redis.lrange(`${crawls}:active`, 0, -1)).includes(jobId),
        delayed: (await redis.zscore(`${crawls}:delayed`, jobId)) !== null,
        failed: (await redis.zscore(`${crawls}:failed`, jobId)) !== null,
        message: await redis.hmget(`${crawls}:${jobId}`, 'attemptsMade', 'stalledCounter', 'failedReason'),
        lockMs: await redis.pttl(`${crawls}:${jobId}:lock`),
      },
    };
    return JSON.stringify(state, null, 1);
  } finally {
    redis.disconnect();
  }
}

/** The crawl's integrity after a failure: one result and one event per page, one complete, nothing left open. */
async function expectIntact(
  api: string,
  id: string,
  pages: number,
  completedBefore: string[],
  since: number,
  maxFetches = 2,
): Promise<void> {
  const done = await terminal(api, id);
  const failed = (await http(api, 'GET', `/api/v1/jobs/${id}/crawl-map?status=failed&limit=100`, { key: KEY })).body.entries;
  expect(failed).toEqual([]);
  expect(done).toMatchObject({ status: 'completed', page_count: pages, failed_count: 0 });
  const items = (await http(api, 'GET', `/api/v1/jobs/${id}/results`, { key: KEY })).body as Array<{ url: string }>;
  const mapped = (await http(api, 'GET', `/api/v1/jobs/${id}/crawl-map?status=completed&limit=1000`, { key: KEY })).body.entries as any[];
  const resultUrls = new Set(items.map((i) => i.url));
  const unlisted = mapped.filter((e) => e.result_id && !resultUrls.has(e.final_url ?? e.url));
  if (unlisted.length > 0) {
    // Diagnose: a result stored late (listed now), or never listed, and what the list held.
    const again = (await http(api, 'GET', `/api/v1/jobs/${id}/results`, { key: KEY })).body as Array<{ url: string; id: string }>;
    console.log(
      'UNLISTED',
      JSON.stringify({
        unlisted,
        first: items.length,
        again: again.length,
        now: again.filter((i) => unlisted.some((u) => u.result_id === i.id || (u.final_url ?? u.url) === i.url)),
        dupes: items.length - new Set(items.map((i) => i.url)).size,
      }),
    );
  }
  expect(unlisted).toEqual([]);
  expect(items).toHaveLength(pages);
  expect(new Set(items.map((i) => i.url)).size).toBe(pages);
  const stream = await readSse(`${api}/api/v1/jobs/${id}/stream`, { key: KEY, timeoutMs: 60_000 });
  expect(stream.events.filter((e) => e.event === 'complete')).toHaveLength(1);
  const announced = stream.events.filter((e) => e.event === 'result').map((e) => e.data.url);
  expect(announced).toHaveLength(pages);
  expect(new Set(announced).size).toBe(pages);
  const map = (await http(api, 'GET', `/api/v1/jobs/${id}/crawl-map`, { key: KEY })).body;
  expect(map.pending + map.running).toBe(0);
  expect(map.completed).toBe(pages);
  // Completed before the failure: never fetched again, never extracted again.
  for (const url of completedBefore) {
    expect([url, fetchesOf(url, since)]).toEqual([url, 1]);
    expect([url, modelCallsFor(url)]).toEqual([url, 1]);
  }
  // Anything else: at most one redo of a page that was in flight (per failure).
  for (const item of items) expect([item.url, fetchesOf(item.url, since) <= maxFetches]).toEqual([item.url, true]);
}

describe('crawl under failures, embedded deployment (restart on the same DATA_DIR)', () => {
  it('finishes after kill -9 mid-crawl: no completed page fetched again, max_pages exact', async () => {
    const env = { ...baseEnv(), DATA_DIR: tempDir('gleaner-crawl-crash-') };
    const since = Date.now();
    models.reset();
    const first = await startProcess('embedded-1', TEST_API_MAIN, [], env, 'PORT');
    const id = await startCrawl(first.url, { max_pages: 30 });
    await waitFor(async () => (await job(first.url, id)).page_count >= 8, 60_000);
    const before = await completedUrls(first.url, id);
    first.child.kill('SIGKILL');
    await first.exited;
    const second = await startProcess('embedded-2', TEST_API_MAIN, [], env, 'PORT');
    try {
      await expectIntact(second.url, id, 30, before, since);
      expect(play.requests.filter((r) => r.host === 'shop.test' && r.at >= since && r.path !== '/robots.txt').length).toBeLessThanOrEqual(
        30 + 4,
      );
    } finally {
      keepLogs('embedded-kill', [first, second]);
      await second.stop('SIGKILL');
    }
  });

  it('marks a page that kills its worker three times as failed (worker_crash) and completes the crawl', async () => {
    const env = { ...baseEnv(), DATA_DIR: tempDir('gleaner-crawl-poison-') };
    const seen: AppProcess[] = [];
    let current = await startProcess('embedded-p0', TEST_API_MAIN, [], env, 'PORT');
    seen.push(current);
    const id = await startCrawl(current.url, POISON_OPTIONS, play.url('shop.test', '/with-poison'));
    // A supervisor: every time the poison page takes the process down (even on its way up), start it again.
    let starts = 1;
    for (;;) {
      const proc = current;
      const outcome = await waitFor(async () => {
        if (proc.child.exitCode !== null || proc.child.signalCode !== null) return 'died' as const;
        const j = await job(proc.url, id).catch(() => null);
        return j && ['completed', 'failed', 'cancelled'].includes(j.status) ? ('done' as const) : null;
      }, 180_000);
      if (outcome === 'done') break;
      let next: AppProcess | null = null;
      while (!next) {
        expect(starts).toBeLessThanOrEqual(8);
        next = await tryStart(`embedded-p${starts++}`, env);
      }
      current = next;
      seen.push(current);
    }
    try {
      const done = await job(current.url, id);
      const failed = (await http(current.url, 'GET', `/api/v1/jobs/${id}/crawl-map?status=failed`, { key: KEY })).body.entries;
      expect(failed.map((e: any) => [e.url.replace(/^.*:\d+/, ''), e.error_category])).toEqual([['/poison', 'worker_crash']]);
      expect(done).toMatchObject({ status: 'completed', page_count: 7, failed_count: 1 });
      const map = (await http(current.url, 'GET', `/api/v1/jobs/${id}/crawl-map`, { key: KEY })).body;
      expect(map.entries.find((e: any) => e.url.endsWith('/poison'))).toMatchObject({ status: 'failed', error_category: 'worker_crash' });
      expect(map.error_summary.by_category).toEqual({ worker_crash: 1 });
    } finally {
      keepLogs('embedded-poison', seen);
      await current.stop('SIGKILL');
    }
  });
});

describeWith(['mongodb'], 'crawl under failures, cluster deployment (1 API, 2 crawlers)', () => {
  let redis: StartedServer;
  let redisPort: number;
  let env: Record<string, string>;
  let api: AppProcess;
  const crawlers: AppProcess[] = [];
  let serial = 0;

  const startCrawler = async () => {
    const crawler = await startProcess(`crawler-${++serial}`, TEST_CRAWLER_MAIN, [], env, 'CRAWLER_PORT');
    crawlers.push(crawler);
    return crawler;
  };
  const alive = () => crawlers.filter((c) => c.child.exitCode === null && c.child.signalCode === null);
  /** The crawler process that owns a crawl now (it logs "crawl owned" with the job id and its epoch). */
  const ownerOf = (id: string, minEpoch = 1) =>
    waitFor(async () => {
      let best: { crawler: AppProcess; epoch: number } | null = null;
      for (const crawler of alive()) {
        for (const line of crawler.output().split('\n')) {
          if (!line.includes('"crawl owned"') || !line.includes(id)) continue;
          const epoch = Number(/"epoch":(\d+)/.exec(line)?.[1] ?? 0);
          if (epoch >= minEpoch && (!best || epoch > best.epoch)) best = { crawler, epoch };
        }
      }
      return best;
    }, 60_000);

  beforeAll(async () => {
    redis = await startRedis();
    redisPort = Number(new URL(redis.url).port);
    env = {
      ...baseEnv(),
      MONGODB_URI: `${serverUrl('mongodb')}/${uniqueDbName('gleaner_crawl_crash')}`,
      REDIS_URL: redis.url,
      GLEANER_SECRET: 'crawl-crash-secret-0123456789abcdefgh',
    };
    api = await startProcess('api', TEST_API_MAIN, ['--role=api'], env, 'PORT');
    await startCrawler();
    await startCrawler();
  });

  afterEach(() => keepLogs(`cluster-${expect.getState().currentTestName?.slice(60, 90).replace(/\W+/g, '-')}`, [api, ...crawlers]));

  afterAll(async () => {
    await Promise.all([api, ...crawlers].map((p) => p?.stop('SIGKILL')));
    await redis?.stop();
  });

  beforeEach(() => {
    // Keep two live crawlers for every test.
    return Promise.all(Array.from({ length: Math.max(0, 2 - alive().length) }, () => startCrawler()));
  });

  it('kill -9 of the owning crawler: the other one takes the crawl over and finishes it', async () => {
    const since = Date.now();
    models.reset();
    const id = await startCrawl(api.url, { max_pages: 40 });
    const { crawler: owner } = await ownerOf(id);
    await waitFor(async () => (await job(api.url, id)).page_count >= 8, 60_000);
    const before = await completedUrls(api.url, id);
    owner.child.kill('SIGKILL');
    await owner.exited;
    const next = await ownerOf(id, 2);
    expect(next.crawler).not.toBe(owner);
    await expectIntact(api.url, id, 40, before, since);
  });

  it('kill -9 of the owner three times in a row (a new crawler each time): the crawl converges, nothing twice', async () => {
    const since = Date.now();
    models.reset();
    // One crawler at a time, so that every page in flight is on the owner. Each kill waits for one page
    // (the first one sent to the model after some progress), held at the model, to be in flight on the
    // owner: three deaths with that page in flight (the first shared, the next two alone), which must not
    // fail it as worker_crash (docs/crawl.md "A page that kills its worker").
    await Promise.all(
      alive()
        .slice(1)
        .map((c) => c.stop('SIGKILL')),
    );
    let armed = false;
    let heldUrl: string | null = null;
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    holdModel = async (request) => {
      const url = pageUrlOf(request);
      if (armed && !heldUrl) heldUrl = url;
      if (url && url === heldUrl) await released;
    };
    try {
      // 120 pages of ~1 s each.
      const id = await startCrawl(
        api.url,
        { follow_selector: null, max_depth: 10, max_pages: 200, concurrency: 4 },
        play.url('big.test', '/?size=120'),
        'slow-1000',
      );
      let epoch = 1;
      let before: string[] | null = null;
      for (let kill = 1; kill <= 3; kill++) {
        const { crawler: owner, epoch: owned } = await ownerOf(id, epoch);
        if (kill === 1) {
          await waitFor(async () => (await job(api.url, id)).page_count >= 3, 120_000);
          armed = true;
        }
        // The kill point: the held page's run number `kill` is at the model, on the owner (the one crawler).
        const url = await waitFor(async () => heldUrl !== null && modelCallsFor(heldUrl) >= kill && heldUrl, 120_000);
        expect(alive()).toEqual([owner]);
        before ??= await completedUrls(api.url, id);
        expect(before).not.toContain(url);
        owner.child.kill('SIGKILL');
        await owner.exited;
        await startCrawler();
        epoch = owned + 1;
      }
      release();
      await ownerOf(id, epoch);
      await expectIntact(api.url, id, 120, before ?? [], since, 4);
      const failed = (await http(api.url, 'GET', `/api/v1/jobs/${id}/crawl-map?status=failed`, { key: KEY })).body.entries;
      expect(failed.filter((e: any) => e.error_category === 'worker_crash')).toEqual([]);
      expect(modelCallsFor(heldUrl!)).toBe(4);
    } finally {
      release();
      holdModel = null;
    }
  });

  it('kill -9 of a page worker: its pages are redone by another', async () => {
    const since = Date.now();
    models.reset();
    const id = await startCrawl(api.url, { max_pages: 200, concurrency: 8 });
    const { crawler: owner } = await ownerOf(id);
    const worker = alive().find((c) => c !== owner)!;
    await waitFor(async () => (await job(api.url, id)).page_count >= 6, 60_000);
    worker.child.kill('SIGKILL');
    await worker.exited;
    await expectIntact(api.url, id, ALL_PAGES, [], since);
  });

  it('SIGTERM of the owner: in-flight pages finish or are handed back, exit 0, another crawler resumes', async () => {
    const since = Date.now();
    models.reset();
    const id = await startCrawl(api.url, { max_pages: 200 });
    const { crawler: owner } = await ownerOf(id);
    await waitFor(async () => (await job(api.url, id)).page_count >= 6, 60_000);
    const before = await completedUrls(api.url, id);
    expect(await owner.stop('SIGTERM')).toBe(0);
    expect(owner.output()).toMatch(/crawl actor stopping[^\n]*|"reason":"shutdown"/);
    await expectIntact(api.url, id, ALL_PAGES, before, since);
  });

  it('a Redis restart mid-crawl: the crawl resumes and finishes', async () => {
    const since = Date.now();
    models.reset();
    const id = await startCrawl(api.url, { max_pages: 200 });
    await waitFor(async () => (await job(api.url, id)).page_count >= 6, 60_000);
    const before = await completedUrls(api.url, id);
    await redis.stop();
    redis = await startRedis({ port: redisPort });
    await expectIntact(api.url, id, ALL_PAGES, before, since).catch(async (error: unknown) => {
      console.log('QUEUES after the Redis restart', await queueState(redis.url, id).catch(String));
      throw error;
    });
  });

  it('a page that kills its worker three times is failed (worker_crash); the crawl completes', async () => {
    const id = await startCrawl(api.url, POISON_OPTIONS, play.url('shop.test', '/with-poison'));
    // A supervisor: a crawler the poison page took down is replaced.
    const done = await waitFor(async () => {
      if (alive().length < 2) await startCrawler();
      const j = await job(api.url, id);
      return ['completed', 'failed'].includes(j.status) ? j : null;
    }, 180_000);
    expect(done).toMatchObject({ status: 'completed', page_count: 7, failed_count: 1 });
    const map = (await http(api.url, 'GET', `/api/v1/jobs/${id}/crawl-map`, { key: KEY })).body;
    expect(map.entries.find((e: any) => e.url.endsWith('/poison'))).toMatchObject({ status: 'failed', error_category: 'worker_crash' });
    expect(crawlers.filter((c) => c.child.signalCode === 'SIGKILL').length).toBeGreaterThanOrEqual(3);
  });

  it('a stalled owner (SIGSTOP past its lease) loses the crawl: its writes are refused, it stops, nothing is duplicated', async () => {
    const since = Date.now();
    models.reset();
    const id = await startCrawl(api.url, { max_pages: 200 });
    const { crawler: owner } = await ownerOf(id);
    await waitFor(async () => (await job(api.url, id)).page_count >= 4, 60_000);
    const diagnosed = async (error: unknown) => {
      console.log('QUEUES with the stalled owner', await queueState(redis.url, id).catch(String));
      throw error;
    };
    owner.child.kill('SIGSTOP');
    try {
      const next = await ownerOf(id, 2).catch(diagnosed);
      expect(next.crawler).not.toBe(owner);
      await waitFor(async () => (await job(api.url, id)).page_count >= 12, 60_000).catch(diagnosed);
    } finally {
      owner.child.kill('SIGCONT');
    }
    await waitFor(async () => /"reason":"lease-lost"/.test(owner.output()), 60_000);
    await expectIntact(api.url, id, ALL_PAGES, [], since).catch(diagnosed);
    expect(owner.child.exitCode).toBeNull(); // the process lives on; only its actor for this crawl stopped
  });
});
