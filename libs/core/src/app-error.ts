import type { ErrorCategory } from './error-category';
import type { ProblemSlug } from './problems';

/** A per-field problem: `location` is `body.<path>`, `query.<name>`, `path.<name>` or `header.<name>`. */
export interface FieldError {
  location: string;
  message: string;
  value?: unknown;
}

export interface AppErrorOptions {
  detail?: string;
  errors?: FieldError[];
  category?: ErrorCategory;
  /** Whether a queue may retry the work that failed with this error. */
  retryable?: boolean;
  /** Seconds the caller should wait (429/503). */
  retryAfterSeconds?: number;
  /** Extra problem+json members (snake_case). */
  extensions?: Record<string, unknown>;
  /** Extra response headers (e.g. `Allow` on a 405). */
  headers?: Record<string, string>;
  cause?: unknown;
}

/**
 * The one error type from domain to wire: a problem slug (HTTP status + type URI), an optional
 * error_category, and retry semantics. It survives serialisation through a queue (toJSON/fromJSON).
 */
export class AppError extends Error {
  readonly slug: ProblemSlug;
  readonly detail?: string;
  readonly errors?: FieldError[];
  readonly category?: ErrorCategory;
  readonly retryable: boolean;
  readonly retryAfterSeconds?: number;
  readonly extensions?: Record<string, unknown>;
  readonly headers?: Record<string, string>;

  constructor(slug: ProblemSlug, message: string, options: AppErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'AppError';
    this.slug = slug;
    this.detail = options.detail ?? message;
    this.errors = options.errors;
    this.category = options.category;
    this.retryable = options.retryable ?? false;
    this.retryAfterSeconds = options.retryAfterSeconds;
    this.extensions = options.extensions;
    this.headers = options.headers;
  }

  toJSON(): SerializedAppError {
    return {
      __app_error: true,
      slug: this.slug,
      message: this.message,
      detail: this.detail,
      errors: this.errors,
      category: this.category,
      retryable: this.retryable,
      retry_after_seconds: this.retryAfterSeconds,
      extensions: this.extensions,
      headers: this.headers,
    };
  }

  static fromJSON(value: SerializedAppError): AppError {
    return new AppError(value.slug, value.message, {
      detail: value.detail,
      errors: value.errors,
      category: value.category,
      retryable: value.retryable,
      retryAfterSeconds: value.retry_after_seconds,
      extensions: value.extensions,
      headers: value.headers,
    });
  }

  static isSerialized(value: unknown): value is SerializedAppError {
    return typeof value === 'object' && value !== null && (value as { __app_error?: unknown }).__app_error === true;
  }
}

/**
 * The one "retry only our own failures" rule (docs/crawl.md "Retries"): a failure after the fetch is worth
 * another attempt only when it is ours, an `internal` AppError or no AppError at all (a bug, a crash).
 * Every other category would come back the same: the model chain has already retried transient provider
 * errors, and a refused key or an unparseable answer fails again. Crawl pages (isRetryableFailure) and
 * single-page jobs (finalJobError) both ask it.
 */
export function isOwnFailure(error: unknown): boolean {
  return !(error instanceof AppError) || error.category === 'internal';
}

export interface SerializedAppError {
  __app_error: true;
  slug: ProblemSlug;
  message: string;
  detail?: string;
  errors?: FieldError[];
  category?: ErrorCategory;
  retryable: boolean;
  retry_after_seconds?: number;
  extensions?: Record<string, unknown>;
  headers?: Record<string, string>;
}

export const Errors = {
  validation: (errors: FieldError[], detail = 'The request has invalid fields.') =>
    new AppError('validation-error', detail, { errors, category: 'invalid_request' }),
  notFound: (what: string) => new AppError('not-found', `${what} not found.`),
  conflict: (detail: string) => new AppError('conflict', detail),
  unauthorized: (detail: string) => new AppError('unauthorized', detail),
  forbidden: (detail: string) => new AppError('insufficient-scope', detail),
  internal: (detail: string, cause?: unknown) => new AppError('internal-error', detail, { category: 'internal', retryable: true, cause }),
};

/** Thrown by repositories when a unique constraint is violated. */
export class DuplicateKeyError extends Error {
  constructor(
    readonly collection: string,
    readonly index?: string,
  ) {
    super(`duplicate key in ${collection}${index ? ` (${index})` : ''}`);
    this.name = 'DuplicateKeyError';
  }
}
