import { Module } from '@nestjs/common';
import { ExtractionWorkerModule } from '@app/extraction';
import { IntakeModule } from '@app/intake';
import { JobsModule } from '@app/jobs';
import { PagesModule } from '@app/pages';
import { ResultsModule } from '@app/results';
import { ScrapeJobHandler } from './scrape-job.handler';
import { ScrapeRequestsService } from './scrape-requests.service';

/** API side: job intake for scrape requests, then waits for the job. */
@Module({
  imports: [IntakeModule, ResultsModule],
  providers: [ScrapeRequestsService],
  exports: [ScrapeRequestsService],
})
export class ScrapeModule {}

/** Crawler side: the scrape job handler on the page pipeline. */
@Module({
  imports: [JobsModule, ResultsModule, PagesModule, ExtractionWorkerModule],
  providers: [ScrapeJobHandler],
  exports: [ScrapeJobHandler],
})
export class ScrapeWorkerModule {}
