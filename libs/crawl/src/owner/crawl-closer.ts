import { AppError, nowIso, type ErrorCategory } from '@app/core';
import type { JobsRepository } from '@app/jobs';
import type { ResultsService } from '@app/results';
import type { CrawlStorePort } from '../crawl.repository';
import type { SkipReason } from '../crawl.types';
import { entryId } from './crawl-entry';
import type { CrawlRun } from './crawl-run';
import type { JobCounters } from './job-counters';
import type { PageAnnouncer } from './page-announcer';

export type CloseStore = CrawlStorePort<{
  entries: 'closeAll' | 'entry' | 'relabelSkipped';
  states: 'updateState' | 'bumpState' | 'markFinalized';
  map: 'iterateDuplicates';
  outcomes: 'dropOutcomes';
}>;

/**
 * Closes what a crawl leaves open once it ended with no owner to close it, or was cancelled: every
 * pending and running entry becomes `skipped` (`cancelled`), counted, then the crawl is marked finalized
 * (once) and its page outcomes dropped. `beforeFinal` runs between the two (a cancelling owner recounts
 * the job's counters there).
 */
export async function closeLeftovers(
  store: CrawlStorePort<{ entries: 'closeAll'; states: 'bumpState' | 'markFinalized'; outcomes: 'dropOutcomes' }>,
  jobId: string,
  why: string,
  beforeFinal?: () => Promise<void>,
): Promise<void> {
  const closed = await store.entries.closeAll(jobId, ['pending', 'running'], {
    error_category: 'cancelled',
    error_message: `Not crawled: ${why}.`,
    completed_at: nowIso(),
    event_done: true,
  });
  if (closed > 0) await store.states.bumpState(jobId, { $inc: { 'skipped_by_reason.cancelled': closed } });
  await beforeFinal?.();
  await store.states.markFinalized(jobId);
  await store.outcomes.dropOutcomes(jobId);
}

/**
 * The end of a crawl (docs/crawl.md "Events and the crawl map"): exactly one way out. `finish` closes the
 * entries never crawled (skipped for `max_pages` or `budget_exceeded`), announces the pages whose
 * announcement failed after their commit, recounts the job's counters for good, and decides whether the
 * crawl failed (no page at all: the seed's own error says why). `cancelled` closes everything left open.
 */
export class CrawlCloser {
  constructor(
    private readonly run: CrawlRun,
    private readonly store: CloseStore,
    private readonly jobs: Pick<JobsRepository, 'updateRunning'>,
    private readonly counters: Pick<JobCounters, 'freeze' | 'recount' | 'budgetStopped'>,
    private readonly announcer: Pick<PageAnnouncer, 'announceLeftovers'>,
    private readonly results?: Pick<ResultsService, 'storePage' | 'pageRecord'>,
  ) {}

  async finish(): Promise<void> {
    const { jobId, epoch, options } = this.run;
    const budgetStopped = this.counters.budgetStopped;
    const reason: SkipReason = budgetStopped ? 'budget_exceeded' : 'max_pages';
    const why = budgetStopped
      ? `the crawl reached its cost cap of ${options.max_cost_usd} USD`
      : `max_pages (${options.max_pages}) reached`;
    const closed = await this.store.entries.closeAll(
      jobId,
      ['pending'],
      { error_category: reason, error_message: `Not crawled: ${why}.`, completed_at: nowIso(), event_done: true },
      !budgetStopped,
    );
    if (closed > 0) await this.store.states.updateState(jobId, epoch, { $inc: { [`skipped_by_reason.${reason}`]: closed } });
    // Pages whose announcement failed after their commit (a store or bus error) are announced now, once.
    await this.announcer.announceLeftovers();
    if (options.copy_duplicates) await this.copyDuplicates();
    await this.counters.freeze();
    const totals = await this.counters.recount();
    await this.store.states.markFinalized(jobId);
    await this.store.outcomes.dropOutcomes(jobId);
    if (budgetStopped) {
      await this.jobs.updateRunning(jobId, {
        $set: {
          error_category: 'budget_exceeded',
          error_message: `Stopped at the cost cap of ${options.max_cost_usd} USD; pages in flight finished.`,
        },
      });
    }
    if (totals.completed === 0 && totals.failed > 0 && totals.pagesFetched === totals.failed) {
      const seed = await this.store.entries.entry(entryId(jobId, this.run.seed.key));
      const category = (seed?.error_category as ErrorCategory | null) ?? 'fetch_error';
      throw new AppError('upstream-failure', `The crawl produced no page: ${seed?.error_message ?? 'every page failed'}`, {
        category,
        retryable: false,
      });
    }
    if (totals.pagesFetched === 0) {
      const seed = await this.store.entries.entry(entryId(jobId, this.run.seed.key));
      if (seed?.status === 'skipped') {
        throw new AppError('upstream-failure', `The crawl produced no page: ${seed.error_message ?? 'the seed was not crawled'}`, {
          category: seed.error_category === 'robots' ? 'robots_disallowed' : 'invalid_request',
          retryable: false,
        });
      }
    }
    this.run.log.info({ pages: totals.completed, failed: totals.failed }, 'crawl finished');
  }

  /**
   * `copy_duplicates` (docs/dedup.md): every duplicate whose original has a completed result gets a copy of it, under its
   * own address, without tokens or cost, naming the original in `metadata.duplicate_of`. Done at the end, when every
   * original is settled (a canonical original may be fetched after its copies). Each copy is stored once (its `_id` is
   * the page's, as a page's result is), so an owner that finishes again after a takeover adds none.
   */
  private async copyDuplicates(): Promise<void> {
    if (!this.results) return;
    const { job } = this.run;
    for await (const entry of this.store.map.iterateDuplicates(this.run.jobId)) {
      if (!entry.duplicate_key || entry.result_id) continue;
      const original = await this.results.pageRecord(job, entry.duplicate_key);
      if (!original || original.status !== 'completed') continue;
      const copy = await this.results.storePage(job, entry.key, {
        url: entry.url,
        status: 'completed',
        data: original.data,
        depth: entry.depth,
        parent_url: entry.parent_url,
        fetch_duration_ms: entry.fetch_duration_ms,
        metadata: { ...(original.metadata ?? {}), duplicate_of: original.url },
        ...(original.warnings ? { warnings: original.warnings } : {}),
      });
      await this.store.entries.relabelSkipped(entry._id, { result_id: copy.id });
    }
  }

  /** A cancelled crawl: nothing pending or running stays open in the map, and the counters are exact. */
  async cancelled(): Promise<void> {
    await closeLeftovers(this.store, this.run.jobId, 'the crawl was cancelled', async () => {
      // The counters of the pages done before the cancel, exact (increments not yet written are in it).
      await this.counters.freeze();
      await this.counters.recount(true);
    });
  }
}
