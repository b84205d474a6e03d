import { LINGER_GAPS, WriteBatch } from '@app/core';
import type { KeptPage, PageWrite } from './archive.repository';

/** A batch is written once it holds this many pages, */
export const ARCHIVE_BATCH_MAX = 64;
/** or this many bytes of bodies to create (inline bodies are up to 255 KiB compressed each), */
export const ARCHIVE_BATCH_MAX_BYTES = 4 * 1024 * 1024;
/**
 * or once its first page has lingered ARCHIVE_BATCH_PAGES_AHEAD times the recent gap between pages within
 * [ARCHIVE_BATCH_LINGER_MS, ARCHIVE_BATCH_MAX_LINGER_MS] (as the owner's commit batch, commit-batch.ts), but only
 * while pages are kept at the same time: a page that finds no other page waiting or being written, and none did
 * for ARCHIVE_BATCH_MAX_LINGER_MS, is written at once (an extract's or a scrape's one page, a WARC seeding's
 * pages kept one after the other). The linger is @app/core's GapClock (gap-clock.ts), shared with the commit batch.
 */
export const ARCHIVE_BATCH_LINGER_MS = 20;
export const ARCHIVE_BATCH_MAX_LINGER_MS = 250;
export const ARCHIVE_BATCH_PAGES_AHEAD = LINGER_GAPS;

export interface ArchiveBatchLimits {
  max: number;
  maxBytes: number;
  minLingerMs: number;
  maxLingerMs: number;
}

const LIMITS: ArchiveBatchLimits = {
  max: ARCHIVE_BATCH_MAX,
  maxBytes: ARCHIVE_BATCH_MAX_BYTES,
  minLingerMs: ARCHIVE_BATCH_LINGER_MS,
  maxLingerMs: ARCHIVE_BATCH_MAX_LINGER_MS,
};

/**
 * The archive's write batch (docs/archive.md "Where it is kept"): the pages a process keeps at the same time are
 * written in ONE store command (`ArchiveRepository.keepPages`) instead of one each, by @app/core's WriteBatch
 * (write-batch.ts), weighed by the bytes of the bodies they create. Each caller awaits its own page's result.
 */
export class ArchiveWriteBatch extends WriteBatch<PageWrite, KeptPage> {
  constructor(write: (pages: PageWrite[]) => Promise<KeptPage[]>, limits: ArchiveBatchLimits = LIMITS, now: () => number = Date.now) {
    super(write, { ...limits, maxWeight: limits.maxBytes }, bytesOf, now);
  }

  /** Adds a page; resolves with its result once its batch is written. */
  keep(page: PageWrite): Promise<KeptPage> {
    return this.add(page);
  }
}

/** The bytes of bodies a page's write creates (what makes a command large). */
function bytesOf(page: PageWrite): number {
  let bytes = 0;
  for (const body of page.bodies) {
    const data: unknown = body.create?.data;
    if (typeof data === 'string') bytes += data.length;
  }
  return bytes;
}
