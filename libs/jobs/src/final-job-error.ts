import { AppError, isOwnFailure, isStoreUnavailable } from '@app/core';

/**
 * Errors of single-page jobs (extract, scrape, analyze) are final: the job answers a waiting caller and
 * retrying the whole job would only delay that answer. Only our own failures (isOwnFailure: bugs, crashes)
 * go back to the queue; an AppError without a category is reported as `internal` but not retried.
 */
export function finalJobError(error: unknown, what: string): AppError {
  // A store outage is nobody's final answer: thrown on as it is, the job runner waits it out (see JobRunnerService).
  if (isStoreUnavailable(error)) throw error;
  if (error instanceof AppError) {
    return new AppError(error.slug, error.message, {
      detail: error.detail,
      category: error.category ?? 'internal',
      retryable: isOwnFailure(error),
    });
  }
  return new AppError('internal-error', `${what} failed unexpectedly.`, { category: 'internal', retryable: true, cause: error });
}
