export const BASE_URL_MAX_LENGTH = 2048;

/**
 * Why a provider `base_url` is unacceptable, or null when it is fine: absolute http(s) only, no
 * credentials, no fragment, at most 2048 characters. Whether the host may be reached (the address
 * guard against private networks) is decided when the URL is used, since DNS can change.
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
  return null;
}

/** Whether a rejected value may be echoed in `errors[].value` (never when it may hold credentials). */
export function isSafeToEcho(value: string): boolean {
  return value.length <= BASE_URL_MAX_LENGTH && !/\/\/[^/?#]*@/.test(value);
}
