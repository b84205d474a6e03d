import { Injectable, Optional, type OnApplicationShutdown } from '@nestjs/common';
import { Configuration, LocalEventManager } from '@crawlee/core';
import { AuthSessions } from '@app/auth-profiles';
import { Counter } from 'prom-client';
import { newId } from '@app/core';
import { sideReadFetcher } from '@app/fetch';
import type { JobContext, JobHandler, JobRecord } from '@app/jobs';
import { ResultsService } from '@app/results';
import { crawlPageControl, parseCrawlInput, type CrawlJobInput } from '../crawl-input';
import { CrawlPageSources, CrawlPorts, CrawlRecords } from '../crawl-process';
import { CrawlActor, type CrawlActorDeps } from './crawl-actor';
import { LiveCrawls } from './live-crawls';
import { closeLeftovers } from './crawl-closer';
import { CRAWLEE_SYSTEM_INFO_INTERVAL_MS } from './crawlee-bridge';

/**
 * Runs a `crawl` job: a crawl actor owns the crawl while this handler runs (see CrawlActor). One
 * Crawlee event manager serves every crawl of the process (Crawlee would start one per crawler).
 */
@Injectable()
export class CrawlJobHandler implements JobHandler<CrawlJobInput>, OnApplicationShutdown {
  readonly type = 'crawl';
  readonly parseInput = parseCrawlInput;
  /** This process, as an owner of crawls. */
  readonly workerId = `crawler-${newId()}`;
  private events?: Promise<LocalEventManager>;
  /** One actor per crawl in this process: a second delivery of a crawl running here yields. */
  private readonly live = new LiveCrawls();
  private readonly takeovers: Counter;
  private readonly commits: Counter<'status'>;
  private readonly duplicates: Counter<'reason'>;
  private readonly savedCalls: Counter;

  constructor(
    private readonly ports: CrawlPorts,
    private readonly records: CrawlRecords,
    private readonly sources: CrawlPageSources,
    private readonly results: ResultsService,
    @Optional() private readonly sessions?: AuthSessions,
  ) {
    const { metrics } = ports;
    this.takeovers = metrics.once(
      'gleaner_crawl_takeovers_total',
      () =>
        new Counter({
          name: 'gleaner_crawl_takeovers_total',
          help: 'Crawls this process took over from another owner (a dead or stalled worker, a shutdown hand-back). Unit: crawls.',
          registers: [metrics.registry],
        }),
    );
    this.duplicates = metrics.once(
      'gleaner_crawl_duplicates_total',
      () =>
        new Counter({
          name: 'gleaner_crawl_duplicates_total',
          help: 'Crawl and batch pages skipped as duplicates after their fetch by the crawl owners of this process, by reason (canonical: rel=canonical, exact, near, redirect; docs/dedup.md). Unit: pages.',
          labelNames: ['reason'],
          registers: [metrics.registry],
        }),
    );
    for (const reason of ['canonical', 'exact', 'near', 'redirect']) this.duplicates.inc({ reason }, 0);
    this.savedCalls = metrics.once(
      'gleaner_crawl_model_calls_saved_total',
      () =>
        new Counter({
          name: 'gleaner_crawl_model_calls_saved_total',
          help: 'Model calls crawl and batch pages did not make because the page was a duplicate found before its model call (docs/dedup.md). Unit: calls.',
          registers: [metrics.registry],
        }),
    );
    this.commits = metrics.once(
      'gleaner_crawl_pages_total',
      () =>
        new Counter({
          name: 'gleaner_crawl_pages_total',
          help: 'Crawl pages settled by the crawl owners of this process, by new status (completed, failed, skipped, pending = requeued). Unit: pages.',
          labelNames: ['status'],
          registers: [metrics.registry],
        }),
    );
    // From 0, so a crawl's first failed page shows in rate() and increase().
    for (const status of ['completed', 'failed', 'skipped', 'pending']) this.commits.inc({ status }, 0);
  }

  run(context: JobContext<CrawlJobInput>): Promise<void> {
    return this.live.run(context.job._id, () => this.runActor(context));
  }

  private async runActor(context: JobContext<CrawlJobInput>): Promise<void> {
    const { config, logger, queue, bus, politeness } = this.ports;
    const { repository, jobsRepository, jobs, monitorPages, localOutcomes } = this.records;
    const deps: CrawlActorDeps = {
      workerId: this.workerId,
      config,
      logger,
      repository,
      jobsRepository,
      jobs,
      results: this.results,
      queue,
      bus,
      politeness,
      // robots.txt and sitemaps with what of the crawl's fetch control they take (its proxy pool: docs/proxies.md).
      staticFetcher: sideReadFetcher(
        this.sources.loader.fetcher.staticFetcher,
        crawlPageControl(context.input, context.secrets, context.job.user_id, context.job._id),
      ),
      events: await this.eventManager(),
      metrics: { takeovers: this.takeovers, commits: this.commits, duplicates: this.duplicates, savedCalls: this.savedCalls },
      duplicates: this.sources.duplicateIndex,
      lastmods: monitorPages,
      archive: this.sources.archive,
      localOutcomes,
      logoutLinks: await this.logoutLinks(context),
    };
    await new CrawlActor(deps, context).run();
  }

  /** A crawl that follows links with an auth profile: the profile's logout links (read as the owner starts). */
  private async logoutLinks(context: JobContext<CrawlJobInput>) {
    const id = context.input.options.auth_profile;
    if (!id || context.input.source !== undefined || !this.sessions) return null;
    return this.sessions.logoutLinks({ id, owner: context.job.user_id });
  }

  /**
   * A crawl that ended while no owner ran it (cancelled after its owner died): its leftover pending and
   * running entries are closed, once, when its message comes back.
   */
  async onTerminal(job: JobRecord): Promise<void> {
    const state = await this.records.repository.states.state(job._id);
    if (!state || state.finalized) return;
    const owned = await this.records.repository.states.acquire(job._id, this.workerId, this.ports.config.crawlLeaseMs);
    if (!owned) return; // a live owner is closing it
    await closeLeftovers(this.records.repository, job._id, `the crawl ended (${job.status})`);
    await this.records.repository.states.release(job._id, owned.epoch + 1);
  }

  async onApplicationShutdown(): Promise<void> {
    if (this.events) await (await this.events).close().catch(() => undefined);
  }

  private eventManager(): Promise<LocalEventManager> {
    this.events ??= (async () => {
      const manager = new LocalEventManager(
        new Configuration({ systemInfoV2: true, systemInfoIntervalMillis: CRAWLEE_SYSTEM_INFO_INTERVAL_MS, persistStorage: false }),
      );
      await manager.init();
      return manager;
    })();
    return this.events;
  }
}
