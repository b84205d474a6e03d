import { AppError } from '@app/core';

export type ContentErrorReason = 'timeout' | 'worker_crashed' | 'conversion_failed' | 'pool_closed' | 'invalid_input';

/** A conversion that did not produce a result; the pool and the host process stay healthy. */
export class ContentError extends AppError {
  readonly reason: ContentErrorReason;

  constructor(reason: ContentErrorReason, message: string, cause?: unknown) {
    super('internal-error', message, {
      category: 'internal',
      // A timeout or crash may be load-related; bad input will fail again.
      retryable: reason === 'timeout' || reason === 'worker_crashed',
      extensions: { content_error: reason },
      cause,
    });
    this.name = 'ContentError';
    this.reason = reason;
  }
}
