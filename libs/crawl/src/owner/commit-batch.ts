import { GapClock, LINGER_GAPS, lingerFor, type LingerBounds } from '@app/core';
import type { RecordResultInput, ResultRecord, ResultsService } from '@app/results';
import type { CrawlEntryStore } from '../store/crawl-entry-store';
import type { PageOutcomeStore } from '../store/page-outcome-store';
import type { StoredPageOutcome } from '../stored-outcome';
import { pageTaskId, type CrawlEntry } from '../crawl.types';
import type { CrawlLease } from './crawl-lease';
import type { CrawlRun } from './crawl-run';
import type { WindowEntry } from './frontier-window';
import type { InFlightPages } from './in-flight';
import type { AnnouncedPage, PageAnnouncer } from './page-announcer';

/** A finished page (completed or failed) on its way to the store: what the commit batch writes of it. */
export interface PageCommit {
  entry: WindowEntry;
  status: 'completed' | 'failed';
  /** The page's result (null: it keeps none, e.g. a monitor's unchanged page or a failed page not extracted). */
  result: RecordResultInput | null;
  /** What the page's announcement says. */
  announced: AnnouncedPage;
  /** No earlier owner or attempt can have stored or announced the page (its keys are not looked up first). */
  firstTime: boolean;
  /** The entry's fields once settled (`result_id` is added from the stored result). */
  set: Partial<CrawlEntry>;
  /** The page task's outcome when a page worker of this process handed it over unstored: stored first, with the batch. */
  outcome?: { taskId: string; outcome: StoredPageOutcome };
}

export interface CommitBatchParts {
  store: Pick<CrawlEntryStore, 'settleMany'>;
  outcomes: Pick<PageOutcomeStore, 'storeOutcomes' | 'forget'>;
  results: Pick<ResultsService, 'storePages'>;
  announcer: Pick<PageAnnouncer, 'announceMany'>;
  lease: Pick<CrawlLease, 'holds'>;
  inFlight: Pick<InFlightPages, 'remove'>;
  metrics: { commits: { inc(labels: { status: string }): void } };
  /** Outcomes this owner still waits for: none means no page will join the batch soon, so it is written at once. */
  waiting?: () => number;
}

/** A batch is written once it holds this many pages, */
export const COMMIT_BATCH_MAX = 64;
/**
 * or once its first page has lingered COMMIT_BATCH_PAGES_AHEAD times the recent gap between finished pages
 * (time for a few more to join), within [COMMIT_BATCH_LINGER_MS, COMMIT_BATCH_MAX_LINGER_MS]: pages finishing
 * slowly (waiting for a slow site or model) still share their batch, so the batch's fixed cost (a lease check,
 * two seq draws, three writes) is not paid by every page. Written at once when no other outcome is awaited,
 * or when the batch holds as many pages as are still awaited (at most half of the crawl's slots linger). The
 * linger is @app/core's GapClock (gap-clock.ts), shared with the archive's write batch.
 */
export const COMMIT_BATCH_LINGER_MS = 20;
export const COMMIT_BATCH_MAX_LINGER_MS = 250;
export const COMMIT_BATCH_PAGES_AHEAD = LINGER_GAPS;

/** How long a batch's first page waits for companions, given the recent mean gap between finished pages. */
export function commitLinger(gapMs: number, limits: LingerBounds = LINGER): number {
  return lingerFor(gapMs, limits);
}

const LINGER = { minLingerMs: COMMIT_BATCH_LINGER_MS, maxLingerMs: COMMIT_BATCH_MAX_LINGER_MS };

interface Pending {
  commit: PageCommit;
  resolve: (settled: boolean) => void;
  reject: (error: unknown) => void;
}

/**
 * A crawl owner's commit batch (docs/crawl.md "Commit batches"): the finished pages of a short window written
 * together, in the order of a single page's commit, one request per collection: the outcomes this process's page
 * workers handed over unstored (one bulk of updates), their results (one seq draw, one insert), their
 * announcements (one seq draw, one insert of events), then their entries (one bulk of fenced updates). Each step
 * is idempotent, as for one page, so a crash between any two costs a redo of the batch's pages (from their stored
 * outcomes once the first step is written), never a second result or announcement. A page stays in flight until its batch is written: the crawl
 * does not end, and Crawlee's slot stays taken, before it is. A store error rejects every page of the batch
 * (each stays in flight for Crawlee's retry path); a refused entry write (a stale epoch) halts the owner.
 */
export class CommitBatch {
  private pending: Pending[] = [];
  private timer?: NodeJS.Timeout;
  private writing: Promise<void> | null = null;
  private firstAt = 0;
  /** The running mean of the gaps between finished pages (every gap counted as it was). */
  private readonly gaps: GapClock;

  constructor(
    private readonly run: CrawlRun,
    private readonly parts: CommitBatchParts,
    private readonly limits = { max: COMMIT_BATCH_MAX, ...LINGER },
    private readonly now: () => number = Date.now,
  ) {
    this.gaps = new GapClock(limits);
  }

  /** Adds a page; resolves once its batch is written: true when its entry was settled by this owner. */
  commit(commit: PageCommit): Promise<boolean> {
    return new Promise<boolean>((resolve, reject) => {
      const now = this.now();
      this.gaps.tick(now);
      if (this.pending.length === 0) this.firstAt = now;
      this.pending.push({ commit, resolve, reject });
      this.schedule();
    });
  }

  /** Pages waiting for their batch. */
  get size(): number {
    return this.pending.length;
  }

  /** How long the current batch's first page waits for companions (see COMMIT_BATCH_MAX_LINGER_MS). */
  get lingerMs(): number {
    return this.gaps.lingerMs;
  }

  private schedule(): void {
    if (this.writing || this.pending.length === 0) return;
    const awaited = this.parts.waiting?.() ?? 0;
    const due =
      this.pending.length >= this.limits.max || awaited === 0 || this.pending.length >= awaited
        ? 0
        : Math.max(0, this.firstAt + this.lingerMs - this.now());
    clearTimeout(this.timer);
    // At once still waits for this turn of the event loop: pages resolved together share the batch.
    this.timer = due === 0 ? setTimeout(() => this.write(), 0) : setTimeout(() => this.write(), due);
  }

  private write(): void {
    if (this.writing || this.pending.length === 0) return;
    const batch = this.pending;
    this.pending = [];
    this.writing = this.flush(batch).finally(() => {
      this.writing = null;
      if (this.pending.length > 0) {
        // Pages that came while this batch was written: their batch is due as soon as they have waited their linger.
        this.schedule();
      }
    });
  }

  private async flush(batch: Pending[]): Promise<void> {
    let settled: boolean;
    try {
      settled = await this.writeBatch(batch.map((p) => p.commit));
    } catch (error) {
      for (const p of batch) p.reject(error);
      return;
    }
    for (const p of batch) p.resolve(settled);
  }

  /** Writes the batch; false when this owner turned out stale (nothing of it counts). */
  private async writeBatch(commits: PageCommit[]): Promise<boolean> {
    // Self-fencing before the unfenced writes (results, announcements): a stale owner stops here.
    if (!(await this.parts.lease.holds())) {
      this.settled(commits);
      return false;
    }
    // The outcomes first: a page whose result is stored is never run again after a crash (its new owner commits it
    // from its stored outcome).
    const unstored = commits.flatMap((c) => (c.outcome ? [c.outcome] : []));
    if (unstored.length > 0) await this.parts.outcomes.storeOutcomes(this.run.jobId, unstored);
    const withResult = commits.filter((c) => c.result !== null);
    const records = new Map<PageCommit, ResultRecord>();
    if (withResult.length > 0) {
      const stored = await this.parts.results.storePages(
        this.run.job,
        withResult.map((c) => ({ pageKey: c.entry.key, input: c.result as RecordResultInput, firstTime: c.firstTime })),
      );
      withResult.forEach((c, i) => records.set(c, stored[i]));
    }
    // A page with no result announces nothing, unless it failed (the stream's `error` event).
    const announced = commits.filter((c) => records.has(c) || c.status === 'failed');
    if (announced.length > 0)
      await this.parts.announcer.announceMany(
        announced.map((c) => ({ page: c.announced, record: records.get(c) ?? null, firstTime: c.firstTime })),
      );
    const matched = await this.parts.store.settleMany(
      this.run.epoch,
      commits.map((c) => ({ id: c.entry.id, status: c.status, set: { ...c.set, result_id: records.get(c)?.id ?? null } })),
    );
    this.settled(commits);
    if (matched < commits.length) {
      this.run.halt('lease-lost');
      return false;
    }
    for (const c of commits) this.parts.metrics.commits.inc({ status: c.status });
    // The pages are done for good: their tasks' delivery counts go (one ledger call; one left behind costs only
    // its room until the crawl ends and drops them all).
    const tasks = commits.map((c) => pageTaskId(this.run.jobId, c.entry.key, c.entry.dispatch));
    void this.parts.outcomes.forget(this.run.jobId, tasks).catch((error: unknown) => {
      this.run.log.debug({ err: error }, 'delivery counts of committed pages could not be forgotten');
    });
    return true;
  }

  /** The pages are no longer in flight (written, or refused): the pool may start others. */
  private settled(commits: PageCommit[]): void {
    for (const c of commits) this.parts.inFlight.remove(c.entry);
    this.run.wake();
  }

  /** Stops the timer (the crawl ended; its pages were written before it could). */
  close(): void {
    clearTimeout(this.timer);
  }
}
