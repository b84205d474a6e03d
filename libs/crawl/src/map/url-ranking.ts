/** A URL found by POST /map: where it came from and, for a link of the seed page, its text. */
export interface MappedUrl {
  url: string;
  source: 'seed' | 'sitemap' | 'page';
  text: string | null;
}

export interface RankedUrl extends MappedUrl {
  /** With `search`: how well it matches (0 = not at all). */
  score?: number;
}

/** The words of a search term: lower case, letters and digits only. */
function words(term: string): string[] {
  return term
    .toLowerCase()
    .split(/[^\p{L}\p{N}]+/u)
    .filter((w) => w.length > 0);
}

/**
 * Orders a map by a search term (docs/crawl.md "Map"): each word of the term found in the URL's path
 * and query scores 2, in its link text 1, and the whole term as one phrase 3 more; URLs that match come
 * first (best first; a tie keeps the shorter URL, then discovery order), then the rest in discovery
 * order. Without a term the discovery order stays.
 */
export function rankUrls(urls: MappedUrl[], search: string | undefined): RankedUrl[] {
  const terms = search ? words(search) : [];
  if (terms.length === 0) return urls;
  const phrase = terms.join(' ');
  const scored = urls.map((entry, order) => {
    let path: string;
    try {
      const parsed = new URL(entry.url);
      path = decodeURIComponent(`${parsed.pathname}${parsed.search}`).toLowerCase();
    } catch {
      path = entry.url.toLowerCase();
    }
    const text = (entry.text ?? '').toLowerCase();
    let score = 0;
    for (const term of terms) {
      if (path.includes(term)) score += 2;
      if (text.includes(term)) score += 1;
    }
    if (terms.length > 1 && (words(path).join(' ').includes(phrase) || words(text).join(' ').includes(phrase))) score += 3;
    return { ...entry, score, order };
  });
  scored.sort((a, b) => b.score - a.score || (a.score > 0 ? a.url.length - b.url.length : 0) || a.order - b.order);
  return scored.map(({ order: _order, ...entry }) => entry);
}
