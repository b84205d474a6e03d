/** Problem kinds served as `type: /problems/<slug>` with a short description at `GET /problems/<slug>`. */
export const PROBLEMS = {
  'bad-request': { status: 400, title: 'Bad request', description: 'The request could not be parsed (malformed JSON or query string).' },
  unauthorized: {
    status: 401,
    title: 'Unauthorized',
    description: 'The request has no API key, or the key is unknown, expired or revoked. Send `Authorization: Bearer glk_...`.',
  },
  'insufficient-scope': {
    status: 403,
    title: 'Insufficient scope',
    description: 'The API key is valid but lacks the scope this endpoint needs (extract, crawl, jobs, or full access).',
  },
  forbidden: {
    status: 403,
    title: 'Forbidden',
    description: 'The resource can be read by this caller but not changed (a public schema of another user, or a platform schema).',
  },
  'not-found': {
    status: 404,
    title: 'Not found',
    description: 'No such resource for this caller. Resources of other users are reported as not found.',
  },
  'not-acceptable': { status: 406, title: 'Not acceptable', description: 'The requested response format is not supported.' },
  conflict: {
    status: 409,
    title: 'Conflict',
    description: 'The request conflicts with the current state of the resource (duplicate name, job already finished, ...).',
  },
  'payload-too-large': {
    status: 413,
    title: 'Payload too large',
    description: 'The request body exceeds the configured limit (1 MiB by default).',
  },
  'unsupported-media-type': {
    status: 415,
    title: 'Unsupported media type',
    description: 'Request bodies must be JSON (`Content-Type: application/json`).',
  },
  'validation-error': {
    status: 422,
    title: 'Validation failed',
    description: 'One or more fields are invalid; `errors[]` points at each of them.',
  },
  'rate-limited': {
    status: 429,
    title: 'Too many requests',
    description: 'The API key exceeded its request rate. Retry after the number of seconds in `Retry-After`.',
  },
  'internal-error': {
    status: 500,
    title: 'Internal error',
    description: 'An unexpected error. The `error_id` in the body is also in the server logs.',
  },
  'upstream-failure': {
    status: 502,
    title: 'Upstream failure',
    description: 'The target site or the language model failed in a way the caller cannot fix; see `error_category`.',
  },
  'service-unavailable': {
    status: 503,
    title: 'Service unavailable',
    description: 'The service is not ready or is overloaded. Retry after `Retry-After` seconds.',
  },
  'upstream-timeout': {
    status: 504,
    title: 'Upstream timeout',
    description: 'The job did not finish in time; it goes on and can be followed at its job URL.',
  },
  'idempotency-key-reused': {
    status: 422,
    title: 'Idempotency key reused',
    description: 'This Idempotency-Key was used (in the last 24 hours) for a request with a different body; send a new key.',
  },
  'idempotency-key-in-use': {
    status: 409,
    title: 'Idempotency key in use',
    description: 'A request with this Idempotency-Key is still being answered; retry after `Retry-After` seconds to get its answer.',
  },
  'method-not-allowed': { status: 405, title: 'Method not allowed', description: 'This path does not accept this HTTP method.' },
} as const;

export type ProblemSlug = keyof typeof PROBLEMS;

export function isProblemSlug(value: string): value is ProblemSlug {
  return Object.prototype.hasOwnProperty.call(PROBLEMS, value);
}
