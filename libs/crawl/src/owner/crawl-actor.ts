import type { EventManager } from '@crawlee/core';
import type { PageArchive } from '@app/archive';
import type { LogoutLinks } from '@app/auth-profiles';
import type { AppConfig } from '@app/config';
import type { DuplicateIndex } from '@app/dedup';
import { AppError } from '@app/core';
import type { EventBusPort } from '@app/events';
import { RobotsCache, type StaticFetcher } from '@app/fetch';
import { JobYieldedError, isTerminal, type JobContext, type JobsRepository, type JobsService } from '@app/jobs';
import type { AppLogger } from '@app/observability';
import type { PolitenessPort } from '@app/politeness';
import { HandBackError, type QueuePort } from '@app/queue';
import type { ResultsService } from '@app/results';
import { isArchiveSource, type CrawlJobInput } from '../crawl-input';
import type { CrawlRepository } from '../crawl.repository';
import type { LocalOutcomes } from '../local-outcomes';
import { canonicalize, canonRulesOf } from '../url-canon';
import { Admission } from './admission';
import { CrawlCloser } from './crawl-closer';
import { CrawlLease } from './crawl-lease';
import { CrawlRun, StopCrawl } from './crawl-run';
import { CrawleeBridge } from './crawlee-bridge';
import { Frontier } from './frontier';
import { HostSchedule } from './host-schedule';
import { InFlightPages } from './in-flight';
import { JobCounters } from './job-counters';
import { PageAnnouncer } from './page-announcer';
import { ClaimBatch } from './claim-batch';
import { CommitBatch } from './commit-batch';
import { PageCommitter, type CommitMetrics } from './page-committer';
import { PageDispatcher } from './page-dispatcher';
import { RobotsGate } from './robots-gate';
import { ArchiveSeeding } from './archive-seeding';
import { ListSeeding } from './list-seeding';
import { WarcSeeding, type WarcSeedingArchive } from './warc-seeding';
import type { SeedSource } from './seed-source';
import { Seeding, type SitemapLastmods } from './seeding';
import { TicketBook } from './ticket-book';

/** An owner that handled no page for this long logs what it waits on (watchStall). */
export const STALL_LOG_MS = 30_000;

/** What one crawl's owner uses of the process: the ports, narrowed to what the parts call. */
export interface CrawlActorDeps {
  workerId: string;
  config: AppConfig;
  logger: AppLogger;
  repository: CrawlRepository;
  jobsRepository: Pick<JobsRepository, 'findForWorker' | 'update' | 'updateRunning'>;
  jobs: Pick<JobsService, 'publishResult' | 'publishPages' | 'emit' | 'statusData' | 'storeDrawn'>;
  results: Pick<ResultsService, 'storePages' | 'storePage' | 'pageRecord'>;
  queue: Pick<QueuePort, 'enqueue'>;
  bus: Pick<EventBusPort, 'subscribe'>;
  politeness: PolitenessPort;
  /** robots.txt and sitemaps (the address guard applies). */
  staticFetcher: Pick<StaticFetcher, 'fetch' | 'fetchRaw'>;
  /** One Crawlee event manager for every crawl of the process. */
  events: EventManager;
  metrics: CommitMetrics & { takeovers: { inc(): void } };
  /** A monitor's run: the sitemap `lastmod` of its URLs, for the page workers. */
  lastmods?: SitemapLastmods;
  /** Outcomes of this process's page workers, handed to the owner without the bus and a store read. */
  localOutcomes?: Pick<LocalOutcomes, 'expect' | 'forget'>;
  /** A crawl with an auth profile: its logout links (never followed; skipped `logout_link`). */
  logoutLinks?: Pick<LogoutLinks, 'why'> | null;
  /** The job's index of its pages' texts (`dedupe`, docs/dedup.md): dropped when the crawl ends. */
  duplicates?: Pick<DuplicateIndex, 'forget'>;
  /** An owner that handled no page for this long logs what it waits on (default STALL_LOG_MS; tests shorten it). */
  stallLogMs?: number;
  /** The page archive: a WARC extraction's pages are read into it (owner/warc-seeding.ts). */
  archive?: WarcSeedingArchive & Pick<PageArchive, 'enabled'>;
}

export type CrawlContext = Pick<JobContext<CrawlJobInput>, 'input' | 'job' | 'signal' | 'sealedSecrets'>;

/**
 * The crawl actor: while it holds the crawl's lease (one owner at a time, fenced by an epoch), it owns the
 * crawl: admission, dedupe, depth, limits, order and completion. It builds the crawl's parts, each the
 * only owner of its state and the only place of its rule (docs/crawl.md names the file of each), and
 * runs the crawl's life: own → recover → seed → crawl → finish. The page work runs on the page worker
 * pool of every replica.
 */
export class CrawlActor {
  private readonly crawlRun: CrawlRun;
  private readonly lease: CrawlLease;
  private readonly tickets: TicketBook;
  private readonly counters: JobCounters;
  private readonly frontier: Frontier;
  private readonly admission: Admission;
  private readonly dispatcher: PageDispatcher;
  private readonly announcer: PageAnnouncer;
  private readonly batch: CommitBatch;
  private readonly seeding: SeedSource;
  private readonly closer: CrawlCloser;
  private readonly bridge: CrawleeBridge;
  private graceTimer?: NodeJS.Timeout;
  private stallTimer?: NodeJS.Timeout;
  /** The step of run() the owner is in, for the stall log. */
  private phase: 'own' | 'recover' | 'seed' | 'crawl' | 'sitemaps' | 'finish' = 'own';

  constructor(
    private readonly deps: CrawlActorDeps,
    private readonly context: CrawlContext,
  ) {
    const { config, repository } = deps;
    const input = context.input;
    // The seed by the crawl's own canonical rules (`canonicalize: strict` drops its tracking parameters too).
    const seed = canonicalize(input.url, undefined, canonRulesOf(input.options));
    if (!seed) throw new AppError('validation-error', `The seed URL ${input.url} is not an http(s) URL.`, { category: 'invalid_request' });
    const log = deps.logger.child({ job_id: context.job._id, request_id: context.job.request_id });
    const run = (this.crawlRun = new CrawlRun(input, seed, context.job, log, context.signal));
    run.logoutLinks = deps.logoutLinks ?? null;

    this.lease = new CrawlLease(run, repository.states, {
      workerId: deps.workerId,
      leaseMs: config.crawlLeaseMs,
      jobEnded: async () => {
        const job = await deps.jobsRepository.findForWorker(run.jobId);
        return !job || isTerminal(job.status);
      },
      onTakeover: () => deps.metrics.takeovers.inc(),
    });
    // Pages read from the archive reach no host: no per-host limit applies to them.
    const hosts = new HostSchedule(
      isArchiveSource(input.source)
        ? { delayMs: 0, minIntervalMs: 0, maxConcurrency: Number.MAX_SAFE_INTEGER }
        : { delayMs: input.options.delay_ms, minIntervalMs: config.hostMinIntervalMs, maxConcurrency: config.hostMaxConcurrency },
    );
    this.tickets = new TicketBook(input.options.max_pages, (count, max) =>
      repository.states.reserveTickets(run.jobId, run.epoch, count, max),
    );
    this.counters = new JobCounters(run, deps.jobsRepository, deps.jobs, repository);
    const robotsCache = new RobotsCache({
      fetcher: deps.staticFetcher,
      userAgent: config.robotsUserAgent,
      errorTtlMs: config.robotsRetryMs,
    });
    const robots = new RobotsGate(run, robotsCache, deps.politeness, hosts, {
      crawlDelayMaxMs: config.crawlDelayMaxMs,
      robotsRetryMs: config.robotsRetryMs,
      admissionClosed: () => this.tickets.full,
    });
    const inFlight = new InFlightPages(hosts);
    this.frontier = new Frontier(run, repository, inFlight, {
      admissionClosed: () => this.tickets.full,
      onWindowEntry: (entry) => robots.readAhead(entry),
      onQueued: (count) => this.counters.add({ urls_queued: count }),
    });
    this.admission = new Admission(run, {
      store: new ClaimBatch(repository.entries),
      lease: this.lease,
      tickets: this.tickets,
      robots,
      frontier: this.frontier,
      inFlight,
      counters: this.counters,
    });
    this.dispatcher = new PageDispatcher(run, repository.outcomes, deps.queue, deps.bus, deps.localOutcomes);
    this.announcer = new PageAnnouncer(run, deps.jobs, deps.results, repository.entries);
    this.batch = new CommitBatch(run, {
      store: repository.entries,
      outcomes: repository.outcomes,
      results: deps.results,
      announcer: this.announcer,
      lease: this.lease,
      inFlight,
      metrics: deps.metrics,
      waiting: () => this.dispatcher.waiting,
    });
    const committer = new PageCommitter(run, {
      store: repository,
      batch: this.batch,
      announcer: this.announcer,
      lease: this.lease,
      frontier: this.frontier,
      tickets: this.tickets,
      inFlight,
      hosts,
      counters: this.counters,
      metrics: deps.metrics,
    });
    this.seeding = this.seedSource(run, robots);
    this.closer = new CrawlCloser(run, repository, deps.jobsRepository, this.counters, this.announcer, deps.results);
    this.bridge = new CrawleeBridge(
      run,
      {
        lease: this.lease,
        frontier: this.frontier,
        admission: this.admission,
        hosts,
        inFlight,
        counters: this.counters,
        dispatcher: this.dispatcher,
        committer,
        seeding: this.seeding,
      },
      { events: deps.events, hostMaxStallMs: config.hostMaxStallMs },
    );
    run.onHalt((stop) => this.onHalt(stop));
  }

  /** Where the crawl's URLs come from: the seed and its sitemaps, a batch's list, an archive, or a WARC file. */
  private seedSource(run: CrawlRun, robots: RobotsGate): SeedSource {
    const { config, repository } = this.deps;
    const source = this.context.input.source;
    if (source?.kind === 'list') return new ListSeeding(run, source, repository, this.frontier);
    if (source?.kind === 'archive') return new ArchiveSeeding(run, source, repository, this.frontier);
    if (source?.kind === 'warc') {
      if (!this.deps.archive) throw new Error('a WARC extraction needs the page archive');
      return new WarcSeeding(run, source, repository.states, this.frontier, this.deps.archive, {
        maxHeaderBytes: 64 * 1024,
        maxRecordBytes: config.fetchMaxBytes,
        maxExpandedBytes: source.bytes * 20 + 1024 * 1024,
      });
    }
    return new Seeding(run, {
      store: repository.states,
      frontier: this.frontier,
      robots,
      fetcher: this.deps.staticFetcher,
      politeness: this.deps.politeness,
      config,
      lastmods: this.deps.lastmods,
    });
  }

  /** The crawl's whole life while this process owns it. */
  async run(): Promise<void> {
    await this.deps.repository.states.ensureState(this.crawlRun.jobId, this.crawlRun.job.user_id);
    const before = await this.lease.acquire();
    if (!before) return;
    const stopWatching = this.watchAbort();
    this.watchStall();
    await this.dispatcher.open();
    try {
      if (this.crawlRun.signal.aborted) await this.haltOnAbort();
      this.crawlRun.sealedSecrets = this.context.sealedSecrets ?? before.sealed_secrets;
      if (this.context.sealedSecrets && !before.sealed_secrets)
        await this.deps.repository.states.keepSecrets(this.crawlRun.jobId, this.context.sealedSecrets);
      this.crawlRun.throwIfStopped();
      this.phase = 'recover';
      await this.recover(before.skipped_recorded, before.budget_stopped, before.epoch > 0);
      this.phase = 'seed';
      await this.seeding.ingest();
      await this.frontier.refill();
      this.phase = 'crawl';
      await this.bridge.crawl();
      this.crawlRun.throwIfStopped();
      this.phase = 'sitemaps';
      await this.seeding.settled();
      // Every page is settled (the crawl completes, or fails having produced no page): its duplicate index has nothing left to answer.
      this.phase = 'finish';
      await this.closer.finish().finally(() => this.forgetDuplicates());
    } catch (error) {
      await this.afterStop(error);
    } finally {
      stopWatching();
      clearInterval(this.stallTimer);
      clearTimeout(this.graceTimer);
      this.lease.stopHeartbeat();
      this.counters.close();
      this.bridge.close();
      this.batch.close();
      await this.dispatcher.close(this.crawlRun.stop ?? new StopCrawl('shutdown'));
    }
  }

  /**
   * Rebuilds the owner's memory from the store (docs/crawl.md "Takeover"): every known URL (the seen-set),
   * the admission tickets in use, the pages in flight (adopted: their tasks are awaited again, re-sent
   * under the same id), the pages done but not yet announced (announced now, exactly once), and, after a
   * takeover, the job's counters recounted.
   */
  private async recover(skippedRecorded: number, budgetStopped: boolean, takenOver: boolean): Promise<void> {
    const { repository } = this.deps;
    const jobId = this.crawlRun.jobId;
    await repository.entries.adoptRunning(jobId, this.crawlRun.epoch);
    const ticketsInUse = await this.frontier.restore(skippedRecorded);
    const state = await repository.states.state(jobId);
    // The www aliases an earlier owner learned (canonicalize: strict), before a link is read again.
    for (const [from, to] of Object.entries(state?.host_aliases ?? {})) this.frontier.scope.learnAlias(from, to);
    this.admission.restoreTickets(state?.admitted ?? 0, ticketsInUse);
    this.counters.restore(budgetStopped);
    for (const entry of await repository.entries.running(jobId)) this.admission.adopt(entry);
    await this.announcer.announceLeftovers();
    if (takenOver) await this.counters.recount();
  }

  /**
   * An owner that handled no page for STALL_LOG_MS says what it waits on, at warn, once per interval while it
   * stays so (a crawl waiting for a paused host or a slow model says so too; a hung one shows where it stopped).
   */
  private watchStall(): void {
    let handled = -1;
    const every = this.deps.stallLogMs ?? STALL_LOG_MS;
    this.stallTimer = setInterval(() => {
      const now = this.bridge.handledPages;
      if (now !== handled) {
        handled = now;
        return;
      }
      this.crawlRun.log.warn(
        { phase: this.phase, ...this.bridge.waitingOn(), awaited_outcomes: this.dispatcher.waiting, commit_batch: this.batch.size },
        `crawl owner handled no page for ${every / 1000} s`,
      );
    }, every);
    this.stallTimer.unref();
  }

  /** Halts the run when the queue aborts it; returns the function that stops watching. */
  private watchAbort(): () => void {
    const signal = this.crawlRun.signal;
    const onAbort = () => void this.haltOnAbort();
    signal.addEventListener('abort', onAbort, { once: true });
    return () => signal.removeEventListener('abort', onAbort);
  }

  /** The queue's abort: a cancel (the job says so) or a shutdown. */
  private async haltOnAbort(): Promise<void> {
    const job = await this.deps.jobsRepository.findForWorker(this.crawlRun.jobId).catch(() => null);
    this.crawlRun.halt(job && job.status === 'cancelled' ? 'cancelled' : 'shutdown');
  }

  /**
   * A halt stops admission at once. A lost lease or a cancel also ends the waits for outcomes now (nothing
   * more of this owner may be written); a shutdown gives the pages in flight the grace period to finish,
   * and leaves the rest to the next owner.
   */
  private onHalt(stop: StopCrawl): void {
    if (stop.why !== 'shutdown') {
      this.dispatcher.rejectAll(stop);
      this.bridge.wake();
      this.bridge.abort();
      return;
    }
    this.bridge.wake();
    this.graceTimer = setTimeout(() => {
      this.dispatcher.rejectAll(stop);
      this.bridge.abort();
    }, this.deps.config.shutdownGraceMs);
    this.graceTimer.unref();
  }

  /** Drops the job's duplicate index (`dedupe`, docs/dedup.md) once the crawl ended; a later owner (a takeover) needs it. */
  private async forgetDuplicates(): Promise<void> {
    if (this.crawlRun.options.dedupe !== 'off') await this.deps.duplicates?.forget(this.crawlRun.jobId);
  }

  private async afterStop(error: unknown): Promise<void> {
    const stop = error instanceof StopCrawl ? error : this.crawlRun.stop;
    if (!stop) throw error;
    if (stop.why === 'lease-lost') throw new JobYieldedError('the crawl lease was taken over by another worker');
    if (stop.why === 'cancelled') {
      await this.closer.cancelled();
      return this.forgetDuplicates();
    }
    // Shutdown: give the crawl up at once, so another worker resumes it without waiting for the lease.
    await this.lease.release().catch(() => undefined);
    throw new HandBackError();
  }
}
