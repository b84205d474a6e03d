import { parseHtml, walk } from '@app/content';

/** At most this many image URLs per page (a page of thumbnails stays a readable answer). */
const MAX_IMAGES = 1000;

function absolute(src: string, base: string): string | null {
  try {
    const url = new URL(src.trim(), base);
    return url.protocol === 'http:' || url.protocol === 'https:' ? url.href : null;
  } catch {
    return null;
  }
}

/**
 * Firecrawl's `images` format: every image of the page (`<img src>`, the first candidate of each `srcset`,
 * `og:image`), absolute, each once, in page order. Read from the raw HTML (the whole page, as Firecrawl reads
 * it), in the API process; data: URLs are left out.
 */
export function imagesOf(html: string, pageUrl: string): string[] {
  const seen = new Set<string>();
  const add = (src: string | undefined) => {
    if (!src || seen.size >= MAX_IMAGES) return;
    const url = absolute(src, pageUrl);
    if (url) seen.add(url);
  };
  walk(parseHtml(html), (element) => {
    if (element.name === 'img' || element.name === 'source') {
      add(element.attribs.src);
      const srcset = element.attribs.srcset;
      if (srcset) add(srcset.split(',')[0]?.trim().split(/\s+/)[0]);
    } else if (element.name === 'meta' && element.attribs.property === 'og:image') {
      add(element.attribs.content);
    }
  });
  return [...seen];
}
