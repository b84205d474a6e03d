import { roundUsd } from '@app/core';
import type { JobsRepository, JobsService } from '@app/jobs';
import type { CrawlStorePort } from '../crawl.repository';
import type { CrawlMapReads } from '../store/crawl-map-reads';
import type { CrawlRun } from './crawl-run';
import { callKind } from './call-kind';

/** Counter writes (and the `status` event) of a crawl are coalesced to at most one per this interval, */
export const STATUS_EVERY_MS = 250;
/** and, while fewer than STATUS_PAGES pages were counted since the last write, to one per this interval. */
export const STATUS_SLOW_EVERY_MS = 1000;
export const STATUS_PAGES = 8;

export type CountersJobs = Pick<JobsRepository, 'updateRunning' | 'update'>;
export type CountersEvents = Pick<JobsService, 'storeDrawn' | 'statusData'>;
export type CountersStore = CrawlStorePort<{ states: 'updateState' }> & {
  readonly map: Pick<CrawlMapReads, 'iterateDone' | 'countEntries' | 'countUnadmittedPending'> &
    Partial<Pick<CrawlMapReads, 'countDuplicates'>>;
};

export interface CrawlTotals {
  completed: number;
  failed: number;
  /** Pages fetched (completed or failed). */
  pagesFetched: number;
}

/**
 * The job's counters (pages, failures, tokens, cost, URLs queued) and the crawl's cost cap
 * (docs/crawl.md "Job counters"). Increments are written together, with the `status` event, every
 * STATUS_EVERY_MS while pages finish quickly and every STATUS_SLOW_EVERY_MS while fewer than STATUS_PAGES
 * finish in between, not once per page: one write of the job adds them and draws the status event's seq,
 * whose data is that write's post-image (no read of the job). A crash loses at most the unwritten part,
 * and every takeover, the end of the crawl and a cancel recount them exactly from the entries. The cost
 * cap counts the unwritten part too. After the final recount (freeze) nothing more is written: it would
 * count a page twice.
 */
export class JobCounters {
  /** Increments not yet written. */
  private pending: Record<string, number> = {};
  /** Increments being written now (counted by the cost cap until the write returns). */
  private flushingInc: Record<string, number> = {};
  private flushing: Promise<void> | null = null;
  private frozen = false;
  private statusTimer?: NodeJS.Timeout;
  private capReached = false;
  /** A status event is due at the next tick whatever the pace (the queued count was recounted). */
  private statusForced = false;
  /** When the counters and status were last written (ms). */
  private lastStatusAt: number;

  constructor(
    private readonly run: CrawlRun,
    private readonly jobs: CountersJobs,
    private readonly events: CountersEvents,
    private readonly store: CountersStore,
    private readonly now: () => number = Date.now,
  ) {
    this.lastStatusAt = now();
  }

  /** Takeover: whether an earlier owner stopped the crawl at its cost cap. */
  restore(budgetStopped: boolean): void {
    this.capReached = budgetStopped;
  }

  /** The crawl reached its cost cap: no new page starts. */
  get budgetStopped(): boolean {
    return this.capReached;
  }

  /** Adds to the job's counters (written with the next status event). */
  add(inc: Record<string, number>): void {
    for (const [field, n] of Object.entries(inc)) if (n !== 0) this.pending[field] = (this.pending[field] ?? 0) + n;
    this.scheduleStatus();
  }

  /** The crawl's cost so far, the increments not yet written included. */
  costSoFar(): number {
    return this.run.job.cost_usd + (this.pending.cost_usd ?? 0) + (this.flushingInc.cost_usd ?? 0);
  }

  /** At the cost cap (`max_cost_usd`): stops admission for good, in memory and in the crawl state. */
  async checkBudget(): Promise<void> {
    const cap = this.run.options.max_cost_usd;
    if (cap === null || this.capReached || this.costSoFar() < cap) return;
    this.capReached = true;
    await this.store.states.updateState(this.run.jobId, this.run.epoch, { $set: { budget_stopped: true } });
    this.run.log.info({ cost_usd: this.costSoFar(), max_cost_usd: cap }, 'crawl reached its cost cap: no new page starts');
    this.run.wake();
  }

  /** Writes the pending increments (one write at a time; a failed write keeps them for the next). */
  async flush(): Promise<void> {
    await this.write(false);
  }

  /**
   * Writes the pending increments; with `status`, draws the `status` event's seq in the same write (also when
   * nothing is pending) and stores the event from the write's post-image. Nothing while the job is not running.
   */
  private async write(status: boolean): Promise<void> {
    await this.settleFlush();
    const inc = this.frozen ? {} : this.pending;
    if (!status && Object.keys(inc).length === 0) return;
    if (!this.frozen) this.pending = {};
    this.flushingInc = inc;
    let release = () => {};
    this.flushing = new Promise<void>((resolve) => (release = resolve));
    let written: Awaited<ReturnType<CountersJobs['updateRunning']>>;
    try {
      written = await this.jobs.updateRunning(this.run.jobId, { $inc: status ? { ...inc, event_seq: 1 } : inc });
    } catch (error) {
      for (const [field, n] of Object.entries(inc)) this.pending[field] = (this.pending[field] ?? 0) + n;
      throw error;
    } finally {
      this.flushingInc = {};
      this.flushing = null;
      release();
    }
    if (written) this.run.job = written;
    if (status && written)
      await this.events.storeDrawn(this.run.jobId, written.event_seq, [{ event: 'status', data: this.events.statusData(written) }]);
  }

  /**
   * `urls_queued` once max_pages is reached: the URLs this crawl will still fetch or has fetched, not those
   * it never will. A recount from the store (increments of urls_queued not yet written are in it already).
   */
  async recountQueued(): Promise<void> {
    await this.settleFlush();
    delete this.pending.urls_queued;
    const live = await this.store.map.countEntries(this.run.jobId, ['pending', 'running', 'completed', 'failed']);
    const unadmitted = await this.store.map.countUnadmittedPending(this.run.jobId);
    const job = await this.jobs.updateRunning(this.run.jobId, { $set: { urls_queued: live - unadmitted } });
    if (job) this.run.job = job;
    this.statusForced = true;
    this.scheduleStatus();
  }

  /** Before the final recount: no increment is written after it. */
  async freeze(): Promise<void> {
    this.frozen = true;
    await this.settleFlush();
    this.pending = {};
  }

  /**
   * Recounts the job's counters and the error summary from the entries: exact, whatever happened before.
   * `ended`: the job is terminal already (a cancel), so its record is written whatever its status.
   */
  async recount(ended = false): Promise<CrawlTotals> {
    let completed = 0;
    let failed = 0;
    let fetched = 0;
    let tokensIn = 0;
    let tokensOut = 0;
    let cost = 0;
    const byMethod = { model: 0, selectors: 0, mixed: 0, scrape: 0, unchanged: 0 };
    const byKind = { full: 0, partial: 0 };
    const tokensByKind = { full: { input: 0, output: 0 }, partial: { input: 0, output: 0 } };
    let modelCalls = 0;
    let ungrounded = 0;
    const errors: Record<string, number> = {};
    for await (const e of this.store.map.iterateDone(this.run.jobId)) {
      fetched++;
      ungrounded += e.ungrounded_fields ?? 0;
      tokensIn += e.token_usage_input ?? 0;
      tokensOut += e.token_usage_output ?? 0;
      cost += e.cost_usd ?? 0;
      // A monitor's unchanged page has no result of its own (page-committer.ts) and is a completed page all the same.
      if (e.status === 'completed' && (e.result_id || e.method === 'unchanged')) {
        completed++;
        byMethod[
          e.method === 'selectors' || e.method === 'mixed' || e.method === 'scrape' || e.method === 'unchanged' ? e.method : 'model'
        ]++;
        const kind = callKind({ method: e.method, model_call: e.model_call });
        if (kind) {
          byKind[kind]++;
          tokensByKind[kind].input += e.token_usage_input ?? 0;
          tokensByKind[kind].output += e.token_usage_output ?? 0;
        }
      }
      if (e.status === 'failed') {
        failed++;
        if (isModelFailure(e.error_category)) modelCalls++;
        const category = String(e.error_category ?? 'internal');
        errors[category] = (errors[category] ?? 0) + 1;
      }
    }
    const queued = await this.store.map.countEntries(this.run.jobId, ['pending', 'running', 'completed', 'failed']);
    // Pages skipped as duplicates (docs/dedup.md): counted from the entries like the rest.
    const duplicates = this.store.map.countDuplicates ? await this.store.map.countDuplicates(this.run.jobId) : null;
    await this.store.states.updateState(this.run.jobId, this.run.epoch, { $set: { errors_by_category: errors } });
    const counters = {
      $set: {
        page_count: completed,
        pages_by_method: byMethod,
        model_calls: byKind.full + byKind.partial + modelCalls,
        model_calls_by_kind: byKind,
        tokens_by_call_kind: tokensByKind,
        failed_count: failed,
        token_usage_input: tokensIn,
        token_usage_output: tokensOut,
        cost_usd: roundUsd(cost),
        urls_queued: queued,
        ungrounded_fields: ungrounded,
        ...(duplicates
          ? { duplicates: duplicates.byReason, model_calls_saved: this.run.input.schema !== null ? duplicates.beforeModel : 0 }
          : {}),
      },
    };
    const job = ended ? await this.jobs.update(this.run.jobId, counters) : await this.jobs.updateRunning(this.run.jobId, counters);
    if (job) this.run.job = job;
    return { completed, failed, pagesFetched: fetched };
  }

  /** Stops the status timer (the owner stops). */
  close(): void {
    clearTimeout(this.statusTimer);
    this.statusTimer = undefined;
  }

  /** Waits for a counter write in progress, whatever its result. */
  private async settleFlush(): Promise<void> {
    while (this.flushing) await this.flushing.catch(() => undefined);
  }

  /**
   * The next counter write and status event: checked every STATUS_EVERY_MS, written once STATUS_PAGES pages
   * were counted or STATUS_SLOW_EVERY_MS has passed since the last write.
   */
  private scheduleStatus(): void {
    if (this.statusTimer) return;
    this.statusTimer = setTimeout(() => {
      this.statusTimer = undefined;
      if (!this.statusDue()) {
        this.scheduleStatus();
        return;
      }
      this.statusForced = false;
      this.lastStatusAt = this.now();
      void this.write(!this.frozen).catch((error: unknown) => {
        this.run.log.warn({ err: error }, 'crawl counters or status event could not be written; increments kept for the next write');
        this.scheduleStatus();
      });
    }, STATUS_EVERY_MS);
    this.statusTimer.unref();
  }

  /** Whether the coalesced write is due now (see STATUS_SLOW_EVERY_MS). */
  statusDue(): boolean {
    const pages = (this.pending.page_count ?? 0) + (this.pending.failed_count ?? 0);
    return this.statusForced || pages >= STATUS_PAGES || this.now() - this.lastStatusAt >= STATUS_SLOW_EVERY_MS;
  }
}

/**
 * A failed page whose model call failed, or whose answer the grounding policy refused (`ungrounded_output`): it
 * counts as a model call (docs/api.md "Jobs").
 */
export function isModelFailure(category: string | null | undefined): boolean {
  return typeof category === 'string' && (category.startsWith('llm_') || category === 'ungrounded_output');
}
