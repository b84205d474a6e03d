import { Module, type DynamicModule } from '@nestjs/common';
import { JobsModule } from '@app/jobs';
import { JOB_HANDLERS } from './job-handler';
import { JobRunnerService } from './job-runner.service';
import { TestJobHandler } from './test-job.handler';

/** The crawler's job-processing side, used by apps/crawler and by the embedded single process. */
@Module({})
export class WorkerModule {
  static forRoot(options: { enableTestJobs: boolean }): DynamicModule {
    return {
      module: WorkerModule,
      imports: [JobsModule],
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
