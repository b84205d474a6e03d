export * from './job.types';
export * from './jobs.repository';
export * from './jobs.service';
export * from './job-stream.service';
export * from './jobs.module';
export * from './dto/list-jobs.dto';
export * from './usage.service';
export * from './job-lifecycle-hooks';
