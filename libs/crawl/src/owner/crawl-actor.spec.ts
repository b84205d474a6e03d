/**
 * The crawl owner as a whole, without the app: the actor and all its parts over the embedded store, the
 * in-process queue, bus and politeness, Crawlee's real BasicCrawler, and a page worker played by the test
 * (it answers each page task from a little site map). The end-to-end suites run the same through the apps.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Configuration, LocalEventManager } from '@crawlee/core';
import { loadConfig } from '@app/config';
import { LocalEventBus } from '@app/events';
import { JobYieldedError } from '@app/jobs';
import { createLogger } from '@app/observability';
import { MemoryPoliteness } from '@app/politeness';
import { HandBackError, MemoryQueueAdapter } from '@app/queue';
import type { ResultRecord } from '@app/results';
import { toStoredOutcome } from '../stored-outcome';
import { LEASE_MS, WORKER, ownerFixture, type OwnerFixture } from '../../../../test/support/crawl-owner';
import {
  CRAWL_PAGES_QUEUE,
  crawlOutcomeChannel,
  pageTaskId,
  type CrawlEntry,
  type PageOutcome,
  type PageTaskPayload,
} from '../crawl.types';
import { CrawlActor, type CrawlActorDeps } from './crawl-actor';

/** The test's site: path → the links on the page. Pages not listed answer 404. */
type Site = Record<string, string[]>;

describe('CrawlActor (the owner without the app)', () => {
  let f: OwnerFixture;
  let dir: string;
  let events: LocalEventManager;
  let queue: MemoryQueueAdapter;
  let bus: LocalEventBus;
  let announced: string[];
  /** Jobs whose duplicate index the owner dropped. */
  let forgotten: string[];
  let tasks: PageTaskPayload[];
  /** Sitemap files by URL (absent: 404), and a gate they wait at when set. */
  let sitemaps: Record<string, string>;
  let sitemapGate: Promise<void> | null;
  /** When set, page tasks wait for it before answering. */
  let gate: Promise<void> | null;
  let openGate: () => void;

  /** Page tasks wait from now on until openGate() (afterEach opens it, so no handler is left waiting). */
  function holdPages(): void {
    gate = new Promise((resolve) => (openGate = resolve));
  }

  beforeAll(async () => {
    events = new LocalEventManager(new Configuration({ systemInfoV2: true, persistStorage: false }));
    await events.init();
  });
  afterAll(() => events.close());

  async function setUp(site: Site, options: Parameters<typeof ownerFixture>[0] = {}, extra: Parameters<typeof ownerFixture>[2] = {}) {
    f = await ownerFixture({ respect_robots: false, concurrency: 4, ...options }, 'http://shop.test/', extra);
    dir = mkdtempSync(join(tmpdir(), 'gleaner-actor-'));
    queue = new MemoryQueueAdapter();
    bus = new LocalEventBus();
    announced = [];
    forgotten = [];
    tasks = [];
    gate = null;
    openGate = () => undefined;
    sitemaps = {};
    sitemapGate = null;
    await queue.process<PageTaskPayload>(CRAWL_PAGES_QUEUE, 8, async (message) => {
      const task = message.payload;
      tasks.push(task);
      await gate;
      const taskId = pageTaskId(task.job_id, task.key, task.dispatch);
      await f.repository.outcomes.delivered(taskId, task.job_id);
      if (await f.repository.outcomes.finishOutcome(taskId, task.job_id, toStoredOutcome(answer(site, task))))
        await bus.publish(crawlOutcomeChannel(task.job_id), { task: taskId });
    });
  }
  afterEach(async () => {
    openGate();
    await queue.close();
    await bus.close();
    await f.close();
    rmSync(dir, { recursive: true, force: true });
  });

  function answer(site: Site, task: PageTaskPayload): PageOutcome {
    const path = new URL(task.url).pathname;
    const links = site[path];
    if (!links) {
      return {
        kind: 'failed',
        error_category: 'http_error',
        error_message: 'HTTP 404',
        error_details: 'HTTP 404',
        http_status: 404,
        final_url: task.url,
        retryable: false,
        usage: null,
      };
    }
    return {
      kind: 'completed',
      final_url: task.url,
      http_status: 200,
      fetch_mode: 'static',
      links,
      fetch_duration_ms: 1,
      extract_duration_ms: task.extract ? 1 : null,
      result: task.extract
        ? {
            data: { title: path },
            made: { method: 'model' },
            model: { provider: 'openai', model: 'm' },
            usage: { inputTokens: 3, outputTokens: 1, costUsd: 0.001, llmCostUsd: 0.001 },
          }
        : null,
    };
  }

  function actor(signal = f.abort.signal, workerId = WORKER, overrides: Partial<CrawlActorDeps> = {}): CrawlActor {
    const config = loadConfig({ DATA_DIR: dir, GLEANER_CRAWL_LEASE_MS: String(LEASE_MS), GLEANER_SHUTDOWN_GRACE_MS: '1000' });
    let n = 0;
    const records = new Map<string, ResultRecord>();
    const deps: CrawlActorDeps = {
      workerId,
      config,
      logger: createLogger({ level: 'silent' }),
      repository: f.repository,
      jobsRepository: f.jobs,
      jobs: {
        publishResult: async (_job, item) => {
          announced.push(String(item.url));
          return true;
        },
        publishPages: async (_job, pages) => {
          for (const page of pages) if (page.result) announced.push(String(page.result.item.url));
        },
        emit: async () => true,
        storeDrawn: async () => undefined,
        statusData: () => ({}),
      },
      results: {
        storePages: async (job, pages) =>
          pages.map(({ pageKey: key, input }) => {
            const record = { _id: `${job._id}:p:${key}`, id: `res_${++n}`, ...input } as unknown as ResultRecord;
            records.set(key, record);
            return record;
          }),
        // A duplicate's copy at the crawl's end (copy_duplicates).
        storePage: async (job, key, input) => {
          const record = { _id: `${job._id}:p:${key}`, id: `res_${++n}`, ...input } as unknown as ResultRecord;
          records.set(key, record);
          return record;
        },
        // A record an earlier owner stored: its entry says where it came from.
        pageRecord: async (job, key) => {
          const entry = await f.repository.entries.entry(`${job._id}:${key}`);
          return records.get(key) ?? (entry ? ({ id: entry.result_id, url: entry.url } as unknown as ResultRecord) : null);
        },
      },
      queue,
      bus,
      politeness: new MemoryPoliteness({ backoffBaseMs: 100, backoffMaxMs: 1000 }),
      staticFetcher: {
        fetch: async (url) => {
          await sitemapGate;
          const xml = sitemaps[url];
          if (xml === undefined) throw new Error(`no sitemap at ${url}`);
          return {
            url,
            status: 200,
            headers: {},
            contentType: 'application/xml',
            charset: 'utf-8',
            html: xml,
            bytes: xml.length,
            redirects: [],
            durationMs: 1,
            mode: 'static',
          };
        },
        fetchRaw: () => Promise.reject(new Error('no robots.txt in these tests')),
      },
      events,
      metrics: { takeovers: { inc: () => undefined }, commits: { inc: () => undefined } },
      duplicates: { forget: async (jobId) => void forgotten.push(jobId) },
      ...overrides,
    };
    return new CrawlActor(deps, { input: f.run.input, job: f.run.job, signal });
  }

  async function map(): Promise<Array<[string, string, string | null]>> {
    const out: Array<[string, string, string | null]> = [];
    for await (const e of f.repository.map.iterateMap({ userId: 'user_spec' }, f.run.jobId, {})) {
      out.push([new URL(e.url).pathname, e.status, e.error_category ?? null]);
    }
    return out;
  }

  it('crawls a site to the end: every page once, each announced once, counters exact', async () => {
    await setUp({ '/': ['/a', '/b', '/a'], '/a': ['/b', '/c', 'http://elsewhere.example/x'], '/b': ['/'], '/c': ['/missing'] });
    await actor().run();
    expect(await map()).toEqual([
      ['/', 'completed', null],
      ['/a', 'completed', null],
      ['/b', 'completed', null],
      ['/c', 'completed', null],
      ['/x', 'skipped', 'filtered'],
      ['/missing', 'failed', 'http_error'],
    ]);
    expect(announced.sort()).toEqual([
      'http://shop.test/',
      'http://shop.test/a',
      'http://shop.test/b',
      'http://shop.test/c',
      'http://shop.test/missing',
    ]);
    expect(tasks).toHaveLength(5);
    expect(await f.jobs.findForWorker(f.run.jobId)).toMatchObject({ page_count: 4, failed_count: 1, urls_queued: 5, cost_usd: 0.004 });
    expect(await f.repository.states.state(f.run.jobId)).toMatchObject({ finalized: true, errors_by_category: { http_error: 1 } });
  });

  it('admits exactly max_pages pages, across ticket blocks, and closes the rest as skipped', async () => {
    const site: Site = { '/': Array.from({ length: 40 }, (_, i) => `/p/${i}`) };
    for (let i = 0; i < 40; i++) site[`/p/${i}`] = [];
    await setUp(site, { max_pages: 21, concurrency: 8 });
    await actor().run();
    const entries = await map();
    expect(entries.filter(([, status]) => status === 'completed')).toHaveLength(21);
    expect(entries.filter(([, status, why]) => status === 'skipped' && why === 'max_pages')).toHaveLength(20);
    expect((await f.repository.states.state(f.run.jobId))?.admitted).toBe(21);
    expect(tasks).toHaveLength(21);
  });

  it('takes over from a dead owner: adopts its page in flight (using the outcome it left) and announces its leftovers once', async () => {
    await setUp({ '/': ['/a'], '/a': [] });
    // The dead owner (epoch 1) had admitted the seed (done, not yet announced) and /a (in flight, its outcome stored).
    await f.pending('/', {
      status: 'completed',
      result_id: 'res_old',
      ticket: 1,
      admitted: true,
      depth: 0,
      parent_url: null,
      event_done: false,
    });
    const a = await f.pending('/a', { status: 'running', ticket: 2, admitted: true, lease_epoch: 1 });
    await f.repository.states.updateState(f.run.jobId, 1, { $set: { admitted: 2, seed_done: true } });
    const taskId = pageTaskId(f.run.jobId, a.key, 0);
    await f.repository.outcomes.delivered(taskId, f.run.jobId);
    await f.repository.outcomes.finishOutcome(
      taskId,
      f.run.jobId,
      toStoredOutcome(answer({ '/a': [] }, { url: a.url, extract: true } as PageTaskPayload)),
    );
    await f.repository.states.release(f.run.jobId, 1);
    await actor(f.abort.signal, 'worker-next').run();
    expect(tasks.map((t) => t.url)).toEqual(['http://shop.test/a']); // re-sent under the same id, not run again
    expect(await map()).toEqual([
      ['/', 'completed', null],
      ['/a', 'completed', null],
    ]);
    expect(announced.sort()).toEqual(['http://shop.test/', 'http://shop.test/a']);
    expect((await f.repository.states.state(f.run.jobId))?.epoch).toBe(2);
  });

  it('reads the sitemaps while it crawls: the seed does not wait for them, the crawl ends after them', async () => {
    await setUp({ '/': [], '/from-sitemap': [] }, { use_sitemap: true });
    sitemaps['http://shop.test/sitemap.xml'] =
      '<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><url><loc>http://shop.test/from-sitemap</loc></url></urlset>';
    let readSitemap!: () => void;
    sitemapGate = new Promise((resolve) => (readSitemap = resolve));
    const running = actor().run();
    // The seed is fetched and committed while the sitemap is still being read.
    while (!announced.includes('http://shop.test/')) await new Promise((resolve) => setImmediate(resolve));
    expect(tasks.map((t) => t.url)).toEqual(['http://shop.test/']);
    readSitemap();
    await running;
    expect(await map()).toEqual([
      ['/', 'completed', null],
      ['/from-sitemap', 'completed', null],
    ]);
    expect((await f.repository.states.state(f.run.jobId))?.sitemap_done).toBe(true);
  });

  it('runs a batch: every listed URL once, in list order, none of their links followed, and drops the list', async () => {
    const source = { kind: 'list' as const, list_id: 'list_actor', urls: 3, duplicates: 0 };
    await setUp({ '/': ['/a', '/b'], '/b': ['/c'] }, { max_depth: 0, max_pages: 3, same_domain_only: false }, { source });
    await f.repository.lists.storeList(source.list_id, 'user_spec', [
      'http://shop.test/',
      'http://shop.test/b',
      'http://shop.test/missing',
    ]);
    await actor().run();
    expect(await map()).toEqual([
      ['/', 'completed', null],
      ['/b', 'completed', null],
      ['/missing', 'failed', 'http_error'],
    ]);
    expect(tasks.map((t) => new URL(t.url).pathname).sort()).toEqual(['/', '/b', '/missing']);
    expect(await f.jobs.findForWorker(f.run.jobId)).toMatchObject({ page_count: 2, failed_count: 1, urls_queued: 3 });
    expect(await f.repository.lists.listChunk(source.list_id, 0)).toBeNull();
  });

  it('loses its lease mid-crawl to another owner: it stops at its next heartbeat, writing nothing more', async () => {
    await setUp({ '/': ['/a'], '/a': [] });
    holdPages();
    const running = actor().run();
    while (tasks.length === 0) await new Promise((resolve) => setImmediate(resolve));
    // Another replica took the crawl (this owner looked dead to it) while the seed is in flight.
    await f.repository.states.acquire(f.run.jobId, 'worker-other', LEASE_MS, Date.now() + 2 * LEASE_MS);
    await expect(running).rejects.toBeInstanceOf(JobYieldedError);
    openGate(); // the page's outcome arrives late: nobody commits it
    const seed = (await f.repository.entries.entry(`${f.run.jobId}:${f.run.seed.key}`)) as CrawlEntry;
    expect(seed).toMatchObject({ status: 'running', event_done: false });
    expect(announced).toEqual([]);
  });

  it('an owner that handles no page for a while says, at warn, what it waits on', async () => {
    await setUp({ '/': [] });
    holdPages(); // the seed's task does not come back
    const warned: Array<{ fields: Record<string, unknown>; msg: string }> = [];
    let sawStall!: () => void;
    const stalled = new Promise<void>((resolve) => (sawStall = resolve));
    const logger = {
      child: () => logger,
      warn: (fields: Record<string, unknown>, msg: string) => {
        // The first lines may come before the seed's task is sent (a busy machine): the one that matters is after it.
        if (msg.startsWith('crawl owner handled no page') && fields.awaited_outcomes === 1) {
          warned.push({ fields, msg });
          sawStall();
        }
      },
      info: () => undefined,
      debug: () => undefined,
      error: () => undefined,
    } as unknown as CrawlActorDeps['logger'];
    const running = actor(f.abort.signal, WORKER, { logger, stallLogMs: 20 }).run();
    await stalled;
    const stall = warned[0];
    expect(stall.fields).toMatchObject({
      phase: 'crawl',
      handled: 0,
      in_flight: 1,
      in_flight_sample: ['http://shop.test/#0'],
      awaited_outcomes: 1,
      pool_tasks: 1,
      stop: null,
    });
    openGate();
    await running;
    expect(await map()).toEqual([['/', 'completed', null]]);
  });

  it('a cancel stops admission and closes everything left open as cancelled', async () => {
    await setUp({ '/': ['/a', '/b'], '/a': [], '/b': [] });
    holdPages(); // pages do not come back
    const abort = new AbortController();
    const running = actor(abort.signal).run();
    while (tasks.length === 0) await new Promise((resolve) => setImmediate(resolve));
    await f.jobs.transition(f.run.jobId, 'cancelled');
    abort.abort();
    await running;
    expect(await map()).toEqual([['/', 'skipped', 'cancelled']]);
    expect((await f.repository.states.state(f.run.jobId))?.finalized).toBe(true);
  });

  it('a cancel that lands before Crawlee runs ends the crawl even with an adopted page whose outcome never comes', async () => {
    await setUp({ '/': ['/a'], '/a': [] });
    holdPages(); // the adopted page's task never answers
    await f.pending('/', { status: 'completed', result_id: 'res_old', ticket: 1, admitted: true, depth: 0, parent_url: null });
    await f.pending('/a', { status: 'running', ticket: 2, admitted: true, lease_epoch: 1 });
    await f.repository.states.updateState(f.run.jobId, 1, { $set: { admitted: 2, seed_done: true } });
    await f.repository.states.release(f.run.jobId, 1);
    // The owner is held in its recovery (reading the pages in flight) while the cancel arrives.
    let reached!: () => void;
    const atRecovery = new Promise<void>((resolve) => (reached = resolve));
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    const running = f.repository.entries.running.bind(f.repository.entries);
    f.repository.entries.running = async (jobId: string) => {
      reached();
      await released;
      return running(jobId);
    };
    const abort = new AbortController();
    const crawlActor = actor(abort.signal, 'worker-next');
    const halted = new Promise<void>((resolve) => crawlActor['crawlRun'].onHalt(() => resolve()));
    const owner = crawlActor.run();
    await atRecovery;
    await f.jobs.transition(f.run.jobId, 'cancelled');
    abort.abort();
    await halted;
    release();
    await owner; // before the fix: Crawlee's pool waited forever for the adopted page
    expect(await map()).toEqual([
      ['/', 'completed', null],
      ['/a', 'skipped', 'cancelled'],
    ]);
    expect((await f.repository.states.state(f.run.jobId))?.finalized).toBe(true);
  });

  it('drops the duplicate index when the crawl completes', async () => {
    await setUp({ '/': ['/a'], '/a': [] }, { dedupe: 'near' });
    await actor().run();
    expect(forgotten).toEqual([f.run.jobId]);
  });

  it('drops the duplicate index of a crawl that failed (no page at all)', async () => {
    await setUp({}, { dedupe: 'exact' }); // the seed answers 404
    await expect(actor().run()).rejects.toMatchObject({ category: 'http_error' });
    expect(forgotten).toEqual([f.run.jobId]);
  });

  it('drops the duplicate index of a cancelled crawl, not of one handed back (its next owner asks it)', async () => {
    await setUp({ '/': ['/a'] }, { dedupe: 'near' });
    holdPages();
    const abort = new AbortController();
    const running = actor(abort.signal).run();
    while (tasks.length === 0) await new Promise((resolve) => setImmediate(resolve));
    abort.abort();
    await expect(running).rejects.toBeInstanceOf(HandBackError);
    expect(forgotten).toEqual([]);
    openGate();
    await Promise.all([queue.close(), bus.close(), f.close()]);
    rmSync(dir, { recursive: true, force: true });
    await setUp({ '/': ['/a'] }, { dedupe: 'near' });
    holdPages();
    const cancel = new AbortController();
    const cancelled = actor(cancel.signal).run();
    while (tasks.length === 0) await new Promise((resolve) => setImmediate(resolve));
    await f.jobs.transition(f.run.jobId, 'cancelled');
    cancel.abort();
    await cancelled;
    expect(forgotten).toEqual([f.run.jobId]);
  });

  it('a shutdown hands the crawl back at once for another owner', async () => {
    await setUp({ '/': [] });
    holdPages();
    const abort = new AbortController();
    const running = actor(abort.signal).run();
    while (tasks.length === 0) await new Promise((resolve) => setImmediate(resolve));
    abort.abort();
    await expect(running).rejects.toBeInstanceOf(HandBackError);
    expect(await f.repository.states.acquire(f.run.jobId, 'worker-next', LEASE_MS)).not.toBeNull();
    expect((await f.repository.entries.entry(`${f.run.jobId}:${f.run.seed.key}`))?.status).toBe('running');
  });
});
