import { findFirst, type Document } from './dom';

const SAFE_PROTOCOLS = new Set(['http:', 'https:', 'mailto:', 'tel:']);

/** Resolves hrefs against the document base (`<base href>` resolved against the page URL). */
export class UrlResolver {
  readonly base: URL | undefined;
  private readonly page: string;
  private readonly cache = new Map<string, URL | null>();

  constructor(document: Document, pageUrl: string) {
    const pageBase = tryUrl(pageUrl);
    const baseHref = findFirst(document, 'base')?.attribs.href?.trim();
    this.base = (baseHref ? tryUrl(baseHref, pageBase?.href) : undefined) ?? pageBase;
    this.page = this.base ? withoutHash(this.base) : '';
  }

  /** Absolute URL for markdown output; undefined for javascript:, data: and other unsafe schemes. */
  resolve(href: string | undefined): URL | undefined {
    if (href === undefined) return undefined;
    const trimmed = href.trim();
    if (trimmed === '') return undefined;
    let url = this.cache.get(trimmed);
    if (url === undefined) {
      url = tryUrl(trimmed, isAbsoluteHttp(trimmed) ? undefined : this.base?.href) ?? null;
      if (url && !SAFE_PROTOCOLS.has(url.protocol)) url = null;
      this.cache.set(trimmed, url);
    }
    return url ?? undefined;
  }

  /** True when the URL only points at an anchor of the current page (skip-links, "#top"). */
  isSamePageAnchor(url: URL): boolean {
    return url.hash !== '' && withoutHash(url) === this.page;
  }
}

function withoutHash(url: URL): string {
  const href = url.href;
  const hash = href.indexOf('#');
  return hash === -1 ? href : href.slice(0, hash);
}

/**
 * Whether `href` starts `http://` or `https://`, in lower case. The URL standard's parser reads the base of such a
 * URL only to decide, after the scheme, whether to take it as relative to the base, and with the `//` it reads on as
 * an authority whatever the base is: `new URL(href)` is `new URL(href, base)` without parsing the base again.
 */
export function isAbsoluteHttp(href: string): boolean {
  return href.startsWith('https://') || href.startsWith('http://');
}

function tryUrl(value: string, base?: string): URL | undefined {
  try {
    return new URL(value, base);
  } catch {
    return undefined;
  }
}
