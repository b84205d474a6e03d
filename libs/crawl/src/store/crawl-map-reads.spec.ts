import { crawlStoreFixture, entryOf, type CrawlStoreFixture } from '../../../../test/support/crawl-store';
import type { CrawlEntry } from '../crawl.types';
import { CrawlMapReads } from './crawl-map-reads';

/**
 * Reads of a crawl's entries on the real (SQLite) store: the crawl map and its counts (CrawlMapService),
 * the counters' recount (CountersStore), the closer's duplicates and a re-extraction's sources
 * (ArchiveSeedingStore, reextract-source.ts).
 */
describe('CrawlMapReads', () => {
  let f: CrawlStoreFixture;
  let map: CrawlMapReads;

  beforeEach(async () => {
    f = await crawlStoreFixture();
    map = new CrawlMapReads(f.collections.entries);
    // One job's entries of every kind the reads tell apart, stored out of discovery order, and another job's.
    const entries: CrawlEntry[] = [
      entryOf('j', '/model', 1, { status: 'completed', method: 'model', ungrounded_fields: 2, token_usage_input: 10 }),
      entryOf('j', '/selectors', 2, { status: 'completed', method: 'selectors', rate_limited: true }),
      entryOf('j', '/failed', 3, { status: 'failed', error_category: 'http_error', items_missing: 3 }),
      entryOf('j', '/unfetched', 4, { status: 'failed', extract: false }),
      entryOf('j', '/pending', 5),
      entryOf('j', '/admitted', 6, { admitted: true, ticket: 1 }),
      entryOf('j', '/exact', 7, { status: 'skipped', duplicate_reason: 'exact', duplicate_key: 'a.test/model' }),
      entryOf('j', '/redirect', 8, { status: 'skipped', duplicate_reason: 'redirect', extract: false }),
      entryOf('j', '/robots', 9, { status: 'skipped', error_category: 'robots' }),
      entryOf('other', '/model', 1, { status: 'completed', method: 'model' }),
    ];
    await f.collections.entries.insertMany(entries.reverse());
  });

  afterEach(() => f.close());

  const urlsOf = async (entries: AsyncIterable<CrawlEntry> | Promise<Array<Pick<CrawlEntry, 'url'>>>) => {
    const urls: string[] = [];
    if (Symbol.asyncIterator in entries) for await (const e of entries) urls.push(new URL(e.url).pathname);
    else for (const e of await entries) urls.push(new URL(e.url).pathname);
    return urls;
  };

  it("counts a job's entries by status, method, rate limit, ungrounded values, incomplete lists", async () => {
    expect(await map.countEntries('j')).toBe(9);
    expect(await map.countEntries('j', 'skipped')).toBe(3);
    expect(await map.countEntries('j', ['completed', 'failed'])).toBe(4);
    expect(await map.countByMethod('j', 'model')).toBe(1);
    expect(await map.countByMethod('j', 'mixed')).toBe(0);
    expect(await map.countUnadmittedPending('j')).toBe(1);
    expect(await map.countRateLimited('j')).toBe(1);
    expect(await map.countUngrounded('j')).toBe(1);
    expect(await map.countListIncomplete('j')).toBe(1);
  });

  it('counts and streams the duplicates, those before a model call apart', async () => {
    expect(await map.countDuplicates('j')).toEqual({ byReason: { canonical: 0, exact: 1, near: 0, redirect: 1 }, beforeModel: 1 });
    expect(await urlsOf(map.iterateDuplicates('j'))).toEqual(['/exact', '/redirect']);
  });

  it('streams the done entries with their usage', async () => {
    const done: Array<[string, number]> = [];
    for await (const e of map.iterateDone('j')) done.push([e.status, e.token_usage_input]);
    expect(done.sort()).toEqual([
      ['completed', 0],
      ['completed', 10],
      ['failed', 0],
      ['failed', 0],
    ]);
  });

  it("streams the map in discovery order, by its filters, only the owner's", async () => {
    const owner = { userId: 'u1' };
    expect(await urlsOf(map.iterateMap(owner, 'j', {}))).toHaveLength(9);
    expect(await urlsOf(map.iterateMap(owner, 'j', { status: 'completed' }))).toEqual(['/model', '/selectors']);
    expect(await urlsOf(map.iterateMap(owner, 'j', { ungrounded: true }))).toEqual(['/model']);
    expect(await urlsOf(map.iterateMap(owner, 'j', { listIncomplete: true }))).toEqual(['/failed']);
    expect(await urlsOf(map.iterateMap(owner, 'j', { skip: 1, limit: 2 }))).toEqual(['/selectors', '/failed']);
    expect(await urlsOf(map.iterateMap({ userId: 'u2' }, 'j', {}))).toEqual([]);
  });

  it("gives a re-extraction's source pages after a seq, and counts them: all fetched, failed, ungrounded", async () => {
    expect(await map.countFetched('j', 'all')).toBe(3);
    expect(await urlsOf(map.fetchedAfter('j', 'all', 1, 10))).toEqual(['/selectors', '/failed']);
    expect(await urlsOf(map.fetchedAfter('j', 'all', 0, 1))).toEqual(['/model']);
    expect(await map.countFetched('j', 'failed')).toBe(1);
    expect(await urlsOf(map.fetchedAfter('j', 'failed', 0, 10))).toEqual(['/failed']);
    expect(await map.countFetched('j', 'ungrounded')).toBe(1);
    expect(await urlsOf(map.fetchedAfter('j', 'ungrounded', 0, 10))).toEqual(['/model']);
  });
});
