import { StoreDeliveryLedger } from '@app/queue';
import { crawlStoreFixture, type CrawlStoreFixture } from '../../../../test/support/crawl-store';
import { PageOutcomeStore } from './page-outcome-store';

/**
 * Page tasks' deliveries and outcomes on the real (SQLite) store with the embedded delivery ledger: the page
 * worker's side and the dispatcher's (DispatchStore). The ledger's own contract runs on Redis and both stores
 * (test/contract/delivery-ledger.contract.ts).
 */
describe('PageOutcomeStore', () => {
  let f: CrawlStoreFixture;
  let outcomes: PageOutcomeStore;
  let reads: number;

  beforeEach(async () => {
    f = await crawlStoreFixture();
    // The outcome reads a delivery makes, counted (a first delivery makes none).
    reads = 0;
    const collection = f.collections.outcomes;
    const findOne = collection.findOne.bind(collection);
    collection.findOne = (...args) => {
      reads += 1;
      return findOne(...args);
    };
    outcomes = new PageOutcomeStore(collection, await StoreDeliveryLedger.open(f.store));
  });

  afterEach(() => f.close());

  it('counts deliveries, keeps the first outcome only, and drops outcomes and counts with the job', async () => {
    expect(await outcomes.delivered('t1', 'job5')).toEqual({ deliveries: 1, alone_runs: 0, done: false });
    expect(reads).toBe(0);
    expect(await outcomes.delivered('t1', 'job5')).toEqual({ deliveries: 2, alone_runs: 0, done: false });
    expect(reads).toBe(1); // a second delivery reads whether the task is done
    expect(await outcomes.ranAlone('t1', 'job5')).toEqual({ deliveries: 2, alone_runs: 1, done: false });
    await outcomes.undeliver('t1', 'job5', true);
    const outcome = { kind: 'cancelled' } as const;
    expect(await outcomes.finishOutcome('t1', 'job5', outcome)).toBe(true);
    expect(await outcomes.finishOutcome('t1', 'job5', outcome)).toBe(false);
    // The handed-back delivery and its run alone were taken back: this is the second delivery again, and done.
    expect(await outcomes.delivered('t1', 'job5')).toEqual({ deliveries: 2, alone_runs: 0, done: true });
    expect(await outcomes.doneOutcomes([])).toEqual([]);
    expect(await outcomes.doneOutcomes(['t1', 't2'])).toMatchObject([{ _id: 't1', job_id: 'job5', outcome }]);
    await outcomes.delivered('t3', 'job6');
    await outcomes.finishOutcome('t3', 'job6', outcome);
    await outcomes.dropOutcomes('job5');
    expect(await outcomes.outcome('t1')).toBeNull();
    expect(await outcomes.delivered('t1', 'job5')).toMatchObject({ deliveries: 1 }); // its count went with it
    expect(await outcomes.outcome('t3')).not.toBeNull(); // another job's
    expect(await outcomes.delivered('t3', 'job6')).toMatchObject({ deliveries: 2, done: true });
  });

  it('reads whether a first delivery is done only when the owner sent the task again', async () => {
    await outcomes.finishOutcome('t5', 'job5', { kind: 'cancelled' });
    expect(await outcomes.delivered('t5', 'job5')).toMatchObject({ deliveries: 1, done: false });
    expect(reads).toBe(0);
    expect(await outcomes.delivered('t5', 'job5', true)).toMatchObject({ deliveries: 2, done: true });
    await outcomes.dropOutcomes('job5');
    await outcomes.finishOutcome('t6', 'job5', { kind: 'cancelled' });
    expect(await outcomes.delivered('t6', 'job5', true)).toMatchObject({ deliveries: 1, done: true });
  });

  it("stores a commit batch's handed-over outcomes in one request, each only where its task is not done yet", async () => {
    await outcomes.delivered('t1', 'job5');
    await outcomes.finishOutcome('t2', 'job5', { kind: 'cancelled' });
    const outcome = { kind: 'skipped', reason: 'robots', why: 'no', final_url: null } as const;
    expect(await outcomes.storeOutcomes('job5', [])).toBe(0);
    expect(
      await outcomes.storeOutcomes(
        'job5',
        ['t1', 't2', 't3'].map((taskId) => ({ taskId, outcome })),
      ),
    ).toBe(2);
    expect(await outcomes.outcome('t1')).toMatchObject({ done: true, outcome });
    expect(await outcomes.outcome('t2')).toMatchObject({ done: true, outcome: { kind: 'cancelled' } });
    expect(await outcomes.outcome('t3')).toMatchObject({ done: true, outcome });
    expect(await outcomes.delivered('t1', 'job5')).toMatchObject({ done: true, deliveries: 2 });
  });

  it("stores a crawler's outcome write batch in one request, of any crawls, telling per task whether it was the first writer", async () => {
    await outcomes.finishOutcome('t2', 'job5', { kind: 'cancelled' });
    // An earlier version's delivery marker (done: false) is finished in place.
    await f.collections.outcomes.insertOne({ _id: 't4', job_id: 'job6', done: false, outcome: null });
    const outcome = { kind: 'skipped', reason: 'robots', why: 'no', final_url: null } as const;
    const items = [
      { taskId: 't1', jobId: 'job5', outcome },
      { taskId: 't2', jobId: 'job5', outcome },
      { taskId: 't3', jobId: 'job6', outcome },
      { taskId: 't4', jobId: 'job6', outcome },
      // Two deliveries of one task finished together: the first is the one written.
      { taskId: 't1', jobId: 'job5', outcome: { kind: 'cancelled' } as const },
    ];
    expect(await outcomes.finishOutcomes([])).toEqual([]);
    expect(await outcomes.finishOutcomes(items)).toEqual([true, false, true, true, false]);
    expect(await outcomes.outcome('t1')).toMatchObject({ job_id: 'job5', done: true, outcome });
    expect(await outcomes.outcome('t2')).toMatchObject({ done: true, outcome: { kind: 'cancelled' } });
    expect(await outcomes.outcome('t3')).toMatchObject({ job_id: 'job6', done: true, outcome });
    expect(await outcomes.outcome('t4')).toMatchObject({ job_id: 'job6', done: true, outcome });
    expect(await outcomes.finishOutcomes(items.slice(0, 1))).toEqual([false]);
  });

  it("forgets committed tasks' counts: a later delivery counts from one", async () => {
    await outcomes.delivered('t7', 'job7');
    await outcomes.delivered('t8', 'job7');
    await outcomes.forget('job7', ['t7']);
    expect(await outcomes.delivered('t7', 'job7')).toMatchObject({ deliveries: 1 });
    expect(await outcomes.delivered('t8', 'job7')).toMatchObject({ deliveries: 2 });
  });

  it('never counts a handed-back delivery below zero', async () => {
    await outcomes.delivered('t4', 'job7');
    await outcomes.undeliver('t4', 'job7');
    await outcomes.undeliver('t4', 'job7');
    expect(await outcomes.delivered('t4', 'job7')).toMatchObject({ deliveries: 1 });
  });
});
