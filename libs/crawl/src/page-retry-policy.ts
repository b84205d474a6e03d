import { RELOGINS_PER_PAGE } from '@app/auth-profiles';
import { AppError, BACKOFFS, backoffMs, isOwnFailure } from '@app/core';
import type { PageOutcome } from './crawl.types';

/**
 * Every limit on trying a crawl page again, in one table (docs/crawl.md "Retries"). Each counts
 * something different, so none can stand in for another.
 */
export const PAGE_RETRY_LIMITS = {
  /** Attempts of a page whose failure is retryable (the first one included); Crawlee runs the retries. */
  attempts: 3,
  /** Times one page may meet a 429 (or 503 with Retry-After) before it fails `rate_limit`; the host stall limit also applies. */
  rateLimitRetries: 10,
  /** Times a page waits for a robots.txt that could not be read (5xx, no answer) before it is skipped (`robots`). */
  robotsDeferrals: 3,
  /** Times a page may take its worker down while it runs alone in its process before it fails `worker_crash`. */
  workerCrashes: 3,
  /** Deliveries of one page task by the queue (a lost or failed enqueue, a store error in the worker). */
  taskDeliveries: 10,
  /**
   * Fresh logins of the page's auth profile when its answer shows a logged-out state, each followed by one more
   * fetch inside the same attempt (the page loader, docs/auth-profiles.md "Sessions"): not one of `attempts`.
   * Still logged out, the page fails `auth_failed`, which is not retried.
   */
  reLogins: RELOGINS_PER_PAGE,
} as const;

/** Crawlee's `maxRequestRetries`: the attempts after the first. */
export const CRAWLEE_MAX_RETRIES = PAGE_RETRY_LIMITS.attempts - 1;

/** The wait before retry `retryCount` (1, 2, ...) of a failed page: BACKOFFS.page (1 s, 2 s, 4 s ...). */
export function retryDelayMs(retryCount: number): number {
  return backoffMs(BACKOFFS.page, retryCount);
}

/**
 * Whether a page that failed at `stage` is worth another attempt. A fetch error says so itself (a timeout,
 * a reset connection, a 5xx: yes; a 404, a blocked address: no). An extraction error is retried only when
 * it is our own (`internal`; isOwnFailure, the rule single-page jobs share): the model chain has already retried transient provider errors
 * (GLEANER_LLM_RETRIES, then the fallback chain), and a refused key or an unparseable answer would fail
 * the same way again. An error that is not an AppError is unexpected: one more attempt.
 */
export function isRetryableFailure(stage: 'fetch' | 'extract', error: unknown): boolean {
  if (stage === 'extract' || !(error instanceof AppError)) return isOwnFailure(error);
  return error.retryable;
}

type Failed = Extract<PageOutcome, { kind: 'failed' }>;
type RateLimited = Extract<PageOutcome, { kind: 'rate_limited' }>;

/** What the owner does with a page's outcome. */
export type PageRoute =
  | { kind: 'complete'; outcome: Extract<PageOutcome, { kind: 'completed' }> }
  | { kind: 'fail'; outcome: Failed }
  /** Try the page again after a backoff (Crawlee's retry: the failure is thrown, then reclaimed). */
  | { kind: 'retry'; failure: Failed }
  /** Back to the frontier without using an attempt: the host was busy or paused. */
  | { kind: 'requeue'; notBefore: number; rateLimited: boolean }
  | { kind: 'skip'; outcome: Extract<PageOutcome, { kind: 'skipped' }> }
  | { kind: 'cancel' };

export interface PageAttempt {
  /** Crawlee's retry count of this attempt (0 for the first). */
  retryCount: number;
  /** Rate-limited answers this page met before. */
  rateLimitRetries: number;
}

/**
 * The route of an outcome, decided from the outcome and the page's counts alone (no I/O). A rate-limited
 * page goes back to the frontier until its own count or its host's stall runs out, then fails `rate_limit`.
 */
export function routeOutcome(outcome: PageOutcome, attempt: PageAttempt, now: number, hostMaxStallMs: number): PageRoute {
  switch (outcome.kind) {
    case 'completed':
      return { kind: 'complete', outcome };
    case 'failed':
      if (outcome.retryable && attempt.retryCount < CRAWLEE_MAX_RETRIES) return { kind: 'retry', failure: outcome };
      return { kind: 'fail', outcome };
    case 'rate_limited':
      return routeRateLimited(outcome, attempt, now, hostMaxStallMs);
    case 'deferred':
      return { kind: 'requeue', notBefore: now + Math.max(outcome.retry_in_ms, 10), rateLimited: false };
    case 'skipped':
      return { kind: 'skip', outcome };
    case 'cancelled':
      return { kind: 'cancel' };
  }
}

function routeRateLimited(outcome: RateLimited, attempt: PageAttempt, now: number, hostMaxStallMs: number): PageRoute {
  const stalled = now - outcome.limited_since > hostMaxStallMs;
  const count = attempt.rateLimitRetries + 1;
  if (!stalled && count <= PAGE_RETRY_LIMITS.rateLimitRetries) {
    return { kind: 'requeue', notBefore: outcome.paused_until, rateLimited: true };
  }
  const retryAfter = outcome.retry_after_ms !== null ? `, Retry-After ${outcome.retry_after_ms / 1000} s` : '';
  return {
    kind: 'fail',
    outcome: {
      kind: 'failed',
      error_category: 'rate_limit',
      error_message: stalled
        ? `The host has been rate limiting since ${new Date(outcome.limited_since).toISOString()}; its pages are given up.`
        : `The host answered ${outcome.http_status} ${count} times for this page.`,
      error_details: `HTTP ${outcome.http_status}${retryAfter}`,
      http_status: outcome.http_status,
      final_url: null,
      retryable: false,
      usage: null,
    },
  };
}

/**
 * The `worker_crash` failure of a page task's delivery, or null to run it. Only a death the page had
 * alone is blamed on it: a run that shared its process with other pages (and any run of a page that was
 * not yet a suspect) ended by a death only makes it a suspect, since an outside kill (docker kill, OOM of
 * the process) or another page may have caused it. `record` counts the delivery being judged.
 */
export function workerCrashVerdict(record: { alone_runs?: number }): Failed | null {
  const deathsAlone = (record.alone_runs ?? 0) - 1;
  if (deathsAlone < PAGE_RETRY_LIMITS.workerCrashes) return null;
  return {
    kind: 'failed',
    error_category: 'worker_crash',
    error_message: `The page made its worker die ${PAGE_RETRY_LIMITS.workerCrashes} times while it ran alone; it is not tried again.`,
    error_details: null,
    http_status: null,
    final_url: null,
    retryable: false,
    usage: null,
  };
}

/** The failure recorded for a page whose attempts ran out: its last retryable failure, or the error Crawlee saw. */
export function exhaustedFailure(lastFailure: Failed | undefined, error: unknown, attempts: number): Failed {
  const details = `gave up after ${attempts} attempts`;
  if (lastFailure) return { ...lastFailure, error_details: details };
  const appError = error instanceof AppError ? error : null;
  return {
    kind: 'failed',
    error_category: appError?.category ?? 'internal',
    error_message: appError ? (appError.detail ?? appError.message) : 'The page failed unexpectedly.',
    error_details: details,
    http_status: null,
    final_url: null,
    retryable: false,
    usage: null,
  };
}
