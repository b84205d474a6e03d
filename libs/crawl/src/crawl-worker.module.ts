import { Module } from '@nestjs/common';
import { ExtractionWorkerModule } from '@app/extraction';
import { JobsModule } from '@app/jobs';
import { PagesModule } from '@app/pages';
import { ResultsModule } from '@app/results';
import { CrawlRepository } from './crawl.repository';
import { CrawlJobHandler } from './owner/crawl-job.handler';
import { PageWorkerService } from './worker/page-worker.service';

/** Crawler side: the crawl owner (the `crawl` job handler and its actor) and the page worker pool. */
@Module({
  imports: [JobsModule, ResultsModule, ExtractionWorkerModule, PagesModule],
  providers: [CrawlRepository, CrawlJobHandler, PageWorkerService],
  exports: [CrawlJobHandler],
})
export class CrawlWorkerModule {}
