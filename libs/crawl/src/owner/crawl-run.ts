import type { LogoutLinks } from '@app/auth-profiles';
import type { JobRecord } from '@app/jobs';
import type { AppLogger } from '@app/observability';
import type { CrawlOptions } from '@app/sites';
import type { CrawlJobInput } from '../crawl-input';
import type { CanonicalUrl } from '../url-canon';

export type StopReason = 'lease-lost' | 'shutdown' | 'cancelled';

/** Why the owner stops: thrown through Crawlee's handlers and the parts, caught by the actor's run(). */
export class StopCrawl extends Error {
  constructor(readonly why: StopReason) {
    super(why);
  }
}

/**
 * What every part of one crawl's owner shares, and nothing more: which crawl it is, its options, its log,
 * the job record as last written, the owner's epoch, and whether (and why) the owner stopped. A part that
 * finds the crawl must stop calls halt(why); only the actor reacts to it. `wake()` tells Crawlee's pool
 * that there may be work now (an outcome came back, a delay ran out); the Crawlee bridge attaches it.
 */
export class CrawlRun {
  /** The job record as the owner last wrote or read it (counters, cost so far). */
  job: JobRecord;
  /** The owner's ownership epoch (set by the lease): every write of the owner is fenced by it. */
  epoch = 0;
  /** The crawl's sealed request secrets (a BYOK key), from the queue message or kept with the crawl for later owners. */
  sealedSecrets?: string;
  /** A crawl with an auth profile: its logout links, never followed (read when the owner starts). */
  logoutLinks: Pick<LogoutLinks, 'why'> | null = null;
  private stopped: StopCrawl | null = null;
  private readonly haltListeners: Array<(stop: StopCrawl) => void> = [];
  private waker: () => void = () => undefined;

  constructor(
    readonly input: CrawlJobInput,
    readonly seed: CanonicalUrl,
    job: JobRecord,
    readonly log: AppLogger,
    readonly signal: AbortSignal,
  ) {
    this.job = job;
  }

  get jobId(): string {
    return this.job._id;
  }

  get options(): CrawlOptions {
    return this.input.options;
  }

  /** A crawl follows the links of its pages; a batch (a URL list) does not. */
  get followsLinks(): boolean {
    return this.input.source === undefined;
  }

  /** Why the owner stopped, or null while it runs. */
  get stop(): StopCrawl | null {
    return this.stopped;
  }

  /** Stops the owner (once; the first reason wins). */
  halt(why: StopReason): void {
    if (this.stopped) return;
    this.stopped = new StopCrawl(why);
    this.log.info({ reason: why }, 'crawl actor stopping');
    for (const listener of this.haltListeners) listener(this.stopped);
  }

  onHalt(listener: (stop: StopCrawl) => void): void {
    this.haltListeners.push(listener);
  }

  throwIfStopped(): void {
    if (this.stopped) throw this.stopped;
  }

  wake(): void {
    this.waker();
  }

  attachWaker(waker: () => void): void {
    this.waker = waker;
  }
}
