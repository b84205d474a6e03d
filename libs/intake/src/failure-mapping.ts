import { AppError, type ErrorCategory, type ProblemSlug } from '@app/core';

/** How a failed extract/analyze job answers its waiting caller (docs/api.md "HTTP status codes of failed extract/analyze"). */
const SLUG_BY_CATEGORY: Partial<Record<ErrorCategory, ProblemSlug>> = {
  invalid_request: 'validation-error',
  ssrf_blocked: 'validation-error',
  robots_disallowed: 'validation-error',
  no_models: 'validation-error',
  budget_exceeded: 'validation-error',
  timeout: 'upstream-timeout',
  llm_timeout: 'upstream-timeout',
  cancelled: 'conflict',
  internal: 'internal-error',
};

export function jobFailureToProblem(jobId: string, category: ErrorCategory | null, message: string | null): AppError {
  const cat = category ?? 'internal';
  const slug = SLUG_BY_CATEGORY[cat] ?? 'upstream-failure';
  if (slug === 'internal-error')
    return new AppError('internal-error', message ?? 'Internal error.', { category: 'internal', extensions: { job_id: jobId } });
  return new AppError(slug, message ?? 'The job failed.', { category: cat, extensions: { job_id: jobId } });
}

/** What a one-page job's answer reads of its page result (a `ResultItem` of @app/results). */
export interface PageOutcome {
  status: 'completed' | 'failed';
  error_category?: ErrorCategory;
  error_message?: string;
}

/**
 * The page of a completed one-page job (scrape, extract, a Firecrawl scrape's one-URL batch or re-extraction), or why
 * there is none.
 * A failed page answers as a failed job with its failure would (a fetch failure 502, a timeout 504; Gleaner's own
 * failure alone is a 500), with the message already stored on the item (and served by GET /jobs/{id}/results).
 * No page at all is Gleaner's own failure: a completed job records its page first.
 */
export function completedPage<T extends PageOutcome>(jobId: string, item: T | null): T {
  if (!item)
    throw new AppError('internal-error', 'The job completed without its result.', { category: 'internal', extensions: { job_id: jobId } });
  if (item.status === 'completed') return item;
  // An item stored without a message has '' (toResultItem): the problem's own default then.
  throw jobFailureToProblem(jobId, item.error_category ?? null, item.error_message || null);
}
