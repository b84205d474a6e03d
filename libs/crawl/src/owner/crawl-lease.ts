import { sleep } from '@app/core';
import { JobYieldedError } from '@app/jobs';
import type { CrawlStateStore } from '../store/crawl-state-store';
import type { CrawlStateRecord } from '../crawl.types';
import type { CrawlRun } from './crawl-run';

export type LeaseStore = Pick<CrawlStateStore, 'acquire' | 'renew' | 'release'>;

export interface LeaseOptions {
  /** This process, as an owner of crawls. */
  workerId: string;
  /** GLEANER_CRAWL_LEASE_MS. */
  leaseMs: number;
  /** Whether the crawl's job ended (a cancel while waiting for the lease): then there is nothing to own. */
  jobEnded: () => Promise<boolean>;
  /** Counted when this owner takes the crawl from another one. */
  onTakeover?: () => void;
  /** The clock (tests set it). */
  now?: () => number;
}

/**
 * The crawl's lease and epoch (docs/crawl.md "Lease and epoch"). One owner at a time: the lease is taken
 * with a new epoch, renewed on a heartbeat (a third of the lease), and every write of the owner is fenced
 * by the epoch. Before a write past the lease it last renewed (less a margin for other replicas' clocks),
 * the owner asks the store (self-fencing): a late heartbeat on a busy machine costs one renewal, never the
 * crawl. A renewal the store refuses means another owner took over: the run halts (`lease-lost`).
 */
export class CrawlLease {
  private validUntil = 0;
  private heartbeatTimer?: NodeJS.Timeout;
  private readonly now: () => number;

  constructor(
    private readonly run: CrawlRun,
    private readonly store: LeaseStore,
    private readonly options: LeaseOptions,
  ) {
    this.now = options.now ?? Date.now;
  }

  /**
   * Takes the lease, and starts the heartbeat. A live owner elsewhere keeps it until it stops or its lease
   * runs out: this waits a lease or two for that, then yields (JobYieldedError: the job watchdog sends the
   * crawl again later), so a crawl slot is never held waiting for a crawl another worker runs. Returns the
   * crawl state as it was before (its epoch + 1 is ours), or null when the job ended or the run was aborted.
   */
  async acquire(): Promise<CrawlStateRecord | null> {
    const { workerId, leaseMs } = this.options;
    const deadline = this.now() + leaseMs * 2 + 1000;
    for (;;) {
      const at = this.now();
      const state = await this.store.acquire(this.run.jobId, workerId, leaseMs, at);
      if (state) {
        if (state.epoch > 0 && state.owner !== workerId) this.options.onTakeover?.();
        this.run.epoch = state.epoch + 1;
        this.validUntil = this.trustUntil(at);
        this.startHeartbeat();
        this.run.log.info({ epoch: this.run.epoch, previous_owner: state.owner }, 'crawl owned');
        return state;
      }
      if (this.run.signal.aborted || (await this.options.jobEnded())) return null;
      if (this.now() > deadline) throw new JobYieldedError('another worker holds the crawl');
      await sleep(Math.min(1000, leaseMs / 4), this.run.signal);
    }
  }

  /**
   * Self-fencing before a write: within the trusted lease, yes; past it, the store decides (a fenced
   * renewal). Refused: another owner has the crawl, the run halts. A store error is thrown: the write
   * would fail too, and the caller's error path retries it.
   */
  async holds(): Promise<boolean> {
    if (this.run.stop?.why === 'lease-lost') return false;
    if (this.now() <= this.validUntil) return true;
    return this.confirm();
  }

  /** A fenced renewal now, whatever the trusted lease says: false (and the run halts) when the epoch is stale. */
  async confirm(): Promise<boolean> {
    const at = this.now();
    try {
      if (await this.store.renew(this.run.jobId, this.run.epoch, this.options.leaseMs, at)) {
        this.validUntil = this.trustUntil(at);
        return true;
      }
    } catch (error) {
      this.run.log.warn({ err: error }, 'crawl lease renewal failed');
      throw error;
    }
    this.run.halt('lease-lost');
    return false;
  }

  /** Gives the crawl up at once (shutdown hand-back): the next owner need not wait for the lease to run out. */
  async release(): Promise<void> {
    this.stopHeartbeat();
    await this.store.release(this.run.jobId, this.run.epoch);
  }

  stopHeartbeat(): void {
    clearInterval(this.heartbeatTimer);
    this.heartbeatTimer = undefined;
  }

  /** One heartbeat (the timer calls it; exposed for tests). */
  async heartbeat(): Promise<void> {
    if (this.run.stop) return;
    const at = this.now();
    try {
      if (await this.store.renew(this.run.jobId, this.run.epoch, this.options.leaseMs, at)) {
        this.validUntil = this.trustUntil(at);
        return;
      }
      this.run.halt('lease-lost');
    } catch (error) {
      // The store is unreachable: keep going while the lease lasts; past it, another owner may take over.
      this.run.log.warn({ err: error }, 'crawl lease renewal failed');
      if (this.now() > this.validUntil) this.run.halt('lease-lost');
    }
  }

  private startHeartbeat(): void {
    this.stopHeartbeat();
    this.heartbeatTimer = setInterval(() => void this.heartbeat(), Math.max(200, Math.floor(this.options.leaseMs / 3)));
    this.heartbeatTimer.unref();
  }

  /**
   * Until when this owner trusts its lease without asking the store: the lease it wrote, less a margin for
   * the clocks of other replicas (which judge the lease by their own).
   */
  private trustUntil(renewedAt: number): number {
    const lease = this.options.leaseMs;
    return renewedAt + lease - Math.min(1000, lease / 4);
  }
}
