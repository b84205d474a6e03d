/**
 * The crawl owner's batched writes on both stores (SQLite and the MongoDB-wire server, where updateEach is one
 * transaction or one unordered bulk write): a commit batch's handed-over outcomes (PageOutcomeStore.storeOutcomes,
 * docs/crawl.md "Outcomes of the owner's own process"), a crawler's outcome write batch (finishOutcomes) and admission's batched claims (CrawlEntryStore.claimMany).
 */
import { StoreDeliveryLedger } from '@app/queue';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DuplicateKeyError } from '@app/core';
import { CrawlRepository } from '../../libs/crawl/src/crawl.repository';
import { newEntry } from '../../libs/crawl/src/owner/crawl-entry';
import { MongoDocumentStore, SqliteDocumentStore, type DocumentStore } from '@app/storage';
import { describeWith, serverUrl, uniqueDbName } from '../harness/require-server';

function batchedWriteCases(open: () => Promise<DocumentStore>): void {
  let store: DocumentStore;
  let repository: CrawlRepository;
  let n = 0;

  beforeAll(async () => {
    store = await open();
    repository = new CrawlRepository(store, await StoreDeliveryLedger.open(store));
    await repository.onModuleInit();
  });

  afterAll(async () => {
    await store.close();
  });

  it('stores handed-over outcomes in one request, each only where its task is not done yet (first writer wins)', async () => {
    const job = `job_batched_${++n}`;
    const [t1, t2, t3] = ['a', 'b', 'c'].map((k) => `${job}:${k}:0`);
    await repository.outcomes.delivered(t1, job);
    await repository.outcomes.delivered(t2, job);
    expect(await repository.outcomes.finishOutcome(t2, job, { kind: 'cancelled' })).toBe(true);
    const outcome = { kind: 'skipped', reason: 'robots', why: 'disallowed', final_url: null } as const;
    expect(
      await repository.outcomes.storeOutcomes(
        job,
        [t1, t2, t3].map((taskId) => ({ taskId, outcome })),
      ),
    ).toBe(2);
    expect(await repository.outcomes.outcome(t1)).toMatchObject({ done: true, job_id: job, outcome });
    expect(await repository.outcomes.outcome(t2)).toMatchObject({ done: true, outcome: { kind: 'cancelled' } });
    expect(await repository.outcomes.outcome(t3)).toMatchObject({ done: true, outcome });
    expect((await repository.outcomes.doneOutcomes([t1, t2, t3])).map((r) => r._id).sort()).toEqual([t1, t2, t3]);
    // A redelivery of a task whose outcome the batch stored finds it done: it is not run again.
    expect(await repository.outcomes.delivered(t1, job)).toMatchObject({ done: true, deliveries: 2 });
    // The outcomes and the delivery counts go with the crawl.
    await repository.outcomes.dropOutcomes(job);
    expect(await repository.outcomes.doneOutcomes([t1, t2, t3])).toEqual([]);
    expect(await repository.outcomes.delivered(t1, job)).toMatchObject({ deliveries: 1, done: false });
  });

  it("finishes an earlier version's delivery markers (written at the delivery, done: false), once", async () => {
    const job = `job_legacy_${++n}`;
    const [t1, t2, t3] = ['a', 'b', 'c'].map((k) => `${job}:${k}:0`);
    const outcomes = await store.collection({ name: 'crawl_outcomes', indexes: [{ fields: { job_id: 1 } }] });
    for (const _id of [t1, t2, t3]) await outcomes.insertOne({ _id, job_id: job, deliveries: 1, done: false, outcome: null });
    const outcome = { kind: 'cancelled' } as const;
    expect(await repository.outcomes.finishOutcome(t1, job, outcome)).toBe(true);
    expect(await repository.outcomes.finishOutcome(t1, job, outcome)).toBe(false);
    expect(
      await repository.outcomes.storeOutcomes(
        job,
        [t1, t2, t3].map((taskId) => ({ taskId, outcome })),
      ),
    ).toBe(2);
    expect((await repository.outcomes.doneOutcomes([t1, t2, t3])).map((r) => r._id).sort()).toEqual([t1, t2, t3]);
  });

  it("stores a crawler's outcome write batch of several crawls in one request: per task, whether it was the first writer", async () => {
    const [jobA, jobB] = [`job_worker_${++n}`, `job_worker_${++n}`];
    const [a1, a2, b1, b2] = [`${jobA}:a:0`, `${jobA}:b:0`, `${jobB}:a:0`, `${jobB}:b:0`];
    const outcomes = await store.collection({ name: 'crawl_outcomes', indexes: [{ fields: { job_id: 1 } }] });
    await outcomes.insertOne({ _id: b2, job_id: jobB, deliveries: 1, done: false, outcome: null }); // an earlier version's marker
    expect(await repository.outcomes.finishOutcome(a2, jobA, { kind: 'cancelled' })).toBe(true);
    const outcome = { kind: 'skipped', reason: 'robots', why: 'disallowed', final_url: null } as const;
    const writes = [
      { taskId: a1, jobId: jobA, outcome },
      { taskId: a2, jobId: jobA, outcome },
      { taskId: b1, jobId: jobB, outcome },
      { taskId: b2, jobId: jobB, outcome },
      { taskId: b1, jobId: jobB, outcome: { kind: 'cancelled' } as const },
    ];
    expect(await repository.outcomes.finishOutcomes(writes)).toEqual([true, false, true, true, false]);
    expect(await repository.outcomes.outcome(a2)).toMatchObject({ outcome: { kind: 'cancelled' } });
    expect(await repository.outcomes.outcome(b1)).toMatchObject({ job_id: jobB, done: true, outcome });
    expect((await repository.outcomes.doneOutcomes([a1, a2, b1, b2])).map((r) => r._id).sort()).toEqual([a1, a2, b1, b2].sort());
    expect(await repository.outcomes.finishOutcomes(writes.slice(0, 1))).toEqual([false]);
  });

  it("claims several entries in one request: each claimed or no longer pending; another entry's ticket is a DuplicateKeyError", async () => {
    const job = `job_claims_${++n}`;
    const now = new Date().toISOString();
    const entry = (path: string, seq: number) =>
      newEntry(
        { jobId: job, userId: 'u1' },
        { key: `a.test${path}`, url: `https://a.test${path}`, host: 'a.test' },
        { depth: 0, parentUrl: null, via: 'seed', seq, now },
      );
    const [a, b, c, d] = [entry('/a', 1), entry('/b', 2), entry('/c', 3), entry('/d', 4)];
    await repository.entries.insertEntries([a, b, c, d]);
    expect(await repository.entries.claimMany(1, [])).toEqual([]);
    expect(
      await repository.entries.claimMany(
        1,
        [a, b].map((e, i) => ({ id: e._id, set: { ticket: i + 1, admitted: true } })),
      ),
    ).toEqual([true, true]);
    // a is running now: refused; c is claimed in the same request.
    expect(
      await repository.entries.claimMany(
        1,
        [a, c].map((e, i) => ({ id: e._id, set: { ticket: i + 3, admitted: true } })),
      ),
    ).toEqual([false, true]);
    expect(await repository.entries.entry(a._id)).toMatchObject({ status: 'running', lease_epoch: 1, ticket: 1 });
    expect(await repository.entries.entry(c._id)).toMatchObject({ status: 'running', lease_epoch: 1, ticket: 4 });
    await expect(repository.entries.claimMany(2, [{ id: d._id, set: { ticket: 1, admitted: true } }])).rejects.toBeInstanceOf(
      DuplicateKeyError,
    );
    expect(await repository.entries.entry(d._id)).toMatchObject({ status: 'pending' });
  });
}

describe('crawl batched writes on SQLite', () => {
  const dir = mkdtempSync(join(tmpdir(), 'gleaner-batched-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  batchedWriteCases(async () => SqliteDocumentStore.open({ file: join(dir, 'store.db') }));
});

describeWith(['mongodb'], 'crawl batched writes on MongoDB', () => {
  const dbName = uniqueDbName('gleaner_batched');
  batchedWriteCases(() => MongoDocumentStore.connect(serverUrl('mongodb')!, { dbName }));
});
