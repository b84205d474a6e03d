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
