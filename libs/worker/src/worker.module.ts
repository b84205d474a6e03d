import { Module, type DynamicModule, type Type } from '@nestjs/common';
import { BatchJobHandler, CrawlJobHandler, CrawlWorkerModule, ReextractJobHandler, WarcExtractJobHandler } from '@app/crawl';
import { AnalyzeJobHandler, ExtractJobHandler, ExtractionWorkerModule } from '@app/extraction';
import { JOB_HANDLERS, JobsModule, type JobHandler } from '@app/jobs';
import { ResultsModule } from '@app/results';
import { ScrapeJobHandler, ScrapeWorkerModule } from '@app/scrape';
import { WebhookDeliveryModule, WebhooksModule } from '@app/webhooks';
import { JobRunnerService } from './job-runner.service';

/** The crawler's job-processing side, used by apps/crawler and by the embedded single process. */
@Module({})
export class WorkerModule {
  /** `jobHandlers`: handlers beyond the public job types (only the test apps pass any, see AppExtensions). */
  static forRoot(options: { jobHandlers?: Array<Type<JobHandler>> } = {}): DynamicModule {
    const extra = options.jobHandlers ?? [];
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
        ...extra,
        {
          provide: JOB_HANDLERS,
          useFactory: (...handlers: JobHandler[]) => handlers,
          inject: [
            ExtractJobHandler,
            AnalyzeJobHandler,
            ScrapeJobHandler,
            CrawlJobHandler,
            BatchJobHandler,
            ReextractJobHandler,
            WarcExtractJobHandler,
            ...extra,
          ],
        },
        JobRunnerService,
      ],
    };
  }
}
