import type { PageArchive, WarcLimits } from '@app/archive';
import { warcPages } from '@app/archive';
import { AppError } from '@app/core';
import type { CrawlStateStore } from '../store/crawl-state-store';
import type { WarcSource } from '../crawl-input';
import { canonicalize } from '../url-canon';
import type { CrawlRun } from './crawl-run';
import { BackgroundReading, recordProgress } from './background-reading';
import type { Frontier } from './frontier';
import type { SeedSource } from './seed-source';

export type WarcSeedingStore = Pick<CrawlStateStore, 'state' | 'updateState'>;
export type WarcSeedingArchive = Pick<PageArchive, 'openUpload' | 'dropUpload' | 'keep' | 'keepFailure' | 'record'>;

/** Pages stored in the frontier per step (and the progress recorded with them). */
const STEP = 200;

/** The page of a record that has no usable URL: a reserved name (RFC 2606 `.invalid`) that is never fetched. */
export function recordUrl(index: number): string {
  return `https://warc-record.invalid/${index + 1}`;
}

/**
 * A WARC upload's pages (docs/archive.md "WARC in"): the owner reads the stored file as it streams,
 * keeps every HTML response record as an archived page of this job (`origin: warc`) and stores it in
 * the frontier as a `via: list` entry; a record that cannot be read becomes a page that fails with the
 * reason (under its target URI, or a reserved `https://warc-record.invalid/<n>` URL when it has none).
 * The page workers then extract the pages from the archive: nothing is fetched. A URL the file holds
 * twice is extracted once (its first record). Progress is recorded in the crawl state: a new owner
 * reads the file again and stores only what was not stored. The file is dropped once read.
 */
export class WarcSeeding implements SeedSource {
  private readonly background = new BackgroundReading(() => this.run.wake());

  constructor(
    private readonly run: CrawlRun,
    private readonly source: WarcSource,
    private readonly store: WarcSeedingStore,
    private readonly frontier: Pick<Frontier, 'offerListUrls'>,
    private readonly archive: WarcSeedingArchive,
    private readonly limits: WarcLimits,
  ) {}

  async ingest(): Promise<void> {
    const state = await this.store.state(this.run.jobId);
    if (state?.seed_done) return;
    this.background.start(() => this.readAll(state?.warc_records_done ?? 0, state?.warc_offered ?? 0));
  }

  get busy(): boolean {
    return this.background.busy;
  }

  settled(): Promise<void> {
    return this.background.settled();
  }

  private async readAll(recordsDone: number, offered: number): Promise<void> {
    const file = await this.archive.openUpload(this.source.upload_id);
    if (!file) {
      throw new AppError('internal-error', 'The uploaded WARC file is gone (deleted, or past the archive retention) before it was read.', {
        category: 'invalid_request',
      });
    }
    const userId = this.run.job.user_id;
    const jobId = this.run.jobId;
    let batch: string[] = [];
    let lastIndex = recordsDone - 1;
    const flush = async () => {
      if (batch.length > 0) await this.frontier.offerListUrls(batch, offered);
      offered += batch.length;
      batch = [];
      await recordProgress(this.run, this.store, { warc_records_done: lastIndex + 1, warc_offered: offered });
    };
    for await (const item of warcPages(file, this.limits)) {
      this.run.throwIfStopped();
      if (item.index < recordsDone) continue;
      lastIndex = item.index;
      const target =
        item.kind === 'page' ? canonicalize(item.capture.url) : item.kind === 'failed' && item.url ? canonicalize(item.url) : null;
      const url = target?.url ?? recordUrl(item.index);
      const key = canonicalize(url)!.key;
      if (await this.archive.record(userId, jobId, key)) continue; // the file holds this URL twice: the first record counts
      if (item.kind === 'page') {
        const kept = await this.archive.keep(userId, jobId, key, { ...item.capture, url, finalUrl: url }, 'warc');
        if (kept === 'refused_cap' || kept === 'disabled') {
          await this.archive.keepFailure(userId, jobId, key, url, {
            category: 'content_too_large',
            message:
              kept === 'disabled'
                ? 'The archive is off on this server (GLEANER_ARCHIVE_TTL_DAYS=0): the page could not be kept.'
                : "The account's archive is over its size cap (GLEANER_ARCHIVE_MAX_BYTES_PER_TENANT): the page could not be kept.",
          });
        }
      } else if (item.kind === 'failed') {
        await this.archive.keepFailure(userId, jobId, key, url, { category: item.category, message: item.message });
      } else {
        await this.archive.keepFailure(userId, jobId, key, url, { category: 'invalid_request', message: item.message });
      }
      batch.push(url);
      if (batch.length >= STEP) await flush();
    }
    await flush();
    if (await this.store.updateState(jobId, this.run.epoch, { $set: { seed_done: true } }))
      await this.archive.dropUpload(this.source.upload_id);
  }
}
