import { crawlStoreFixture, type CrawlStoreFixture } from '../../../../test/support/crawl-store';
import { BatchListStore } from './batch-list-store';

/** A batch's URL list on the real (SQLite) store: the list seeding's port (ListSeedingStore) and the tenant's erasure. */
describe('BatchListStore', () => {
  let f: CrawlStoreFixture;
  let lists: BatchListStore;

  beforeEach(async () => {
    f = await crawlStoreFixture();
    lists = new BatchListStore(f.collections.lists);
  });

  afterEach(() => f.close());

  const urlsOf = (n: number, prefix = 'a') => Array.from({ length: n }, (_, i) => `https://${prefix}.test/${i}`);

  it('stores a list in chunks read back in order, dropped when the frontier holds it', async () => {
    const urls = urlsOf(2500);
    const chunks = await lists.storeList('list1', 'u1', urls);
    expect(chunks).toBeGreaterThan(1);
    const read: string[] = [];
    for (let chunk = 0; ; chunk++) {
      const record = await lists.listChunk('list1', chunk);
      if (!record) break;
      expect(record).toMatchObject({ list_id: 'list1', user_id: 'u1', chunk, start: read.length });
      read.push(...record.urls);
    }
    expect(read).toEqual(urls);
    await lists.dropList('list1');
    expect(await lists.listChunk('list1', 0)).toBeNull();
  });

  it('an empty list has no chunk', async () => {
    expect(await lists.storeList('empty', 'u1', [])).toBe(0);
    expect(await lists.listChunk('empty', 0)).toBeNull();
  });

  it("drops one list without touching another, and an owner's lists without another owner's", async () => {
    await lists.storeList('l1', 'u1', urlsOf(3));
    await lists.storeList('l2', 'u1', urlsOf(3, 'b'));
    await lists.storeList('l3', 'u2', urlsOf(3, 'c'));
    await lists.dropList('l1');
    expect(await lists.listChunk('l1', 0)).toBeNull();
    expect(await lists.listChunk('l2', 0)).not.toBeNull();
    expect(await lists.deleteListsOf({ userId: 'u1' })).toBe(1);
    expect(await lists.listChunk('l2', 0)).toBeNull();
    expect((await lists.listChunk('l3', 0))?.urls).toEqual(urlsOf(3, 'c'));
  });
});
