import { StoreDeliveryLedger } from '@app/queue';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SqliteDocumentStore } from '@app/storage';
import { entryOf } from '../../../test/support/crawl-store';
import { CrawlRepository } from './crawl.repository';

/**
 * CrawlRepository on a real (SQLite) store: the composition of its parts (each has its own spec under
 * store/) and the job's deletion across them. Tickets have their own suite on both stores
 * (test/integration/crawl-tickets.int-spec.ts).
 */
describe('CrawlRepository', () => {
  let dir: string;
  let store: SqliteDocumentStore;
  let repository: CrawlRepository;

  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'gleaner-crawl-repo-'));
    store = SqliteDocumentStore.open({ file: join(dir, 'store.db') });
    repository = new CrawlRepository(store, await StoreDeliveryLedger.open(store));
    await repository.onModuleInit();
  });

  afterEach(async () => {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("the parts share the crawl's collections: what the owner writes, the map reads", async () => {
    const a = entryOf('job1', '/a', 1);
    await repository.entries.insertEntries([a, entryOf('job1', '/b', 2)]);
    await repository.entries.claim(a._id, 1, { ticket: 1, admitted: true });
    await repository.entries.settle(a._id, 1, 'completed', { method: 'model' });
    expect(await repository.map.countEntries('job1')).toBe(2);
    expect(await repository.map.countByMethod('job1', 'model')).toBe(1);
  });

  it("takeover's reads: every entry's key, status, ticket and seq, and the done entries' usage, in discovery order, one job only", async () => {
    // Stored out of discovery order (a stale owner's late children), more than one batch of 2,000.
    const entries = Array.from({ length: 4500 }, (_, i) => entryOf('job5', `/p${i}`, i < 4000 ? i + 501 : i - 3999));
    await repository.entries.insertEntries(entries);
    await repository.entries.insertEntries([entryOf('job6', '/other', 1)]);
    await repository.entries.claim(entries[0]._id, 1, { ticket: 1, admitted: true });
    await repository.entries.settle(entries[0]._id, 1, 'completed', { result_id: 'r1', token_usage_input: 5, method: 'model' });
    const keys = [];
    for await (const e of repository.entries.iterateKeys('job5')) keys.push(e);
    expect(keys.map((e) => e.seq)).toEqual(Array.from({ length: 4500 }, (_, i) => i + 1));
    expect(keys[500]).toEqual({ _id: entries[0]._id, key: 'a.test/p0', status: 'completed', ticket: 1, seq: 501 });
    expect(keys[0]).toEqual({ _id: entries[4000]._id, key: 'a.test/p4000', status: 'pending', ticket: '~a.test/p4000', seq: 1 });
    const done = [];
    for await (const e of repository.map.iterateDone('job5')) done.push(e);
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

  it("deletes a job's entries, outcomes, delivery counts and state, and nothing of another job", async () => {
    for (const job of ['job1', 'job2']) {
      await repository.states.ensureState(job, 'u1');
      await repository.entries.insertEntries([entryOf(job, '/a', 1)]);
      await repository.outcomes.delivered(`${job}:t1`, job);
      await repository.outcomes.finishOutcome(`${job}:t1`, job, { kind: 'cancelled' });
    }
    await repository.lists.storeList('list1', 'u1', ['https://a.test/']);
    await repository.deleteJob('job1');
    expect(await repository.states.state('job1')).toBeNull();
    expect(await repository.map.countEntries('job1')).toBe(0);
    expect(await repository.outcomes.outcome('job1:t1')).toBeNull();
    expect(await repository.states.state('job2')).not.toBeNull();
    expect(await repository.map.countEntries('job2')).toBe(1);
    expect(await repository.outcomes.outcome('job2:t1')).not.toBeNull();
    expect(await repository.outcomes.delivered('job1:t1', 'job1')).toMatchObject({ deliveries: 1 });
    expect(await repository.outcomes.delivered('job2:t1', 'job2')).toMatchObject({ deliveries: 2 });
    expect(await repository.lists.listChunk('list1', 0)).not.toBeNull(); // a list goes with its batch's tenant, not here
  });
});
