import type { Collection, Filter } from '@app/storage';
import type { ReextractOnly } from '../crawl-input';
import type { CrawlEntry, EntryStatus } from '../crawl.types';

export interface Owner {
  userId: string;
}

/**
 * Reads of a crawl's entries (`crawl_entries`) that write nothing: the crawl map and its counts, the
 * job's counters recounted after a takeover, the duplicates copied at the end, and a re-extraction's
 * source pages. The owner's writes are CrawlEntryStore's.
 */
export class CrawlMapReads {
  constructor(private readonly entries: Collection<CrawlEntry>) {}

  /**
   * A re-extraction's source pages: entries of `jobId` that were fetched (completed, or failed: their
   * fetch or their extraction; `only` failed: those; `only` ungrounded: those with a value not found on
   * the page, docs/provenance.md), after `afterSeq` in discovery order (owner/archive-seeding.ts).
   */
  fetchedAfter(
    jobId: string,
    only: ReextractOnly,
    afterSeq: number,
    limit: number,
  ): Promise<Array<Pick<CrawlEntry, '_id' | 'url' | 'seq'>>> {
    return this.entries.find({ ...sourceFilter(jobId, only), seq: { $gt: afterSeq } }, { sort: { seq: 1 }, limit, fields: ['url', 'seq'] });
  }

  /** How many pages fetchedAfter gives in all. */
  countFetched(jobId: string, only: ReextractOnly): Promise<number> {
    return this.entries.count(sourceFilter(jobId, only));
  }

  /** Usage of done entries (recounts of the job's counters), streamed in discovery order (as CrawlEntryStore.iterateKeys). */
  iterateDone(jobId: string): AsyncIterable<CrawlEntry> {
    return this.entries.iterate(
      { job_id: jobId, status: { $in: ['completed', 'failed'] } },
      {
        sort: { seq: 1 },
        fields: [
          'status',
          'error_category',
          'token_usage_input',
          'token_usage_output',
          'cost_usd',
          'result_id',
          'rate_limited',
          'method',
          'model_call',
          'ungrounded_fields',
        ],
        batchSize: 2000,
      },
    );
  }

  countEntries(jobId: string, status?: EntryStatus | EntryStatus[]): Promise<number> {
    const filter: Filter = { job_id: jobId };
    if (typeof status === 'string') filter.status = status;
    else if (status) filter.status = { $in: status };
    return this.entries.count(filter);
  }

  /** Completed pages extracted by `method` (`model`, or `selectors` and `mixed` under extraction_mode auto). */
  countByMethod(jobId: string, method: 'model' | 'selectors' | 'mixed' | 'scrape'): Promise<number> {
    return this.entries.count({ job_id: jobId, status: 'completed', method });
  }

  /**
   * A job's pages skipped as duplicates after their fetch, by reason, and those of them that would have been extracted
   * (a model call saved when the job calls a model; a redirect's page was extracted before it was found). docs/dedup.md.
   */
  async countDuplicates(jobId: string): Promise<{ byReason: Record<string, number>; beforeModel: number }> {
    const byReason: Record<string, number> = {};
    for (const reason of ['canonical', 'exact', 'near', 'redirect'])
      byReason[reason] = await this.entries.count({ job_id: jobId, status: 'skipped', duplicate_reason: reason });
    const beforeModel = await this.entries.count({
      job_id: jobId,
      status: 'skipped',
      duplicate_reason: { $in: ['canonical', 'exact', 'near'] },
      extract: true,
    });
    return { byReason, beforeModel };
  }

  /** A job's pages skipped as duplicates of another of its pages (`copy_duplicates`: docs/dedup.md), streamed. */
  iterateDuplicates(jobId: string): AsyncIterable<CrawlEntry> {
    return this.entries.iterate(
      { job_id: jobId, status: 'skipped', duplicate_reason: { $in: ['canonical', 'exact', 'near', 'redirect'] } },
      { sort: { seq: 1 }, batchSize: 500 },
    );
  }

  countUnadmittedPending(jobId: string): Promise<number> {
    return this.entries.count({ job_id: jobId, status: 'pending', admitted: false });
  }

  countRateLimited(jobId: string): Promise<number> {
    return this.entries.count({ job_id: jobId, rate_limited: true });
  }

  /** Pages with at least one value not found on the page (docs/provenance.md). */
  countUngrounded(jobId: string): Promise<number> {
    return this.entries.count({ job_id: jobId, ungrounded_fields: { $gt: 0 } });
  }

  countListIncomplete(jobId: string): Promise<number> {
    return this.entries.count({ job_id: jobId, items_missing: { $gt: 0 } });
  }

  /** The crawl map's entries in discovery order, streamed (owner-scoped). */
  iterateMap(
    owner: Owner,
    jobId: string,
    options: { status?: EntryStatus; ungrounded?: boolean; listIncomplete?: boolean; skip?: number; limit?: number },
  ): AsyncIterable<CrawlEntry> {
    const filter: Filter = { job_id: jobId, user_id: owner.userId };
    if (options.status) filter.status = options.status;
    if (options.ungrounded) filter.ungrounded_fields = { $gt: 0 };
    if (options.listIncomplete) filter.items_missing = { $gt: 0 };
    return this.entries.iterate(filter, { sort: { seq: 1 }, skip: options.skip, limit: options.limit, batchSize: 500 });
  }
}

/** The entries of a job a re-extraction with `only` reads (one definition for the count and the seeding). */
function sourceFilter(jobId: string, only: ReextractOnly): Filter {
  const filter: Filter = { job_id: jobId, status: { $in: only === 'failed' ? ['failed'] : ['completed', 'failed'] }, extract: true };
  if (only === 'ungrounded') filter.ungrounded_fields = { $gt: 0 };
  return filter;
}
