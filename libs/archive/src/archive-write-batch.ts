import { GapClock, LINGER_GAPS } from '@app/core';
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

interface Waiting {
  page: PageWrite;
  resolve: (kept: KeptPage) => void;
  reject: (error: unknown) => void;
}

/**
 * The archive's write batch (docs/archive.md "Where it is kept"): the pages a process keeps at the same time are
 * written in ONE store command (`ArchiveRepository.keepPages`) instead of one each. Each caller awaits its own
 * page's result; an error of the command rejects every page of the batch, as the failed write of a single page
 * fails that page. One batch is written at a time: pages that come while one is written form the next.
 */
export class ArchiveWriteBatch {
  private pending: Waiting[] = [];
  private pendingBytes = 0;
  private timer?: NodeJS.Timeout;
  private writing: Promise<void> | null = null;
  private firstAt = 0;
  /**
   * The running mean of the gaps between pages; a gap longer than the longest linger says only "alone": it is
   * counted as that, not as an idle hour.
   */
  private readonly gaps: GapClock;
  /** When a page last came while another was unwritten. */
  private overlapAt: number | null = null;

  constructor(
    private readonly write: (pages: PageWrite[]) => Promise<KeptPage[]>,
    private readonly limits: ArchiveBatchLimits = LIMITS,
    private readonly now: () => number = Date.now,
  ) {
    this.gaps = new GapClock(limits, limits.maxLingerMs);
  }

  /** Adds a page; resolves with its result once its batch is written. */
  keep(page: PageWrite): Promise<KeptPage> {
    return new Promise<KeptPage>((resolve, reject) => {
      const now = this.now();
      this.gaps.tick(now);
      if (this.pending.length > 0 || this.writing) this.overlapAt = now;
      if (this.pending.length === 0) this.firstAt = now;
      this.pending.push({ page, resolve, reject });
      this.pendingBytes += bytesOf(page);
      this.schedule();
    });
  }

  /** Pages waiting for their batch. */
  get size(): number {
    return this.pending.length;
  }

  /** How long the current batch's first page waits for companions while pages are kept at the same time. */
  get lingerMs(): number {
    return this.gaps.lingerMs;
  }

  /** Writes what waits now, and resolves once nothing waits or is being written (at shutdown, in tests). */
  async drain(): Promise<void> {
    while (this.writing || this.pending.length > 0) {
      clearTimeout(this.timer);
      if (!this.writing) this.flush();
      await this.writing;
    }
  }

  private schedule(): void {
    if (this.writing || this.pending.length === 0) return;
    const alone = this.overlapAt === null || this.now() - this.overlapAt >= this.limits.maxLingerMs;
    const due =
      alone || this.pending.length >= this.limits.max || this.pendingBytes >= this.limits.maxBytes
        ? 0
        : Math.max(0, this.firstAt + this.lingerMs - this.now());
    clearTimeout(this.timer);
    // At once still waits for this turn of the event loop: pages kept together share the batch.
    this.timer = setTimeout(() => this.flush(), due);
  }

  private flush(): void {
    if (this.writing || this.pending.length === 0) return;
    const batch = this.pending;
    this.pending = [];
    this.pendingBytes = 0;
    this.writing = this.settle(batch);
  }

  private async settle(batch: Waiting[]): Promise<void> {
    let kept: KeptPage[] | null = null;
    let failure: unknown = null;
    try {
      kept = await this.write(batch.map((w) => w.page));
    } catch (error) {
      failure = error;
    }
    // Done before its pages are told: a caller's next page (kept after this one) finds no write in flight.
    this.writing = null;
    // Pages that came while this batch was written: due once their first has waited its linger.
    this.schedule();
    batch.forEach((w, i) => (kept ? w.resolve(kept[i]) : w.reject(failure)));
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
