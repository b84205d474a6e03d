/**
 * Per-request fetch control from the caller (docs/scrape.md "Fetch control"): headers and cookies
 * that belong to the page's site, so they are sent to its host only, never to a redirect target or a
 * sub-resource on another host; a User-Agent; and, for the browser, what to wait for.
 */

/** Headers and cookies sent only to `host` (name[:port] as in URL.host; default: the fetched URL's host). */
export interface ScopedRequestData {
  headers: Record<string, string>;
  cookies: Record<string, string>;
  host?: string;
}

/**
 * An auth profile's session (docs/auth-profiles.md): its cookies go to the profile's hosts only (host names,
 * any port), never to another host, not even after a redirect. The caller's own cookies of the same name win.
 */
export interface SessionCookies {
  /** Lower-case host names. */
  hosts: readonly string[];
  cookies: Record<string, string>;
  /** Browser only: local storage items a browser login kept, set on the profile's hosts' pages before their scripts run. */
  localStorage?: Record<string, string>;
  /**
   * The session's key in a proxy pool (ProxyPool.pick): every connection to the profile's hosts, static or from the
   * browser, goes through the one proxy the key picks, in every process, while the session lives.
   */
  proxyKey?: string;
}

/** Whether a request to `url` may carry the session's cookies. */
export function sessionCovers(session: SessionCookies, url: URL): boolean {
  return session.hosts.includes(url.hostname.toLowerCase());
}

/** Browser only: wait for an element (CSS selector) to be in the page, or a fixed time, before reading it. */
export type WaitFor = { selector: string } | { ms: number };

/** `viewport`: what a 1366×900 window shows; `full_page`: the whole page (its height capped by the browser). */
export type ScreenshotKind = 'viewport' | 'full_page';

/**
 * Headers a caller may not set: they belong to the connection or message framing (hop-by-hop,
 * RFC 9110 §7.6.1), to a proxy, or to the decoding the fetcher does itself (Accept-Encoding).
 */
const FORBIDDEN = new Set([
  'host',
  'content-length',
  'transfer-encoding',
  'connection',
  'keep-alive',
  'te',
  'trailer',
  'upgrade',
  'expect',
  'accept-encoding',
  'http2-settings',
]);

/** Why a caller may not set this header, or null when it may. */
export function forbiddenHeaderReason(name: string): string | null {
  const lower = name.toLowerCase();
  if (FORBIDDEN.has(lower)) return `${name} is set by Gleaner for each connection`;
  if (lower.startsWith('proxy-')) return `${name} is a proxy header`;
  return null;
}

/** RFC 9110 token: a header or cookie name. */
export const TOKEN_PATTERN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,100}$/;

/** A header value: visible ASCII, space, tab and Latin-1 (what HTTP/1.1 can carry); no line breaks. */
export const HEADER_VALUE_PATTERN = /^[\t\x20-\x7e\x80-\xff]*$/;

/** An RFC 6265 cookie value: cookie-octets, optionally in double quotes. */
export const COOKIE_VALUE_PATTERN = /^(?:[\x21\x23-\x2b\x2d-\x3a\x3c-\x5b\x5d-\x7e]*|"[\x21\x23-\x2b\x2d-\x3a\x3c-\x5b\x5d-\x7e]*")$/;

/** `a=1; b=2` → {a: '1', b: '2'} (pairs without `=` are skipped; the last of a name wins). */
export function parseCookieHeader(value: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const part of value.split(';')) {
    const eq = part.indexOf('=');
    if (eq <= 0) continue;
    const name = part.slice(0, eq).trim();
    if (name) out[name] = part.slice(eq + 1).trim();
  }
  return out;
}

export function cookieHeader(cookies: Record<string, string>): string {
  return Object.entries(cookies)
    .map(([name, value]) => `${name}=${value}`)
    .join('; ');
}

/** Whether a request to `url` may carry the scoped headers and cookies. */
export function inScope(url: URL | string, scopeHost: string): boolean {
  const host = typeof url === 'string' ? safeHost(url) : url.host;
  return host !== undefined && host.toLowerCase() === scopeHost.toLowerCase();
}

/** The scope host of a fetch: the one given, else the fetched URL's host. */
export function scopeHostOf(scoped: ScopedRequestData | undefined, url: string): string | undefined {
  if (!scoped) return undefined;
  return scoped.host ?? safeHost(url);
}

export function hasScopedData(scoped: ScopedRequestData | undefined): scoped is ScopedRequestData {
  return scoped !== undefined && (Object.keys(scoped.headers).length > 0 || Object.keys(scoped.cookies).length > 0);
}

function safeHost(url: string): string | undefined {
  try {
    return new URL(url).host;
  } catch {
    return undefined;
  }
}
