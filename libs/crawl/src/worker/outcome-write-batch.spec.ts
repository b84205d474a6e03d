import type { StoredPageOutcome } from '../stored-outcome';
import { crawlOutcomeChannel } from '../crawl.types';
import { OutcomeWriteBatch, type OutcomeWrite } from './outcome-write-batch';

/**
 * A crawler's outcome write batch: one store request for the outcomes finished together, then one message per
 * crawl naming the ones recorded. The store's side (finishOutcomes, first writer wins) runs on the real store in
 * page-outcome-store.spec.ts; here the store answers as told. Fake timers.
 */
describe('OutcomeWriteBatch', () => {
  const outcome: StoredPageOutcome = { kind: 'cancelled' };
  let stored: OutcomeWrite[][];
  let published: Array<[string, unknown]>;
  let refused: Set<string>;
  let storeFails: boolean;
  let busFails: boolean;
  let batch: OutcomeWriteBatch;

  beforeEach(() => {
    jest.useFakeTimers();
    stored = [];
    published = [];
    refused = new Set();
    storeFails = false;
    busFails = false;
    batch = new OutcomeWriteBatch(
      {
        finishOutcomes: (items) => {
          stored.push([...items]);
          return storeFails ? Promise.reject(new Error('store down')) : Promise.resolve(items.map((i) => !refused.has(i.taskId)));
        },
      },
      {
        publish: (channel, message) => {
          if (busFails) return Promise.reject(new Error('bus down'));
          published.push([channel, message]);
          return Promise.resolve();
        },
      },
      { max: 64, minLingerMs: 5, maxLingerMs: 50 },
      () => Date.now(),
    );
  });
  afterEach(() => jest.useRealTimers());

  const write = (taskId: string, jobId = 'job1'): OutcomeWrite => ({ taskId, jobId, outcome });

  it('stores an outcome finished alone at once and names it to its owner as before (`{task}`)', async () => {
    const one = batch.add(write('t1'));
    await jest.advanceTimersByTimeAsync(0);
    await expect(one).resolves.toBe(true);
    expect(stored).toEqual([[write('t1')]]);
    expect(published).toEqual([[crawlOutcomeChannel('job1'), { task: 't1' }]]);
  });

  it('stores outcomes finished together in one request and names the recorded ones in one message per crawl', async () => {
    refused.add('t3'); // another worker recorded it first: its owner heard of it from that worker
    const all = Promise.all([write('t1'), write('t2'), write('t3'), write('t4', 'job2')].map((w) => batch.add(w)));
    await jest.advanceTimersByTimeAsync(100);
    await expect(all).resolves.toEqual([true, true, false, true]);
    expect(stored.map((s) => s.map((w) => w.taskId))).toEqual([['t1', 't2', 't3', 't4']]);
    expect(published).toEqual([
      [crawlOutcomeChannel('job1'), { tasks: ['t1', 't2'] }],
      [crawlOutcomeChannel('job2'), { task: 't4' }],
    ]);
  });

  it('a lost message is no failure (the owner polls); a store failure fails every outcome of the batch', async () => {
    busFails = true;
    const sent = batch.add(write('t1'));
    await jest.advanceTimersByTimeAsync(0);
    await expect(sent).resolves.toBe(true);
    busFails = false;
    storeFails = true;
    const failed = [batch.add(write('t2')), batch.add(write('t3'))].map((p) => p.then(String, (error: Error) => error.message));
    await jest.advanceTimersByTimeAsync(100);
    await expect(Promise.all(failed)).resolves.toEqual(['store down', 'store down']);
    expect(published).toEqual([]);
  });
});
