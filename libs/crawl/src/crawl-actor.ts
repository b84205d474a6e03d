import {
  BasicCrawler,
  Configuration,
  Request,
  type BasicCrawlingContext,
  type IRequestManager,
  type RequestProvider,
} from '@crawlee/basic';
import type { EventManager } from '@crawlee/core';
import { Log, LogLevel } from '@crawlee/core';
import type { AppConfig } from '@app/config';
import { AppError, nowIso, sleep, type ErrorCategory } from '@app/core';
import type { EventBusPort } from '@app/events';
import { RobotsCache, type StaticFetcher } from '@app/fetch';
import { JobYieldedError, isTerminal, type JobContext, type JobRecord, type JobsRepository, type JobsService } from '@app/jobs';
import type { AppLogger } from '@app/observability';
import { hostOf, keepSlot, type PolitenessPort } from '@app/politeness';
import { HandBackError, type QueuePort } from '@app/queue';
import { toResultEventItem, type ResultRecord, type ResultsService } from '@app/results';
import type { CrawlJobInput } from './crawl-input';
import { CrawlScope, type SkipReason } from './crawl-scope';
import type { CrawlRepository } from './crawl.repository';
import {
  CRAWL_PAGES_QUEUE,
  MAX_RATE_LIMIT_RETRIES,
  PAGE_TASK,
  SKIPPED_RECORD_MIN,
  crawlOutcomeChannel,
  pageTaskId,
  type CrawlEntry,
  type EntryVia,
  type PageOutcome,
  type PageTaskPayload,
} from './crawl.types';
import { FrontierWindow, type WindowEntry } from './frontier-window';
import { walkSitemaps } from './sitemaps';
import { canonicalize, type CanonicalUrl } from './url-canon';

export interface CrawlActorDeps {
  workerId: string;
  config: AppConfig;
  logger: AppLogger;
  repository: CrawlRepository;
  jobsRepository: JobsRepository;
  jobs: JobsService;
  results: ResultsService;
  queue: QueuePort;
  bus: EventBusPort;
  politeness: PolitenessPort;
  staticFetcher: StaticFetcher;
  events: EventManager;
  metrics: { takeovers: { inc(): void }; commits: { inc(labels: { status: string }): void } };
}

/** The window is refilled from the store below this many entries, up to WINDOW_BATCH more. */
const WINDOW_LOW = 1000;
const WINDOW_BATCH = 2000;
/** An outcome not heard of by bus is looked up in the store this often. */
const OUTCOME_POLL_MS = 1000;
/** A page task not finished after this long is sent again (idempotent: same task id), e.g. after a Redis restart lost it. */
const REDISPATCH_AFTER_MS = 15_000;
/** Status events of a crawl are coalesced to one per this interval. */
const STATUS_EVERY_MS = 250;
const MAX_ROBOTS_DEFERRALS = 3;
/** Admission tickets (max_pages) are reserved in the store this many at a time (unused ones are reused at a takeover). */
const TICKET_BLOCK = 16;
/** robots.txt files fetched ahead of admission at once, at least (or the crawl's concurrency when higher). */
const ROBOTS_AHEAD_MIN = 8;
const MAX_REQUEST_RETRIES = 2;

class StopCrawl extends Error {
  constructor(readonly why: 'lease-lost' | 'shutdown' | 'cancelled') {
    super(why);
  }
}

interface Waiter {
  taskId: string;
  entry: WindowEntry;
  since: number;
  lastSent: number;
  resolve: (outcome: PageOutcome) => void;
  reject: (error: unknown) => void;
}

/**
 * The crawl actor: while it holds the crawl's lease (one owner at a time, fenced by an epoch), it
 * owns the frontier — admission, dedupe, depth, limits, order, completion. Crawlee drives it: a
 * BasicCrawler per crawl with its own Configuration (in-memory, no storage directory, no purge) and
 * this actor as its request manager, so Crawlee's autoscaled pool, retries and timeouts run the
 * crawl while every URL and every outcome is in the store before it is acted on. The page work runs
 * on the page worker pool of every replica. See docs/crawl.md for the rules and the commit order.
 */
export class CrawlActor implements IRequestManager {
  private readonly input: CrawlJobInput;
  private readonly jobId: string;
  private job: JobRecord;
  private readonly seed: CanonicalUrl;
  private readonly scope: CrawlScope;
  private readonly window = new FrontierWindow();
  private readonly seen = new Set<string>();
  private readonly inFlight = new Map<string, WindowEntry>();
  private readonly inFlightByHost = new Map<string, number>();
  private readonly hostReadyAt = new Map<string, number>();
  private readonly hostSpacing = new Map<string, number>();
  private readonly hostTooSlow = new Map<string, string>();
  private readonly waiters = new Map<string, Waiter>();
  /** Reserved admission tickets no entry holds (handed out last-in first-out). */
  private readonly freeTickets: number[] = [];
  /** The crawl state's `admitted` counter as this owner, its only writer, has moved it: tickets 1..this are reserved. */
  private ticketsReserved = 0;
  /** The reservation in progress: one at a time, so concurrent admissions never reserve past max_pages together. */
  private reserving?: Promise<boolean>;
  private readonly robots: RobotsCache;
  private readonly robotsChecked = new Set<string>();
  /** Hosts whose robots.txt was asked for ahead of admission; the origins still to ask, and how many are being read. */
  private readonly robotsAhead = new Set<string>();
  private readonly robotsAheadQueue: string[] = [];
  private robotsAheadRunning = 0;
  private readonly log: AppLogger;
  private epoch = 0;
  private leaseValidUntil = 0;
  private nextSeq = 1;
  private loadedUpTo = 0;
  private storeExhausted = false;
  private quotaFull = false;
  private budgetStopped = false;
  private skippedRecorded = 0;
  private stop: StopCrawl | null = null;
  private crawler?: BasicCrawler;
  private handled = 0;
  private statusTimer?: NodeJS.Timeout;
  private wakeTimer?: NodeJS.Timeout;
  private readonly timers: NodeJS.Timeout[] = [];
  private unsubscribe?: () => Promise<void>;
  /** Pages in flight under the previous owner, handed to Crawlee first. */
  private readonly adopted: WindowEntry[] = [];
  /** The crawl's sealed request secrets (BYOK key): from the queue message, or kept with the crawl for later owners. */
  private sealedSecrets?: string;
  /** Ids of adopted entries not yet dispatched again: their outcome may already be in the store. */
  private readonly adoptedIds = new Set<string>();
  /** Ids of pages an earlier owner may have announced (adopted ones), until they settle. */
  private readonly mayBeAnnounced = new Set<string>();
  /** Job counter increments not yet written (one write per STATUS_EVERY_MS instead of one per page). */
  private pendingInc: Record<string, number> = {};
  /** Increments being written now (counted by the budget check until the write returns). */
  private flushingInc: Record<string, number> = {};
  private flushing: Promise<void> | null = null;
  /** Set when the counters are recounted for good (the end): pending increments are dropped. */
  private countersFinal = false;

  constructor(
    private readonly deps: CrawlActorDeps,
    private readonly context: JobContext<CrawlJobInput>,
  ) {
    this.input = context.input;
    this.job = context.job;
    this.jobId = context.job._id;
    const seed = canonicalize(this.input.url);
    if (!seed)
      throw new AppError('validation-error', `The seed URL ${this.input.url} is not an http(s) URL.`, { category: 'invalid_request' });
    this.seed = seed;
    this.scope = new CrawlScope(seed, this.input.options);
    this.robots = new RobotsCache({
      fetcher: deps.staticFetcher,
      userAgent: deps.config.robotsUserAgent,
      errorTtlMs: deps.config.robotsRetryMs,
    });
    this.log = deps.logger.child({ job_id: this.jobId, request_id: context.job.request_id });
  }

  // ------------------------------------------------------------------ lifecycle

  async run(): Promise<void> {
    const signal = this.context.signal;
    await this.deps.repository.ensureState(this.jobId, this.job.user_id);
    if (!(await this.takeOwnership())) return;
    const onAbort = () => void this.onAbort();
    signal.addEventListener('abort', onAbort, { once: true });
    this.unsubscribe = await this.deps.bus.subscribe(crawlOutcomeChannel(this.jobId), (msg) => {
      const task = (msg as { task?: string }).task;
      if (task && this.waiters.has(task)) void this.collect([task]);
    });
    this.every(Math.max(200, Math.floor(this.deps.config.crawlLeaseMs / 3)), () => this.heartbeat());
    this.every(OUTCOME_POLL_MS, () => this.collect([...this.waiters.keys()]));
    this.every(REDISPATCH_AFTER_MS / 3, () => this.redispatchStale());
    try {
      if (signal.aborted) await this.onAbort();
      this.throwIfStopped();
      await this.recover();
      await this.ingestSeed();
      if (this.input.options.use_sitemap) await this.ingestSitemaps();
      await this.refill();
      await this.crawl();
      this.throwIfStopped();
      await this.finish();
    } catch (error) {
      await this.afterStop(error);
    } finally {
      signal.removeEventListener('abort', onAbort);
      for (const timer of this.timers) clearInterval(timer);
      clearTimeout(this.statusTimer);
      clearTimeout(this.wakeTimer);
      await this.unsubscribe?.().catch(() => undefined);
      for (const waiter of this.waiters.values()) waiter.reject(this.stop ?? new StopCrawl('shutdown'));
      this.waiters.clear();
    }
  }

  /**
   * Takes the crawl's lease. A live owner elsewhere keeps it until it stops or its lease runs out; this
   * waits a lease or two for that, then yields (the job watchdog sends the crawl again later), so a
   * crawl slot is never held waiting for a crawl another worker runs.
   */
  private async takeOwnership(): Promise<boolean> {
    const { repository, config, workerId } = this.deps;
    const deadline = Date.now() + config.crawlLeaseMs * 2 + 1000;
    for (;;) {
      const state = await repository.acquire(this.jobId, workerId, config.crawlLeaseMs);
      if (state) {
        if (state.epoch > 0 && state.owner !== workerId) this.deps.metrics.takeovers.inc();
        this.epoch = state.epoch + 1;
        this.leaseValidUntil = this.validUntil(Date.now());
        this.skippedRecorded = state.skipped_recorded;
        this.budgetStopped = state.budget_stopped;
        this.sealedSecrets = this.context.sealedSecrets ?? state.sealed_secrets;
        if (this.context.sealedSecrets && !state.sealed_secrets) await repository.keepSecrets(this.jobId, this.context.sealedSecrets);
        this.log.info({ epoch: this.epoch, previous_owner: state.owner }, 'crawl owned');
        return true;
      }
      const job = await this.deps.jobsRepository.findForWorker(this.jobId);
      if (!job || isTerminal(job.status) || this.context.signal.aborted) return false;
      if (Date.now() > deadline) throw new JobYieldedError('another worker holds the crawl');
      await sleep(Math.min(1000, config.crawlLeaseMs / 4), this.context.signal);
    }
  }

  private async heartbeat(): Promise<void> {
    if (this.stop) return;
    try {
      const at = Date.now();
      if (await this.deps.repository.renew(this.jobId, this.epoch, this.deps.config.crawlLeaseMs, at)) {
        this.leaseValidUntil = this.validUntil(at);
        return;
      }
      this.halt(new StopCrawl('lease-lost'));
    } catch (error) {
      // The store is unreachable: keep going while the lease lasts; past it, another owner may take over.
      this.log.warn({ err: error }, 'crawl lease renewal failed');
      if (Date.now() > this.leaseValidUntil) this.halt(new StopCrawl('lease-lost'));
    }
  }

  /**
   * Until when this owner trusts its lease without asking the store: the lease it wrote, less a margin
   * for the clocks of other replicas (which judge the lease by their own).
   */
  private validUntil(renewedAt: number): number {
    const lease = this.deps.config.crawlLeaseMs;
    return renewedAt + lease - Math.min(1000, lease / 4);
  }

  /**
   * Self-fencing before a write: past the trusted lease, the store decides (a fenced renewal). Renewed:
   * go on; refused: another owner has the crawl, stop. A late heartbeat on a busy machine costs one
   * renewal here, never the crawl.
   */
  private async holdsLease(): Promise<boolean> {
    if (this.stop?.why === 'lease-lost') return false;
    if (Date.now() <= this.leaseValidUntil) return true;
    const at = Date.now();
    try {
      if (await this.deps.repository.renew(this.jobId, this.epoch, this.deps.config.crawlLeaseMs, at)) {
        this.leaseValidUntil = this.validUntil(at);
        return true;
      }
    } catch (error) {
      // The store is unreachable: the write would fail too; the caller's error path retries it.
      this.log.warn({ err: error }, 'crawl lease renewal failed');
      throw error;
    }
    this.halt(new StopCrawl('lease-lost'));
    return false;
  }

  private async onAbort(): Promise<void> {
    const job = await this.deps.jobsRepository.findForWorker(this.jobId).catch(() => null);
    this.halt(new StopCrawl(job && job.status === 'cancelled' ? 'cancelled' : 'shutdown'));
  }

  /** Stops admitting work; the crawler drains (or is aborted for a lost lease or a cancel). */
  private halt(stop: StopCrawl): void {
    if (this.stop) return;
    this.stop = stop;
    this.log.info({ reason: stop.why }, 'crawl actor stopping');
    if (stop.why !== 'shutdown') {
      // Nothing more of this owner may be written: outstanding waits end now.
      for (const waiter of this.waiters.values()) waiter.reject(stop);
      this.waiters.clear();
    }
    void this.crawler?.autoscaledPool?.notify();
    if (stop.why === 'shutdown') {
      // In-flight pages get the shutdown grace to finish; whatever is left is adopted by the next owner.
      const timer = setTimeout(() => {
        for (const waiter of this.waiters.values()) waiter.reject(stop);
        this.waiters.clear();
        void this.crawler?.autoscaledPool?.abort();
      }, this.deps.config.shutdownGraceMs);
      timer.unref();
      this.timers.push(timer);
    } else {
      void this.crawler?.autoscaledPool?.abort();
    }
  }

  private throwIfStopped(): void {
    if (this.stop) throw this.stop;
  }

  private async afterStop(error: unknown): Promise<void> {
    const stop = error instanceof StopCrawl ? error : this.stop;
    if (!stop) throw error;
    if (stop.why === 'lease-lost') throw new JobYieldedError('the crawl lease was taken over by another worker');
    if (stop.why === 'cancelled') {
      await this.closeCancelled();
      return;
    }
    // Shutdown: give the crawl up at once so another worker resumes it without waiting for the lease.
    await this.deps.repository.release(this.jobId, this.epoch).catch(() => undefined);
    throw new HandBackError();
  }

  private every(ms: number, fn: () => Promise<void>): void {
    const timer = setInterval(() => void fn().catch((error: unknown) => this.log.warn({ err: error }, 'crawl actor timer failed')), ms);
    timer.unref();
    this.timers.push(timer);
  }

  // ------------------------------------------------------------------ recovery (takeover)

  /**
   * Rebuilds the owner's memory from the store: every known URL (the seen-set), admission tickets in
   * use, pages in flight (adopted: their tasks are awaited again, re-sent under the same id), pages done
   * but not yet announced (announced now, exactly once), and the job's counters recounted.
   */
  private async recover(): Promise<void> {
    const { repository } = this.deps;
    await repository.adoptRunning(this.jobId, this.epoch);
    const used = new Set<number>();
    let maxSeq = 0;
    for await (const e of repository.iterateKeys(this.jobId)) {
      this.seen.add(e.key);
      if (typeof e.ticket === 'number') used.add(e.ticket);
      if (e.seq > maxSeq) maxSeq = e.seq;
    }
    this.nextSeq = maxSeq + 1;
    const state = await repository.state(this.jobId);
    const admitted = state?.admitted ?? 0;
    // Tickets reserved that no entry holds (reserved in a block, or an owner died between the two writes) are reused.
    for (let t = admitted; t >= 1; t--) if (!used.has(t)) this.freeTickets.push(t);
    this.ticketsReserved = admitted;
    if (admitted >= this.input.options.max_pages && this.freeTickets.length === 0) this.reachQuota();
    for (const entry of await repository.running(this.jobId)) this.adopt(entry);
    for (const entry of await repository.unannounced(this.jobId)) await this.announceStored(entry);
    if (state && state.epoch > 0) await this.recount();
  }

  /** A page that was in flight under the previous owner: await its task again (re-sent under the same id). */
  private adopt(entry: CrawlEntry): void {
    const w = toWindowEntry(entry);
    this.inFlight.set(w.id, w);
    this.bumpHost(w.host, 1);
    this.adopted.push(w);
    this.adoptedIds.add(w.id);
    this.mayBeAnnounced.add(w.id);
  }

  // ------------------------------------------------------------------ ingestion

  private async ingestSeed(): Promise<void> {
    const state = await this.deps.repository.state(this.jobId);
    if (state?.seed_done) return;
    if (!this.seen.has(this.seed.key)) {
      await this.addEntries(
        [{ target: this.seed, depth: 0, parentUrl: null, via: 'seed', extract: this.input.options.extract_from_seed }],
        [],
      );
    }
    await this.deps.repository.updateState(this.jobId, this.epoch, { $set: { seed_done: true } });
  }

  /** use_sitemap: robots.txt `Sitemap:` lines and /sitemap.xml of the seed's origin, indexes followed, gzip read. */
  private async ingestSitemaps(): Promise<void> {
    const state = await this.deps.repository.state(this.jobId);
    if (state?.sitemap_done) return;
    const origin = new URL(this.seed.url).origin;
    const roots = new Set<string>();
    try {
      for (const s of await this.robots.sitemaps(this.seed.url)) roots.add(s);
    } catch {
      // robots.txt unreachable: /sitemap.xml alone
    }
    roots.add(`${origin}/sitemap.xml`);
    const source = {
      fetch: async (url: string) => {
        const page = await this.politely(url, () =>
          this.deps.staticFetcher.fetch(url, { acceptGzip: true, maxBytes: 50 * 1024 * 1024, signal: this.context.signal }),
        );
        return page.html;
      },
    };
    const maxUrls = Math.max(50_000, this.input.options.max_pages * 10);
    for await (const batch of walkSitemaps([...roots], source, { maxFiles: 100, maxDepth: 3, maxUrls }, (url, error) =>
      this.log.info({ sitemap: url, err: error instanceof Error ? error.message : String(error) }, 'sitemap skipped'),
    )) {
      this.throwIfStopped();
      const admitted: Candidate[] = [];
      const skipped: SkippedCandidate[] = [];
      for (const raw of batch.urls) {
        const decision = this.scope.decide(raw, 1, undefined, true);
        if (!decision || this.seen.has(decision.target.key)) continue;
        if (decision.admit) admitted.push({ target: decision.target, depth: 1, parentUrl: batch.sitemap, via: 'sitemap', extract: true });
        else skipped.push({ target: decision.target, depth: 1, parentUrl: batch.sitemap, reason: decision.reason, why: decision.why });
      }
      await this.addEntries(admitted, skipped);
    }
    await this.deps.repository.updateState(this.jobId, this.epoch, { $set: { sitemap_done: true } });
  }

  /**
   * Stores newly discovered URLs (admitted ones pending, the others as skipped entries up to the
   * recorded-skip cap, counted beyond it) and marks them seen. Discovery order is the `seq`.
   */
  private async addEntries(admitted: Candidate[], skipped: SkippedCandidate[]): Promise<void> {
    const now = nowIso();
    const docs: CrawlEntry[] = [];
    const fresh: WindowEntry[] = [];
    const skipCounts: Record<string, number> = {};
    let recorded = 0;
    const skipCap = Math.max(SKIPPED_RECORD_MIN, this.input.options.max_pages * 10);
    for (const c of admitted) {
      if (this.seen.has(c.target.key)) continue;
      if (this.quotaFull && c.extract) {
        skipped.push({ ...c, reason: 'max_pages', why: `max_pages (${this.input.options.max_pages}) reached` });
        continue;
      }
      this.seen.add(c.target.key);
      const doc = this.newEntry(c.target, c.depth, c.parentUrl, c.via, now, { extract: c.extract });
      docs.push(doc);
      fresh.push(toWindowEntry(doc));
    }
    for (const s of skipped) {
      if (this.seen.has(s.target.key)) continue;
      this.seen.add(s.target.key);
      skipCounts[s.reason] = (skipCounts[s.reason] ?? 0) + 1;
      if (this.skippedRecorded + recorded >= skipCap) continue;
      recorded++;
      docs.push(
        this.newEntry(s.target, s.depth, s.parentUrl, 'link', now, {
          status: 'skipped',
          error_category: s.reason,
          error_message: `Not crawled: ${s.why}.`,
          completed_at: now,
          event_done: true,
        }),
      );
    }
    if (docs.length === 0) return;
    const duplicates = await this.deps.repository.insertEntries(docs);
    const inc: Record<string, number> = {};
    for (const [reason, n] of Object.entries(skipCounts)) inc[`skipped_by_reason.${reason}`] = n;
    if (recorded > 0) inc.skipped_recorded = recorded;
    this.skippedRecorded += recorded;
    if (Object.keys(inc).length > 0) await this.deps.repository.updateState(this.jobId, this.epoch, { $inc: inc });
    const added = fresh.filter((w) => !duplicates.has(w.id));
    if (added.length > 0) this.bumpJob({ urls_queued: added.length });
    // New entries join the window directly when nothing older waits in the store; otherwise the refill finds them.
    if (this.storeExhausted && this.window.size < WINDOW_LOW + WINDOW_BATCH) {
      for (const w of added) {
        this.window.add(w, Date.now());
        this.readRobotsAhead(w);
      }
      this.loadedUpTo = Math.max(this.loadedUpTo, ...added.map((w) => w.seq));
    } else if (added.length > 0) {
      this.storeExhausted = false;
    }
    this.wake();
  }

  private newEntry(
    target: CanonicalUrl,
    depth: number,
    parentUrl: string | null,
    via: EntryVia,
    now: string,
    extra: Partial<CrawlEntry>,
  ): CrawlEntry {
    return {
      _id: `${this.jobId}:${target.key}`,
      job_id: this.jobId,
      user_id: this.job.user_id,
      key: target.key,
      url: target.url,
      host: target.host,
      depth,
      parent_url: parentUrl,
      seq: this.nextSeq++,
      via,
      status: 'pending',
      ticket: `~${target.key}`,
      admitted: false,
      lease_epoch: 0,
      dispatch: 0,
      retry_count: 0,
      rate_limit_retries: 0,
      not_before: '',
      extract: true,
      error_category: null,
      error_message: null,
      error_details: null,
      http_status: null,
      final_url: null,
      rate_limited: false,
      llm_model: null,
      llm_provider: null,
      method: null,
      fetch_duration_ms: null,
      extract_duration_ms: null,
      token_usage_input: 0,
      token_usage_output: 0,
      cost_usd: 0,
      result_id: null,
      event_done: false,
      discovered_at: now,
      completed_at: null,
      ...extra,
    };
  }

  /** Loads the next pending entries (discovery order) into the window when it runs low. */
  private async refill(): Promise<void> {
    if (this.storeExhausted || this.window.size >= WINDOW_LOW) return;
    const batch = await this.deps.repository.pendingAfter(this.jobId, this.loadedUpTo, WINDOW_BATCH);
    const now = Date.now();
    for (const entry of batch) {
      this.loadedUpTo = Math.max(this.loadedUpTo, entry.seq);
      const w = toWindowEntry(entry);
      if (this.quotaFull && needsTicket(w)) continue;
      if (!this.inFlight.has(entry._id)) {
        this.window.add(w, now);
        this.readRobotsAhead(w);
      }
    }
    if (batch.length < WINDOW_BATCH) this.storeExhausted = true;
  }

  // ------------------------------------------------------------------ Crawlee

  private async crawl(): Promise<void> {
    const concurrency = this.input.options.concurrency;
    const crawler = new BasicCrawler(
      {
        // The actor is the crawl's request manager (IRequestManager). Crawlee 3.18's option validation
        // rejects the `requestManager` option it documents, so it is passed where Crawlee accepts any
        // object with the manager's methods (checked at run time by duck typing): `requestQueue`.
        requestQueue: this as unknown as RequestProvider,
        minConcurrency: concurrency,
        maxConcurrency: concurrency,
        maxRequestRetries: MAX_REQUEST_RETRIES,
        useSessionPool: false,
        // The page task has its own deadlines (fetch, render, every model call); this only catches a hang.
        requestHandlerTimeoutSecs: 3600,
        statusMessageLoggingInterval: 24 * 3600,
        log: new Log({ level: LogLevel.OFF }),
        autoscaledPoolOptions: { maybeRunIntervalSecs: 0.05, loggingIntervalSecs: null },
        requestHandler: (ctx: BasicCrawlingContext) => this.process(ctx.request),
        failedRequestHandler: (ctx: BasicCrawlingContext, error: Error) => this.failAfterRetries(ctx.request, error),
      },
      new Configuration({ persistStorage: false, purgeOnStart: false, eventManager: this.deps.events, systemInfoV2: true }),
    );
    this.crawler = crawler;
    // Pages adopted from the previous owner run first, as Crawlee tasks of their own.
    await crawler.run();
  }

  // IRequestManager: Crawlee's view of the frontier.

  async fetchNextRequest<T extends Record<string, unknown> = Record<string, unknown>>(): Promise<Request<T> | null> {
    if (this.stop || !(await this.holdsLease())) return null;
    const adopted = this.adopted.shift();
    if (adopted) return this.request(adopted);
    await this.refill();
    for (let tries = 1; ; tries++) {
      if (this.stop || this.budgetStopped) return null;
      const entry = this.window.next(Date.now(), (host) => this.canStart(host));
      if (!entry) {
        this.scheduleWake();
        return null;
      }
      const started = await this.start(entry);
      if (started) return this.request(started);
      // Entries skipped one after another (robots, duplicates): let timers and I/O run in between.
      if (tries % 50 === 0) await new Promise((resolve) => setImmediate(resolve));
    }
  }

  async isEmpty(): Promise<boolean> {
    if (this.stop) return true;
    if (this.adopted.length > 0) return false;
    if (this.budgetStopped) return true;
    return !this.window.hasStartable(Date.now(), (host) => this.canStart(host));
  }

  async isFinished(): Promise<boolean> {
    if (this.inFlight.size > 0 || this.adopted.length > 0) return false;
    if (this.stop || this.budgetStopped) return true;
    if (this.window.size > 0) return false;
    await this.refill();
    if (this.window.size > 0) return false;
    return !(await this.sweepPending());
  }

  /**
   * The last look before the crawl ends: pending entries anywhere in the store, not only past the
   * window's position. A stale owner (stopped past its lease, then resumed) can store the children of
   * its last page before its fenced write refuses it, under sequence numbers this owner had already
   * passed; without this look they would be closed as never crawled. True when it found work.
   */
  private async sweepPending(): Promise<boolean> {
    const found = await this.deps.repository.pendingAnywhere(this.jobId, this.quotaFull, WINDOW_BATCH);
    const now = Date.now();
    let added = 0;
    for (const entry of found) {
      if (this.inFlight.has(entry._id)) continue;
      const w = toWindowEntry(entry);
      if (this.quotaFull && needsTicket(w)) continue;
      this.seen.add(entry.key);
      this.window.add(w, now);
      this.readRobotsAhead(w);
      added++;
    }
    if (added > 0) {
      this.log.info({ entries: added }, 'pending entries found behind the window (stored by an earlier owner): crawling them');
      this.storeExhausted = false;
      this.loadedUpTo = 0;
    }
    return added > 0;
  }

  async handledCount(): Promise<number> {
    return this.handled;
  }

  getTotalCount(): number {
    return this.handled + this.inFlight.size + this.window.size;
  }

  getPendingCount(): number {
    return this.window.size;
  }

  async markRequestHandled(): Promise<null> {
    this.handled++;
    return null;
  }

  /** Crawlee retries a page that failed with a retryable error: back to the window after a backoff. */
  async reclaimRequest(request: Request): Promise<null> {
    const entry = this.inFlight.get(request.uniqueKey);
    if (!entry || this.stop) return null;
    const delay = 1000 * 2 ** Math.max(0, request.retryCount - 1);
    await this.requeue(entry, { retry_count: request.retryCount, not_before: Date.now() + delay });
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

  private request(entry: WindowEntry): Request {
    const request = new Request({ url: entry.url, uniqueKey: entry.id, userData: { depth: entry.depth } });
    request.retryCount = entry.retryCount;
    return request;
  }

  // ------------------------------------------------------------------ scheduling and admission

  private hostCap(host: string): number {
    const spaced = this.input.options.delay_ms > 0 || (this.hostSpacing.get(host) ?? 0) > 0 || this.deps.config.hostMinIntervalMs > 0;
    return spaced ? 1 : this.deps.config.hostMaxConcurrency;
  }

  private canStart(host: string): boolean {
    if ((this.hostReadyAt.get(host) ?? 0) > Date.now()) return false;
    return (this.inFlightByHost.get(host) ?? 0) < this.hostCap(host);
  }

  private bumpHost(host: string, by: number): void {
    const n = (this.inFlightByHost.get(host) ?? 0) + by;
    if (n <= 0) this.inFlightByHost.delete(host);
    else this.inFlightByHost.set(host, n);
  }

  /**
   * Admission of one entry: robots.txt (with its Crawl-delay), then a ticket (max_pages, exact), then
   * the claim in the store (pending → running under this epoch). Returns the entry when it may be
   * dispatched, null when it was skipped or deferred.
   */
  private async start(entry: WindowEntry): Promise<WindowEntry | null> {
    if (this.input.options.respect_robots && !(await this.robotsAllow(entry))) return null;
    if (entry.extract && entry.ticket === null) {
      const ticket = await this.nextTicket();
      if (ticket === null) {
        if (!(await this.deps.repository.renew(this.jobId, this.epoch, this.deps.config.crawlLeaseMs))) {
          this.halt(new StopCrawl('lease-lost'));
          return null;
        }
        this.reachQuota();
        return null;
      }
      entry.ticket = ticket;
    }
    const claimed = await this.deps.repository.claim(entry.id, this.epoch, {
      ticket: entry.ticket ?? `~${entry.key}`,
      admitted: entry.ticket !== null,
      dispatch: entry.dispatch,
      not_before: '',
    });
    if (claimed === 'ticket-taken') {
      this.halt(new StopCrawl('lease-lost'));
      return null;
    }
    if (!claimed) {
      if (entry.ticket !== null) this.freeTickets.push(entry.ticket);
      return null;
    }
    this.inFlight.set(entry.id, entry);
    this.bumpHost(entry.host, 1);
    return entry;
  }

  /** A free admission ticket, reserving more when none is left; null when max_pages are reserved (or the epoch is stale). */
  private async nextTicket(): Promise<number | null> {
    for (;;) {
      const free = this.freeTickets.pop();
      if (free !== undefined) return free;
      if (this.quotaFull) return null;
      this.reserving ??= this.reserveTickets().finally(() => (this.reserving = undefined));
      if (!(await this.reserving)) return this.freeTickets.pop() ?? null;
    }
  }

  /**
   * Reserves the next block of tickets in the store (fenced by the epoch); this owner numbers them
   * itself, being the counter's only writer. False when none is left (max_pages) or the epoch is stale.
   * A reservation whose answer was lost leaves its tickets unused until a takeover reuses them: a
   * crawl may then admit fewer than max_pages, never more.
   */
  private async reserveTickets(): Promise<boolean> {
    const max = this.input.options.max_pages;
    const count = Math.min(TICKET_BLOCK, max - this.ticketsReserved);
    if (count <= 0 || !(await this.deps.repository.reserveTickets(this.jobId, this.epoch, count, max))) return false;
    this.addTickets(count);
    return true;
  }

  private addTickets(count: number): void {
    for (let t = this.ticketsReserved + count; t > this.ticketsReserved; t--) this.freeTickets.push(t);
    this.ticketsReserved += count;
  }

  /**
   * max_pages admitted: entries without a ticket leave the window (and are not loaded again); they are
   * closed as skipped(max_pages) when the crawl ends. Admitted pages still pending (retries, pauses) go on.
   */
  private reachQuota(): void {
    if (!this.quotaFull) void this.countQueued().catch(() => undefined);
    this.quotaFull = true;
    this.window.removeWhere(needsTicket);
  }

  /** urls_queued once max_pages is reached: the URLs this crawl will still fetch or has fetched, not those it never will. */
  private async countQueued(): Promise<void> {
    // A recount from the store: increments of urls_queued not yet written are in it already.
    await this.settleFlush();
    delete this.pendingInc.urls_queued;
    const live = await this.deps.repository.countEntries(this.jobId, ['pending', 'running', 'completed', 'failed']);
    const unadmitted = await this.deps.repository.countUnadmittedPending(this.jobId);
    const job = await this.deps.jobsRepository.updateRunning(this.jobId, { $set: { urls_queued: live - unadmitted } });
    if (job) this.job = job;
    this.scheduleStatus();
  }

  /**
   * Asks for the robots.txt of a host new to the window, a few at a time, so that admitting its first
   * page does not wait for it (a crawl that finds 200 new hosts would otherwise spend a concurrency slot
   * on each robots.txt in turn). The cache shares one read per origin: admission awaits the same one.
   */
  private readRobotsAhead(entry: WindowEntry): void {
    const { respect_robots, max_pages } = this.input.options;
    // Never more hosts than the crawl may fetch pages, and none once max_pages is reached.
    if (!respect_robots || this.quotaFull || this.robotsAhead.has(entry.host) || this.robotsAhead.size >= max_pages) return;
    this.robotsAhead.add(entry.host);
    this.robotsAheadQueue.push(entry.url);
    this.pumpRobotsAhead();
  }

  private pumpRobotsAhead(): void {
    const limit = Math.max(ROBOTS_AHEAD_MIN, this.input.options.concurrency);
    if (this.quotaFull || this.stop) this.robotsAheadQueue.length = 0;
    while (this.robotsAheadRunning < limit && this.robotsAheadQueue.length > 0) {
      const url = this.robotsAheadQueue.shift()!;
      this.robotsAheadRunning++;
      void this.robots
        .check(url)
        // A failure is the admission's to handle (it asks again and gets the same answer).
        .catch(() => undefined)
        .finally(() => {
          this.robotsAheadRunning--;
          this.pumpRobotsAhead();
        });
    }
  }

  /** robots.txt verdict; the first look at a host also applies its Crawl-delay. False when the entry did not go on. */
  private async robotsAllow(entry: WindowEntry): Promise<boolean> {
    const origin = new URL(entry.url).origin;
    if (!this.robotsChecked.has(origin)) {
      this.robotsChecked.add(origin);
      try {
        const seconds = await this.robots.crawlDelaySeconds(entry.url);
        if (seconds !== undefined && seconds > 0) {
          const ms = Math.round(seconds * 1000);
          if (ms > this.deps.config.crawlDelayMaxMs) {
            this.hostTooSlow.set(
              entry.host,
              `robots.txt asks for a Crawl-delay of ${seconds} s, over the maximum of ${this.deps.config.crawlDelayMaxMs / 1000} s`,
            );
          } else {
            this.hostSpacing.set(entry.host, ms);
            await this.deps.politeness.setCrawlDelay(entry.host, ms);
          }
        }
      } catch (error) {
        this.log.debug({ err: error, origin }, 'robots.txt crawl-delay unavailable');
      }
    }
    const tooSlow = this.hostTooSlow.get(entry.host);
    if (tooSlow) {
      await this.skipPending(entry, 'robots', tooSlow);
      return false;
    }
    let verdict;
    try {
      verdict = await this.robots.check(entry.url);
    } catch (error) {
      // ssrf_blocked: the host itself is forbidden; the page would fail the same way.
      const message = error instanceof AppError ? (error.detail ?? error.message) : 'robots.txt could not be read';
      await this.skipPending(entry, 'robots', message);
      return false;
    }
    if (verdict.verdict === 'allowed') return true;
    if (verdict.verdict === 'unavailable' && entry.robotsDeferrals < MAX_ROBOTS_DEFERRALS) {
      entry.robotsDeferrals++;
      entry.notBefore = verdict.retryAt ?? Date.now() + this.deps.config.robotsRetryMs;
      this.window.add(entry, Date.now());
      return false;
    }
    await this.skipPending(entry, 'robots', verdict.why);
    return false;
  }

  private async skipPending(entry: WindowEntry, reason: SkipReason, why: string): Promise<void> {
    await this.deps.repository.skipPending(entry.id, {
      error_category: reason,
      error_message: `Not crawled: ${why}.`,
      completed_at: nowIso(),
      event_done: true,
    });
    await this.deps.repository.updateState(this.jobId, this.epoch, { $inc: { [`skipped_by_reason.${reason}`]: 1 } });
  }

  // ------------------------------------------------------------------ dispatch and outcomes

  private async process(request: Request): Promise<void> {
    const entry = this.inFlight.get(request.uniqueKey);
    if (!entry) return;
    const outcome = await this.dispatch(entry);
    // A shutdown still commits what comes back within its grace; a lost lease or a cancel commits nothing.
    if (this.stop && this.stop.why !== 'shutdown') throw this.stop;
    switch (outcome.kind) {
      case 'completed':
        return this.commitCompleted(entry, outcome);
      case 'failed':
        if (outcome.retryable && request.retryCount < MAX_REQUEST_RETRIES) {
          entry.lastFailure = outcome;
          throw new AppError('upstream-failure', outcome.error_message, { category: outcome.error_category, retryable: true });
        }
        return this.commitFailed(entry, outcome);
      case 'rate_limited':
        return this.onRateLimited(entry, outcome);
      case 'deferred':
        return this.requeue(entry, { not_before: Date.now() + Math.max(outcome.retry_in_ms, 10), sameAttempt: true });
      case 'skipped':
        return this.commitSkipped(entry, outcome.reason, outcome.why, outcome.final_url);
      case 'cancelled':
        this.halt(new StopCrawl('cancelled'));
        throw this.stop;
    }
  }

  private async failAfterRetries(request: Request, error: Error): Promise<void> {
    const entry = this.inFlight.get(request.uniqueKey);
    if (!entry || error instanceof StopCrawl || this.stop) return;
    if (entry.lastFailure) {
      await this.commitFailed(entry, { ...entry.lastFailure, error_details: `gave up after ${request.retryCount + 1} attempts` });
      return;
    }
    const appError = error instanceof AppError ? error : null;
    await this.commitFailed(entry, {
      kind: 'failed',
      error_category: appError?.category ?? 'internal',
      error_message: appError ? (appError.detail ?? appError.message) : 'The page failed unexpectedly.',
      error_details: `gave up after ${request.retryCount + 1} attempts`,
      http_status: null,
      final_url: null,
      retryable: false,
      usage: null,
    });
  }

  /** Sends the page task (idempotent per dispatch number) and waits for its outcome. */
  private dispatch(entry: WindowEntry): Promise<PageOutcome> {
    const taskId = pageTaskId(this.jobId, entry.key, entry.dispatch);
    // Only a task adopted from the previous owner can have its outcome stored already; a new
    // dispatch number is a task no worker has seen, whose outcome comes by bus (or the poll).
    const mayBeDone = this.adoptedIds.delete(entry.id);
    return new Promise<PageOutcome>((resolve, reject) => {
      const now = Date.now();
      this.waiters.set(taskId, { taskId, entry, since: now, lastSent: now, resolve, reject });
      void this.send(entry)
        .then(() => (mayBeDone ? this.collect([taskId]) : undefined))
        .catch((error: unknown) => {
          // The next redispatch sweep sends it again; the wait goes on.
          this.log.warn({ err: error, url: entry.url }, 'page task could not be enqueued');
        });
    });
  }

  private send(entry: WindowEntry): Promise<string> {
    const payload: PageTaskPayload = {
      job_id: this.jobId,
      key: entry.key,
      url: entry.url,
      depth: entry.depth,
      dispatch: entry.dispatch,
      extract: entry.extract,
      secrets: this.sealedSecrets,
      request_id: this.job.request_id,
    };
    return this.deps.queue.enqueue(CRAWL_PAGES_QUEUE, PAGE_TASK, payload, {
      jobId: pageTaskId(this.jobId, entry.key, entry.dispatch),
      attempts: 10,
      backoff: { delayMs: 500, maxDelayMs: 10_000 },
    });
  }

  /** Resolves the waiters whose outcome is in the store. */
  private async collect(taskIds: string[]): Promise<void> {
    if (taskIds.length === 0) return;
    const done = await this.deps.repository.doneOutcomes(taskIds);
    for (const record of done) {
      const waiter = this.waiters.get(record._id);
      if (!waiter || !record.outcome) continue;
      this.waiters.delete(record._id);
      waiter.resolve(record.outcome);
    }
  }

  private async redispatchStale(): Promise<void> {
    const now = Date.now();
    for (const waiter of this.waiters.values()) {
      if (now - waiter.lastSent < REDISPATCH_AFTER_MS) continue;
      waiter.lastSent = now;
      await this.send(waiter.entry).catch(() => undefined);
    }
  }

  // ------------------------------------------------------------------ commits

  /**
   * Commit order for a page (each step idempotent, so a crash between any two is safe): children,
   * then the result (keyed by the page), then the announcement (SSE `result`, webhook `job.page`,
   * each stored once by its dedupe key, so a page redone after a crash announces nothing new), then
   * the entry, marked announced in the same fenced write, then the job's counters (coalesced).
   */
  private async commitCompleted(entry: WindowEntry, outcome: Extract<PageOutcome, { kind: 'completed' }>): Promise<void> {
    const final = canonicalize(outcome.final_url);
    if (final && final.key !== entry.key) {
      const clash = await this.claimRedirectTarget(entry, final);
      if (clash) return this.commitSkipped(entry, 'duplicate', clash, final.url);
    }
    // Self-fencing before the unfenced writes (children, result): a stale owner stops here (see sweepPending).
    if (!(await this.holdsLease())) return;
    await this.addChildren(entry, outcome.links, outcome.final_url);
    let record: ResultRecord | null = null;
    if (outcome.result) {
      record = await this.deps.results.storePage(this.job, entry.key, {
        url: outcome.final_url,
        status: 'completed',
        data: outcome.result.data,
        depth: entry.depth,
        parent_url: entry.parentUrl,
        token_usage_input: outcome.result.token_usage_input,
        token_usage_output: outcome.result.token_usage_output,
        fetch_duration_ms: outcome.fetch_duration_ms,
        extract_duration_ms: outcome.extract_duration_ms,
        llm_model: outcome.result.llm_model,
        llm_provider: outcome.result.llm_provider,
        cost_usd: outcome.result.cost_usd,
        metadata: {
          method: outcome.result.method ?? 'model',
          ...(outcome.result.program_id ? { program_id: outcome.result.program_id } : {}),
          ...(outcome.result.template_id ? { template_id: outcome.result.template_id } : {}),
        },
      });
    }
    await this.announce(
      { key: entry.key, url: entry.url, status: 'completed', error_category: null, error_message: null },
      record,
      this.firstAnnouncement(entry),
    );
    const settled = await this.settle(entry, 'completed', {
      final_url: outcome.final_url,
      http_status: outcome.http_status,
      fetch_duration_ms: outcome.fetch_duration_ms,
      extract_duration_ms: outcome.extract_duration_ms,
      llm_model: outcome.result?.llm_model ?? null,
      llm_provider: outcome.result?.llm_provider ?? null,
      method: outcome.result ? (outcome.result.method ?? 'model') : null,
      token_usage_input: outcome.result?.token_usage_input ?? 0,
      token_usage_output: outcome.result?.token_usage_output ?? 0,
      cost_usd: outcome.result?.cost_usd ?? 0,
      result_id: record?.id ?? null,
      event_done: true,
      completed_at: nowIso(),
    });
    if (!settled) return;
    if (outcome.result) {
      const method = outcome.result.method ?? 'model';
      this.bumpJob({
        page_count: 1,
        [`pages_by_method.${method}`]: 1,
        model_calls: method === 'model' ? 1 : 0,
        token_usage_input: outcome.result.token_usage_input,
        token_usage_output: outcome.result.token_usage_output,
        cost_usd: outcome.result.cost_usd,
      });
    }
    await this.checkBudget();
  }

  private async commitFailed(entry: WindowEntry, outcome: Extract<PageOutcome, { kind: 'failed' }>): Promise<void> {
    const category = outcome.error_category;
    // Self-fencing before the unfenced writes (result, announcement), as for a completed page.
    if (!(await this.holdsLease())) return;
    const record = entry.extract
      ? await this.deps.results.storePage(this.job, entry.key, {
          url: outcome.final_url ?? entry.url,
          status: 'failed',
          data: null,
          error_category: category,
          error_message: outcome.error_message,
          depth: entry.depth,
          parent_url: entry.parentUrl,
          token_usage_input: outcome.usage?.token_usage_input ?? 0,
          token_usage_output: outcome.usage?.token_usage_output ?? 0,
          cost_usd: outcome.usage?.cost_usd ?? 0,
        })
      : null;
    await this.announce(
      { key: entry.key, url: entry.url, status: 'failed', error_category: category, error_message: outcome.error_message },
      record,
      this.firstAnnouncement(entry),
    );
    const settled = await this.settle(entry, 'failed', {
      error_category: category,
      error_message: outcome.error_message,
      error_details: outcome.error_details,
      http_status: outcome.http_status,
      final_url: outcome.final_url,
      token_usage_input: outcome.usage?.token_usage_input ?? 0,
      token_usage_output: outcome.usage?.token_usage_output ?? 0,
      cost_usd: outcome.usage?.cost_usd ?? 0,
      result_id: record?.id ?? null,
      event_done: true,
      completed_at: nowIso(),
    });
    if (!settled) return;
    await this.deps.repository.updateState(this.jobId, this.epoch, { $inc: { [`errors_by_category.${category}`]: 1 } });
    this.bumpJob({
      failed_count: 1,
      model_calls: isModelFailure(category) ? 1 : 0,
      token_usage_input: outcome.usage?.token_usage_input ?? 0,
      token_usage_output: outcome.usage?.token_usage_output ?? 0,
      cost_usd: outcome.usage?.cost_usd ?? 0,
    });
    await this.checkBudget();
  }

  /** A page the crawl does not keep after all (redirected off-site, or onto a page fetched on its own). Its ticket is freed. */
  private async commitSkipped(entry: WindowEntry, reason: SkipReason, why: string, finalUrl: string | null): Promise<void> {
    const ticket = entry.ticket;
    const settled = await this.settle(entry, 'skipped', {
      error_category: reason,
      error_message: `Not kept: ${why}.`,
      final_url: finalUrl,
      ticket: `~${entry.key}`,
      admitted: false,
      event_done: true,
      completed_at: nowIso(),
    });
    if (!settled) return;
    if (ticket !== null) {
      this.freeTickets.push(ticket);
      if (this.quotaFull) {
        // One more page may be admitted after all: bring the unadmitted entries back from the store.
        this.quotaFull = false;
        this.storeExhausted = false;
        this.loadedUpTo = 0;
      }
    }
    await this.deps.repository.updateState(this.jobId, this.epoch, { $inc: { [`skipped_by_reason.${reason}`]: 1 } });
  }

  /**
   * A redirect landed on `final`. If this crawl already has that URL done or running, this page is a
   * duplicate (returns why); if it is only known, the known entry is closed, as this page fetched it.
   */
  private async claimRedirectTarget(entry: WindowEntry, final: CanonicalUrl): Promise<string | null> {
    const id = `${this.jobId}:${final.key}`;
    if (!this.seen.has(final.key)) {
      this.seen.add(final.key);
      const now = nowIso();
      await this.deps.repository.insertEntries([
        this.newEntry(final, entry.depth, entry.url, 'redirect', now, {
          status: 'skipped',
          error_category: 'duplicate',
          error_message: `Fetched as the redirect target of ${entry.url}.`,
          completed_at: now,
          event_done: true,
        }),
      ]);
      return null;
    }
    const known = await this.deps.repository.entry(id);
    if (!known) return null;
    if (known.status === 'skipped') {
      // Recorded as not to crawl (too deep, filtered), yet fetched through this redirect: say so.
      if (known.error_category !== 'duplicate') {
        await this.deps.repository.relabelSkipped(id, {
          error_category: 'duplicate',
          error_message: `Fetched as the redirect target of ${entry.url}.`,
        });
      }
      return null;
    }
    if (known.status === 'pending' && !this.inFlight.has(id)) {
      const closed = await this.deps.repository.skipPending(id, {
        error_category: 'duplicate',
        error_message: `Fetched as the redirect target of ${entry.url}.`,
        completed_at: nowIso(),
        event_done: true,
      });
      if (closed) {
        this.window.removeWhere((w) => w.id === id);
        if (typeof closed.ticket === 'number') this.freeTickets.push(closed.ticket);
        return null;
      }
    }
    return `redirected to ${final.url}, which this crawl fetches on its own`;
  }

  private async addChildren(parent: WindowEntry, links: string[], base: string): Promise<void> {
    const admitted: Candidate[] = [];
    const skipped: SkippedCandidate[] = [];
    const depth = parent.depth + 1;
    for (const link of links) {
      const decision = this.scope.decide(link, depth, base);
      if (!decision || this.seen.has(decision.target.key)) continue;
      if (decision.admit) admitted.push({ target: decision.target, depth, parentUrl: parent.url, via: 'link', extract: true });
      else skipped.push({ target: decision.target, depth, parentUrl: parent.url, reason: decision.reason, why: decision.why });
    }
    await this.addEntries(admitted, skipped);
  }

  private async onRateLimited(entry: WindowEntry, outcome: Extract<PageOutcome, { kind: 'rate_limited' }>): Promise<void> {
    this.hostReadyAt.set(entry.host, Math.max(this.hostReadyAt.get(entry.host) ?? 0, outcome.paused_until));
    await this.deps.repository.updateState(this.jobId, this.epoch, { $set: { met_rate_limit: true } });
    const stalled = Date.now() - outcome.limited_since > this.deps.config.hostMaxStallMs;
    if (entry.rateLimitRetries + 1 > MAX_RATE_LIMIT_RETRIES || stalled) {
      return this.commitFailed(entry, {
        kind: 'failed',
        error_category: 'rate_limit',
        error_message: stalled
          ? `The host has been rate limiting since ${new Date(outcome.limited_since).toISOString()}; its pages are given up.`
          : `The host answered ${outcome.http_status} ${entry.rateLimitRetries + 1} times for this page.`,
        error_details: `HTTP ${outcome.http_status}${outcome.retry_after_ms !== null ? `, Retry-After ${outcome.retry_after_ms / 1000} s` : ''}`,
        http_status: outcome.http_status,
        final_url: null,
        retryable: false,
        usage: null,
      });
    }
    entry.rateLimitRetries++;
    await this.requeue(entry, { not_before: outcome.paused_until, sameAttempt: true, rateLimited: true });
  }

  /** Back to the window (and pending in the store) under a new dispatch number, not before `not_before`. */
  private async requeue(
    entry: WindowEntry,
    how: { not_before: number; retry_count?: number; sameAttempt?: boolean; rateLimited?: boolean },
  ): Promise<void> {
    entry.dispatch++;
    entry.notBefore = how.not_before;
    if (how.retry_count !== undefined) entry.retryCount = how.retry_count;
    const settled = await this.settle(entry, 'pending', {
      dispatch: entry.dispatch,
      not_before: new Date(how.not_before).toISOString(),
      retry_count: entry.retryCount,
      rate_limit_retries: entry.rateLimitRetries,
      ...(how.rateLimited ? { rate_limited: true } : {}),
    });
    if (!settled) return;
    this.window.add(entry, Date.now());
    this.wake();
  }

  /** The fenced entry write: running (this epoch) → status. A refusal means this owner is stale: it stops. */
  private async settle(entry: WindowEntry, status: CrawlEntry['status'], set: Partial<CrawlEntry>): Promise<CrawlEntry | null> {
    const leased = await this.holdsLease();
    // A store error above or below leaves the entry in flight: Crawlee's retry path settles it again.
    const settled = leased ? await this.deps.repository.settle(entry.id, this.epoch, status, set) : null;
    this.inFlight.delete(entry.id);
    this.bumpHost(entry.host, -1);
    this.wake();
    if (!leased) return null;
    if (settled && status !== 'pending') this.mayBeAnnounced.delete(entry.id);
    if (!settled) {
      this.halt(new StopCrawl('lease-lost'));
      return null;
    }
    this.deps.metrics.commits.inc({ status });
    return settled;
  }

  /**
   * Adds to the job's counters. They are written together every STATUS_EVERY_MS (with the status
   * event), not once per page: a crash loses at most the unwritten part, and every takeover and the
   * end of the crawl recount them exactly from the entries.
   */
  private bumpJob(inc: Record<string, number>): void {
    for (const [field, n] of Object.entries(inc)) if (n !== 0) this.pendingInc[field] = (this.pendingInc[field] ?? 0) + n;
    this.scheduleStatus();
  }

  /** Writes the pending counter increments (one write at a time; a failed write keeps them for the next). */
  private async flushCounters(): Promise<void> {
    await this.settleFlush();
    if (this.countersFinal || Object.keys(this.pendingInc).length === 0) return;
    const inc = this.pendingInc;
    this.pendingInc = {};
    this.flushingInc = inc;
    this.flushing = (async () => {
      try {
        const job = await this.deps.jobsRepository.updateRunning(this.jobId, { $inc: inc });
        if (job) this.job = job;
      } catch (error) {
        for (const [field, n] of Object.entries(inc)) this.pendingInc[field] = (this.pendingInc[field] ?? 0) + n;
        throw error;
      } finally {
        this.flushingInc = {};
        this.flushing = null;
      }
    })();
    await this.flushing;
  }

  /** Waits for a counter write in progress, whatever its result. */
  private async settleFlush(): Promise<void> {
    while (this.flushing) await this.flushing.catch(() => undefined);
  }

  /** Before the final recount: no increment is written after it (it would count a page twice). */
  private async freezeCounters(): Promise<void> {
    this.countersFinal = true;
    await this.settleFlush();
    this.pendingInc = {};
  }

  /** The crawl's cost so far, counting the increments not yet written. */
  private costSoFar(): number {
    return this.job.cost_usd + (this.pendingInc.cost_usd ?? 0) + (this.flushingInc.cost_usd ?? 0);
  }

  /** Announces a page stored done by an earlier run whose announcement did not happen (a crash between the two). */
  private async announceStored(entry: CrawlEntry): Promise<void> {
    const record = entry.result_id ? await this.deps.results.pageRecord(this.job, entry.key) : null;
    await this.announce(entry, record, false);
    await this.deps.repository.markAnnounced(entry._id);
  }

  /**
   * Whether this owner knows of no earlier announcement of the page: not adopted from an earlier
   * owner, and not announced already by an attempt of this one (it stays marked until it settles).
   */
  private firstAnnouncement(entry: WindowEntry): boolean {
    if (this.mayBeAnnounced.has(entry.id)) return false;
    this.mayBeAnnounced.add(entry.id);
    return true;
  }

  /**
   * The page's `result` SSE event and `job.page` webhook, once (dedupe key), and never after a cancel.
   * `firstTime` spares the lookup of an earlier announcement (a repeat is still refused by the key).
   */
  private async announce(
    entry: Pick<CrawlEntry, 'key' | 'url' | 'status' | 'error_category' | 'error_message'>,
    record: ResultRecord | null,
    firstTime: boolean,
  ): Promise<void> {
    if (record) {
      await this.deps.jobs.publishResult(this.job, { ...toResultEventItem(record) }, { dedupeKey: `page:${entry.key}`, firstTime });
    }
    if (entry.status === 'failed') {
      // The stream's `error` event for a page problem (the crawl goes on); its result event says it too.
      await this.deps.jobs.emit(
        this.jobId,
        'error',
        { job_id: this.jobId, url: entry.url, error_category: entry.error_category, error_message: entry.error_message },
        { dedupeKey: `page-error:${entry.key}`, onlyWhileRunning: true, firstTime },
      );
    }
  }

  /** A request of the actor itself (robots.txt is read by the fetch lib's cache; sitemaps here) waits for the host's politeness slot. */
  private async politely<T>(url: string, fn: () => Promise<T>): Promise<T> {
    const host = hostOf(url);
    const policy = {
      intervalMs: Math.max(this.input.options.delay_ms, this.deps.config.hostMinIntervalMs),
      maxInFlight: this.deps.config.hostMaxConcurrency,
      leaseMs: this.deps.config.hostSlotLeaseMs,
    };
    for (;;) {
      this.throwIfStopped();
      const slot = await this.deps.politeness.acquire(host, policy);
      if (slot.granted) {
        const stopKeeping = keepSlot(this.deps.politeness, host, slot.token, this.deps.config.hostSlotLeaseMs);
        try {
          return await fn();
        } finally {
          stopKeeping();
          await this.deps.politeness.release(host, slot.token).catch(() => undefined);
        }
      }
      await sleep(Math.max(10, slot.retryInMs), this.context.signal);
    }
  }

  private async checkBudget(): Promise<void> {
    const cap = this.input.options.max_cost_usd;
    if (cap === null || this.budgetStopped || this.costSoFar() < cap) return;
    this.budgetStopped = true;
    await this.deps.repository.updateState(this.jobId, this.epoch, { $set: { budget_stopped: true } });
    this.log.info({ cost_usd: this.costSoFar(), max_cost_usd: cap }, 'crawl reached its cost cap: no new page starts');
    this.wake();
  }

  private scheduleStatus(): void {
    if (this.statusTimer) return;
    this.statusTimer = setTimeout(() => {
      this.statusTimer = undefined;
      void this.flushCounters()
        .catch((error: unknown) => {
          this.log.warn({ err: error }, 'crawl counters could not be written; kept for the next write');
          this.scheduleStatus();
        })
        .then(() => this.deps.jobsRepository.findForWorker(this.jobId))
        .then((job) =>
          job && job.status === 'running'
            ? this.deps.jobs.emit(this.jobId, 'status', this.deps.jobs.statusData(job), { onlyWhileRunning: true })
            : false,
        )
        .catch(() => undefined);
    }, STATUS_EVERY_MS);
    this.statusTimer.unref();
  }

  /** Tells Crawlee's pool there may be work now (an outcome came back, a delay ran out). */
  private wake(): void {
    void this.crawler?.autoscaledPool?.notify();
  }

  /** Wakes the pool when the earliest delayed entry comes due or a paused host resumes. */
  private scheduleWake(): void {
    const due = [this.window.nextDueAt(), ...[...this.hostReadyAt.values()].filter((t) => t > Date.now())].filter(
      (t): t is number => t !== null,
    );
    if (due.length === 0) return;
    const at = Math.min(...due);
    clearTimeout(this.wakeTimer);
    this.wakeTimer = setTimeout(() => this.wake(), Math.max(5, at - Date.now()));
    this.wakeTimer.unref();
  }

  // ------------------------------------------------------------------ the end

  private async finish(): Promise<void> {
    const { repository } = this.deps;
    const reason: SkipReason = this.budgetStopped ? 'budget_exceeded' : 'max_pages';
    const why = this.budgetStopped
      ? `the crawl reached its cost cap of ${this.input.options.max_cost_usd} USD`
      : `max_pages (${this.input.options.max_pages}) reached`;
    const closed = await repository.closeAll(
      this.jobId,
      ['pending'],
      { error_category: reason, error_message: `Not crawled: ${why}.`, completed_at: nowIso(), event_done: true },
      !this.budgetStopped,
    );
    if (closed > 0) await repository.updateState(this.jobId, this.epoch, { $inc: { [`skipped_by_reason.${reason}`]: closed } });
    // Pages whose announcement failed after their commit (a store or bus error) are announced now, once.
    for (const entry of await repository.unannounced(this.jobId)) await this.announceStored(entry);
    await this.freezeCounters();
    const totals = await this.recount();
    await repository.markFinalized(this.jobId);
    await repository.dropOutcomes(this.jobId);
    if (this.budgetStopped) {
      await this.deps.jobsRepository.updateRunning(this.jobId, {
        $set: {
          error_category: 'budget_exceeded',
          error_message: `Stopped at the cost cap of ${this.input.options.max_cost_usd} USD; pages in flight finished.`,
        },
      });
    }
    if (totals.completed === 0 && totals.failed > 0 && totals.pagesFetched === totals.failed) {
      const seed = await repository.entry(`${this.jobId}:${this.seed.key}`);
      const category = (seed?.error_category as ErrorCategory | null) ?? 'fetch_error';
      throw new AppError('upstream-failure', `The crawl produced no page: ${seed?.error_message ?? 'every page failed'}`, {
        category,
        retryable: false,
      });
    }
    if (totals.pagesFetched === 0) {
      const seed = await repository.entry(`${this.jobId}:${this.seed.key}`);
      if (seed?.status === 'skipped') {
        throw new AppError('upstream-failure', `The crawl produced no page: ${seed.error_message ?? 'the seed was not crawled'}`, {
          category: seed.error_category === 'robots' ? 'robots_disallowed' : 'invalid_request',
          retryable: false,
        });
      }
    }
    this.log.info({ pages: totals.completed, failed: totals.failed }, 'crawl finished');
  }

  /**
   * Recounts the job's counters and the error summary from the entries (exact, whatever happened
   * before). `ended`: the job is already terminal (a cancel), so its record is written whatever its status.
   */
  private async recount(ended = false): Promise<{ completed: number; failed: number; pagesFetched: number }> {
    const { repository } = this.deps;
    let completed = 0;
    let failed = 0;
    let fetched = 0;
    let tokensIn = 0;
    let tokensOut = 0;
    let cost = 0;
    const byMethod = { model: 0, selectors: 0 };
    let modelCalls = 0;
    const errors: Record<string, number> = {};
    for await (const e of repository.iterateDone(this.jobId)) {
      fetched++;
      tokensIn += e.token_usage_input ?? 0;
      tokensOut += e.token_usage_output ?? 0;
      cost += e.cost_usd ?? 0;
      if (e.status === 'completed' && e.result_id) {
        completed++;
        byMethod[e.method === 'selectors' ? 'selectors' : 'model']++;
      }
      if (e.status === 'failed') {
        failed++;
        if (isModelFailure(e.error_category)) modelCalls++;
        const category = String(e.error_category ?? 'internal');
        errors[category] = (errors[category] ?? 0) + 1;
      }
    }
    const queued = await repository.countEntries(this.jobId, ['pending', 'running', 'completed', 'failed']);
    await repository.updateState(this.jobId, this.epoch, { $set: { errors_by_category: errors } });
    const counters = {
      $set: {
        page_count: completed,
        pages_by_method: byMethod,
        model_calls: byMethod.model + modelCalls,
        failed_count: failed,
        token_usage_input: tokensIn,
        token_usage_output: tokensOut,
        cost_usd: Math.round(cost * 1e8) / 1e8,
        urls_queued: queued,
      },
    };
    const job = ended
      ? await this.deps.jobsRepository.update(this.jobId, counters)
      : await this.deps.jobsRepository.updateRunning(this.jobId, counters);
    if (job) this.job = job;
    return { completed, failed, pagesFetched: fetched };
  }

  /** A cancelled crawl: nothing pending or running stays open in the map. */
  private async closeCancelled(): Promise<void> {
    const now = nowIso();
    const closed = await this.deps.repository.closeAll(this.jobId, ['pending', 'running'], {
      error_category: 'cancelled',
      error_message: 'Not crawled: the crawl was cancelled.',
      completed_at: now,
      event_done: true,
    });
    if (closed > 0) await this.deps.repository.bumpState(this.jobId, { $inc: { 'skipped_by_reason.cancelled': closed } });
    // The counters of the pages done before the cancel, exact (increments not yet written are in it).
    await this.freezeCounters();
    await this.recount(true);
    await this.deps.repository.markFinalized(this.jobId);
    await this.deps.repository.dropOutcomes(this.jobId);
  }
}

/** A failed page whose model call failed (it counts as a model call: docs/api.md "Jobs"). */
function isModelFailure(category: string | null | undefined): boolean {
  return typeof category === 'string' && category.startsWith('llm_');
}

interface Candidate {
  target: CanonicalUrl;
  depth: number;
  parentUrl: string | null;
  via: EntryVia;
  extract: boolean;
}

interface SkippedCandidate {
  target: CanonicalUrl;
  depth: number;
  parentUrl: string | null;
  reason: SkipReason;
  why: string;
}

/** An entry that would need an admission ticket to start (extracted pages not yet admitted). */
function needsTicket(entry: WindowEntry): boolean {
  return entry.extract && entry.ticket === null;
}

function toWindowEntry(entry: CrawlEntry): WindowEntry {
  return {
    id: entry._id,
    key: entry.key,
    url: entry.url,
    host: entry.host,
    depth: entry.depth,
    parentUrl: entry.parent_url,
    seq: entry.seq,
    extract: entry.extract,
    ticket: typeof entry.ticket === 'number' ? entry.ticket : null,
    dispatch: entry.dispatch,
    retryCount: entry.retry_count,
    rateLimitRetries: entry.rate_limit_retries,
    robotsDeferrals: 0,
    notBefore: entry.not_before ? Date.parse(entry.not_before) : 0,
  };
}
