import type { EventBusPort } from '@app/events';
import { BACKOFFS } from '@app/core';
import { messageBackoff, type QueuePort } from '@app/queue';
import type { PageOutcomeStore } from '../store/page-outcome-store';
import type { LocalOutcomes } from '../local-outcomes';
import { CRAWL_PAGES_QUEUE, PAGE_TASK, crawlOutcomeChannel, pageTaskId, type PageOutcome, type PageTaskPayload } from '../crawl.types';
import { PAGE_RETRY_LIMITS } from '../page-retry-policy';
import type { CrawlRun, StopCrawl } from './crawl-run';
import type { WindowEntry } from './frontier-window';
import { fromStoredOutcome, type StoredPageOutcome } from '../stored-outcome';

/** An outcome not heard of by bus is looked up in the store this often. */
export const OUTCOME_POLL_MS = 1000;
/** A page task not finished after this long is sent again (idempotent: same task id), e.g. after a Redis restart lost it. */
export const REDISPATCH_AFTER_MS = 15_000;

export type DispatchStore = Pick<PageOutcomeStore, 'doneOutcomes'>;

interface Waiter {
  entry: WindowEntry;
  lastSent: number;
  promise: Promise<PageOutcome>;
  resolve: (outcome: PageOutcome) => void;
  reject: (error: unknown) => void;
}

/**
 * Sends page tasks to the page worker pool and waits for their outcomes (docs/crawl.md "Roles",
 * "Embedded page tasks"). A task's id is `<job>:<key>:<dispatch>`, so sending it again is idempotent:
 * a task not finished after REDISPATCH_AFTER_MS is sent again (a Redis restart may have lost it). An
 * outcome is announced on the bus and kept in the store; a waiter not woken by the bus finds it by a poll. The
 * outcome of a task run by a page worker of this process comes straight from it, not stored yet: the page's commit
 * batch stores it (local-outcomes.ts).
 */
export class PageDispatcher {
  private readonly waiters = new Map<string, Waiter>();
  private readonly timers: NodeJS.Timeout[] = [];
  private unsubscribe?: () => Promise<void>;

  constructor(
    private readonly run: CrawlRun,
    private readonly store: DispatchStore,
    private readonly queue: Pick<QueuePort, 'enqueue'>,
    private readonly bus: Pick<EventBusPort, 'subscribe'>,
    /** Outcomes of the page workers of this process, handed over without the bus and the store read. */
    private readonly local?: Pick<LocalOutcomes, 'expect' | 'forget'>,
  ) {}

  /** Listens for outcomes (bus and poll) and starts the re-send sweep. */
  async open(): Promise<void> {
    this.unsubscribe = await this.bus.subscribe(crawlOutcomeChannel(this.run.jobId), (msg) => {
      // `{task}`, or `{tasks}` from a crawler's outcome write batch (worker/outcome-write-batch.ts): one read for all.
      const { task, tasks } = msg as { task?: unknown; tasks?: unknown };
      const named = Array.isArray(tasks) ? tasks : [task];
      const awaited = named.filter((t): t is string => typeof t === 'string' && this.waiters.has(t));
      if (awaited.length > 0) void this.collect(awaited).catch((error: unknown) => this.warn(error));
    });
    this.every(OUTCOME_POLL_MS, () => this.collect([...this.waiters.keys()]));
    this.every(REDISPATCH_AFTER_MS / 3, () => this.redispatchStale());
  }

  /** Sends the page's task and resolves with its outcome (rejected by rejectAll when the owner stops). */
  dispatch(entry: WindowEntry): Promise<PageOutcome> {
    const taskId = pageTaskId(this.run.jobId, entry.key, entry.dispatch);
    // A task awaited already shares its wait: a second waiter under the same id would leave the first unanswered for good.
    const awaited = this.waiters.get(taskId);
    if (awaited) return awaited.promise;
    // Only a task adopted from the previous owner can have its outcome stored already; a new dispatch
    // number is a task no worker has seen, whose outcome comes by bus (or the poll).
    const mayBeDone = entry.outcomeMayBeStored === true;
    entry.outcomeMayBeStored = false;
    entry.unstoredOutcome = undefined;
    let resolve!: Waiter['resolve'];
    let reject!: Waiter['reject'];
    const promise = new Promise<PageOutcome>((res, rej) => {
      resolve = res;
      reject = rej;
    });
    this.waiters.set(taskId, { entry, lastSent: Date.now(), promise, resolve, reject });
    this.local?.expect(taskId, (outcome, unstored) => this.resolve(taskId, outcome, unstored));
    void this.send(entry, mayBeDone)
      .then(() => (mayBeDone ? this.collect([taskId]) : undefined))
      .catch((error: unknown) => {
        // The next re-send sweep sends it again; the wait goes on.
        this.run.log.warn({ err: error, url: entry.url }, 'page task could not be enqueued');
      });
    return promise;
  }

  /** Ends every wait now (the owner stopped: nothing more of it may be written). */
  rejectAll(stop: StopCrawl): void {
    for (const [taskId, waiter] of this.waiters) {
      this.local?.forget(taskId);
      waiter.reject(stop);
    }
    this.waiters.clear();
  }

  get waiting(): number {
    return this.waiters.size;
  }

  async close(stop: StopCrawl): Promise<void> {
    for (const timer of this.timers) clearInterval(timer);
    this.timers.length = 0;
    await this.unsubscribe?.().catch(() => undefined);
    this.rejectAll(stop);
  }

  /** Resolves the waiters whose outcome is in the store. */
  async collect(taskIds: string[]): Promise<void> {
    if (taskIds.length === 0) return;
    for (const record of await this.store.doneOutcomes(taskIds)) {
      if (record.outcome) this.resolve(record._id, fromStoredOutcome(record.outcome));
    }
  }

  /** `unstored`: handed over by a page worker of this process, for the page's commit batch to store. */
  private resolve(taskId: string, outcome: PageOutcome, unstored?: StoredPageOutcome): void {
    const waiter = this.waiters.get(taskId);
    if (!waiter) return;
    this.waiters.delete(taskId);
    this.local?.forget(taskId);
    if (unstored) waiter.entry.unstoredOutcome = { taskId, outcome: unstored };
    waiter.resolve(outcome);
  }

  /** Sends again every task not finished after REDISPATCH_AFTER_MS (`now` for tests). */
  async redispatchStale(now = Date.now()): Promise<void> {
    for (const waiter of this.waiters.values()) {
      if (now - waiter.lastSent < REDISPATCH_AFTER_MS) continue;
      waiter.lastSent = now;
      await this.send(waiter.entry, true).catch((error: unknown) => this.warn(error));
    }
  }

  /** `again`: the task was sent before (by this owner or an earlier one), so its worker checks whether it is done. */
  private send(entry: WindowEntry, again: boolean): Promise<string> {
    const payload: PageTaskPayload = {
      job_id: this.run.jobId,
      key: entry.key,
      url: entry.url,
      depth: entry.depth,
      dispatch: entry.dispatch,
      extract: entry.extract,
      secrets: this.run.sealedSecrets,
      request_id: this.run.job.request_id,
      ...(again ? { maybe_done: true as const } : {}),
    };
    return this.queue.enqueue(CRAWL_PAGES_QUEUE, PAGE_TASK, payload, {
      jobId: pageTaskId(this.run.jobId, entry.key, entry.dispatch),
      attempts: PAGE_RETRY_LIMITS.taskDeliveries,
      backoff: messageBackoff(BACKOFFS.pageTask),
    });
  }

  private every(ms: number, fn: () => Promise<void>): void {
    const timer = setInterval(() => void fn().catch((error: unknown) => this.warn(error)), ms);
    timer.unref();
    this.timers.push(timer);
  }

  private warn(error: unknown): void {
    this.run.log.warn({ err: error }, 'crawl page dispatch timer failed');
  }
}
