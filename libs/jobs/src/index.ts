export {
  CRAWLS_QUEUE,
  isTerminal,
  JOB_TYPES,
  jobClassOf,
  jobControlChannel,
  JOBS_QUEUE,
  NOT_STARTED,
  onCrawlEngine,
  TEST_JOB_TYPE,
  type JobEventRecord,
  type JobRecord,
  type JobSummaryFields,
  type JobType,
  type JobView,
  type JobWebhookTarget,
  type RunJobPayload,
} from './job.types';
export { JobsRepository } from './jobs.repository';
export { JobsService, type JobsServiceParts } from './jobs.service';
export { JobLifecycle } from './job-lifecycle';
export { JobEventLog, type PublishedPage } from './job-event-log';
export { JobSlots } from './job-slots';
export { JobMessages } from './job-messages';
export { JobStreamService, parseLastEventId } from './job-stream.service';
export { JobsModule } from './jobs.module';
export { JobListResponse, JobResponse, ListJobsQuery, PageQuery } from './dto/list-jobs.dto';
export { UsageService } from './usage.service';
export { JobLifecycleHooks, type JobLifecycleEvent } from './job-lifecycle-hooks';
export { finalJobError } from './final-job-error';
export {
  isJobYielded,
  JOB_HANDLERS,
  JobYieldedError,
  type JobCompletion,
  type JobContext,
  type JobHandler,
  type JobResultFields,
} from './job-handler';
export { IdempotencyService } from './idempotency.service';
export { JobDeletionHooks } from './job-deletion-hooks';
