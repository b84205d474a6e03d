import { AppError, type ErrorCategory } from '@app/core';

export interface FetchErrorOptions {
  retryable?: boolean;
  retryAfterSeconds?: number;
  status?: number;
  url?: string;
  cause?: unknown;
}

/** Default retry semantics per category: transient network trouble yes, caller/site decisions no. */
const RETRYABLE: Partial<Record<ErrorCategory, boolean>> = {
  fetch_error: true,
  timeout: true,
  rate_limit: true,
  blocked: false,
  http_error: false,
  ssrf_blocked: false,
  robots_disallowed: false,
  content_too_large: false,
  unsupported_content: false,
};

/** Every fetch failure is an AppError carrying one error_category (docs/api.md "error_category"). */
export function fetchError(category: ErrorCategory, message: string, options: FetchErrorOptions = {}): AppError {
  const extensions: Record<string, unknown> = {};
  if (options.status !== undefined) extensions.status = options.status;
  if (options.url !== undefined) extensions.url = options.url;
  return new AppError('upstream-failure', message, {
    category,
    retryable: options.retryable ?? RETRYABLE[category] ?? false,
    retryAfterSeconds: options.retryAfterSeconds,
    extensions: Object.keys(extensions).length > 0 ? extensions : undefined,
    cause: options.cause,
  });
}

export function isFetchError(error: unknown, category?: ErrorCategory): error is AppError {
  return error instanceof AppError && (category === undefined || error.category === category);
}

/** The site answered with an error status: 429 (and 503 with Retry-After) are rate limits, the rest http_error. */
export function statusError(status: number, url: string, retryAfterSeconds: number | undefined): AppError {
  if (status === 429 || (status === 503 && retryAfterSeconds !== undefined)) {
    return fetchError(
      'rate_limit',
      `The site answered ${status}${retryAfterSeconds !== undefined ? ` (retry after ${retryAfterSeconds}s)` : ''}.`,
      {
        status,
        url,
        retryAfterSeconds,
      },
    );
  }
  // 5xx and 408 are transient on the site's side; other 4xx will not change on retry.
  const retryable = status >= 500 || status === 408;
  return fetchError('http_error', `The site answered HTTP ${status}.`, { status, url, retryable });
}
