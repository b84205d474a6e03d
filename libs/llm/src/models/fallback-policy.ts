import { BACKOFFS, backoffMs, type ErrorCategory } from '@app/core';
import { TRANSIENT_LLM_CATEGORIES } from './model-errors';

/** What the router does after a failed attempt. */
export type FallbackAction =
  /** Try the same target again after a pause (transient trouble). */
  | 'retry'
  /** Go on with the next target (this one cannot do it: truncated or unusable output). */
  | 'next'
  /** Skip every remaining target with the same credentials (the key is bad or out of credit). */
  | 'skip-key'
  /** Skip every remaining target on the same endpoint (the address guard refused it). */
  | 'skip-endpoint'
  /** Give up: the request itself is wrong, the run was cancelled, or the error is not a model failure. */
  | 'stop';

export interface RetryPolicy {
  /** Retries of one target on transient failures (GLEANER_LLM_RETRIES). */
  retries: number;
  /** First backoff; doubles per retry. */
  baseDelayMs: number;
  /** Longest pause; a Retry-After beyond it moves on to the next target instead of waiting. */
  maxDelayMs: number;
}

export const DEFAULT_BACKOFF = { baseDelayMs: BACKOFFS.model.baseMs, maxDelayMs: BACKOFFS.model.maxMs } as const;

export function fallbackAction(category: ErrorCategory | undefined, retriesDone: number, policy: RetryPolicy): FallbackAction {
  if (category && TRANSIENT_LLM_CATEGORIES.includes(category)) return retriesDone < policy.retries ? 'retry' : 'next';
  switch (category) {
    case 'llm_truncation':
    case 'llm_invalid_output':
      return 'next';
    case 'llm_invalid_key':
    case 'llm_quota_exceeded':
      return 'skip-key';
    case 'ssrf_blocked':
      return 'skip-endpoint';
    default:
      return 'stop';
  }
}

/**
 * Pause before retry number `retry` (0-based): BACKOFFS.model (exponential with jitter in [d/2, d]), at least the
 * provider's Retry-After, at most maxDelayMs. Null when Retry-After asks for more than the cap (the
 * router then moves on rather than hold the job).
 */
export function modelRetryDelayMs(
  retry: number,
  retryAfterSeconds: number | undefined,
  policy: RetryPolicy,
  random = Math.random,
): number | null {
  const jittered = backoffMs({ ...BACKOFFS.model, baseMs: policy.baseDelayMs, maxMs: policy.maxDelayMs }, retry + 1, random);
  if (retryAfterSeconds === undefined) return jittered;
  const asked = retryAfterSeconds * 1000;
  if (asked > policy.maxDelayMs) return null;
  return Math.round(Math.max(jittered, asked));
}
