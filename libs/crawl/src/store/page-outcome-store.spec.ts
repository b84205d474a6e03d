import { crawlStoreFixture, type CrawlStoreFixture } from '../../../../test/support/crawl-store';
import { PageOutcomeStore } from './page-outcome-store';

/** Page tasks' markers and outcomes on the real (SQLite) store: the page worker's side and the dispatcher's (DispatchStore). */
describe('PageOutcomeStore', () => {
  let f: CrawlStoreFixture;
  let outcomes: PageOutcomeStore;

  beforeEach(async () => {
    f = await crawlStoreFixture();
    outcomes = new PageOutcomeStore(f.collections.outcomes);
  });

  afterEach(() => f.close());

  it('counts deliveries, keeps the first outcome only, and drops them with the job', async () => {
    expect(await outcomes.delivered('t1', 'job5')).toMatchObject({ deliveries: 1, done: false });
    expect(await outcomes.delivered('t1', 'job5', true)).toMatchObject({ deliveries: 2, alone_runs: 1 });
    await outcomes.undeliver('t1', true);
    expect(await outcomes.outcome('t1')).toMatchObject({ deliveries: 1, alone_runs: 0 });
    const outcome = { kind: 'cancelled' } as const;
    expect(await outcomes.finishOutcome('t1', outcome)).toBe(true);
    expect(await outcomes.finishOutcome('t1', outcome)).toBe(false);
    expect(await outcomes.doneOutcomes([])).toEqual([]);
    expect(await outcomes.doneOutcomes(['t1', 't2'])).toMatchObject([{ _id: 't1', outcome }]);
    await outcomes.delivered('t3', 'job6');
    await outcomes.dropOutcomes('job5');
    expect(await outcomes.outcome('t1')).toBeNull();
    expect(await outcomes.outcome('t3')).not.toBeNull(); // another job's
  });

  it("stores a commit batch's handed-over outcomes in one request, each only where its task is not done yet", async () => {
    await outcomes.delivered('t1', 'job5');
    await outcomes.delivered('t2', 'job5');
    await outcomes.finishOutcome('t2', { kind: 'cancelled' });
    const outcome = { kind: 'skipped', reason: 'robots', why: 'no', final_url: null } as const;
    expect(await outcomes.storeOutcomes([])).toBe(0);
    // t3 has no delivery marker: nothing is created for it.
    expect(await outcomes.storeOutcomes(['t1', 't2', 't3'].map((taskId) => ({ taskId, outcome })))).toBe(1);
    expect(await outcomes.outcome('t1')).toMatchObject({ done: true, deliveries: 1, outcome });
    expect(await outcomes.outcome('t2')).toMatchObject({ done: true, outcome: { kind: 'cancelled' } });
    expect(await outcomes.outcome('t3')).toBeNull();
    expect(await outcomes.delivered('t1', 'job5')).toMatchObject({ done: true, deliveries: 2 });
  });

  it('counts a suspect run alone after its delivery, on the marker the delivery wrote', async () => {
    expect(await outcomes.ranAlone('t9')).toBeNull(); // no marker: nothing counted
    await outcomes.delivered('t9', 'job6');
    expect(await outcomes.delivered('t9', 'job6')).toMatchObject({ deliveries: 2 });
    expect(await outcomes.ranAlone('t9')).toMatchObject({ deliveries: 2, alone_runs: 1 });
    await outcomes.undeliver('t9', true);
    expect(await outcomes.outcome('t9')).toMatchObject({ deliveries: 1, alone_runs: 0 });
  });

  it('never counts a handed-back delivery below zero', async () => {
    await outcomes.delivered('t4', 'job7');
    await outcomes.undeliver('t4');
    await outcomes.undeliver('t4');
    expect(await outcomes.outcome('t4')).toMatchObject({ deliveries: 0 });
  });
});
