import { Module } from '@nestjs/common';
import { ExtractionWorkerModule } from '@app/extraction';
import { IntakeModule } from '@app/intake';
import { PagesModule } from '@app/pages';
import { JobsModule } from '@app/jobs';
import { ResultsModule } from '@app/results';
import { CrawlJobHandler } from './crawl-job.handler';
import { CrawlMapService } from './crawl-map.service';
import { CrawlRequestsService } from './crawl-requests.service';
import { CrawlRepository } from './crawl.repository';
import { PageWorkerService } from './page-worker.service';

/** Crawler side: the crawl actor (job handler) and the page worker pool. */
@Module({
  imports: [JobsModule, ResultsModule, ExtractionWorkerModule, PagesModule],
  providers: [CrawlRepository, CrawlJobHandler, PageWorkerService],
  exports: [CrawlJobHandler],
})
export class CrawlWorkerModule {}

/** API side: POST /crawl intake and the crawl map. */
@Module({
  imports: [IntakeModule, JobsModule, ResultsModule],
  providers: [CrawlRepository, CrawlRequestsService, CrawlMapService],
  exports: [CrawlRequestsService, CrawlMapService],
})
export class CrawlModule {}
