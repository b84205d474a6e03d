export * from './app-extensions';
export * from './job-runner.service';
export * from './worker.module';
