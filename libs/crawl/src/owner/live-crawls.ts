import { JobYieldedError } from '@app/jobs';

/**
 * The crawls whose actor runs in this process (docs/crawl.md "Lease and epoch"). A second delivery of one of
 * them (the job watchdog sends a crawl again when its queue message is gone, as after a Redis restart) yields
 * instead of taking the lease from its own live actor: the lease store grants a re-acquire to the same owner,
 * and two actors of one crawl in one process share its page tasks' ids, so the newer one could be left
 * waiting for outcomes the older one's teardown had forgotten. The yielded delivery comes back later and
 * finds the crawl ended, or runs it if the actor stopped.
 */
export class LiveCrawls {
  private readonly live = new Set<string>();

  async run<T>(jobId: string, actor: () => Promise<T>): Promise<T> {
    if (this.live.has(jobId)) throw new JobYieldedError('this process runs the crawl already');
    this.live.add(jobId);
    try {
      return await actor();
    } finally {
      this.live.delete(jobId);
    }
  }

  has(jobId: string): boolean {
    return this.live.has(jobId);
  }
}
