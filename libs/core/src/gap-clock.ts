/**
 * The linger of a write batch (the archive's write batch, libs/archive/src/archive-write-batch.ts; a crawl owner's
 * commit batch, libs/crawl/src/owner/commit-batch.ts): a batch's first item waits LINGER_GAPS times the recent
 * mean gap between items for companions, within [minLingerMs, maxLingerMs]. Items coming together linger the
 * least; items coming slowly still share their batch, and none waits longer than maxLingerMs.
 */
export interface LingerBounds {
  readonly minLingerMs: number;
  readonly maxLingerMs: number;
}

/** A batch's first item lingers this many recent gaps between items (time for a few more to join). */
export const LINGER_GAPS = 4;
/** Weight of the newest gap in the running mean of gaps between items. */
export const GAP_WEIGHT = 0.2;

/** The linger for a recent mean gap of `gapMs` between items: LINGER_GAPS of them, within the bounds, whole ms. */
export function lingerFor(gapMs: number, bounds: LingerBounds): number {
  return Math.min(bounds.maxLingerMs, Math.max(bounds.minLingerMs, Math.round(LINGER_GAPS * gapMs)));
}

/** The running mean of the gaps between a batch's items (ms), from 0, and the linger it gives. */
export class GapClock {
  private meanMs = 0;
  private lastAt: number | null = null;

  /**
   * `longestGapMs`: a longer gap counts as this long (the archive's batch: a gap longer than the longest linger
   * says only "alone", not an idle hour); none by default (every gap counts as it was).
   */
  constructor(
    private readonly bounds: LingerBounds,
    private readonly longestGapMs = Infinity,
  ) {}

  /** An item came at `now` (ms). */
  tick(now: number): void {
    if (this.lastAt !== null) this.meanMs += GAP_WEIGHT * (Math.min(now - this.lastAt, this.longestGapMs) - this.meanMs);
    this.lastAt = now;
  }

  /** The running mean of the gaps between items so far (0 before the second item). */
  get gapMs(): number {
    return this.meanMs;
  }

  /** How long a batch's first item waits for companions now. */
  get lingerMs(): number {
    return lingerFor(this.meanMs, this.bounds);
  }
}
