import type { z } from 'zod';
import { Errors, type FieldError } from '@app/core';
import { SCHEMA_MISMATCH_DETAIL, toProblem } from '@app/http';

/** Firecrawl's error body (what its SDKs read: `error` is the message, `code` and `details` are kept on the SdkError). */
export interface FirecrawlErrorBody {
  success: false;
  error: string;
  code?: string;
  details?: unknown;
}

/**
 * A refusal of /v2 that has no Gleaner problem: a Firecrawl feature this server does not have (a route,
 * a format, an option). 501 for a route, 400 for an option of a route that exists (docs/firecrawl.md
 * "Not supported").
 */
export class FirecrawlError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly code: string,
    readonly details?: unknown,
  ) {
    super(message);
    this.name = 'FirecrawlError';
  }
}

export const NOT_SUPPORTED = 'NOT_SUPPORTED';

/** The paths of the Firecrawl operations this server does not offer (docs/firecrawl.md "Not supported"). */
const NOT_SUPPORTED_PATH = /^\/v2\/(?:(?:search|agent|browser)(?:\/|$|\?)|(?:parse|feedback)(?:$|\?)|scrape\/[^/?]+\/interact(?:$|\?))/;

/** Whether a request URL is one of them: their 501 is the answer to any body. */
export function isNotSupportedRoute(url: string): boolean {
  return NOT_SUPPORTED_PATH.test(url);
}

/** A whole Firecrawl operation this server does not offer. */
export function routeNotSupported(what: string): FirecrawlError {
  return new FirecrawlError(
    501,
    `${what} is not supported by this server (Gleaner's Firecrawl-compatible API; see docs/firecrawl.md "Not supported").`,
    NOT_SUPPORTED,
  );
}

/** An option or format of a supported operation that this server cannot honour. */
export function optionNotSupported(location: string, why: string): FirecrawlError {
  return new FirecrawlError(400, `${location}: ${why} (not supported by this server; see docs/firecrawl.md)`, NOT_SUPPORTED, [
    { path: location, message: why },
  ]);
}

/**
 * The message of a refusal for a rule the /v2 document states (a /v2 schema error, or one of Gleaner's own DTO
 * checks that its document states): it tells such a refusal from one for a rule no document can state, as
 * Gleaner's SCHEMA_MISMATCH_DETAIL does, for the fuzzer's rules (test/fuzz/hooks.py).
 */
export const V2_SCHEMA_MISMATCH = 'The request does not match the API schema; details lists each difference.';

/** Parses a body or query with its /v2 schema; a mismatch is a 400 naming each field in Firecrawl's names. */
export function parseWith<S extends z.ZodType>(schema: S, value: unknown, at: 'body' | 'query' = 'body'): z.output<S> {
  const parsed = schema.safeParse(value ?? {});
  if (parsed.success) return parsed.data;
  const issues = parsed.error.issues.slice(0, 50);
  const errors: FieldError[] = issues.map((issue) => ({
    location: [at, ...issue.path.map((part) => (typeof part === 'number' ? `[${part}]` : String(part)))].join('.').replace(/\.\[/g, '['),
    message: issue.message,
  }));
  // A refinement (a URL that does not parse) is a rule the document cannot state; any other issue is one it states.
  const stated = issues.some((issue) => issue.code !== 'custom');
  throw Errors.validation(errors, stated ? SCHEMA_MISMATCH_DETAIL : undefined);
}

/**
 * Where Gleaner's own validation names a field, in Firecrawl's name (a /v2 request is translated, then checked
 * by the same DTO rules as Gleaner's own routes: its errors point at Firecrawl's fields).
 */
const FIELD_NAMES: ReadonlyArray<[RegExp, string]> = [
  [/^body\.timeout_ms$/, 'timeout'],
  [/^body\.wait_for(\.ms)?$/, 'waitFor'],
  [/^body\.only_main_content$/, 'onlyMainContent'],
  [/^body\.include_tags/, 'includeTags'],
  [/^body\.exclude_tags/, 'excludeTags'],
  [/^body\.full_page_screenshot$/, 'formats'],
  [/^body\.raw_html$/, 'rawHtml'],
  [/^body\.options\.max_pages$/, 'limit'],
  [/^body\.options\.max_depth$/, 'maxDiscoveryDepth'],
  [/^body\.options\.include_patterns/, 'includePaths'],
  [/^body\.options\.exclude_patterns/, 'excludePaths'],
  [/^body\.options\.follow_pattern$/, 'url'],
  [/^body\.options\.delay_ms$/, 'delay'],
  [/^body\.options\.concurrency$/, 'maxConcurrency'],
  [/^body\.options\.headers/, 'scrapeOptions.headers'],
  [/^body\.options\.wait_for/, 'scrapeOptions.waitFor'],
  [/^body\.webhook(_url)?/, 'webhook'],
  [/^body\.use_sitemap$/, 'sitemap'],
  [/^body\.include_subdomains$/, 'includeSubdomains'],
  [/^body\.schema$/, 'schema'],
  [/^body\.llm_config$/, 'model'],
];

export function firecrawlFieldName(location: string): string {
  for (const [pattern, name] of FIELD_NAMES) if (pattern.test(location)) return name;
  return location.replace(/^(body|query|path)\./, '');
}

/** Firecrawl's SDKs treat any 2xx as an answer and read `success`; errors keep Gleaner's statuses except 422 (Firecrawl says 400). */
function firecrawlStatus(status: number): number {
  return status === 422 ? 400 : status;
}

/**
 * Any error of a /v2 request as Firecrawl's error body, with the status and headers (Retry-After, RateLimit-*)
 * Gleaner's problem would have had. The message is the problem's detail (secrets scrubbed by toProblem) with
 * each field error appended, so `SdkError.message` alone says what to fix.
 */
export function firecrawlError(
  error: unknown,
  path: string,
  requestId: string,
): { status: number; headers: Record<string, string>; body: FirecrawlErrorBody; errorId?: string } {
  if (error instanceof FirecrawlError) {
    return {
      status: error.status,
      headers: {},
      body: { success: false, error: error.message, code: error.code, ...(error.details ? { details: error.details } : {}) },
    };
  }
  const problem = toProblem(error, path, requestId);
  const body = problem.body as {
    type?: string;
    detail?: string;
    title?: string;
    errors?: FieldError[];
    error_category?: string;
    error_id?: string;
    job_id?: string;
  };
  const fields = (body.errors ?? []).map((e) => ({ path: firecrawlFieldName(e.location), message: e.message }));
  const detail = body.detail === SCHEMA_MISMATCH_DETAIL ? V2_SCHEMA_MISMATCH : (body.detail ?? body.title ?? 'Request failed');
  const message = [detail, ...fields.map((f) => `${f.path}: ${f.message}`)].join(' ');
  const code = (body.error_category ?? body.type?.replace('/problems/', '') ?? 'error').toUpperCase().replace(/-/g, '_');
  return {
    status: firecrawlStatus(problem.status),
    headers: problem.headers,
    body: {
      success: false,
      error: message,
      code,
      ...(fields.length > 0 ? { details: fields } : {}),
      ...(body.job_id ? { details: { jobId: body.job_id } } : {}),
    },
    ...(problem.errorId ? { errorId: problem.errorId } : {}),
  };
}
