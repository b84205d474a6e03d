import { Module } from '@nestjs/common';
import { ExtractionWorkerModule } from '@app/extraction';
import { JobsModule } from '@app/jobs';
import { ResultsModule } from '@app/results';
import { CrawlJobHandler } from './crawl-job.handler';
import { CrawlRepository } from './crawl.repository';
import { PageWorkerService } from './page-worker.service';

/** Crawler side: the crawl actor (job handler) and the page worker pool. */
@Module({
  imports: [JobsModule, ResultsModule, ExtractionWorkerModule],
  providers: [CrawlRepository, CrawlJobHandler, PageWorkerService],
  exports: [CrawlJobHandler],
})
export class CrawlWorkerModule {}
