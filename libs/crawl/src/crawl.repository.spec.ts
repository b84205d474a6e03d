import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SqliteDocumentStore } from '@app/storage';
import { CrawlRepository } from './crawl.repository';
import { newEntry } from './owner/crawl-entry';

/**
 * CrawlRepository on a real (SQLite) store, one block per part of it that the crawl's parts narrow it to
 * (their `Pick<CrawlRepository, ...>` ports): batch URL lists, crawl state and its lease, entries, page-task
 * outcomes. Tickets have their own suite on both stores (test/integration/crawl-tickets.int-spec.ts).
 */
describe('CrawlRepository', () => {
  let dir: string;
  let store: SqliteDocumentStore;
  let repository: CrawlRepository;

  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'gleaner-crawl-repo-'));
    store = SqliteDocumentStore.open({ file: join(dir, 'store.db') });
    repository = new CrawlRepository(store);
    await repository.onModuleInit();
  });

  afterEach(async () => {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const entryOf = (jobId: string, path: string, seq: number) =>
    newEntry(
      { jobId, userId: 'u1' },
      { key: `a.test${path}`, url: `https://a.test${path}`, host: 'a.test' },
      { depth: 0, parentUrl: null, via: 'seed', seq, now: new Date().toISOString() },
    );

  describe('batch URL lists (ListSeedingStore)', () => {
    it('stores a list in chunks read back in order, dropped when the frontier holds it', async () => {
      const urls = Array.from({ length: 2500 }, (_, i) => `https://a.test/${i}`);
      const chunks = await repository.storeList('list1', 'u1', urls);
      expect(chunks).toBeGreaterThan(1);
      const read: string[] = [];
      for (let chunk = 0; ; chunk++) {
        const record = await repository.listChunk('list1', chunk);
        if (!record) break;
        expect(record.start).toBe(read.length);
        read.push(...record.urls);
      }
      expect(read).toEqual(urls);
      await repository.dropList('list1');
      expect(await repository.listChunk('list1', 0)).toBeNull();
    });
  });

  describe('crawl state and its lease (LeaseStore, SeedingStore)', () => {
    it('one owner at a time: the lease moves the epoch on, a stale epoch can neither renew nor update', async () => {
      await repository.ensureState('job1', 'u1');
      await repository.ensureState('job1', 'u1'); // twice: one state
      const first = await repository.acquire('job1', 'w1', 10_000, 1_000);
      expect(first).toMatchObject({ epoch: 0 });
      expect(await repository.acquire('job1', 'w2', 10_000, 2_000)).toBeNull(); // held
      expect(await repository.renew('job1', 1, 10_000, 3_000)).toBe(true);
      // The lease ran out: another worker takes the crawl over, the first is stale.
      expect(await repository.acquire('job1', 'w2', 10_000, 20_000)).toMatchObject({ epoch: 1 });
      expect(await repository.renew('job1', 1, 10_000, 21_000)).toBe(false);
      expect(await repository.updateState('job1', 1, { $set: { seed_done: true } })).toBe(false);
      expect(await repository.updateState('job1', 2, { $set: { seed_done: true } })).toBe(true);
      expect(await repository.state('job1')).toMatchObject({ epoch: 2, seed_done: true });
    });

    it('a released crawl can be taken at once; it is finalized once', async () => {
      await repository.ensureState('job2', 'u1');
      await repository.acquire('job2', 'w1', 60_000, 1_000);
      await repository.release('job2', 1);
      expect(await repository.acquire('job2', 'w2', 60_000, 2_000)).not.toBeNull();
      expect(await repository.markFinalized('job2')).toBe(true);
      expect(await repository.markFinalized('job2')).toBe(false);
    });
  });

  describe('entries (AdmissionStore, CommitStore, CloseStore)', () => {
    it('one entry per URL; claimed by an owner, settled only by that owner, closed at the end', async () => {
      const a = entryOf('job3', '/a', 1);
      const b = entryOf('job3', '/b', 2);
      expect(await repository.insertEntries([a, b])).toEqual(new Set());
      expect(await repository.insertEntries([entryOf('job3', '/a', 3)])).toEqual(new Set([a._id]));
      expect(await repository.claim(a._id, 1, { ticket: 1, admitted: true })).not.toBeNull();
      expect(await repository.claim(a._id, 1, { ticket: 2, admitted: true })).toBeNull(); // no longer pending
      expect(await repository.settle(a._id, 2, 'completed', {})).toBeNull(); // not its owner
      expect(await repository.settle(a._id, 1, 'completed', {}, { retry_count: 1 })).toMatchObject({ status: 'completed', retry_count: 1 });
      expect(await repository.countEntries('job3', 'completed')).toBe(1);
      expect(await repository.closeAll('job3', ['pending'], { error_category: 'cancelled' })).toBe(1);
      expect(await repository.entry(b._id)).toMatchObject({ status: 'skipped', error_category: 'cancelled' });
    });

    it('a ticket another owner holds is refused as ticket-taken', async () => {
      const a = entryOf('job4', '/a', 1);
      const b = entryOf('job4', '/b', 2);
      await repository.insertEntries([a, b]);
      await repository.claim(a._id, 1, { ticket: 7, admitted: true });
      expect(await repository.claim(b._id, 2, { ticket: 7, admitted: true })).toBe('ticket-taken');
    });

    it("takeover's reads: every entry's key, status, ticket and seq, and the done entries' usage, in discovery order, one job only", async () => {
      // Stored out of discovery order (a stale owner's late children), more than one batch of 2,000.
      const entries = Array.from({ length: 4500 }, (_, i) => entryOf('job5', `/p${i}`, i < 4000 ? i + 501 : i - 3999));
      await repository.insertEntries(entries);
      await repository.insertEntries([entryOf('job6', '/other', 1)]);
      await repository.claim(entries[0]._id, 1, { ticket: 1, admitted: true });
      await repository.settle(entries[0]._id, 1, 'completed', { result_id: 'r1', token_usage_input: 5, method: 'model' });
      const keys = [];
      for await (const e of repository.iterateKeys('job5')) keys.push(e);
      expect(keys.map((e) => e.seq)).toEqual(Array.from({ length: 4500 }, (_, i) => i + 1));
      expect(keys[500]).toEqual({ _id: entries[0]._id, key: 'a.test/p0', status: 'completed', ticket: 1, seq: 501 });
      expect(keys[0]).toEqual({ _id: entries[4000]._id, key: 'a.test/p4000', status: 'pending', ticket: '~a.test/p4000', seq: 1 });
      const done = [];
      for await (const e of repository.iterateDone('job5')) done.push(e);
      expect(done).toEqual([
        {
          _id: entries[0]._id,
          status: 'completed',
          token_usage_input: 5,
          token_usage_output: 0,
          cost_usd: 0,
          result_id: 'r1',
          rate_limited: false,
          method: 'model',
        },
      ]);
    });
  });

  describe('page-task outcomes (the worker side, DispatchStore)', () => {
    it('counts deliveries, keeps the first outcome only, and drops them with the job', async () => {
      expect(await repository.delivered('t1', 'job5')).toMatchObject({ deliveries: 1, done: false });
      expect(await repository.delivered('t1', 'job5', true)).toMatchObject({ deliveries: 2, alone_runs: 1 });
      await repository.undeliver('t1', true);
      expect(await repository.outcome('t1')).toMatchObject({ deliveries: 1, alone_runs: 0 });
      const outcome = { kind: 'cancelled' } as const;
      expect(await repository.finishOutcome('t1', outcome)).toBe(true);
      expect(await repository.finishOutcome('t1', outcome)).toBe(false);
      expect(await repository.doneOutcomes(['t1', 't2'])).toHaveLength(1);
      await repository.dropOutcomes('job5');
      expect(await repository.outcome('t1')).toBeNull();
    });

    it('counts a suspect run alone after its delivery, on the marker the delivery wrote', async () => {
      expect(await repository.ranAlone('t9')).toBeNull(); // no marker: nothing counted
      await repository.delivered('t9', 'job6');
      expect(await repository.delivered('t9', 'job6')).toMatchObject({ deliveries: 2 });
      expect(await repository.ranAlone('t9')).toMatchObject({ deliveries: 2, alone_runs: 1 });
      await repository.undeliver('t9', true);
      expect(await repository.outcome('t9')).toMatchObject({ deliveries: 1, alone_runs: 0 });
    });
  });
});
