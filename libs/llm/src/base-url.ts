import { EMPTY_OR_HTTP_URL_NO_FRAGMENT_PATTERN, HTTP_URL_NO_FRAGMENT_PATTERN } from '@app/http';

export const BASE_URL_MAX_LENGTH = 2048;

/** The message of a base_url outside the URL pattern (the one the OpenAPI document states). */
const PATTERN_MESSAGE =
  'must be an absolute http(s) URL: a host name, IPv4 or [IPv6] address, an optional port, then RFC 3986 characters (percent-encode the rest)';

/**
 * The rule of a provider `base_url` as the OpenAPI document states it: the API's URL pattern
 * (HTTP_URL_PATTERN: http or https, a host, no credentials, RFC 3986 characters) without a fragment, at
 * most 2048 characters. `baseUrlProblem` accepts exactly the strings this schema accepts; `PUT /llm/keys`
 * also takes "" (reset to the provider's default), hence its pattern.
 */
export const BASE_URL_SCHEMA = { maxLength: BASE_URL_MAX_LENGTH, pattern: HTTP_URL_NO_FRAGMENT_PATTERN.source } as const;
export const STORED_BASE_URL_SCHEMA = { maxLength: BASE_URL_MAX_LENGTH, pattern: EMPTY_OR_HTTP_URL_NO_FRAGMENT_PATTERN.source } as const;

/**
 * Why a provider `base_url` is unacceptable, or null when it is fine: absolute http(s) only, no
 * credentials, no fragment, at most 2048 characters, within the URL pattern. Whether the host may be
 * reached (the address guard against private networks) is decided when the URL is used, since DNS can change.
 */
export function baseUrlProblem(value: string): string | null {
  if (value.length > BASE_URL_MAX_LENGTH) return `must be at most ${BASE_URL_MAX_LENGTH} characters`;
  if (value !== value.trim() || /[\s\x00-\x1f\x7f]/.test(value)) return 'must not contain spaces or control characters';
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return 'must be an absolute http or https URL';
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return 'must use http or https';
  if (url.username || url.password) return 'must not contain credentials; send the key as api_key';
  if (!url.hostname) return 'must have a host';
  if (url.hash || value.includes('#')) return 'must not have a fragment';
  if (!HTTP_URL_NO_FRAGMENT_PATTERN.test(value)) return PATTERN_MESSAGE;
  return null;
}

/** Whether a rejected value may be echoed in `errors[].value` (never when it may hold credentials). */
export function isSafeToEcho(value: string): boolean {
  return value.length <= BASE_URL_MAX_LENGTH && !/\/\/[^/?#]*@/.test(value);
}
