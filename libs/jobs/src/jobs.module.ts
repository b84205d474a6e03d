import { Module } from '@nestjs/common';
import { IdempotencyService } from './idempotency.service';
import { JobDeletionHooks } from './job-deletion-hooks';
import { JobEventLog } from './job-event-log';
import { JobLifecycle } from './job-lifecycle';
import { JobLifecycleHooks } from './job-lifecycle-hooks';
import { JobListeners, JobRuntime } from './job-lifecycle-parts';
import { JobMessages } from './job-messages';
import { JobSlots } from './job-slots';
import { JobStreamService } from './job-stream.service';
import { JobsRepository } from './jobs.repository';
import { JobsService } from './jobs.service';
import { JobsTenantErasure } from './jobs-tenant-erasure';
import { UsageService } from './usage.service';

/** The providers other modules use (JobLifecycle's named groups and JobsTenantErasure, which registers itself, are not exported). */
const SHARED = [
  JobLifecycleHooks,
  JobDeletionHooks,
  JobsRepository,
  JobEventLog,
  JobMessages,
  JobSlots,
  JobLifecycle,
  JobsService,
  JobStreamService,
  UsageService,
  IdempotencyService,
];

@Module({
  providers: [...SHARED, JobListeners, JobRuntime, JobsTenantErasure],
  exports: SHARED,
})
export class JobsModule {}
