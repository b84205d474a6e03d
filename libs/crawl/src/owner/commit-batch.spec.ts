import type { ResultRecord } from '@app/results';
import { ownerFixture, type OwnerFixture } from '../../../../test/support/crawl-owner';
import type { CrawlEntry } from '../crawl.types';
import { CommitBatch, commitLinger, COMMIT_BATCH_LINGER_MS, COMMIT_BATCH_MAX_LINGER_MS, type PageCommit } from './commit-batch';
import type { WindowEntry } from './frontier-window';
import { HostSchedule } from './host-schedule';
import { InFlightPages } from './in-flight';

/**
 * The commit batch on the real crawl repository (SQLite): pages finished together are written together, one
 * request per step, in a single page's commit order; a store error or a stale owner is every page's.
 */
describe('CommitBatch', () => {
  let f: OwnerFixture;
  let calls: string[];
  let leaseHeld: boolean;
  let failAt: string | null;
  let waiting: number;
  let inFlight: InFlightPages;
  let batch: CommitBatch;
  /** Task ids whose delivery counts the batch let go, and those calls. */
  let forgotten: string[];
  let forgetting: Promise<void>[];

  beforeEach(async () => {
    f = await ownerFixture();
    calls = [];
    forgotten = [];
    forgetting = [];
    leaseHeld = true;
    failAt = null;
    waiting = 0;
    inFlight = new InFlightPages(new HostSchedule({ delayMs: 0, minIntervalMs: 0, maxConcurrency: 100 }));
    const step = (name: string) => {
      calls.push(name);
      if (failAt === name) throw new Error('store down');
    };
    let n = 0;
    batch = new CommitBatch(
      f.run,
      {
        store: {
          settleMany: async (epoch, items) => {
            step(`settle ${items.length}`);
            return f.repository.entries.settleMany(epoch, items);
          },
        },
        outcomes: {
          storeOutcomes: async (job, items) => {
            step(`outcomes ${items.length}`);
            return f.repository.outcomes.storeOutcomes(job, items);
          },
          forget: (job, tasks) => {
            forgotten.push(...tasks);
            const done = f.repository.outcomes.forget(job, tasks);
            forgetting.push(done);
            return done;
          },
        },
        results: {
          storePages: async (_job, pages) => {
            step(`results ${pages.length}`);
            return pages.map((p) => ({ _id: p.pageKey, id: `res_${++n}` }) as unknown as ResultRecord);
          },
        },
        announcer: {
          announceMany: async (pages) => {
            step(`announce ${pages.map((p) => `${p.page.status}:${p.record?.id ?? '-'}`).join(',')}`);
          },
        },
        lease: { holds: async () => leaseHeld },
        inFlight,
        metrics: { commits: { inc: () => undefined } },
        waiting: () => waiting,
      },
      { max: 3, minLingerMs: 60_000, maxLingerMs: 60_000 },
    );
  });
  afterEach(async () => {
    batch.close();
    await f.close();
  });

  async function running(path: string): Promise<WindowEntry> {
    const entry = await f.pending(path);
    await f.repository.entries.claim(entry.id, f.run.epoch, {});
    inFlight.add(entry);
    return entry;
  }
  const commit = (entry: WindowEntry, status: 'completed' | 'failed' = 'completed', withResult = true): PageCommit => ({
    entry,
    status,
    result: withResult ? { url: entry.url, status, data: {} } : null,
    announced: { key: entry.key, url: entry.url, status, error_category: null, error_message: null },
    firstTime: true,
    set: { event_done: true },
  });
  const stored = (id: string) => f.repository.entries.entry(id) as Promise<CrawlEntry>;

  it('pages finished together share one batch: one request per step, results before announcements before entries', async () => {
    const [a, b, c] = [await running('/a'), await running('/b'), await running('/c')];
    const settled = await Promise.all([
      batch.commit(commit(a)),
      batch.commit(commit(b, 'failed')),
      batch.commit(commit(c, 'completed', false)),
    ]);
    expect(settled).toEqual([true, true, true]);
    // c keeps no result and did not fail: nothing of it is announced.
    expect(calls).toEqual(['results 2', 'announce completed:res_1,failed:res_2', 'settle 3']);
    expect(await stored(a.id)).toMatchObject({ status: 'completed', result_id: 'res_1', event_done: true });
    expect(await stored(b.id)).toMatchObject({ status: 'failed', result_id: 'res_2' });
    expect(await stored(c.id)).toMatchObject({ status: 'completed', result_id: null });
    expect(inFlight.size).toBe(0);
  });

  it('while other outcomes are awaited, a page waits for its batch to fill (max pages) or its linger', async () => {
    waiting = 5;
    const [a, b, c, d] = [await running('/a'), await running('/b'), await running('/c'), await running('/d')];
    const first = batch.commit(commit(a));
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(calls).toEqual([]); // lingering: more pages are on their way
    expect(batch.size).toBe(1);
    const rest = [batch.commit(commit(b)), batch.commit(commit(c))];
    await Promise.all([first, ...rest]);
    expect(calls).toEqual(['results 3', 'announce completed:res_1,completed:res_2,completed:res_3', 'settle 3']);
    // The fourth page starts a new batch, written once nothing else is awaited.
    const last = batch.commit(commit(d));
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(batch.size).toBe(1);
    waiting = 0;
    const e = await running('/e');
    await Promise.all([last, batch.commit(commit(e))]);
    expect(calls.slice(3)).toEqual(['results 2', 'announce completed:res_4,completed:res_5', 'settle 2']);
  });

  it('stores the outcomes handed over unstored first, in one request, before the results (first writer wins)', async () => {
    const [a, b, c] = [await running('/a'), await running('/b'), await running('/c')];
    const task = (e: WindowEntry) => `${e.id}:0`;
    for (const e of [a, b, c]) await f.repository.outcomes.delivered(task(e), f.run.jobId);
    // b's task was finished by another worker already (a redelivery): its stored outcome stays.
    const theirs = { kind: 'cancelled' } as const;
    await f.repository.outcomes.finishOutcome(task(b), f.run.jobId, theirs);
    const handed = (e: WindowEntry) => ({
      taskId: task(e),
      outcome: { kind: 'skipped', reason: 'robots', why: e.key, final_url: null } as const,
    });
    await Promise.all([
      batch.commit({ ...commit(a), outcome: handed(a) }),
      batch.commit({ ...commit(b), outcome: handed(b) }),
      batch.commit(commit(c)), // its outcome came from the store
    ]);
    expect(calls).toEqual(['outcomes 2', 'results 3', 'announce completed:res_1,completed:res_2,completed:res_3', 'settle 3']);
    expect(await f.repository.outcomes.outcome(task(a))).toMatchObject({ done: true, outcome: handed(a).outcome });
    expect(await f.repository.outcomes.outcome(task(b))).toMatchObject({ done: true, outcome: theirs });
    expect(await f.repository.outcomes.outcome(task(c))).toBeNull();
    // Once written, the pages' delivery counts go: a late delivery of a's task counts from one, and reads its
    // stored outcome only when its owner sent it again.
    await Promise.all(forgetting);
    expect(forgotten.sort()).toEqual([a, b, c].map(task).sort());
    expect(await f.repository.outcomes.delivered(task(a), f.run.jobId)).toEqual({ deliveries: 1, alone_runs: 0, done: false });
    expect(await f.repository.outcomes.delivered(task(a), f.run.jobId, true)).toMatchObject({ deliveries: 2, done: true });
  });

  it('a failed outcome write fails the batch before anything else of it is written', async () => {
    const a = await running('/a');
    failAt = 'outcomes 1';
    const handed = { taskId: `${a.id}:0`, outcome: { kind: 'cancelled' } as const };
    await expect(batch.commit({ ...commit(a), outcome: handed })).rejects.toThrow('store down');
    expect(calls).toEqual(['outcomes 1']);
    expect(forgotten).toEqual([]); // a page not committed keeps its delivery count
    expect((await stored(a.id)).status).toBe('running');
    expect(inFlight.size).toBe(1);
  });

  it('a store error rejects every page of the batch and leaves them in flight (Crawlee retries them)', async () => {
    const [a, b] = [await running('/a'), await running('/b')];
    failAt = 'announce completed:res_1,completed:res_2';
    const outcomes = await Promise.allSettled([batch.commit(commit(a)), batch.commit(commit(b))]);
    expect(outcomes.map((o) => o.status)).toEqual(['rejected', 'rejected']);
    expect(inFlight.size).toBe(2);
    expect((await stored(a.id)).status).toBe('running');
    // The next batch writes them.
    failAt = null;
    expect(await Promise.all([batch.commit(commit(a)), batch.commit(commit(b))])).toEqual([true, true]);
    expect((await stored(b.id)).status).toBe('completed');
  });

  it('a stale owner writes nothing (lease not held), and an entry write refused by the store halts it', async () => {
    const [a, b] = [await running('/a'), await running('/b')];
    leaseHeld = false;
    expect(await batch.commit(commit(a))).toBe(false);
    expect(calls).toEqual([]);
    expect(inFlight.has(a.id)).toBe(false);
    leaseHeld = true;
    await f.takeOver();
    await f.repository.entries.adoptRunning(f.run.jobId, f.run.epoch + 1);
    expect(await batch.commit(commit(b))).toBe(false);
    expect(f.halts).toEqual(['lease-lost']);
    expect((await stored(b.id)).status).toBe('running');
  });

  it('a page written at once when the batch holds as many pages as are still awaited (half the slots at most linger)', async () => {
    waiting = 2;
    const [a, b] = [await running('/a'), await running('/b')];
    // The linger is a minute here: only the rule writes them.
    expect(await Promise.all([batch.commit(commit(a)), batch.commit(commit(b))])).toEqual([true, true]);
    expect(calls).toEqual(['results 2', 'announce completed:res_1,completed:res_2', 'settle 2']);
  });
});

describe('commit batch linger', () => {
  it('is a few recent gaps between finished pages, within 20 ms and 250 ms', () => {
    expect(COMMIT_BATCH_LINGER_MS).toBe(20);
    expect(COMMIT_BATCH_MAX_LINGER_MS).toBe(250);
    expect(commitLinger(0)).toBe(20); // pages finishing together: the short linger
    expect(commitLinger(10)).toBe(40);
    expect(commitLinger(40)).toBe(160);
    expect(commitLinger(135)).toBe(250); // ~7 pages/s: bounded
    expect(commitLinger(3000)).toBe(250);
  });

  it('follows the pace at which pages finish', async () => {
    const f = await ownerFixture();
    let t = 0;
    const batch = new CommitBatch(
      f.run,
      {
        store: { settleMany: async (epoch, items) => f.repository.entries.settleMany(epoch, items) },
        outcomes: { storeOutcomes: async (job, items) => f.repository.outcomes.storeOutcomes(job, items), forget: async () => undefined },
        results: { storePages: async (_job, pages) => pages.map((p) => ({ _id: p.pageKey, id: p.pageKey }) as unknown as ResultRecord) },
        announcer: { announceMany: async () => undefined },
        lease: { holds: async () => true },
        inFlight: new InFlightPages(new HostSchedule({ delayMs: 0, minIntervalMs: 0, maxConcurrency: 100 })),
        metrics: { commits: { inc: () => undefined } },
        waiting: () => 100,
      },
      { max: 4, minLingerMs: 20, maxLingerMs: 250 },
      () => t,
    );
    try {
      const page = async (path: string): Promise<PageCommit> => {
        const entry = await f.pending(path);
        await f.repository.entries.claim(entry.id, f.run.epoch, {});
        return {
          entry,
          status: 'completed',
          result: null,
          announced: { key: entry.key, url: entry.url, status: 'completed', error_category: null, error_message: null },
          firstTime: true,
          set: {},
        };
      };
      const commits = [await page('/a'), await page('/b'), await page('/c'), await page('/d')];
      expect(batch.lingerMs).toBe(20);
      const done: Array<Promise<boolean>> = [];
      for (const [i, c] of commits.entries()) {
        t = i * 100; // one page every 100 ms
        done.push(batch.commit(c));
      }
      // Gaps of 100 ms, averaged from 0: 20, 36, 48.8 ms; four of them.
      expect(batch.lingerMs).toBe(195);
      // The fourth page filled the batch (max 4): written without waiting for the linger.
      expect(await Promise.all(done)).toEqual([true, true, true, true]);
    } finally {
      batch.close();
      await f.close();
    }
  });
});
