import { Inject, Injectable, type OnModuleInit } from '@nestjs/common';
import { TENANT_ERASERS, type TenantErasers } from '@app/core';
import { IdempotencyService } from './idempotency.service';
import { JobDeletionHooks } from './job-deletion-hooks';
import { isTerminal } from './job.types';
import { JobsRepository } from './jobs.repository';
import { JobsService } from './jobs.service';

const BATCH = 200;
export const TENANT_CANCEL_MESSAGE = 'Cancelled: its user was deleted.';

/**
 * A tenant's jobs in its deletion (docs/api.md "Users"): first its pending and running jobs are cancelled
 * as POST /jobs/{id}/cancel does (the crawler stops them), then every job goes for good, each with what
 * the JobDeletionHooks listeners keep of it (results, screenshots, crawl map and state, archived pages),
 * its events and its record; then the tenant's running-slot counters and idempotency records.
 */
@Injectable()
export class JobsTenantErasure implements OnModuleInit {
  constructor(
    @Inject(TENANT_ERASERS) private readonly erasers: TenantErasers,
    private readonly repository: JobsRepository,
    private readonly jobs: JobsService,
    private readonly deletion: JobDeletionHooks,
    private readonly idempotency: IdempotencyService,
  ) {}

  onModuleInit(): void {
    this.erasers.register({ name: 'running_jobs', phase: 'jobs', run: (userId) => this.cancelAll(userId) });
    this.erasers.register({ name: 'jobs', phase: 'data', run: (userId) => this.eraseAll(userId) });
    this.erasers.register({ name: 'idempotency_records', phase: 'data', run: (userId) => this.idempotency.deleteTenant(userId) });
  }

  /** Cancels every pending and running job of the tenant; resolves to how many it cancelled. */
  async cancelAll(userId: string): Promise<number> {
    const seen = new Set<string>();
    let cancelled = 0;
    for (;;) {
      const batch = (await this.repository.unfinishedOf({ userId }, BATCH)).filter((job) => !seen.has(job._id));
      if (batch.length === 0) return cancelled;
      for (const job of batch) {
        seen.add(job._id);
        if (await this.jobs.stop(job._id, TENANT_CANCEL_MESSAGE)) cancelled++;
      }
    }
  }

  /** Erases every job of the tenant, then its running-slot counters; resolves to how many jobs. */
  async eraseAll(userId: string): Promise<number> {
    let erased = 0;
    for (;;) {
      const batch = await this.repository.anyOf({ userId }, BATCH);
      if (batch.length === 0) {
        await this.repository.eraseSlots({ userId });
        return erased;
      }
      for (const job of batch) {
        // Started after the cancel phase (a monitor run that was being launched): cancelled first.
        if (!isTerminal(job.status)) await this.jobs.stop(job._id, TENANT_CANCEL_MESSAGE);
        await this.deletion.run(job);
        await this.repository.erase(job._id);
        erased++;
      }
    }
  }
}
