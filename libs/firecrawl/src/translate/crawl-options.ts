import { optionNotSupported } from '../wire/errors';
import type { CrawlRequest } from '../wire/requests';
import type { ScrapeOptions } from '../wire/scrape-options';
import { fetchFields } from './fetch-options';

/** Firecrawl's default page limit of a crawl (its API's `limit` default); Gleaner's own default is 10. */
export const FIRECRAWL_DEFAULT_LIMIT = 10_000;
/** Gleaner's largest `max_pages` and `max_depth`. */
export const MAX_PAGES = 100_000;
export const MAX_DEPTH = 10;
const MAX_CONCURRENCY = 32;
const MAX_DELAY_MS = 60_000;

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
}

/**
 * Firecrawl matches `includePaths`/`excludePaths` against the URL's path (or the whole URL with
 * `regexOnFullURL`); Gleaner searches its patterns in the absolute URL. A pattern anchored at the path's
 * start (`^/blog/`) is anchored after the origin; others are searched in the whole URL as they are.
 */
export function urlPattern(pattern: string, fullUrl: boolean): string {
  if (fullUrl || !pattern.startsWith('^')) return pattern;
  return `^[a-zA-Z][a-zA-Z0-9+.-]*://[^/?#]+${pattern.slice(1)}`;
}

/**
 * The part of the site a Firecrawl crawl stays in, as Gleaner's `follow_pattern` (docs/firecrawl.md "Crawl"):
 * by default the seed's host and the pages under the seed's path; `crawlEntireDomain` the whole host;
 * `allowSubdomains` its subdomains too; `allowExternalLinks` anywhere (no pattern, and not only the seed's domain).
 */
export function scopePattern(
  seed: string,
  request: Pick<CrawlRequest, 'crawlEntireDomain' | 'allowSubdomains' | 'allowExternalLinks'>,
): string | undefined {
  if (request.allowExternalLinks) return undefined;
  const url = new URL(seed);
  const host = escapeRegExp(url.host);
  const hosts = request.allowSubdomains ? `(?:[^/?#@]+\\.)?${host}` : host;
  const path = request.crawlEntireDomain ? '' : escapeRegExp(url.pathname.replace(/\/+$/, ''));
  return `^https?://${hosts}${path}(?:[/?#]|$)`;
}

/** Refuses the crawl options that would change which pages a crawl makes and that Gleaner cannot honour. */
export function refuseUnsupportedCrawl(request: CrawlRequest, at = ''): void {
  if (request.prompt) throw optionNotSupported(`${at}prompt`, 'natural-language crawl options (give limit, includePaths, ... yourself)');
  if (request.sitemap === 'only')
    throw optionNotSupported(`${at}sitemap`, "'only' (use 'include', or map the sitemap with /v2/map and batch-scrape it)");
  if (request.robotsUserAgent) throw optionNotSupported(`${at}robotsUserAgent`, 'robots.txt is read as GLEANER_ROBOTS_USER_AGENT');
}

/** Firecrawl's crawl options as a Gleaner crawl's `options` (the scrape options' fetch fields join them). */
export function crawlOptions(request: CrawlRequest, scrape: ScrapeOptions): Record<string, unknown> {
  const fullUrl = request.regexOnFullURL === true;
  const fetch = fetchFields(scrape);
  const follow = scopePattern(request.url, request);
  return {
    max_pages: Math.min(MAX_PAGES, request.limit ?? FIRECRAWL_DEFAULT_LIMIT),
    max_depth: Math.min(MAX_DEPTH, request.maxDiscoveryDepth ?? MAX_DEPTH),
    ...(request.includePaths?.length ? { include_patterns: request.includePaths.map((p) => urlPattern(p, fullUrl)) } : {}),
    ...(request.excludePaths?.length ? { exclude_patterns: request.excludePaths.map((p) => urlPattern(p, fullUrl)) } : {}),
    ...(follow ? { follow_pattern: follow } : {}),
    same_domain_only: !request.allowExternalLinks,
    use_sitemap: request.sitemap !== 'skip',
    ...(request.ignoreRobotsTxt ? { respect_robots: false } : {}),
    ...(request.delay ? { delay_ms: Math.min(MAX_DELAY_MS, Math.round(request.delay * 1000)) } : {}),
    ...(request.maxConcurrency ? { concurrency: Math.min(MAX_CONCURRENCY, request.maxConcurrency) } : {}),
    ...(fetch.headers ? { headers: fetch.headers } : {}),
    ...(fetch.wait_for ? { wait_for: fetch.wait_for } : {}),
  };
}

/** The batch options of a batch scrape (a batch follows no links: only fetch and pace). */
export function batchOptions(maxConcurrency: number | null | undefined, scrape: ScrapeOptions): Record<string, unknown> {
  const fetch = fetchFields(scrape);
  return {
    ...(maxConcurrency ? { concurrency: Math.min(MAX_CONCURRENCY, maxConcurrency) } : {}),
    ...(fetch.headers ? { headers: fetch.headers } : {}),
    ...(fetch.wait_for ? { wait_for: fetch.wait_for } : {}),
  };
}
