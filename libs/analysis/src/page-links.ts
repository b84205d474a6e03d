import { visibleText, walk } from '@app/content';
import { type PageDom } from './dom';
import type { PageLink } from './types';

/** `<base href>` resolved against the page URL, else the page URL; undefined when the URL is unusable. */
export function baseUrlOf(dom: PageDom, pageUrl: string): string | undefined {
  let href: string | undefined;
  walk(dom.doc, (el) => {
    if (href !== undefined) return false;
    if (el.name === 'base' && el.attribs.href) href = el.attribs.href;
    return el.name !== 'body';
  });
  try {
    return new URL(href ?? pageUrl, pageUrl).href;
  } catch {
    try {
      return new URL(pageUrl).href;
    } catch {
      return undefined;
    }
  }
}

/** Absolute http(s) URL without fragment, or undefined. */
export function absoluteUrl(href: string, base: string | undefined): string | undefined {
  if (!href || /^\s*(javascript|mailto|tel|data):/i.test(href)) return undefined;
  try {
    const url = new URL(href.trim(), base);
    if (url.protocol !== 'http:' && url.protocol !== 'https:') return undefined;
    url.hash = '';
    return url.href;
  } catch {
    return undefined;
  }
}

/** All `<a href>` of the page, absolute, in document order (used when the caller passes no links). */
export function extractLinks(dom: PageDom, pageUrl: string): PageLink[] {
  const base = baseUrlOf(dom, pageUrl);
  const out: PageLink[] = [];
  walk(dom.doc, (el) => {
    if (el.name === 'a' || el.name === 'area') {
      const url = absoluteUrl(el.attribs.href ?? '', base);
      if (url) out.push({ url, text: visibleText(el, 200) || (el.attribs.title ?? el.attribs['aria-label'] ?? '') });
    }
    return el.name !== 'script' && el.name !== 'style';
  });
  return out;
}
