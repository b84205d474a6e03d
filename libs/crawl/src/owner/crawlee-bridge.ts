import {
  BasicCrawler,
  Configuration,
  Request,
  type BasicCrawlingContext,
  type IRequestManager,
  type RequestProvider,
} from '@crawlee/basic';
import { totalmem } from 'node:os';
import { Log, LogLevel, type EventManager } from '@crawlee/core';
import { CRAWLEE_MAX_RETRIES, routeOutcome } from '../page-retry-policy';
import type { Admission } from './admission';
import type { CrawlLease } from './crawl-lease';
import { StopCrawl, type CrawlRun } from './crawl-run';
import type { Frontier } from './frontier';
import type { WindowEntry } from './frontier-window';
import type { HostSchedule } from './host-schedule';
import type { InFlightPages } from './in-flight';
import type { JobCounters } from './job-counters';
import type { PageCommitter } from './page-committer';
import type { PageDispatcher } from './page-dispatcher';
import type { SeedSource } from './seed-source';

/**
 * Crawlee's memory signal measures the machine (a child process, ~150 ms) each time a crawler starts,
 * unless it is given the memory budget: it is given Crawlee's default share (a quarter of the memory),
 * read once per process. The owner pins its pool's concurrency (min = max), so the signal decides nothing.
 */
const CRAWLEE_MEMORY_MBYTES = Math.max(256, Math.floor((totalmem() / 2 ** 20) * 0.25));

/**
 * How often Crawlee's event manager measures the system. Each measurement spawns `ps` for the process
 * tree's memory (~12 ms of the event loop and a child process, every second by default), and the pinned
 * concurrency above means no decision reads it: once every ten minutes keeps the event alive, not the cost.
 */
export const CRAWLEE_SYSTEM_INFO_INTERVAL_MS = 10 * 60_000;

export interface BridgeParts {
  lease: Pick<CrawlLease, 'holds'>;
  frontier: Frontier;
  admission: Admission;
  hosts: HostSchedule;
  inFlight: InFlightPages;
  counters: Pick<JobCounters, 'budgetStopped'>;
  dispatcher: Pick<PageDispatcher, 'dispatch'>;
  committer: Pick<PageCommitter, 'apply' | 'retryLater' | 'giveUp'>;
  seeding: Pick<SeedSource, 'busy'>;
}

/**
 * Crawlee drives the crawl (docs/crawl.md "Roles"): a BasicCrawler per crawl, with its own in-memory
 * Configuration (no storage directory, no purge) and this bridge as its request manager, so Crawlee's
 * autoscaled pool, retries and timeouts run the crawl while every URL and every outcome is in the store
 * before it is acted on. The page path, in Crawlee's terms:
 * - fetchNextRequest: an adopted page, else the frontier's next startable entry, admitted;
 * - the request handler: dispatch the page task, route its outcome, commit it;
 * - reclaimRequest (a retryable failure): back to the frontier after a backoff;
 * - the failed-request handler (attempts ran out): the page fails.
 * It never blocks: while every remaining entry belongs to a host that cannot start now it answers null
 * (and isEmpty true), so the pool idles instead of holding a slot, and a timer wakes it when the earliest
 * delayed entry comes due or a paused host resumes.
 */
export class CrawleeBridge implements IRequestManager {
  private crawler?: BasicCrawler;
  private handled = 0;
  private wakeTimer?: NodeJS.Timeout;
  /** When the wake timer fires (ms since epoch), or null. */
  private wakeAt: number | null = null;
  /** The owner gave the pages in flight up (abort): the pool is finished whatever is still running. */
  private abandoned = false;
  /** The pool has asked for work: its run() has begun, so Crawlee's abort() can end it. */
  private poolRunning = false;
  /** For the stall log: since when a call of the pool is under way (0: none), and when it last asked. */
  private readonly calls = { fetchSince: 0, finishedSince: 0, lastEmptyAt: 0, lastEmpty: null as boolean | null, lastFinishedAt: 0 };

  constructor(
    private readonly run: CrawlRun,
    private readonly parts: BridgeParts,
    private readonly options: { events: EventManager; hostMaxStallMs: number },
  ) {
    run.attachWaker(() => this.wake());
  }

  /** Runs the crawl until the frontier is finished or the owner stops. */
  async crawl(): Promise<void> {
    const concurrency = this.run.options.concurrency;
    this.crawler = new BasicCrawler(
      {
        // The bridge is the crawl's request manager (IRequestManager). Crawlee 3.18's option validation
        // rejects the `requestManager` option it documents, so it is passed where Crawlee accepts any
        // object with the manager's methods (checked at run time by duck typing): `requestQueue`.
        requestQueue: this as unknown as RequestProvider,
        minConcurrency: concurrency,
        maxConcurrency: concurrency,
        maxRequestRetries: CRAWLEE_MAX_RETRIES,
        useSessionPool: false,
        // The page task has its own deadlines (fetch, render, every model call); this only catches a hang.
        requestHandlerTimeoutSecs: 3600,
        statusMessageLoggingInterval: 24 * 3600,
        log: new Log({ level: LogLevel.OFF }),
        autoscaledPoolOptions: { maybeRunIntervalSecs: 0.05, loggingIntervalSecs: null },
        requestHandler: (ctx: BasicCrawlingContext) => this.handle(ctx.request),
        failedRequestHandler: (ctx: BasicCrawlingContext, error: Error) => this.giveUp(ctx.request, error),
      },
      new Configuration({
        persistStorage: false,
        purgeOnStart: false,
        eventManager: this.options.events,
        systemInfoV2: true,
        systemInfoIntervalMillis: CRAWLEE_SYSTEM_INFO_INTERVAL_MS,
        memoryMbytes: CRAWLEE_MEMORY_MBYTES,
      }),
    );
    await this.crawler.run();
  }

  /** Tells the pool there may be work now (an outcome came back, a delay ran out). */
  wake(): void {
    void this.crawler?.autoscaledPool?.notify();
  }

  /**
   * Stops the pool now: the pages in flight are abandoned (a lost lease, a cancel, the end of a shutdown's grace).
   * Crawlee's abort() only ends a pool whose run() has begun: one aborted before (the crawler not yet made, or
   * between making its pool and running it) would be marked stopped, never ask for work and never resolve. So
   * until the pool has asked for work, the bridge tells it there is none and that it is finished instead.
   */
  abort(): void {
    this.abandoned = true;
    if (this.poolRunning) void this.crawler?.autoscaledPool?.abort();
    else this.wake();
  }

  close(): void {
    clearTimeout(this.wakeTimer);
    this.wakeAt = null;
  }

  /** Pages handled by Crawlee's pool so far (the stall log's measure of progress). */
  get handledPages(): number {
    return this.handled;
  }

  /** What the pool waits on, for a stalled owner's log line (crawl-actor.ts): each condition isFinished reads. */
  waitingOn(): Record<string, unknown> {
    const { admission, frontier, inFlight, counters, seeding } = this.parts;
    const now = Date.now();
    return {
      handled: this.handled,
      in_flight: inFlight.size,
      in_flight_sample: inFlight.sample(3),
      adopted: admission.hasAdopted,
      frontier: frontier.size,
      seeding_busy: seeding.busy,
      budget_stopped: counters.budgetStopped,
      stop: this.run.stop?.why ?? null,
      abandoned: this.abandoned,
      pool_running: this.poolRunning,
      pool_tasks: this.crawler?.autoscaledPool?.currentConcurrency ?? null,
      admitting: admission.step,
      fetching_for_ms: this.calls.fetchSince ? now - this.calls.fetchSince : null,
      finish_check_for_ms: this.calls.finishedSince ? now - this.calls.finishedSince : null,
      last_empty: this.calls.lastEmpty,
      last_empty_ago_ms: this.calls.lastEmptyAt ? now - this.calls.lastEmptyAt : null,
      last_finish_check_ago_ms: this.calls.lastFinishedAt ? now - this.calls.lastFinishedAt : null,
      next_due_in_ms: dueIn(frontier.nextDueAt(), now),
      host_resumes_in_ms: dueIn(this.parts.hosts.nextResumeAt(now), now),
      wake_in_ms: dueIn(this.wakeAt, now),
    };
  }

  // ---- IRequestManager: Crawlee's view of the frontier

  async fetchNextRequest<T extends Record<string, unknown> = Record<string, unknown>>(): Promise<Request<T> | null> {
    this.calls.fetchSince = Date.now();
    try {
      return await this.nextRequest<T>();
    } finally {
      this.calls.fetchSince = 0;
    }
  }

  private async nextRequest<T extends Record<string, unknown>>(): Promise<Request<T> | null> {
    const { admission, frontier, hosts, counters, lease } = this.parts;
    this.poolRunning = true;
    if (this.abandoned || this.run.stop || !(await lease.holds())) return null;
    const adopted = admission.takeAdopted();
    if (adopted) return toRequest(adopted);
    await frontier.refill();
    for (let tries = 1; ; tries++) {
      if (this.run.stop || counters.budgetStopped) return null;
      const now = Date.now();
      const entry = frontier.next(now, (host) => hosts.canStart(host, now));
      if (!entry) {
        this.scheduleWake();
        return null;
      }
      const admitted = await this.admit(entry);
      if (admitted) return toRequest(admitted);
      // Entries skipped one after another (robots, duplicates): let timers and I/O run in between.
      if (tries % 50 === 0) await new Promise((resolve) => setImmediate(resolve));
    }
  }

  /**
   * Admits an entry the frontier handed out. A failure (a store error) puts it back in the window: its claim is
   * asked again (idempotent for this owner, should the failed one have been written), its ticket kept.
   */
  private async admit(entry: WindowEntry): Promise<WindowEntry | null> {
    const { admission, frontier } = this.parts;
    try {
      return await admission.admit(entry);
    } catch (error) {
      if (!this.run.stop) frontier.putBack(entry);
      throw error;
    } finally {
      frontier.release(entry);
    }
  }

  async isEmpty(): Promise<boolean> {
    const empty = this.empty();
    this.calls.lastEmptyAt = Date.now();
    this.calls.lastEmpty = empty;
    // Crawlee's own timer asks again only once the task it last started has ended (a slow page holds it for as long):
    // entries waiting for a time or a paused host wake the pool themselves when they come due.
    if (empty && !this.abandoned && !this.run.stop && this.parts.frontier.size > 0) this.scheduleWake();
    return empty;
  }

  private empty(): boolean {
    const { admission, frontier, hosts, counters } = this.parts;
    this.poolRunning = true;
    if (this.abandoned || this.run.stop) return true;
    if (admission.hasAdopted) return false;
    if (counters.budgetStopped) return true;
    const now = Date.now();
    return !frontier.hasStartable(now, (host) => hosts.canStart(host, now));
  }

  async isFinished(): Promise<boolean> {
    this.calls.finishedSince = this.calls.lastFinishedAt = Date.now();
    try {
      return await this.finished();
    } finally {
      this.calls.finishedSince = 0;
    }
  }

  private async finished(): Promise<boolean> {
    const { admission, frontier, inFlight, counters, seeding } = this.parts;
    this.poolRunning = true;
    if (this.abandoned) return true;
    // Crawlee asks only while no task of its pool runs, but a task may start while the answer reads the store: a page
    // being admitted is not in flight yet, and not in the window any more.
    if (inFlight.size > 0 || admission.hasAdopted || frontier.admitting > 0) return false;
    if (this.run.stop || counters.budgetStopped) return true;
    if (frontier.size > 0 || seeding.busy) {
      // Nothing startable, nothing in flight: entries an earlier owner stored behind the window may be startable now.
      await frontier.lookBehind(Date.now());
      return false;
    }
    await frontier.refill();
    if (frontier.size > 0) return false;
    if (await frontier.sweep()) return false;
    // Nothing started while the store was read.
    return frontier.size === 0 && frontier.admitting === 0 && inFlight.size === 0 && !seeding.busy;
  }

  async handledCount(): Promise<number> {
    return this.handled;
  }

  getTotalCount(): number {
    return this.handled + this.parts.inFlight.size + this.parts.frontier.size;
  }

  getPendingCount(): number {
    return this.parts.frontier.size;
  }

  async markRequestHandled(): Promise<null> {
    this.handled++;
    return null;
  }

  /** Crawlee retries a page that failed with a retryable error. */
  async reclaimRequest(request: Request): Promise<null> {
    const entry = this.parts.inFlight.get(request.uniqueKey);
    if (!entry || this.run.stop) return null;
    await this.parts.committer.retryLater(entry, request.retryCount);
    return null;
  }

  async addRequest(): Promise<never> {
    throw new Error('the crawl frontier takes new URLs from page outcomes only');
  }

  async addRequestsBatched(): Promise<never> {
    throw new Error('the crawl frontier takes new URLs from page outcomes only');
  }

  async *[Symbol.asyncIterator](): AsyncGenerator<Request> {
    // Not used by BasicCrawler; the frontier is consumed through fetchNextRequest.
  }

  // ---- the page path

  private async handle(request: Request): Promise<void> {
    const entry = this.parts.inFlight.get(request.uniqueKey);
    if (!entry) return;
    const outcome = await this.parts.dispatcher.dispatch(entry);
    // A shutdown still commits what comes back within its grace; a lost lease or a cancel commits nothing.
    const stop = this.run.stop;
    if (stop && stop.why !== 'shutdown') throw stop;
    const route = routeOutcome(
      outcome,
      { retryCount: request.retryCount, rateLimitRetries: entry.rateLimitRetries },
      Date.now(),
      this.options.hostMaxStallMs,
    );
    await this.parts.committer.apply(entry, route, outcome);
  }

  private async giveUp(request: Request, error: Error): Promise<void> {
    const entry = this.parts.inFlight.get(request.uniqueKey);
    if (!entry || error instanceof StopCrawl || this.run.stop) return;
    await this.parts.committer.giveUp(entry, error, request.retryCount + 1);
  }

  /** Wakes the pool when the earliest delayed entry comes due or a paused host resumes. */
  private scheduleWake(): void {
    const now = Date.now();
    // Only times to come: an entry ready now but held by its host's cap starts when a page of the host ends (a wake too).
    const due = [this.parts.frontier.nextDueAt(), this.parts.hosts.nextResumeAt(now)].filter((t): t is number => t !== null && t > now);
    if (due.length === 0) return;
    const at = Math.max(now + 5, Math.min(...due));
    if (this.wakeAt === at) return;
    clearTimeout(this.wakeTimer);
    this.wakeAt = at;
    this.wakeTimer = setTimeout(() => {
      this.wakeAt = null;
      this.wake();
    }, at - now);
    this.wakeTimer.unref();
  }
}

function dueIn(at: number | null, now: number): number | null {
  return at === null ? null : at - now;
}

function toRequest(entry: WindowEntry): Request {
  const request = new Request({ url: entry.url, uniqueKey: entry.id, userData: { depth: entry.depth } });
  request.retryCount = entry.retryCount;
  return request;
}
