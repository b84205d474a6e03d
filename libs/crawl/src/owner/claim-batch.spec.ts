import { crawlStoreFixture, entryOf, type CrawlStoreFixture } from '../../../../test/support/crawl-store';
import { CrawlEntryStore } from '../store/crawl-entry-store';
import { ClaimBatch } from './claim-batch';

/** Admission's claims on the real (SQLite) store, written together: one request per turn, answers as one claim's. */
describe('ClaimBatch', () => {
  let f: CrawlStoreFixture;
  let entries: CrawlEntryStore;
  let requests: number[];
  let fail: boolean;
  let claims: ClaimBatch;

  beforeEach(async () => {
    f = await crawlStoreFixture();
    entries = new CrawlEntryStore(f.collections.entries);
    requests = [];
    fail = false;
    claims = new ClaimBatch({
      claimMany: (epoch, items) => {
        requests.push(items.length);
        return fail ? Promise.reject(new Error('store down')) : entries.claimMany(epoch, items);
      },
    });
  });
  afterEach(() => f.close());

  it('claims asked for together go in one request; each answers claimed or no longer pending', async () => {
    const [a, b, c] = [entryOf('j', '/a', 1), entryOf('j', '/b', 2), entryOf('j', '/c', 3)];
    await entries.insertEntries([a, b, c]);
    await entries.skipPending(c._id, { error_category: 'duplicate' });
    const answers = await Promise.all([
      claims.claim(a._id, 1, { ticket: 1, admitted: true }),
      claims.claim(b._id, 1, { ticket: 2, admitted: true }),
      claims.claim(c._id, 1, { ticket: 3, admitted: true }),
    ]);
    expect(answers).toEqual([true, true, null]);
    expect(requests).toEqual([3]);
    expect(await entries.entry(a._id)).toMatchObject({ status: 'running', lease_epoch: 1, ticket: 1, admitted: true });
    expect(await entries.entry(c._id)).toMatchObject({ status: 'skipped' });
  });

  it('claims asked for while a write is under way go in the next one', async () => {
    const list = [1, 2, 3, 4].map((i) => entryOf('j', `/${i}`, i));
    await entries.insertEntries(list);
    const first = claims.claim(list[0]._id, 1, { ticket: 1 });
    await new Promise((resolve) => setImmediate(resolve)); // the first write starts
    const rest = list.slice(1).map((e, i) => claims.claim(e._id, 1, { ticket: i + 2 }));
    expect(await Promise.all([first, ...rest])).toEqual([true, true, true, true]);
    expect(requests).toEqual([1, 3]);
  });

  it("a ticket another entry holds is every claim's ticket-taken (the owner is stale); a store error fails them all", async () => {
    const [a, b, c] = [entryOf('j', '/a', 1), entryOf('j', '/b', 2), entryOf('j', '/c', 3)];
    await entries.insertEntries([a, b, c]);
    await entries.claim(a._id, 2, { ticket: 5 });
    expect(await Promise.all([claims.claim(b._id, 1, { ticket: 5 }), claims.claim(c._id, 1, { ticket: 6 })])).toEqual([
      'ticket-taken',
      'ticket-taken',
    ]);
    fail = true;
    await expect(claims.claim(c._id, 1, { ticket: 7 })).rejects.toThrow('store down');
    fail = false;
    expect(await claims.claim(c._id, 1, { ticket: 7 })).toBe(true);
  });
});
