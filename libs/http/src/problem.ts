import { HttpException } from '@nestjs/common';
import {
  AppError,
  PROBLEMS,
  STORE_RETRY_AFTER_SECONDS,
  isProblemSlug,
  newId,
  storeFailureOf,
  storeOutageOf,
  type FieldError,
  type ProblemSlug,
} from '@app/core';
import { scrubSecrets } from '@app/observability';

export interface ProblemBody {
  type: string;
  title: string;
  status: number;
  detail: string;
  instance: string;
  errors?: FieldError[];
  error_category?: string;
  error_id?: string;
  [extension: string]: unknown;
}

export interface ProblemResult {
  status: number;
  body: ProblemBody;
  headers: Record<string, string>;
  /** Set for 500s: the id written to the log with the error. */
  errorId?: string;
}

const STATUS_TO_SLUG: Record<number, ProblemSlug> = {
  400: 'bad-request',
  401: 'unauthorized',
  403: 'insufficient-scope',
  404: 'not-found',
  405: 'method-not-allowed',
  406: 'not-acceptable',
  409: 'conflict',
  413: 'payload-too-large',
  415: 'unsupported-media-type',
  422: 'validation-error',
  429: 'rate-limited',
  502: 'upstream-failure',
  503: 'service-unavailable',
  504: 'upstream-timeout',
};

/** Fastify's own error codes that reach us before Nest sees the request. */
const FASTIFY_CODES: Record<string, { slug: ProblemSlug; detail: string }> = {
  FST_ERR_CTP_BODY_TOO_LARGE: { slug: 'payload-too-large', detail: 'The request body is larger than the limit.' },
  FST_ERR_CTP_INVALID_MEDIA_TYPE: {
    slug: 'unsupported-media-type',
    detail: 'Request bodies must be JSON (Content-Type: application/json).',
  },
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: { slug: 'bad-request', detail: 'Content-Length does not match the body.' },
  FST_ERR_CTP_EMPTY_JSON_BODY: { slug: 'bad-request', detail: 'The body is empty but Content-Type says JSON.' },
  FST_ERR_CTP_INVALID_JSON_BODY: { slug: 'bad-request', detail: 'The body is not valid JSON.' },
};

/**
 * Turns any error into an RFC 9457 problem. Unknown errors become a 500 with an error id (logged
 * by the caller with the stack); their message never reaches the client.
 */
export function toProblem(error: unknown, path: string, requestId: string): ProblemResult {
  const instance = `${path}#${requestId}`;
  const headers: Record<string, string> = {};
  // A store outage or a command the store failed (StoreFailedError), also under whatever wrapped it, is the documented
  // 503 with Retry-After, not an internal error.
  const outage = error instanceof AppError && error.slug !== 'internal-error' ? null : (storeOutageOf(error) ?? storeFailureOf(error));
  if (outage) {
    const body: ProblemBody = { ...base('service-unavailable', outage.detail, instance), ...(outage.extensions ?? {}) };
    return { status: 503, body, headers: { 'retry-after': String(outage.retryAfterSeconds ?? STORE_RETRY_AFTER_SECONDS) } };
  }
  if (error instanceof AppError) {
    const spec = PROBLEMS[error.slug];
    const body: ProblemBody = {
      type: `/problems/${error.slug}`,
      title: spec.title,
      status: spec.status,
      detail: scrubSecrets(error.detail ?? error.message),
      instance,
      ...(error.errors ? { errors: error.errors } : {}),
      ...(error.category && error.slug !== 'validation-error' ? { error_category: error.category } : {}),
      ...(error.extensions ?? {}),
    };
    if (error.slug === 'validation-error') body.error_category = error.category ?? 'invalid_request';
    if (error.retryAfterSeconds !== undefined) headers['retry-after'] = String(error.retryAfterSeconds);
    for (const [name, value] of Object.entries(error.headers ?? {})) headers[name.toLowerCase()] = value;
    if (spec.status >= 500 && error.slug === 'internal-error') {
      const errorId = `err_${newId()}`;
      body.error_id = errorId;
      body.detail = `Internal error (error id ${errorId}).`;
      return { status: spec.status, body, headers, errorId };
    }
    return { status: spec.status, body, headers };
  }
  const fastifyCode = (error as { code?: unknown } | null)?.code;
  if (typeof fastifyCode === 'string' && FASTIFY_CODES[fastifyCode]) {
    const { slug, detail } = FASTIFY_CODES[fastifyCode];
    return { status: PROBLEMS[slug].status, body: base(slug, detail, instance), headers };
  }
  if (error instanceof SyntaxError && (error as { statusCode?: number }).statusCode === 400) {
    return { status: 400, body: base('bad-request', 'The body is not valid JSON.', instance), headers };
  }
  if (error instanceof HttpException) {
    const status = error.getStatus();
    const slug = STATUS_TO_SLUG[status];
    if (slug) {
      const detail = status === 404 ? 'No such route.' : status === 405 ? 'Method not allowed on this path.' : PROBLEMS[slug].description;
      return { status, body: base(slug, detail, instance), headers };
    }
  }
  const statusCode = (error as { statusCode?: unknown } | null)?.statusCode;
  if (typeof statusCode === 'number' && statusCode >= 400 && statusCode < 500 && STATUS_TO_SLUG[statusCode]) {
    const slug = STATUS_TO_SLUG[statusCode];
    return { status: statusCode, body: base(slug, PROBLEMS[slug].description, instance), headers };
  }
  const errorId = `err_${newId()}`;
  const body = base('internal-error', `Internal error (error id ${errorId}).`, instance);
  body.error_id = errorId;
  body.error_category = 'internal';
  return { status: 500, body, headers, errorId };
}

function base(slug: ProblemSlug, detail: string, instance: string): ProblemBody {
  const spec = PROBLEMS[slug];
  return { type: `/problems/${slug}`, title: spec.title, status: spec.status, detail, instance };
}

export function problemPage(slug: string): { status: number; body: Record<string, unknown> } | null {
  if (!isProblemSlug(slug)) return null;
  const spec = PROBLEMS[slug];
  return { status: 200, body: { type: `/problems/${slug}`, title: spec.title, status: spec.status, description: spec.description } };
}
