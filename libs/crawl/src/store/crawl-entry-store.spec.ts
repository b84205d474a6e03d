import { crawlStoreFixture, entryOf, type CrawlStoreFixture } from '../../../../test/support/crawl-store';
import type { CrawlEntry } from '../crawl.types';
import { CrawlEntryStore } from './crawl-entry-store';

/**
 * The owner's side of a crawl's entries on the real (SQLite) store: the frontier (FrontierStore), admission
 * (AdmissionStore), the committer and its batches (CommitStore, settleMany), the closer (CloseStore), the
 * announcer and the takeover's reads.
 */
describe('CrawlEntryStore', () => {
  let f: CrawlStoreFixture;
  let entries: CrawlEntryStore;

  beforeEach(async () => {
    f = await crawlStoreFixture();
    entries = new CrawlEntryStore(f.collections.entries);
  });

  afterEach(() => f.close());

  const ids = (list: Array<Pick<CrawlEntry, '_id'>>) => list.map((e) => e._id);

  it('one entry per URL; claimed by an owner, settled only by that owner, closed at the end', async () => {
    const a = entryOf('job3', '/a', 1);
    const b = entryOf('job3', '/b', 2);
    expect(await entries.insertEntries([])).toEqual(new Set());
    expect(await entries.insertEntries([a, b])).toEqual(new Set());
    expect(await entries.insertEntries([entryOf('job3', '/a', 3)])).toEqual(new Set([a._id]));
    expect(await entries.claim(a._id, 1, { ticket: 1, admitted: true })).not.toBeNull();
    expect(await entries.claim(a._id, 1, { ticket: 2, admitted: true })).toBeNull(); // no longer pending
    expect(await entries.settle(a._id, 2, 'completed', {})).toBeNull(); // not its owner
    expect(await entries.settle(a._id, 1, 'completed', {}, { retry_count: 1 })).toMatchObject({ status: 'completed', retry_count: 1 });
    expect(await entries.closeAll('job3', ['pending'], { error_category: 'cancelled' })).toBe(1);
    expect(await entries.entry(b._id)).toMatchObject({ status: 'skipped', error_category: 'cancelled' });
  });

  it('a ticket another owner holds is refused as ticket-taken', async () => {
    const a = entryOf('job4', '/a', 1);
    const b = entryOf('job4', '/b', 2);
    await entries.insertEntries([a, b]);
    await entries.claim(a._id, 1, { ticket: 7, admitted: true });
    expect(await entries.claim(b._id, 2, { ticket: 7, admitted: true })).toBe('ticket-taken');
  });

  it("settles a batch in one request, only this epoch's running entries; a takeover adopts the running ones", async () => {
    const [a, b, c] = [entryOf('j', '/a', 1), entryOf('j', '/b', 2), entryOf('j', '/c', 3)];
    await entries.insertEntries([a, b, c]);
    await entries.claim(a._id, 1, { ticket: 1, admitted: true });
    await entries.claim(b._id, 1, { ticket: 2, admitted: true });
    const items = [
      { id: a._id, status: 'completed' as const, set: { result_id: 'res_a' } },
      { id: b._id, status: 'failed' as const, set: { error_category: 'http_error' as const } },
      { id: c._id, status: 'completed' as const, set: {} }, // pending: not settled
    ];
    expect(await entries.settleMany(1, items.slice(0, 1))).toBe(1);
    expect(await entries.adoptRunning('j', 2)).toBe(1); // b
    expect(await entries.settleMany(1, items)).toBe(0); // stale for b
    expect(await entries.settleMany(2, items)).toBe(1);
    expect(await entries.entry(a._id)).toMatchObject({ status: 'completed', result_id: 'res_a', lease_epoch: 1 });
    expect(await entries.entry(b._id)).toMatchObject({ status: 'failed', error_category: 'http_error', lease_epoch: 2 });
    expect(await entries.entry(c._id)).toMatchObject({ status: 'pending' });
  });

  it('skips only a pending entry and relabels only a skipped one', async () => {
    const [a, b] = [entryOf('j', '/a', 1), entryOf('j', '/b', 2)];
    await entries.insertEntries([a, b]);
    await entries.claim(b._id, 1, { ticket: 1, admitted: true });
    expect(await entries.relabelSkipped(a._id, { error_category: 'duplicate' })).toBeNull();
    expect(await entries.skipPending(b._id, { error_category: 'robots' })).toBeNull(); // running
    expect(await entries.skipPending(a._id, { error_category: 'robots' })).not.toBeNull();
    expect(await entries.relabelSkipped(a._id, { error_category: 'duplicate' })).not.toBeNull();
    expect(await entries.entry(a._id)).toMatchObject({ status: 'skipped', error_category: 'duplicate' });
  });

  it('closes the unadmitted only when asked', async () => {
    const [a, b] = [entryOf('j', '/a', 1, { admitted: true, ticket: 1 }), entryOf('j', '/b', 2)];
    await entries.insertEntries([a, b]);
    expect(await entries.closeAll('j', ['pending'], { error_category: 'max_pages' }, true)).toBe(1);
    expect((await entries.entry(a._id))?.status).toBe('pending');
    expect((await entries.entry(b._id))?.status).toBe('skipped');
  });

  it('refills the window in discovery order: pending after a seq, and anywhere (admitted only once max_pages is reached)', async () => {
    const list = [1, 2, 3, 4].map((seq) => entryOf('j', `/${seq}`, seq, seq % 2 === 0 ? { admitted: true, ticket: seq } : {}));
    await entries.insertEntries([entryOf('other', '/1', 1), ...[...list].reverse()]);
    expect(ids(await entries.pendingAfter('j', 1, 2))).toEqual([list[1]._id, list[2]._id]);
    expect(ids(await entries.pendingAnywhere('j', false, 10))).toEqual(ids(list));
    expect(ids(await entries.pendingAnywhere('j', true, 10))).toEqual([list[1]._id, list[3]._id]);
  });

  it('reads back what a takeover needs: the running entries, every key, the unannounced ones', async () => {
    const [a, b, c] = [entryOf('j', '/a', 1), entryOf('j', '/b', 2), entryOf('j', '/c', 3)];
    await entries.insertEntries([a, b, c]);
    await entries.claim(a._id, 1, { ticket: 1, admitted: true });
    await entries.claim(b._id, 1, { ticket: 2, admitted: true });
    await entries.settle(b._id, 1, 'completed', {});
    expect(ids(await entries.running('j'))).toEqual([a._id]);
    const keys: unknown[] = [];
    for await (const e of entries.iterateKeys('j')) keys.push([e.key, e.status, e.ticket]);
    expect(keys.sort()).toEqual(
      [
        [a.key, 'running', 1],
        [b.key, 'completed', 2],
        [c.key, 'pending', c.ticket],
      ].sort(),
    );
    expect(ids(await entries.unannounced('j'))).toEqual([b._id]);
    await entries.markAnnounced(b._id);
    expect(await entries.unannounced('j')).toEqual([]);
  });

  it("deletes a job's entries, not another job's", async () => {
    await entries.insertEntries([entryOf('j1', '/a', 1), entryOf('j2', '/a', 1)]);
    await entries.deleteEntries('j1');
    expect(await entries.entry(entryOf('j1', '/a', 1)._id)).toBeNull();
    expect(await entries.entry(entryOf('j2', '/a', 1)._id)).not.toBeNull();
  });
});
