import { Inject, Injectable } from '@nestjs/common';
import { SECRET_SEALER, type SecretSealer } from '@app/core';
import { METRICS, Metrics } from '@app/observability';
import { QUEUE, type QueuePort } from '@app/queue';
import { JobsRepository } from './jobs.repository';
import { CRAWLS_QUEUE, JOBS_QUEUE, RUN_JOB, RUN_JOB_OPTIONS, queueOf, type JobRecord, type RunJobPayload } from './job.types';

/**
 * A job's queue message: sent when the job is created, woken or found unfinished by the watchdog, always under
 * an id the queue refuses twice; the caller's secrets (BYOK key) travel sealed in it, never on the job.
 */
@Injectable()
export class JobMessages {
  constructor(
    private readonly repository: JobsRepository,
    @Inject(QUEUE) private readonly queue: QueuePort,
    @Inject(SECRET_SEALER) private readonly sealer: SecretSealer,
    @Inject(METRICS) metrics: Metrics,
  ) {
    metrics.addCollector(async () => {
      for (const queue of [JOBS_QUEUE, CRAWLS_QUEUE]) {
        const counts = await this.queue.counts(queue);
        for (const [state, value] of Object.entries(counts)) metrics.queueDepth.set({ queue, state }, value);
      }
    });
  }

  /** The job's queue message, under `messageId` (the queue drops a second message with an id it already holds). */
  async sendRun(job: JobRecord, messageId: string, sealedSecrets?: string): Promise<void> {
    const payload: RunJobPayload = { job_id: job._id, request_id: job.request_id, ...(sealedSecrets ? { secrets: sealedSecrets } : {}) };
    await this.queue.enqueue(queueOf(job.type), RUN_JOB, payload, { jobId: messageId, ...RUN_JOB_OPTIONS });
  }

  /**
   * The watchdog: sends the queue message of every unfinished job again, under the job's own id. That is
   * a no-op while the message waits or runs, and brings a job back whose message was lost (Redis lost
   * its data) or given up by the queue (its worker died more often than the queue retries).
   */
  async resendUnfinished(olderThanMs: number, limit = 500): Promise<number> {
    const jobs = await this.repository.unfinishedBefore(new Date(Date.now() - olderThanMs).toISOString(), limit);
    for (const job of jobs) await this.sendRun(job, job._id);
    return jobs.length;
  }

  /** Seals a request's secrets for its queue message (none: nothing to carry). */
  sealSecrets(secrets: Record<string, string> | undefined): string | undefined {
    return secrets && Object.keys(secrets).length > 0 ? this.sealer.seal(JSON.stringify(secrets)) : undefined;
  }

  /** Opens the sealed secrets of a queue message (worker side). */
  openSecrets(sealed: string | undefined): Record<string, string> {
    if (!sealed) return {};
    try {
      return JSON.parse(this.sealer.open(sealed)) as Record<string, string>;
    } catch {
      return {};
    }
  }
}
