import { Injectable } from '@nestjs/common';
import type { JobRecord } from './job.types';

/** Deletes what one lib keeps of a job (its results, its crawl map, its archived pages). */
export type JobDeletionListener = (job: JobRecord) => Promise<void>;

/**
 * DELETE /jobs/{id} (docs/archive.md "Deleting"): the jobs lib deletes the job's events and marks the
 * job deleted; the libs that keep more of a job register here and delete theirs first, so jobs never
 * depends on them. A listener that fails fails the delete (500), which can be repeated: every listener
 * deletes what is left and the job stays until all have run.
 */
@Injectable()
export class JobDeletionHooks {
  private readonly listeners: JobDeletionListener[] = [];

  register(listener: JobDeletionListener): void {
    this.listeners.push(listener);
  }

  async run(job: JobRecord): Promise<void> {
    for (const listener of this.listeners) await listener(job);
  }
}
