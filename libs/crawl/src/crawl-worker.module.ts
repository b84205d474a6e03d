import { Module } from '@nestjs/common';
import { ExtractionWorkerModule } from '@app/extraction';
import { JobsModule } from '@app/jobs';
import { MonitorPagesModule } from '@app/monitors';
import { PagesModule } from '@app/pages';
import { ResultsModule } from '@app/results';
import { CrawlRepository } from './crawl.repository';
import { BatchJobHandler } from './owner/batch-job.handler';
import { CrawlJobHandler } from './owner/crawl-job.handler';
import { PageWorkerService } from './worker/page-worker.service';

/** Crawler side: the crawl owner (the `crawl` and `batch` job handlers and their actor) and the page worker pool. */
@Module({
  imports: [JobsModule, ResultsModule, ExtractionWorkerModule, PagesModule, MonitorPagesModule],
  providers: [CrawlRepository, CrawlJobHandler, BatchJobHandler, PageWorkerService],
  exports: [CrawlJobHandler, BatchJobHandler],
})
export class CrawlWorkerModule {}
