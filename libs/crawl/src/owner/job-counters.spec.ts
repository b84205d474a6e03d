import { ownerFixture, type OwnerFixture } from '../../../../test/support/crawl-owner';
import { JobCounters, STATUS_EVERY_MS, STATUS_PAGES, STATUS_SLOW_EVERY_MS, isModelFailure } from './job-counters';

describe('JobCounters', () => {
  let f: OwnerFixture;
  let statusEvents: Array<Record<string, unknown>>;
  let statusWaiters: Array<() => void>;
  let counters: JobCounters;
  let failWrites: number;
  let jobWrites: number;
  let statusSeqs: number[];
  let clock: number | null;

  async function setUp(options: Parameters<typeof ownerFixture>[0] = {}) {
    f = await ownerFixture(options);
    statusEvents = [];
    statusWaiters = [];
    statusSeqs = [];
    failWrites = 0;
    jobWrites = 0;
    clock = null;
    const jobs = {
      update: (id: string, u: Parameters<typeof f.jobs.update>[1]) => f.jobs.update(id, u),
      updateRunning: (id: string, u: Parameters<typeof f.jobs.update>[1]) => {
        jobWrites++;
        return failWrites-- > 0 ? Promise.reject(new Error('store down')) : f.jobs.updateRunning(id, u);
      },
    };
    counters = new JobCounters(
      f.run,
      jobs,
      {
        storeDrawn: async (id, seq, events) => {
          await f.jobs.storeDrawnEvents(id, seq, events);
          statusSeqs.push(seq);
          for (const e of events) statusEvents.push(e.data);
          for (const resolve of statusWaiters.splice(0)) resolve();
        },
        statusData: (job) => ({ pages: job.page_count }),
      },
      f.repository,
      () => clock ?? Date.now(),
    );
  }
  afterEach(() => {
    counters.close();
    return f.close();
  });

  /** Resolves at the next status event (the coalesced write happened before it). */
  const nextStatus = () => new Promise<void>((resolve) => statusWaiters.push(resolve));

  it('writes increments together, with one status event, not one write per page', async () => {
    await setUp();
    const status = nextStatus();
    counters.add({ page_count: 1, cost_usd: 0.01 });
    counters.add({ page_count: 1, cost_usd: 0.02, token_usage_input: 0 });
    expect((await f.jobs.findForWorker(f.run.jobId))?.page_count).toBe(0);
    await status;
    expect(statusEvents).toEqual([{ pages: 2 }]);
    expect(await f.jobs.findForWorker(f.run.jobId)).toMatchObject({ page_count: 2, cost_usd: 0.03 });
  });

  it('draws the status event in the counter write itself and sends its post-image (no read of the job)', async () => {
    await setUp();
    const before = (await f.jobs.findForWorker(f.run.jobId))?.event_seq ?? 0;
    const status = nextStatus();
    counters.add({ page_count: 1 });
    await status;
    expect(jobWrites).toBe(1);
    expect(statusSeqs).toEqual([before + 1]);
    expect((await f.jobs.findForWorker(f.run.jobId))?.event_seq).toBe(before + 1);
    // Stored under the drawn seq (an event without a dedupe key is keyed by its seq).
    expect(await f.jobs.hasEvent(f.run.jobId, `#${before + 1}`)).toBe(true);
  });

  it('writes every 250 ms while pages finish quickly, once a second while they finish slowly', async () => {
    await setUp();
    expect([STATUS_EVERY_MS, STATUS_SLOW_EVERY_MS, STATUS_PAGES]).toEqual([250, 1000, 8]);
    clock = 1_000_000;
    counters = new JobCounters(
      f.run,
      { update: f.jobs.update.bind(f.jobs), updateRunning: f.jobs.updateRunning.bind(f.jobs) },
      { storeDrawn: async () => undefined, statusData: () => ({}) },
      f.repository,
      () => clock as number,
    );
    counters.add({ page_count: STATUS_PAGES - 2, failed_count: 1, urls_queued: 40 });
    expect(counters.statusDue()).toBe(false); // 7 pages, just written
    clock += STATUS_SLOW_EVERY_MS;
    expect(counters.statusDue()).toBe(true); // a second since the last write
    clock -= STATUS_SLOW_EVERY_MS;
    counters.add({ failed_count: 1 });
    expect(counters.statusDue()).toBe(true); // 8 pages since the last write
    await counters.flush();
    expect(counters.statusDue()).toBe(false);
  });

  it('keeps increments whose write failed for the next write', async () => {
    await setUp();
    failWrites = 1;
    counters.add({ page_count: 1 });
    await expect(counters.flush()).rejects.toThrow('store down');
    counters.add({ page_count: 2 });
    await counters.flush();
    expect((await f.jobs.findForWorker(f.run.jobId))?.page_count).toBe(3);
  });

  it('counts unwritten cost against the cap, and stops admission at the cap, in memory and in the state', async () => {
    await setUp({ max_cost_usd: 0.05 });
    counters.add({ cost_usd: 0.03 });
    await counters.checkBudget();
    expect(counters.budgetStopped).toBe(false);
    counters.add({ cost_usd: 0.02 });
    await counters.checkBudget();
    expect(counters.budgetStopped).toBe(true);
    expect((await f.repository.states.state(f.run.jobId))?.budget_stopped).toBe(true);
    expect(f.wakes()).toBeGreaterThan(0);
  });

  it('recounts exactly from the entries, and writes nothing more once frozen', async () => {
    await setUp();
    await f.pending('/a', { status: 'completed', result_id: 'r1', method: 'selectors', cost_usd: 0.1, token_usage_input: 5 });
    await f.pending('/b', { status: 'failed', error_category: 'llm_timeout', cost_usd: 0.2 });
    await f.pending('/c', { status: 'failed', error_category: 'http_error' });
    await f.pending('/d');
    counters.add({ page_count: 99 }); // a stale increment, dropped by the freeze
    await counters.freeze();
    const totals = await counters.recount();
    expect(totals).toEqual({ completed: 1, failed: 2, pagesFetched: 3 });
    await counters.flush();
    expect(await f.jobs.findForWorker(f.run.jobId)).toMatchObject({
      page_count: 1,
      failed_count: 2,
      model_calls: 1,
      pages_by_method: { model: 0, selectors: 1, mixed: 0 },
      cost_usd: 0.3,
      urls_queued: 4,
      token_usage_input: 5,
    });
    expect((await f.repository.states.state(f.run.jobId))?.errors_by_category).toEqual({ llm_timeout: 1, http_error: 1 });
  });

  it('recounts pages by method and model calls by kind with their tokens (entries stored before calls had kinds were full calls)', async () => {
    await setUp();
    await f.pending('/model', {
      status: 'completed',
      result_id: 'r1',
      method: 'model',
      model_call: 'full',
      token_usage_input: 100,
      token_usage_output: 20,
    });
    await f.pending('/excerpt', {
      status: 'completed',
      result_id: 'r2',
      method: 'model',
      model_call: 'partial',
      token_usage_input: 30,
      token_usage_output: 10,
    });
    await f.pending('/mixed', {
      status: 'completed',
      result_id: 'r3',
      method: 'mixed',
      model_call: 'partial',
      token_usage_input: 40,
      token_usage_output: 5,
    });
    await f.pending('/program', { status: 'completed', result_id: 'r4', method: 'selectors', model_call: null });
    await f.pending('/legacy', { status: 'completed', result_id: 'r5', method: 'model', token_usage_input: 90, token_usage_output: 15 });
    await f.pending('/formats', { status: 'completed', result_id: 'r6', method: 'scrape', model_call: null });
    // A monitor's unchanged page has no result of its own; a page crawled for its links only is not counted.
    await f.pending('/unchanged', { status: 'completed', result_id: null, method: 'unchanged', model_call: null });
    await f.pending('/navigation', { status: 'completed', result_id: null, method: null, model_call: null });
    await f.pending('/failed', { status: 'failed', error_category: 'llm_timeout' });
    await counters.freeze();
    await counters.recount();
    expect(await f.jobs.findForWorker(f.run.jobId)).toMatchObject({
      page_count: 7,
      pages_by_method: { model: 3, selectors: 1, mixed: 1, scrape: 1, unchanged: 1 },
      model_calls: 5,
      model_calls_by_kind: { full: 2, partial: 2 },
      tokens_by_call_kind: { full: { input: 190, output: 35 }, partial: { input: 70, output: 15 } },
    });
  });

  it('recounts urls_queued without the URLs it will never fetch (max_pages reached)', async () => {
    await setUp();
    await f.pending('/admitted', { admitted: true, ticket: 1 });
    await f.pending('/never');
    await f.pending('/done', { status: 'completed', admitted: true, ticket: 2 });
    counters.add({ urls_queued: 50 });
    await counters.recountQueued();
    expect((await f.jobs.findForWorker(f.run.jobId))?.urls_queued).toBe(2);
  });

  it('a cancel recount writes the terminal job; the running-only write would not', async () => {
    await setUp();
    await f.pending('/a', { status: 'completed', result_id: 'r1' });
    await f.jobs.transition(f.run.jobId, 'cancelled');
    await counters.recount();
    expect((await f.jobs.findForWorker(f.run.jobId))?.page_count).toBe(0);
    await counters.recount(true);
    expect((await f.jobs.findForWorker(f.run.jobId))?.page_count).toBe(1);
  });

  it('recounts the ungrounded values of completed pages and of pages the grounding policy failed', async () => {
    await setUp();
    await f.pending('/a', { status: 'completed', result_id: 'r1', ungrounded_fields: 2 });
    await f.pending('/b', { status: 'completed', result_id: 'r2', ungrounded_fields: 0 });
    await f.pending('/legacy', { status: 'completed', result_id: 'r3' });
    await f.pending('/c', { status: 'failed', error_category: 'ungrounded_output', ungrounded_fields: 3 });
    await counters.freeze();
    await counters.recount();
    expect(await f.jobs.findForWorker(f.run.jobId)).toMatchObject({ ungrounded_fields: 5, model_calls: 4 });
  });

  it('counts a failed model call, and a model answer the grounding policy refused, as a model call', () => {
    expect(isModelFailure('llm_invalid_output')).toBe(true);
    expect(isModelFailure('ungrounded_output')).toBe(true);
    expect(isModelFailure('http_error')).toBe(false);
    expect(isModelFailure(null)).toBe(false);
  });
});
