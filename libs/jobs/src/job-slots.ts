import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '@app/config';
import { newId } from '@app/core';
import { JobMessages } from './job-messages';
import { JobsRepository } from './jobs.repository';
import type { JobClass } from './job.types';

/**
 * A user's running slots per job class (crawls have their own cap, so they never starve extractions) and the
 * jobs parked while the user is at the cap, woken when a slot frees.
 */
@Injectable()
export class JobSlots {
  constructor(
    private readonly repository: JobsRepository,
    private readonly messages: JobMessages,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  /** One of the user's running slots of this job class. */
  acquireSlot(userId: string, jobClass: JobClass): Promise<boolean> {
    const cap = jobClass === 'crawl' ? this.config.maxRunningCrawlsPerUser : this.config.maxRunningJobsPerUser;
    return this.repository.acquireSlot(userId, cap, jobClass);
  }

  releaseSlot(userId: string, jobClass: JobClass): Promise<void> {
    return this.repository.releaseSlot(userId, jobClass);
  }

  /** Parks a pending job whose user is at the running-jobs cap (it is woken when a slot frees). */
  async park(jobId: string): Promise<void> {
    await this.repository.park(jobId);
  }

  /** Re-enqueues parked jobs (of one class, or of every class); a fresh message id each time since the previous message is done. */
  async wakeParked(userId: string | null, limit: number, jobClass?: JobClass): Promise<number> {
    const woken = await this.repository.unparkOldest(userId, limit, jobClass);
    for (const job of woken) await this.messages.sendRun(job, `${job._id}:${newId()}`);
    return woken.length;
  }
}
