import { Module } from '@nestjs/common';
import { ArchiveModule, ArchiveRetentionService } from '@app/archive';
import { AuthProfilesModule } from '@app/auth-profiles';
import { DuplicateIndex } from '@app/dedup';
import { ExtractionWorkerModule } from '@app/extraction';
import { JobsModule } from '@app/jobs';
import { MonitorPagesModule } from '@app/monitors';
import { PagesModule } from '@app/pages';
import { ResultsModule } from '@app/results';
import { CrawlPageSources, CrawlPorts, CrawlRecords } from './crawl-process';
import { CrawlRepository } from './crawl.repository';
import { LocalOutcomes } from './local-outcomes';
import { BatchJobHandler } from './owner/batch-job.handler';
import { CrawlJobHandler } from './owner/crawl-job.handler';
import { ReextractJobHandler } from './owner/reextract-job.handler';
import { WarcExtractJobHandler } from './owner/warc-extract-job.handler';
import { PageWorkerService } from './worker/page-worker.service';

/**
 * Crawler side: the crawl owner (the `crawl`, `batch`, `reextract` and `warc-extract` job handlers and
 * their actor), the page worker pool, and the archive's retention sweep.
 */
@Module({
  imports: [JobsModule, ResultsModule, ExtractionWorkerModule, PagesModule, ArchiveModule, MonitorPagesModule, AuthProfilesModule],
  providers: [
    CrawlRepository,
    LocalOutcomes,
    CrawlPorts,
    CrawlRecords,
    CrawlPageSources,
    CrawlJobHandler,
    BatchJobHandler,
    ReextractJobHandler,
    WarcExtractJobHandler,
    PageWorkerService,
    ArchiveRetentionService,
    DuplicateIndex,
  ],
  exports: [CrawlJobHandler, BatchJobHandler, ReextractJobHandler, WarcExtractJobHandler],
})
export class CrawlWorkerModule {}
