import { JobYieldedError } from '@app/jobs';

/**
 * The crawls whose actor runs in this process. A second delivery of a crawl's message to the process that
 * already runs it (a queue redelivery after a missed lock renewal, the job watchdog's re-send) yields at
 * once: the store's lease lets its owner take the crawl again (a new epoch; CrawlRepository.acquire), and
 * a second actor would take the crawl from the live one, halting it as `lease-lost`. Seen on a loaded
 * one-node swarm: the owner took its own crawl over seven times in ten minutes (docs/operations-deploy.md).
 */
export class CrawlsHere {
  private readonly running = new Set<string>();

  async run<T>(jobId: string, work: () => Promise<T>): Promise<T> {
    if (this.running.has(jobId)) throw new JobYieldedError('this process already runs the crawl');
    this.running.add(jobId);
    try {
      return await work();
    } finally {
      this.running.delete(jobId);
    }
  }
}
