import { Module, type DynamicModule } from '@nestjs/common';
import { JobsModule } from '@app/jobs';
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
      imports: [JobsModule, WebhooksModule, WebhookDeliveryModule],
      providers: [
        TestJobHandler,
        {
          provide: JOB_HANDLERS,
          useFactory: (test: TestJobHandler) => (options.enableTestJobs ? [test] : []),
          inject: [TestJobHandler],
        },
        JobRunnerService,
      ],
    };
  }
}
