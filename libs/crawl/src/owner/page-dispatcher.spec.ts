import { LocalEventBus } from '@app/events';
import { MemoryQueueAdapter, type QueuePort } from '@app/queue';
import { ownerFixture, type OwnerFixture } from '../../../../test/support/crawl-owner';
import { LocalOutcomes } from '../local-outcomes';
import { toStoredOutcome } from '../stored-outcome';
import { CRAWL_PAGES_QUEUE, crawlOutcomeChannel, pageTaskId, type PageOutcome, type PageTaskPayload } from '../crawl.types';
import { StopCrawl } from './crawl-run';
import { PageDispatcher, REDISPATCH_AFTER_MS } from './page-dispatcher';

const skipped: PageOutcome = { kind: 'skipped', reason: 'duplicate', why: 'known', final_url: null };

describe('PageDispatcher', () => {
  let f: OwnerFixture;
  let bus: LocalEventBus;
  let queue: MemoryQueueAdapter;
  let sent: string[];
  let enqueueFails: number;
  /** The payloads of the tasks sent, in order. */
  let payloads: PageTaskPayload[];
  let dispatcher: PageDispatcher;

  beforeEach(async () => {
    f = await ownerFixture();
    bus = new LocalEventBus();
    queue = new MemoryQueueAdapter();
    sent = [];
    payloads = [];
    enqueueFails = 0;
    const recording: Pick<QueuePort, 'enqueue'> = {
      enqueue: (name, type, payload, options) => {
        if (enqueueFails-- > 0) return Promise.reject(new Error('redis down'));
        sent.push(options!.jobId!);
        payloads.push(payload as PageTaskPayload);
        return queue.enqueue(name, type, payload, options);
      },
    };
    f.run.sealedSecrets = 'sealed-key';
    dispatcher = new PageDispatcher(f.run, f.repository.outcomes, recording, bus);
    await dispatcher.open();
  });
  afterEach(async () => {
    await dispatcher.close(new StopCrawl('shutdown'));
    await queue.close();
    await bus.close();
    await f.close();
  });

  /** A page worker: stores the outcome of every task it gets, and tells the owner by bus unless `quiet`. */
  async function worker(outcome: PageOutcome, quiet = false) {
    const seen: PageTaskPayload[] = [];
    await queue.process<PageTaskPayload>(CRAWL_PAGES_QUEUE, 2, async (message) => {
      seen.push(message.payload);
      const taskId = pageTaskId(message.payload.job_id, message.payload.key, message.payload.dispatch);
      await f.repository.outcomes.delivered(taskId, message.payload.job_id);
      await f.repository.outcomes.finishOutcome(taskId, f.run.jobId, toStoredOutcome(outcome));
      if (!quiet) await bus.publish(crawlOutcomeChannel(message.payload.job_id), { task: taskId });
    });
    return seen;
  }

  it('sends the page task under its dispatch number and resolves with the outcome the bus announces', async () => {
    const seen = await worker(skipped);
    const entry = await f.pending('/a');
    entry.dispatch = 2;
    await expect(dispatcher.dispatch(entry)).resolves.toEqual(skipped);
    expect(sent).toEqual([pageTaskId(f.run.jobId, entry.key, 2)]);
    expect(seen).toEqual([expect.objectContaining({ url: entry.url, dispatch: 2, extract: true, secrets: 'sealed-key' })]);
    expect(dispatcher.waiting).toBe(0);
  });

  it('a task dispatched again while awaited shares the wait: both get its outcome, none waits for good', async () => {
    const entry = await f.pending('/a');
    const first = dispatcher.dispatch(entry);
    const second = dispatcher.dispatch({ ...entry });
    expect(dispatcher.waiting).toBe(1);
    const taskId = pageTaskId(f.run.jobId, entry.key, 0);
    await f.repository.outcomes.delivered(taskId, f.run.jobId);
    await f.repository.outcomes.finishOutcome(taskId, f.run.jobId, skipped);
    await dispatcher.collect([taskId]);
    await expect(Promise.all([first, second])).resolves.toEqual([skipped, skipped]);
    expect(sent).toEqual([taskId]);
  });

  it("reads the outcomes one message of a crawler's outcome write batch names in one store read", async () => {
    const entries = [await f.pending('/a'), await f.pending('/b'), await f.pending('/c')];
    const outcomes = entries.map((e) => dispatcher.dispatch(e));
    const tasks = entries.map((e) => pageTaskId(f.run.jobId, e.key, 0));
    await f.repository.outcomes.finishOutcomes(tasks.map((taskId) => ({ taskId, jobId: f.run.jobId, outcome: skipped })));
    const reads: string[][] = [];
    const doneOutcomes = f.repository.outcomes.doneOutcomes.bind(f.repository.outcomes);
    jest.spyOn(f.repository.outcomes, 'doneOutcomes').mockImplementation((ids) => {
      reads.push(ids);
      return doneOutcomes(ids);
    });
    // One of the tasks named is not awaited here (another owner's, or answered already): left out of the read.
    await bus.publish(crawlOutcomeChannel(f.run.jobId), { tasks: [...tasks, 'someone-else'] });
    await expect(Promise.all(outcomes)).resolves.toEqual([skipped, skipped, skipped]);
    expect(reads).toEqual([tasks]);
  });

  it('finds an outcome the bus never announced by looking in the store', async () => {
    const entry = await f.pending('/a');
    const outcome = dispatcher.dispatch(entry);
    // A worker stored the outcome, and its bus message was lost.
    const taskId = pageTaskId(f.run.jobId, entry.key, 0);
    await f.repository.outcomes.delivered(taskId, f.run.jobId);
    await f.repository.outcomes.finishOutcome(taskId, f.run.jobId, skipped);
    await dispatcher.collect([taskId]);
    await expect(outcome).resolves.toEqual(skipped);
  });

  it('an adopted page whose outcome is stored already resolves without a worker', async () => {
    const entry = await f.pending('/a');
    const taskId = pageTaskId(f.run.jobId, entry.key, 0);
    await f.repository.outcomes.delivered(taskId, f.run.jobId);
    await f.repository.outcomes.finishOutcome(taskId, f.run.jobId, skipped);
    entry.outcomeMayBeStored = true;
    await expect(dispatcher.dispatch(entry)).resolves.toEqual(skipped);
    expect(entry.outcomeMayBeStored).toBe(false);
  });

  it('re-sends a task not finished in time, and one whose enqueue failed, under the same id', async () => {
    enqueueFails = 1;
    const entry = await f.pending('/a');
    void dispatcher.dispatch(entry).catch(() => undefined);
    await new Promise((resolve) => setImmediate(resolve));
    expect(sent).toEqual([]);
    await dispatcher.redispatchStale(Date.now() + REDISPATCH_AFTER_MS);
    await dispatcher.redispatchStale(Date.now() + 2 * REDISPATCH_AFTER_MS + 1);
    const id = pageTaskId(f.run.jobId, entry.key, 0);
    expect(sent).toEqual([id, id]);
    // A task sent before tells its worker to read whether it is done (it may have run while its first send looked lost).
    expect(payloads.map((p) => p.maybe_done)).toEqual([true, true]);
  });

  it('tells the worker a first send cannot be done, and an adopted task may be', async () => {
    const fresh = await f.pending('/a');
    const adopted = await f.pending('/b');
    adopted.outcomeMayBeStored = true;
    void dispatcher.dispatch(fresh).catch(() => undefined);
    void dispatcher.dispatch(adopted).catch(() => undefined);
    await new Promise((resolve) => setImmediate(resolve));
    expect(payloads.map((p) => [p.key, p.maybe_done])).toEqual([
      [fresh.key, undefined],
      [adopted.key, true],
    ]);
  });

  describe('with the page workers of this process (local outcomes)', () => {
    let local: LocalOutcomes;
    let reads: number;
    let near: PageDispatcher;

    beforeEach(async () => {
      local = new LocalOutcomes();
      reads = 0;
      const store = { doneOutcomes: (ids: string[]) => (reads++, f.repository.outcomes.doneOutcomes(ids)) };
      near = new PageDispatcher(f.run, store, { enqueue: async (_q, _n, _p, options) => options!.jobId! }, bus, local);
      await near.open();
    });
    afterEach(() => near.close(new StopCrawl('shutdown')));

    it('takes an outcome a worker here offers, without a bus message or a store read, for its commit batch to store', async () => {
      const entry = await f.pending('/a');
      const waiting = near.dispatch(entry);
      const taskId = pageTaskId(f.run.jobId, entry.key, 0);
      expect(local.offer(taskId, skipped, toStoredOutcome(skipped))).toBe(true);
      await expect(waiting).resolves.toBe(skipped);
      expect(reads).toBe(0);
      expect(near.waiting).toBe(0);
      expect(entry.unstoredOutcome).toEqual({ taskId, outcome: toStoredOutcome(skipped) });
      expect(local.offer(taskId, skipped, toStoredOutcome(skipped))).toBe(false); // taken once
      // The page's next task starts without it (a requeued page's old outcome is never stored for the new task).
      entry.dispatch++;
      void near.dispatch(entry).catch(() => undefined);
      expect(entry.unstoredOutcome).toBeUndefined();
    });

    it('a task resolved from the store, or abandoned by a stopping owner, is no longer taken here', async () => {
      const entry = await f.pending('/a');
      const waiting = near.dispatch(entry);
      const taskId = pageTaskId(f.run.jobId, entry.key, 0);
      await f.repository.outcomes.delivered(taskId, f.run.jobId);
      await f.repository.outcomes.finishOutcome(taskId, f.run.jobId, skipped);
      await near.collect([taskId]);
      await expect(waiting).resolves.toEqual(skipped);
      expect(local.size).toBe(0);
      const other = await f.pending('/b');
      const stopped = near.dispatch(other);
      near.rejectAll(new StopCrawl('lease-lost'));
      await expect(stopped).rejects.toBeInstanceOf(StopCrawl);
      expect(local.offer(pageTaskId(f.run.jobId, other.key, 0), skipped, toStoredOutcome(skipped))).toBe(false);
    });
  });

  it('ends every wait when the owner stops', async () => {
    const entry = await f.pending('/a');
    const waiting = dispatcher.dispatch(entry);
    const stop = new StopCrawl('lease-lost');
    dispatcher.rejectAll(stop);
    await expect(waiting).rejects.toBe(stop);
    expect(dispatcher.waiting).toBe(0);
  });
});
