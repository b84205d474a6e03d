import { GapClock, type LingerBounds } from './gap-clock';

/** When a write batch is written: at `max` items, at `maxWeight` of their weight, or after its linger. */
export interface WriteBatchLimits extends LingerBounds {
  readonly max: number;
  /** Written once its items weigh this much (`weigh`: bytes of bodies, ...); no bound by default. */
  readonly maxWeight?: number;
}

interface Waiting<T, R> {
  item: T;
  resolve: (result: R) => void;
  reject: (error: unknown) => void;
}

/**
 * Items written together in ONE store command instead of one each (the archive's pages, archive-write-batch.ts in
 * @app/archive; a crawler's page outcomes, outcome-write-batch.ts in @app/crawl). Each caller awaits its own item's
 * result; an error of the command rejects every item of the batch, as the failed write of one item fails that item.
 * One batch is written at a time: items that come while one is written form the next.
 *
 * A batch's first item waits for companions LINGER_GAPS times the recent gap between items, within
 * [minLingerMs, maxLingerMs] (GapClock), but only while items come at the same time: an item that finds no
 * other waiting or being written, and none did for maxLingerMs, is written at once (an extract's one page, pages
 * kept one after the other, a crawler's first page).
 */
export class WriteBatch<T, R> {
  private pending: Waiting<T, R>[] = [];
  private pendingWeight = 0;
  private timer?: NodeJS.Timeout;
  private writing: Promise<void> | null = null;
  private firstAt = 0;
  /** The running mean of the gaps between items; a gap longer than the longest linger says only "alone". */
  private readonly gaps: GapClock;
  /** When an item last came while another was unwritten. */
  private overlapAt: number | null = null;

  constructor(
    private readonly write: (items: T[]) => Promise<R[]>,
    private readonly limits: WriteBatchLimits,
    private readonly weigh: (item: T) => number = () => 0,
    private readonly now: () => number = Date.now,
  ) {
    this.gaps = new GapClock(limits, limits.maxLingerMs);
  }

  /** Adds an item; resolves with its result once its batch is written. */
  add(item: T): Promise<R> {
    return new Promise<R>((resolve, reject) => {
      const now = this.now();
      this.gaps.tick(now);
      if (this.pending.length > 0 || this.writing) this.overlapAt = now;
      if (this.pending.length === 0) this.firstAt = now;
      this.pending.push({ item, resolve, reject });
      this.pendingWeight += this.weigh(item);
      this.schedule();
    });
  }

  /** Items waiting for their batch. */
  get size(): number {
    return this.pending.length;
  }

  /** How long the current batch's first item waits for companions while items come at the same time. */
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
      alone || this.pending.length >= this.limits.max || this.pendingWeight >= (this.limits.maxWeight ?? Infinity)
        ? 0
        : Math.max(0, this.firstAt + this.lingerMs - this.now());
    clearTimeout(this.timer);
    // At once still waits for this turn of the event loop: items added together share the batch.
    this.timer = setTimeout(() => this.flush(), due);
  }

  private flush(): void {
    if (this.writing || this.pending.length === 0) return;
    const batch = this.pending;
    this.pending = [];
    this.pendingWeight = 0;
    this.writing = this.settle(batch);
  }

  private async settle(batch: Waiting<T, R>[]): Promise<void> {
    let results: R[] | null = null;
    let failure: unknown = null;
    try {
      results = await this.write(batch.map((w) => w.item));
    } catch (error) {
      failure = error;
    }
    // Done before its items are told: a caller's next item (added after this one) finds no write in flight.
    this.writing = null;
    // Items that came while this batch was written: due once their first has waited its linger.
    this.schedule();
    batch.forEach((w, i) => (results ? w.resolve(results[i]) : w.reject(failure)));
  }
}
