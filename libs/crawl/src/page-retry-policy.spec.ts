import { AppError } from '@app/core';
import type { PageOutcome } from './crawl.types';
import {
  CRAWLEE_MAX_RETRIES,
  PAGE_RETRY_LIMITS,
  exhaustedFailure,
  isRetryableFailure,
  retryDelayMs,
  routeOutcome,
  workerCrashVerdict,
} from './page-retry-policy';

const failed = (retryable: boolean): Extract<PageOutcome, { kind: 'failed' }> => ({
  kind: 'failed',
  error_category: 'fetch_error',
  error_message: 'reset',
  error_details: null,
  http_status: null,
  final_url: null,
  retryable,
  usage: null,
});
const rateLimited = (since: number): PageOutcome => ({
  kind: 'rate_limited',
  paused_until: 5000,
  limited_since: since,
  http_status: 429,
  retry_after_ms: 2000,
});
const first = { retryCount: 0, rateLimitRetries: 0 };
const STALL = 60_000;

describe('routeOutcome', () => {
  it('retries a retryable failure until the attempts run out, then fails it', () => {
    expect(routeOutcome(failed(true), first, 0, STALL)).toMatchObject({ kind: 'retry' });
    expect(routeOutcome(failed(true), { ...first, retryCount: CRAWLEE_MAX_RETRIES }, 0, STALL)).toMatchObject({ kind: 'fail' });
    expect(routeOutcome(failed(false), first, 0, STALL)).toMatchObject({ kind: 'fail' });
    expect(CRAWLEE_MAX_RETRIES).toBe(PAGE_RETRY_LIMITS.attempts - 1);
  });

  it('requeues a rate-limited page at the pause end, and fails it after too many 429s or a stalled host', () => {
    expect(routeOutcome(rateLimited(0), first, 1000, STALL)).toEqual({ kind: 'requeue', notBefore: 5000, rateLimited: true });
    const tooMany = routeOutcome(rateLimited(0), { ...first, rateLimitRetries: PAGE_RETRY_LIMITS.rateLimitRetries }, 1000, STALL);
    expect(tooMany).toMatchObject({ kind: 'fail', outcome: { error_category: 'rate_limit', http_status: 429 } });
    expect(tooMany.kind === 'fail' && tooMany.outcome.error_message).toContain(`${PAGE_RETRY_LIMITS.rateLimitRetries + 1} times`);
    const stalled = routeOutcome(rateLimited(0), first, STALL + 1, STALL);
    expect(stalled).toMatchObject({ kind: 'fail', outcome: { error_category: 'rate_limit', error_details: 'HTTP 429, Retry-After 2 s' } });
  });

  it('requeues a deferred page without using an attempt, at least 10 ms later', () => {
    expect(routeOutcome({ kind: 'deferred', retry_in_ms: 0, reason: 'busy' }, first, 100, STALL)).toEqual({
      kind: 'requeue',
      notBefore: 110,
      rateLimited: false,
    });
  });

  it('passes completed, skipped and cancelled outcomes through', () => {
    expect(routeOutcome({ kind: 'cancelled' }, first, 0, STALL)).toEqual({ kind: 'cancel' });
    const skipped: PageOutcome = { kind: 'skipped', reason: 'duplicate', why: 'known', final_url: null };
    expect(routeOutcome(skipped, first, 0, STALL)).toEqual({ kind: 'skip', outcome: skipped });
  });
});

describe('retry rules', () => {
  it('waits 1, 2, 4 s before the retries', () => {
    expect([1, 2, 3].map(retryDelayMs)).toEqual([1000, 2000, 4000]);
  });

  it('decides what is retryable in one place: fetch by the error, extraction only for our own errors', () => {
    const timeout = new AppError('upstream-failure', 'timed out', { category: 'timeout', retryable: true });
    const notFound = new AppError('upstream-failure', 'HTTP 404', { category: 'http_error', retryable: false });
    const modelDown = new AppError('upstream-failure', 'model unavailable', { category: 'llm_provider_error', retryable: true });
    const internal = new AppError('internal-error', 'bug', { category: 'internal', retryable: true });
    expect(isRetryableFailure('fetch', timeout)).toBe(true);
    expect(isRetryableFailure('fetch', notFound)).toBe(false);
    expect(isRetryableFailure('extract', modelDown)).toBe(false);
    expect(isRetryableFailure('extract', internal)).toBe(true);
    expect(isRetryableFailure('fetch', new Error('?'))).toBe(true);
    expect(isRetryableFailure('extract', new TypeError('?'))).toBe(true);
  });

  it('records the last retryable failure when the attempts run out, or the error Crawlee saw', () => {
    expect(exhaustedFailure(failed(true), new Error('x'), 3)).toMatchObject({
      error_message: 'reset',
      error_details: 'gave up after 3 attempts',
    });
    const appError = new AppError('upstream-failure', 'HTTP 500', { category: 'http_error' });
    expect(exhaustedFailure(undefined, appError, 1)).toMatchObject({
      error_category: 'http_error',
      error_message: 'HTTP 500',
      retryable: false,
    });
    expect(exhaustedFailure(undefined, new Error('boom'), 1)).toMatchObject({
      error_category: 'internal',
      error_message: 'The page failed unexpectedly.',
    });
  });
});

describe('workerCrashVerdict (only deaths the page had alone in its process count)', () => {
  it('runs a page that shared its process at every death, however many there were', () => {
    // A page in flight at outside kills (docker kill of its crawler) is a suspect, never blamed for them.
    expect(workerCrashVerdict({})).toBeNull();
    expect(workerCrashVerdict({ alone_runs: undefined })).toBeNull();
  });

  it('fails the page once its worker died with it alone the limit of times; this delivery is not one of them', () => {
    for (let aloneRuns = 1; aloneRuns <= PAGE_RETRY_LIMITS.workerCrashes; aloneRuns++) {
      expect([aloneRuns, workerCrashVerdict({ alone_runs: aloneRuns })]).toEqual([aloneRuns, null]);
    }
    const verdict = workerCrashVerdict({ alone_runs: PAGE_RETRY_LIMITS.workerCrashes + 1 });
    expect(verdict).toMatchObject({ kind: 'failed', error_category: 'worker_crash', retryable: false, usage: null });
    expect(verdict?.error_message).toMatch(/die 3 times while it ran alone; it is not tried again/);
  });
});
