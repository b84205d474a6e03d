export * from './job-runner.service';
export * from './test-job.handler';
export * from './worker.module';
