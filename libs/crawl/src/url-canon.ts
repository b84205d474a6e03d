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

/**
 * How far a crawl or batch goes in taking two addresses for one page (docs/crawl.md "Canonical addresses"):
 * `default` keeps trailing slashes and query order (sites give them meaning); `strict` also drops known tracking
 * parameters and the `ignore` ones, sorts the query, and maps a host onto its `www.`/bare twin once the site
 * showed they are one (`aliases`: host → the host it is served as).
 */
export interface CanonRules {
  strict: boolean;
  /** Query parameters (exact names, case-sensitive) that never make a page of their own (`ignore_query_params`). */
  ignore: readonly string[];
  /** `www.` and bare hosts the site showed to be one (a redirect between them, rel=canonical): host → its canonical twin. */
  aliases?: ReadonlyMap<string, string>;
}

export const DEFAULT_CANON: CanonRules = { strict: false, ignore: [] };

/** The canonical rules of a crawl's or batch's options (absent on jobs stored before them: `default`). */
export function canonRulesOf(options: {
  canonicalize?: 'default' | 'strict' | null;
  ignore_query_params?: readonly string[] | null;
}): CanonRules {
  const ignore = options.ignore_query_params ?? [];
  return { strict: options.canonicalize === 'strict', ignore };
}

/**
 * Known tracking and session parameters `strict` drops (advertising click ids, campaign tags, analytics ids). A
 * prefix ends with `_`; every other entry is an exact name, compared lower-cased.
 */
export const TRACKING_PARAMS: readonly string[] = [
  'utm_',
  'gclid',
  'gclsrc',
  'dclid',
  'gbraid',
  'wbraid',
  'fbclid',
  'msclkid',
  'yclid',
  'twclid',
  'ttclid',
  'li_fat_id',
  'mc_cid',
  'mc_eid',
  '_ga',
  '_gl',
  '_hsenc',
  '_hsmi',
  'hsctatracking',
  'igshid',
  'mkt_tok',
  'oly_anon_id',
  'oly_enc_id',
  'rb_clickid',
  's_cid',
  'vero_id',
  'wickedid',
  'ref_src',
  'spm',
  'sessionid',
  'phpsessid',
  'jsessionid',
];

function isTracking(name: string): boolean {
  const lower = name.toLowerCase();
  return TRACKING_PARAMS.some((t) => (t.endsWith('_') ? lower.startsWith(t) : lower === t));
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
export function canonicalize(raw: string, base?: string, rules: CanonRules = DEFAULT_CANON): CanonicalUrl | null {
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
  if (rules.strict) {
    const alias = rules.aliases?.get(parsed.hostname.toLowerCase());
    if (alias) parsed.hostname = alias;
  }
  const search = rules.strict || rules.ignore.length > 0 ? strictQuery(parsed.search, rules) : parsed.search;
  const query = search === '?' ? '' : normaliseEscapes(search);
  const url = `${parsed.protocol}//${parsed.host.toLowerCase()}${path}${query}`;
  return { url, key: keyOf(url), host: parsed.hostname.toLowerCase() };
}

export function keyOf(canonicalUrl: string): string {
  return createHash('sha1').update(canonicalUrl).digest('hex').slice(0, 24);
}

/**
 * The query without the `ignore` parameters and, `strict`, without tracking parameters and sorted by name (a stable
 * sort: a repeated name's values keep their order, which may mean something). Pairs are kept as written (`a=1`, `a`).
 */
function strictQuery(search: string, rules: CanonRules): string {
  if (search === '' || search === '?') return '';
  const pairs = search
    .slice(1)
    .split('&')
    .filter((pair) => pair !== '')
    .map((pair) => {
      const eq = pair.indexOf('=');
      return { pair, name: decodeName(eq < 0 ? pair : pair.slice(0, eq)) };
    })
    .filter(({ name }) => !rules.ignore.includes(name) && !(rules.strict && isTracking(name)));
  if (rules.strict) pairs.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  return pairs.length === 0 ? '' : `?${pairs.map(({ pair }) => pair).join('&')}`;
}

function decodeName(raw: string): string {
  try {
    return decodeURIComponent(raw.replace(/\+/g, ' '));
  } catch {
    return raw;
  }
}

/**
 * A `www.` host and its bare twin (or the reverse) when they are one site's two names: `www.shop.example` and
 * `shop.example`. False for any other pair.
 */
export function wwwTwins(a: string, b: string): boolean {
  return a !== b && (a === `www.${b}` || b === `www.${a}`);
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
