import { Parser } from 'htmlparser2';

export interface ParsedSitemap {
  kind: 'index' | 'urlset' | 'unknown';
  /** `<loc>` values: child sitemaps of an index, page URLs of a urlset. */
  locations: string[];
  /** Each location's `<lastmod>` as written (null without one), in the same order. */
  lastmods: Array<string | null>;
}

/**
 * Reads a sitemap (sitemaps.org protocol) with a streaming XML parser: `<sitemapindex>` lists child
 * sitemaps, `<urlset>` lists pages. Namespaces and case are tolerated; anything else yields nothing.
 */
export function parseSitemap(xml: string, maxLocations = 100_000): ParsedSitemap {
  let kind: ParsedSitemap['kind'] = 'unknown';
  const locations: string[] = [];
  const lastmods: Array<string | null> = [];
  let inLoc = false;
  let inLastmod = false;
  let text = '';
  let lastmod = '';
  const local = (name: string) => name.toLowerCase().replace(/^.*:/, '');
  const parser = new Parser(
    {
      onopentag(name) {
        const tag = local(name);
        if (kind === 'unknown' && tag === 'sitemapindex') kind = 'index';
        else if (kind === 'unknown' && tag === 'urlset') kind = 'urlset';
        if (tag === 'loc') {
          inLoc = true;
          text = '';
        }
        if (tag === 'lastmod') {
          inLastmod = true;
          lastmod = '';
        }
      },
      ontext(data) {
        if (inLoc) text += data;
        if (inLastmod) lastmod += data;
      },
      onclosetag(name) {
        const tag = local(name);
        if (tag === 'lastmod' && inLastmod) {
          inLastmod = false;
          // <lastmod> follows <loc> within its <url>: it belongs to the last location.
          if (lastmods.length > 0 && lastmods.length === locations.length) lastmods[lastmods.length - 1] = lastmod.trim() || null;
          return;
        }
        if (tag !== 'loc' || !inLoc) return;
        inLoc = false;
        const loc = text.trim();
        if (loc && locations.length < maxLocations) {
          locations.push(loc);
          lastmods.push(null);
        }
      },
    },
    { xmlMode: true, decodeEntities: true },
  );
  parser.write(xml);
  parser.end();
  return { kind, locations, lastmods };
}

export interface SitemapSource {
  /** Fetches a sitemap file as text (gzip decompressed); throws on failure. */
  fetch(url: string): Promise<string>;
}

export interface SitemapWalkOptions {
  /** Sitemap files read at most (indexes included). */
  maxFiles: number;
  /** Nesting of indexes followed at most. */
  maxDepth: number;
  /** Page URLs yielded at most. */
  maxUrls: number;
}

/**
 * Walks sitemaps breadth-first from the given files (robots.txt `Sitemap:` lines, `/sitemap.xml`),
 * following sitemap indexes, and yields page URLs in batches with the sitemap they came from. A file
 * that fails to load, or is not a sitemap, is reported through `onError` and skipped. Each file is read once.
 */
export async function* walkSitemaps(
  roots: string[],
  source: SitemapSource,
  options: SitemapWalkOptions,
  onError: (url: string, error: unknown) => void,
): AsyncIterable<{ sitemap: string; urls: string[]; lastmods: Array<string | null> }> {
  const seen = new Set<string>();
  let queue = roots.map((url) => ({ url, depth: 0 }));
  let files = 0;
  let yielded = 0;
  while (queue.length > 0 && files < options.maxFiles && yielded < options.maxUrls) {
    const next: Array<{ url: string; depth: number }> = [];
    for (const { url, depth } of queue) {
      if (seen.has(url) || files >= options.maxFiles || yielded >= options.maxUrls) continue;
      seen.add(url);
      files++;
      let parsed: ParsedSitemap;
      try {
        parsed = parseSitemap(await source.fetch(url), options.maxUrls - yielded);
      } catch (error) {
        onError(url, error);
        continue;
      }
      // A page that is neither a urlset nor an index (a "soft 404" HTML page at /sitemap.xml) is no sitemap.
      if (parsed.kind === 'unknown') {
        onError(url, new Error('not a sitemap (no urlset or sitemapindex element)'));
        continue;
      }
      if (parsed.kind === 'index') {
        if (depth < options.maxDepth) for (const child of parsed.locations) next.push({ url: child, depth: depth + 1 });
        continue;
      }
      for (let i = 0; i < parsed.locations.length; i += 1000) {
        const urls = parsed.locations.slice(i, i + 1000);
        yielded += urls.length;
        yield { sitemap: url, urls, lastmods: parsed.lastmods.slice(i, i + 1000) };
      }
    }
    queue = next;
  }
}
