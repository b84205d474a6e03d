import { Inject, Injectable } from '@nestjs/common';
import { PageArchive } from '@app/archive';
import { APP_CONFIG, type AppConfig } from '@app/config';
import { DuplicateIndex } from '@app/dedup';
import { EVENT_BUS, type EventBusPort } from '@app/events';
import { JobsRepository, JobsService } from '@app/jobs';
import { MonitorPagesService } from '@app/monitors';
import { LOGGER, METRICS, Metrics, type AppLogger } from '@app/observability';
import { PageLoaderService } from '@app/pages';
import { POLITENESS, type PolitenessPort } from '@app/politeness';
import { QUEUE, type QueuePort } from '@app/queue';
import { CrawlRepository } from './crawl.repository';
import { LocalOutcomes } from './local-outcomes';

/*
 * What the crawler process's two sides (the crawl owner's job handler and the page worker pool) are built
 * from, in three named groups instead of one long positional constructor each (docs/crawl.md). Each group is
 * a provider of CrawlWorkerModule; a spec can hand either side the groups as plain objects.
 */

/** The process's ports a crawl talks through (queue, event bus, host politeness), its config, log and metrics. */
@Injectable()
export class CrawlPorts {
  constructor(
    @Inject(APP_CONFIG) readonly config: AppConfig,
    @Inject(LOGGER) readonly logger: AppLogger,
    @Inject(METRICS) readonly metrics: Metrics,
    @Inject(QUEUE) readonly queue: QueuePort,
    @Inject(EVENT_BUS) readonly bus: EventBusPort,
    @Inject(POLITENESS) readonly politeness: PolitenessPort,
  ) {}
}

/** Where a crawl's records live: its entries and state, its job, a monitor's memory of its pages, this process's outcomes. */
@Injectable()
export class CrawlRecords {
  constructor(
    readonly repository: CrawlRepository,
    readonly jobsRepository: JobsRepository,
    readonly jobs: JobsService,
    readonly monitorPages: MonitorPagesService,
    readonly localOutcomes: LocalOutcomes,
  ) {}
}

/** What a crawl's pages are read from and kept in: the page loader (fetches), the page archive, the job's duplicate index. */
@Injectable()
export class CrawlPageSources {
  constructor(
    readonly loader: PageLoaderService,
    readonly archive: PageArchive,
    readonly duplicateIndex: DuplicateIndex,
  ) {}
}
