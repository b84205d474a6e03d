import type { JobsService } from '@app/jobs';
import { toResultEventItem, type ResultRecord, type ResultsService } from '@app/results';
import type { CrawlEntryStore } from '../store/crawl-entry-store';
import type { CrawlEntry } from '../crawl.types';
import type { CrawlRun } from './crawl-run';
import type { WindowEntry } from './frontier-window';

export type AnnouncedPage = Pick<CrawlEntry, 'key' | 'url' | 'status' | 'error_category' | 'error_message'>;

/**
 * A page's announcement: its SSE `result` event and `job.page` webhook (and the stream's `error` event for
 * a failed page), each stored once under a dedupe key, so a page redone after a crash announces nothing
 * new (docs/crawl.md "Exactly once, across crashes"), and never after a cancel.
 */
export class PageAnnouncer {
  constructor(
    private readonly run: CrawlRun,
    private readonly events: Pick<JobsService, 'publishResult' | 'emit' | 'publishPages'>,
    private readonly results: Pick<ResultsService, 'pageRecord'>,
    private readonly store: Pick<CrawlEntryStore, 'markAnnounced' | 'unannounced'>,
  ) {}

  /**
   * Announces the page. `firstTime` (no earlier announcement is possible) spares the lookup of the dedupe
   * key; a repeat is still refused by the key.
   */
  async announce(page: AnnouncedPage, record: ResultRecord | null, firstTime: boolean): Promise<void> {
    if (record) {
      await this.events.publishResult(this.run.job, { ...toResultEventItem(record) }, { dedupeKey: `page:${page.key}`, firstTime });
    }
    if (page.status === 'failed') {
      // The stream's `error` event for a page problem (the crawl goes on); its result event says it too.
      await this.events.emit(
        this.run.jobId,
        'error',
        { job_id: this.run.jobId, url: page.url, error_category: page.error_category, error_message: page.error_message },
        { dedupeKey: `page-error:${page.key}`, onlyWhileRunning: true, firstTime },
      );
    }
  }

  /**
   * Announces several pages at once (a commit batch): the same events as announce for each, in order, with
   * their seqs drawn in one write and stored in one insert (JobsService.publishPages).
   */
  async announceMany(pages: ReadonlyArray<{ page: AnnouncedPage; record: ResultRecord | null; firstTime: boolean }>): Promise<void> {
    await this.events.publishPages(
      this.run.job,
      pages.map(({ page, record, firstTime }) => ({
        ...(record ? { result: { item: { ...toResultEventItem(record) }, dedupeKey: `page:${page.key}` } } : {}),
        ...(page.status === 'failed'
          ? {
              error: {
                data: { job_id: this.run.jobId, url: page.url, error_category: page.error_category, error_message: page.error_message },
                dedupeKey: `page-error:${page.key}`,
              },
            }
          : {}),
        firstTime,
      })),
    );
  }

  /**
   * Whether this owner knows of no earlier announcement of the page: not adopted from an earlier owner,
   * and not announced already by an attempt of this one (the entry stays marked until it is dropped).
   */
  firstAnnouncement(entry: WindowEntry): boolean {
    if (entry.mayBeAnnounced) return false;
    entry.mayBeAnnounced = true;
    return true;
  }

  /** Announces, once, every page stored done whose announcement did not happen (a crash between the two). */
  async announceLeftovers(): Promise<void> {
    for (const entry of await this.store.unannounced(this.run.jobId)) {
      const record = entry.result_id ? await this.results.pageRecord(this.run.job, entry.key) : null;
      await this.announce(entry, record, false);
      await this.store.markAnnounced(entry._id);
    }
  }
}
