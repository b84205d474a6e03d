import { Module } from '@nestjs/common';
import { IdempotencyService } from './idempotency.service';
import { JobDeletionHooks } from './job-deletion-hooks';
import { JobLifecycleHooks } from './job-lifecycle-hooks';
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
    JobsService,
    JobStreamService,
    UsageService,
    IdempotencyService,
    JobsTenantErasure,
  ],
  exports: [JobLifecycleHooks, JobDeletionHooks, JobsRepository, JobsService, JobStreamService, UsageService, IdempotencyService],
})
export class JobsModule {}
