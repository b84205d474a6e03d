import { ownerFixture, type OwnerFixture } from '../../../../test/support/crawl-owner';
import type { CrawlEntry } from '../crawl.types';
import { canonicalize } from '../url-canon';
import type { WindowEntry } from './frontier-window';
import { Frontier, LOOK_BEHIND_MS, WINDOW_BATCH } from './frontier';

describe('Frontier', () => {
  let f: OwnerFixture;
  let closed: boolean;
  let inFlight: Set<string>;
  let readAhead: string[];
  let queued: number;
  let frontier: Frontier;

  async function setUp(options: Parameters<typeof ownerFixture>[0] = {}) {
    f = await ownerFixture(options);
    closed = false;
    inFlight = new Set();
    readAhead = [];
    queued = 0;
    frontier = new Frontier(
      f.run,
      f.repository,
      { has: (id) => inFlight.has(id) },
      {
        admissionClosed: () => closed,
        onWindowEntry: (e) => readAhead.push(e.host),
        onQueued: (n) => (queued += n),
      },
    );
    await frontier.restore(0);
  }
  afterEach(() => f.close());

  const entries = async (): Promise<CrawlEntry[]> => {
    const all: CrawlEntry[] = [];
    for await (const e of f.repository.map.iterateMap({ userId: 'user_spec' }, f.run.jobId, {})) all.push(e);
    return all;
  };
  /** Takes every startable entry; `admitted` ends their admission (release) as the bridge does, else they stay handed out. */
  const drain = (admitted = true): WindowEntry[] => {
    const out: WindowEntry[] = [];
    for (let e = frontier.next(Date.now(), () => true); e; e = frontier.next(Date.now(), () => true)) out.push(e);
    if (admitted) for (const e of out) frontier.release(e);
    return out;
  };
  const parent = (): WindowEntry => ({
    id: 'p',
    key: 'p',
    url: 'http://shop.test/',
    host: 'shop.test',
    depth: 0,
    parentUrl: null,
    seq: 0,
    extract: true,
    ticket: 1,
    dispatch: 0,
    retryCount: 0,
    rateLimitRetries: 0,
    robotsDeferrals: 0,
    notBefore: 0,
  });

  it('stores in-scope links pending in discovery order, and records the rest as skipped with their reason', async () => {
    await setUp({ max_depth: 1, exclude_patterns: ['/cart'] });
    await frontier.refill(); // nothing stored yet: new entries join the window directly
    await frontier.offerLinks(parent(), ['/a', '/b', '/a#x', 'mailto:x@y', '/cart', 'http://other.example/'], 'http://shop.test/');
    const stored = await entries();
    expect(stored.map((e) => [e.url, e.status, e.error_category, e.seq])).toEqual([
      ['http://shop.test/a', 'pending', null, 1],
      ['http://shop.test/b', 'pending', null, 2],
      ['http://shop.test/cart', 'skipped', 'filtered', 3],
      ['http://other.example/', 'skipped', 'filtered', 4],
    ]);
    expect(queued).toBe(2);
    expect((await f.repository.states.state(f.run.jobId))?.skipped_by_reason).toEqual({ filtered: 2 });
    expect(drain().map((e) => e.url)).toEqual(['http://shop.test/a', 'http://shop.test/b']);
    expect(readAhead).toEqual(['shop.test', 'shop.test']);
    // Known URLs, whatever their status, are never stored twice.
    await frontier.offerLinks(parent(), ['/a', '/cart'], 'http://shop.test/');
    expect(await entries()).toHaveLength(4);
  });

  it('records skipped URLs up to the cap and only counts them beyond it', async () => {
    await setUp({ max_pages: 10, max_depth: 0 });
    const links = Array.from({ length: 1005 }, (_, i) => `/deep/${i}`);
    await frontier.offerLinks(parent(), links, 'http://shop.test/');
    const state = await f.repository.states.state(f.run.jobId);
    expect(state?.skipped_by_reason).toEqual({ max_depth: 1005 });
    expect(state?.skipped_recorded).toBe(1000);
    expect(await entries()).toHaveLength(1000);
  });

  it('once admission is closed, new pages are skipped (max_pages) and unadmitted ones are not loaded', async () => {
    await setUp({ max_pages: 1 });
    const admitted = await f.pending('/admitted', { admitted: true, ticket: 1 });
    await f.pending('/waiting');
    closed = true;
    await frontier.offerLinks(parent(), ['/new'], 'http://shop.test/');
    expect((await entries()).find((e) => e.url.endsWith('/new'))).toMatchObject({ status: 'skipped', error_category: 'max_pages' });
    await frontier.refill();
    expect(drain().map((e) => e.id)).toEqual([admitted.id]);
  });

  it('refills from the store in discovery order, past what it loaded, never a page in flight', async () => {
    await setUp();
    const a = await f.pending('/a');
    const b = await f.pending('/b');
    inFlight.add(a.id);
    await frontier.refill();
    expect(drain().map((e) => e.id)).toEqual([b.id]);
    await f.pending('/c');
    await frontier.refill(); // the store was exhausted: the refill does not read it again
    expect(frontier.size).toBe(0);
    frontier.rescan();
    await frontier.refill();
    expect(drain().map((e) => e.url)).toEqual(['http://shop.test/b', 'http://shop.test/c']);
  });

  it('a refill from the start does not load again an entry handed out for admission', async () => {
    await setUp();
    await f.pending('/a');
    await frontier.refill();
    const [taken] = drain(false);
    frontier.rescan(); // e.g. a ticket given back reopened admission
    await frontier.refill();
    expect(frontier.size).toBe(0);
    frontier.release(taken);
    frontier.rescan();
    await frontier.refill();
    expect(drain().map((e) => e.url)).toEqual(['http://shop.test/a']);
  });

  it('sweeps pending entries stored behind its position by a stale owner', async () => {
    await setUp();
    await frontier.refill();
    await f.pending('/late'); // stored under a seq this owner had passed
    expect(await frontier.sweep()).toBe(true);
    const taken = drain(false);
    expect(taken.map((e) => e.url)).toEqual(['http://shop.test/late']);
    // Handed out for admission: not loaded again while its admission runs, found again once it ended with the page still pending.
    expect(await frontier.sweep()).toBe(false);
    expect(frontier.admitting).toBe(1);
    frontier.release(taken[0]);
    expect(await frontier.sweep()).toBe(true);
    await f.repository.entries.skipPending(`${f.run.jobId}:${canonicalize('http://shop.test/late')!.key}`, { error_category: 'robots' });
    expect(await frontier.sweep()).toBe(false);
  });

  it('looks behind its window while it holds only waiting entries: a count first, a sweep when the store holds more, once per LOOK_BEHIND_MS', async () => {
    await setUp();
    const later = new Date(Date.now() + 3_600_000).toISOString();
    const waiting = await f.pending('/retry-later', { not_before: later });
    await frontier.refill();
    expect(frontier.size).toBe(1);
    const t0 = Date.now();
    expect(await frontier.lookBehind(t0)).toBe(false); // the store holds what the window holds
    // An earlier owner's late write, under a seq this owner had passed: the refill does not read behind its position.
    const late = await f.pending('/late', { seq: waiting.seq - 1 });
    await frontier.refill();
    expect(frontier.next(t0, () => true)).toBeNull();
    expect(await frontier.lookBehind(t0 + LOOK_BEHIND_MS - 1)).toBe(false); // not asked again so soon
    expect(await frontier.lookBehind(t0 + LOOK_BEHIND_MS)).toBe(true);
    expect(frontier.next(t0, () => true)?.url).toBe('http://shop.test/late');
    expect(frontier.size).toBe(1); // the waiting entry, held once
    await f.repository.entries.claim(late.id, f.run.epoch, {}); // admitted: running
    // Held already: a sweep does not report the window's own entries as found.
    expect(await frontier.sweep()).toBe(false);
    expect(await frontier.lookBehind(t0 + 2 * LOOK_BEHIND_MS)).toBe(false);
  });

  it('restores the seen-set, the next discovery number and the tickets in use after a takeover', async () => {
    await setUp();
    await f.pending('/a', { admitted: true, ticket: 3 });
    await f.pending('/b');
    const next = new Frontier(
      f.run,
      f.repository,
      { has: () => false },
      {
        admissionClosed: () => false,
        onWindowEntry: () => undefined,
        onQueued: () => undefined,
      },
    );
    expect([...(await next.restore(0))]).toEqual([3]);
    expect(next.knows(canonicalize('http://shop.test/a')!.key)).toBe(true);
    await next.offerLinks(parent(), ['/c'], 'http://shop.test/');
    const all = await entries();
    const c = all.find((e) => e.url.endsWith('/c'))!;
    expect(c.seq).toBeGreaterThan(Math.max(...all.filter((e) => e.url !== c.url).map((e) => e.seq)));
  });

  it('a stale owner cannot count skips in the crawl state', async () => {
    await setUp({ max_depth: 0 });
    await f.takeOver();
    await frontier.offerLinks(parent(), ['/deep'], 'http://shop.test/');
    expect((await f.repository.states.state(f.run.jobId))?.skipped_by_reason).toEqual({});
  });

  it('records a redirect target it did not know as skipped (duplicate), once', async () => {
    await setUp();
    const target = canonicalize('http://shop.test/moved')!;
    expect(await frontier.recordRedirectTarget(target, parent())).toBe(true);
    expect(await frontier.recordRedirectTarget(target, parent())).toBe(false);
    expect(await entries()).toEqual([
      expect.objectContaining({ url: target.url, status: 'skipped', error_category: 'duplicate', via: 'redirect' }),
    ]);
  });

  it('holds at most a window of the store in memory', async () => {
    await setUp({ max_pages: 10_000 });
    await frontier.offerLinks(
      parent(),
      Array.from({ length: WINDOW_BATCH + 10 }, (_, i) => `/p/${i}`),
      'http://shop.test/',
    );
    await frontier.refill();
    expect(frontier.size).toBe(WINDOW_BATCH);
  });
});
