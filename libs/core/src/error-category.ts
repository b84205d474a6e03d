/** The one error vocabulary of Gleaner (docs/api.md "error_category"). */
export const ERROR_CATEGORIES = [
  'invalid_request',
  'ssrf_blocked',
  'robots_disallowed',
  'fetch_error',
  'timeout',
  'http_error',
  'rate_limit',
  'blocked',
  /** An auth profile could not log in, or a page stayed logged out after a fresh login (docs/auth-profiles.md). */
  'auth_failed',
  'content_too_large',
  'unsupported_content',
  /** A PDF that needs a password. */
  'document_encrypted',
  /** A PDF (or other document) that cannot be parsed. */
  'document_invalid',
  'no_models',
  'llm_invalid_key',
  'llm_rate_limit',
  'llm_quota_exceeded',
  'llm_provider_error',
  'llm_timeout',
  'llm_truncation',
  'llm_invalid_output',
  /** A value of the model's answer is not on the page and the policy is `grounding: fail_page` (docs/provenance.md). */
  'ungrounded_output',
  'budget_exceeded',
  'cancelled',
  /** A crawl page that made its worker die three times while it ran alone in its process. */
  'worker_crash',
  'internal',
] as const;

export type ErrorCategory = (typeof ERROR_CATEGORIES)[number];

export function isErrorCategory(value: unknown): value is ErrorCategory {
  return typeof value === 'string' && (ERROR_CATEGORIES as readonly string[]).includes(value);
}
