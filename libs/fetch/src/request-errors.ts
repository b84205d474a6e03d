import { AppError } from '@app/core';
import { fetchError } from './errors';

/** A request's failures as Gleaner's error categories (static-fetcher.ts throws these). */

export function timeoutError(url: string): AppError {
  return fetchError('timeout', `The fetch of ${url} exceeded its deadline.`, { url });
}

/** The reset of a request sent on a kept-alive connection that the server had closed. */
export function isStaleSocketReset(error: unknown): boolean {
  const err = (error !== null && typeof error === 'object' ? error : {}) as NodeJS.ErrnoException & { cause?: unknown };
  const code = err.code ?? (err.cause as NodeJS.ErrnoException | undefined)?.code ?? '';
  return code === 'ECONNRESET' || code === 'EPIPE' || code === 'ERR_STREAM_PREMATURE_CLOSE';
}

const FETCH_ERROR_CODES =
  /^(ECONNREFUSED|ECONNRESET|ECONNABORTED|EPIPE|EHOSTUNREACH|ENETUNREACH|EHOSTDOWN|ENETDOWN|EAI_AGAIN|ENOTFOUND|EPROTO|ERR_TLS|CERT_|UNABLE_TO|DEPTH_ZERO|SELF_SIGNED|ERR_SSL|HPE_|ERR_STREAM_PREMATURE_CLOSE|ERR_HTTP2)/;

/** Maps got/Node errors onto the error_category vocabulary. */
export function mapRequestError(error: unknown, url: string): AppError {
  if (error instanceof AppError) return error;
  // Anything may be thrown (a library that rejects with null or a string): it is still the fetch's failure, never a 500.
  const err = (error !== null && typeof error === 'object' ? error : {}) as NodeJS.ErrnoException & { name?: string; cause?: unknown };
  const cause = err.cause as NodeJS.ErrnoException | undefined;
  if (cause instanceof AppError) return cause;
  const code = err.code ?? cause?.code ?? '';
  if (err.name === 'TimeoutError' || code === 'ETIMEDOUT') return timeoutError(url);
  if (err.name === 'AbortError' || code === 'ABORT_ERR' || code === 'ERR_ABORTED') {
    return new AppError('upstream-failure', 'The fetch was cancelled.', { category: 'cancelled', retryable: false });
  }
  const reason = FETCH_ERROR_CODES.test(code) ? code : err.message || String(error);
  return fetchError('fetch_error', `Fetching ${url} failed: ${reason}.`, {
    url,
    cause: error,
    retryable: !/^(CERT_|UNABLE_TO|DEPTH_ZERO|SELF_SIGNED|ENOTFOUND)/.test(code),
  });
}
