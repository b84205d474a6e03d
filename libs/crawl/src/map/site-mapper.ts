import { isFetchError, type RobotsCache, type StaticFetcher } from '@app/fetch';
import { pageLinks } from '@app/content';
import { walkSitemaps } from '../owner/sitemaps';
import { canonicalize, siteOf, type CanonicalUrl } from '../url-canon';
import { rankUrls, type MappedUrl, type RankedUrl } from './url-ranking';

export interface MapRequest {
  url: string;
  useSitemap: boolean;
  includeSubdomains: boolean;
  search?: string;
  limit: number;
}

export interface SiteMap {
  urls: RankedUrl[];
  /** False when the time budget ran out (what was found by then is there). */
  complete: boolean;
  /** URLs found before the limit (after dedupe, scope and robots.txt). */
  found: number;
  sitemapFiles: number;
  /** URLs left out because robots.txt disallows them (or could not be read for their host). */
  robotsExcluded: number;
}

/** Sitemap files read for one map at most, and how deep indexes are followed (as a crawl does). */
const SITEMAP_LIMITS = { maxFiles: 1000, maxDepth: 3 } as const;
const SITEMAP_MAX_BYTES = 50 * 1024 * 1024;
/** URLs considered at most (the limit is ≤ 100,000; search ranks among this many). */
const MAX_CANDIDATES = 200_000;

export interface SiteMapperDeps {
  fetcher: Pick<StaticFetcher, 'fetch'>;
  robots: Pick<RobotsCache, 'check' | 'sitemaps'>;
}

/**
 * A site's URLs, fast, without extracting anything (docs/crawl.md "Map"): the seed page's links and,
 * with `useSitemap`, the sitemaps (robots.txt `Sitemap:` lines and `/sitemap.xml`, indexes followed,
 * gzip read). Every URL is canonicalised as the crawl does and kept once, must be on the seed's host
 * (or its registrable domain with `includeSubdomains`), and must be allowed by robots.txt. With `search`
 * the URLs are ranked (url-ranking.ts). Everything runs under `signal` (the time budget): when it
 * fires, the map answers with what it found, `complete: false`.
 */
export class SiteMapper {
  constructor(private readonly deps: SiteMapperDeps) {}

  async map(request: MapRequest, signal: AbortSignal): Promise<SiteMap> {
    const seed = canonicalize(request.url);
    if (!seed) throw new Error(`not an http(s) URL: ${request.url}`);
    const inScope = scopeOf(seed, request.includeSubdomains);
    const found = new Map<string, MappedUrl>();
    let sitemapFiles = 0;
    let complete = true;
    const wanted = request.search ? MAX_CANDIDATES : request.limit;
    const add = (raw: string, source: MappedUrl['source'], text: string | null, base?: string) => {
      const target = canonicalize(raw, base);
      if (!target || !inScope(target)) return;
      const known = found.get(target.key);
      if (known) {
        if (!known.text && text) known.text = text;
        return;
      }
      if (found.size < MAX_CANDIDATES) found.set(target.key, { url: target.url, source, text });
    };
    add(seed.url, 'seed', null);
    try {
      const page = await this.deps.fetcher.fetch(seed.url, { signal });
      for (const link of pageLinks(page.html, page.url)) add(link.url, 'page', link.text.trim() || null);
    } catch (error) {
      // A seed the address guard refuses is refused as every operation refuses it (422), sitemaps or not.
      if (isFetchError(error, 'ssrf_blocked')) throw error;
      if (signal.aborted) complete = false;
      else if (!request.useSitemap) throw error;
      // With sitemaps the map goes on without the seed page's links.
    }
    if (request.useSitemap && complete) {
      const roots = new Set<string>();
      try {
        for (const s of await this.deps.robots.sitemaps(seed.url)) roots.add(s);
      } catch {
        // robots.txt unreadable: /sitemap.xml alone
      }
      roots.add(`${new URL(seed.url).origin}/sitemap.xml`);
      const source = {
        fetch: async (url: string) => {
          sitemapFiles++;
          return (await this.deps.fetcher.fetch(url, { acceptGzip: true, maxBytes: SITEMAP_MAX_BYTES, signal })).html;
        },
      };
      // Files read: a 404 (the usual /sitemap.xml of a site without one) or a page that is no sitemap is not one.
      const unread = () => void sitemapFiles--;
      try {
        for await (const batch of walkSitemaps([...roots], source, { ...SITEMAP_LIMITS, maxUrls: MAX_CANDIDATES }, unread)) {
          for (const url of batch.urls) add(url, 'sitemap', null);
          if (signal.aborted) break;
          if (found.size >= wanted && !request.search) break;
        }
      } catch (error) {
        if (!signal.aborted) throw error;
      }
      if (signal.aborted) complete = false;
    }
    const { allowed, excluded } = await this.robotsFilter([...found.values()]);
    const ranked = rankUrls(allowed, request.search);
    return { urls: ranked.slice(0, request.limit), complete, found: ranked.length, sitemapFiles, robotsExcluded: excluded };
  }

  /**
   * robots.txt rules per URL (one file per origin, read once and cached, each read bounded by the robots
   * fetch timeout; it runs after the budget too, so nothing disallowed is ever listed). An unreadable
   * robots.txt excludes its host's URLs, as RFC 9309 asks.
   */
  private async robotsFilter(urls: MappedUrl[]): Promise<{ allowed: MappedUrl[]; excluded: number }> {
    const allowed: MappedUrl[] = [];
    let excluded = 0;
    for (const entry of urls) {
      let ok: boolean;
      try {
        ok = (await this.deps.robots.check(entry.url)).verdict === 'allowed';
      } catch {
        ok = false; // a forbidden host (the address guard): nothing of it is listed
      }
      if (ok) allowed.push(entry);
      else excluded++;
    }
    return { allowed, excluded };
  }
}

function scopeOf(seed: CanonicalUrl, includeSubdomains: boolean): (target: CanonicalUrl) => boolean {
  if (!includeSubdomains) return (target) => target.host === seed.host;
  const site = siteOf(seed.host);
  return (target) => siteOf(target.host) === site;
}
