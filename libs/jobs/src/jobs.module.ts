import { Module } from '@nestjs/common';
import { IdempotencyService } from './idempotency.service';
import { JobDeletionHooks } from './job-deletion-hooks';
import { JobEventLog } from './job-event-log';
import { JobLifecycle } from './job-lifecycle';
import { JobLifecycleHooks } from './job-lifecycle-hooks';
import { JobMessages } from './job-messages';
import { JobSlots } from './job-slots';
import { JobStreamService } from './job-stream.service';
import { JobsRepository } from './jobs.repository';
import { JobsService } from './jobs.service';
import { JobsTenantErasure } from './jobs-tenant-erasure';
import { UsageService } from './usage.service';

@Module({
  providers: [
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
    JobsTenantErasure,
  ],
  exports: [
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
  ],
})
export class JobsModule {}
