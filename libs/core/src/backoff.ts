/**
 * How long to wait before trying something again: one formula, and below it every wait of the project in one
 * table (docs/operations.md "Retries and backoff"). The wait before step `n` (1 for the first retry) is
 * `baseMs · factor^(n−1)`, at most `maxMs`, then spread by `jitter`, rounded to a whole millisecond.
 */
export interface Backoff {
  /** The first wait. */
  readonly baseMs: number;
  /** What each further step multiplies the wait by. */
  readonly factor: number;
  /** The longest wait; without it the wait keeps growing. */
  readonly maxMs?: number;
  /**
   * How the wait is spread, so that many waiters do not all come back at once: `none`; `upper-half` (uniform in
   * [d/2, d]); `plus-minus-20` (uniform in [0.8·d, 1.2·d]).
   */
  readonly jitter: 'none' | 'upper-half' | 'plus-minus-20';
}

/** The wait before step `step` (1, 2, ...; below 1 counts as 1) of `backoff`; `random` in [0, 1) draws the jitter. */
export function backoffMs(backoff: Backoff, step: number, random: () => number = Math.random): number {
  const grown = backoff.baseMs * backoff.factor ** Math.max(0, step - 1);
  const capped = backoff.maxMs === undefined ? grown : Math.min(backoff.maxMs, grown);
  return Math.max(0, Math.round(spread(capped, backoff.jitter, random)));
}

function spread(wait: number, jitter: Backoff['jitter'], random: () => number): number {
  switch (jitter) {
    case 'none':
      return wait;
    case 'upper-half':
      return wait / 2 + random() * (wait / 2);
    case 'plus-minus-20':
      return wait * (0.8 + 0.4 * random());
  }
}

/**
 * Every backoff, named by what waits. A row whose base or cap an operator sets (the environment variable it
 * names) holds its default; the caller passes the configured values over it.
 */
export const BACKOFFS = {
  /** A crawl page that failed retryably, before Crawlee tries it again (docs/crawl.md "Retries"): 1 s, 2 s, 4 s ... */
  page: { baseMs: 1000, factor: 2, jitter: 'none' },
  /** A job's queue message whose delivery failed (RUN_JOB_OPTIONS, 5 deliveries): 1 s, 2 s, 4 s ... at most 30 s. */
  job: { baseMs: 1000, factor: 2, maxMs: 30_000, jitter: 'none' },
  /** A crawl page task's queue message whose delivery failed (the page dispatcher): 0.5 s, 1 s, 2 s ... at most 10 s. */
  pageTask: { baseMs: 500, factor: 2, maxMs: 10_000, jitter: 'none' },
  /** A webhook stream's pump message whose delivery failed (the webhook dispatcher): 1 s, 2 s ... at most 60 s. */
  webhookPump: { baseMs: 1000, factor: 2, maxMs: 60_000, jitter: 'none' },
  /** A queue message enqueued without a backoff of its own (the queue adapters' default): 1 s, 2 s ... at most 60 s. */
  queueMessage: { baseMs: 1000, factor: 2, maxMs: 60_000, jitter: 'none' },
  /**
   * A webhook delivery that failed, before the next attempt: GLEANER_WEBHOOK_RETRY_BASE_MS, ×4 per attempt, at
   * most GLEANER_WEBHOOK_RETRY_MAX_MS, ±20 %.
   */
  webhook: { baseMs: 5_000, factor: 4, maxMs: 3_600_000, jitter: 'plus-minus-20' },
  /**
   * A model call that met a transient provider error, before the same target is tried again (GLEANER_LLM_RETRIES
   * times): 250 ms, 500 ms ... at most 10 s, drawn in the upper half; a longer Retry-After moves on instead.
   */
  model: { baseMs: 250, factor: 2, maxMs: 10_000, jitter: 'upper-half' },
  /** A proxy that failed to connect, before it is used again (per failure in a row): 5 s, 10 s ... at most 5 minutes. */
  proxyRest: { baseMs: 5_000, factor: 2, maxMs: 300_000, jitter: 'none' },
} as const satisfies Record<string, Backoff>;
