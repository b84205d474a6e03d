import { Module, type DynamicModule } from '@nestjs/common';
import { BatchJobHandler, CrawlJobHandler, CrawlWorkerModule, ReextractJobHandler, WarcExtractJobHandler } from '@app/crawl';
import { AnalyzeJobHandler, ExtractJobHandler, ExtractionWorkerModule } from '@app/extraction';
import { JobsModule } from '@app/jobs';
import { ResultsModule } from '@app/results';
import { ScrapeJobHandler, ScrapeWorkerModule } from '@app/scrape';
import { WebhookDeliveryModule, WebhooksModule } from '@app/webhooks';
import { JOB_HANDLERS } from './job-handler';
import { JobRunnerService } from './job-runner.service';
import { TestJobHandler } from './test-job.handler';

/** The crawler's job-processing side, used by apps/crawler and by the embedded single process. */
@Module({})
export class WorkerModule {
  static forRoot(options: { enableTestJobs: boolean }): DynamicModule {
    return {
      module: WorkerModule,
      imports: [
        JobsModule,
        ResultsModule,
        WebhooksModule,
        WebhookDeliveryModule,
        ExtractionWorkerModule,
        ScrapeWorkerModule,
        CrawlWorkerModule,
      ],
      providers: [
        TestJobHandler,
        {
          provide: JOB_HANDLERS,
          useFactory: (
            test: TestJobHandler,
            extract: ExtractJobHandler,
            analyze: AnalyzeJobHandler,
            scrape: ScrapeJobHandler,
            crawl: CrawlJobHandler,
            batch: BatchJobHandler,
            reextract: ReextractJobHandler,
            warc: WarcExtractJobHandler,
          ) => [extract, analyze, scrape, crawl, batch, reextract, warc, ...(options.enableTestJobs ? [test] : [])],
          inject: [
            TestJobHandler,
            ExtractJobHandler,
            AnalyzeJobHandler,
            ScrapeJobHandler,
            CrawlJobHandler,
            BatchJobHandler,
            ReextractJobHandler,
            WarcExtractJobHandler,
          ],
        },
        JobRunnerService,
      ],
    };
  }
}
