import { createHash } from 'node:crypto';
import { getDomain } from 'tldts';

export interface CanonicalUrl {
  /** The normalised absolute URL: what is fetched and shown. */
  url: string;
  /** Stable per-crawl identity of the URL (hex SHA-1 of `url`, shortened). */
  key: string;
  /** Lower-case host name without port (the politeness unit). */
  host: string;
}

/** RFC 3986 unreserved characters, which percent-encoding must not change the identity of. */
const UNRESERVED = /^[A-Za-z0-9\-._~]$/;

/**
 * Normalises an absolute or relative URL for "fetched at most once per crawl" (docs/crawl.md):
 * http(s) only; scheme and host lower-cased; default port dropped; fragment dropped; `.`/`..`
 * resolved; percent-escapes of unreserved characters decoded and the others upper-cased; an empty
 * query (`?`) dropped. The path's trailing slash and the query's order are kept: sites give them
 * meaning, and redirects (`/a` → `/a/`) are caught by the redirect rule instead. Null for anything else.
 */
export function canonicalize(raw: string, base?: string): CanonicalUrl | null {
  let parsed: URL;
  try {
    parsed = base === undefined ? new URL(raw) : new URL(raw, base);
  } catch {
    return null;
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') return null;
  if (!parsed.hostname) return null;
  parsed.hash = '';
  if ((parsed.protocol === 'http:' && parsed.port === '80') || (parsed.protocol === 'https:' && parsed.port === '443')) parsed.port = '';
  parsed.username = '';
  parsed.password = '';
  const path = normaliseEscapes(parsed.pathname);
  const query = parsed.search === '?' ? '' : normaliseEscapes(parsed.search);
  const url = `${parsed.protocol}//${parsed.host.toLowerCase()}${path}${query}`;
  return { url, key: keyOf(url), host: parsed.hostname.toLowerCase() };
}

export function keyOf(canonicalUrl: string): string {
  return createHash('sha1').update(canonicalUrl).digest('hex').slice(0, 24);
}

function normaliseEscapes(part: string): string {
  return part.replace(/%([0-9A-Fa-f]{2})/g, (_m, hex: string) => {
    const char = String.fromCharCode(parseInt(hex, 16));
    return UNRESERVED.test(char) ? char : `%${hex.toUpperCase()}`;
  });
}

/**
 * The registrable domain (eTLD+1, from the public suffix list) a host belongs to, for
 * `same_domain_only`: `www.shop.example.co.uk` and `blog.example.co.uk` share `example.co.uk`.
 * IP addresses and single-label names are their own domain.
 */
export function siteOf(host: string): string {
  return getDomain(host, { allowPrivateDomains: true }) ?? host.toLowerCase();
}
