import { collapseWhitespace, textContent, walkElements, type Document } from './dom';
import type { UrlResolver } from './url-resolver';
import type { PageLink } from './types';

/** Every http(s) link of the page for crawling: absolute, fragment removed, first occurrence wins. */
export function extractLinks(document: Document, resolver: UrlResolver): PageLink[] {
  const byUrl = new Map<string, PageLink>();
  walkElements(document, (el) => {
    if (el.name === 'script' || el.name === 'style' || el.name === 'head') return false;
    if ((el.name !== 'a' && el.name !== 'area') || el.attribs.href === undefined) return true;
    const url = resolver.resolve(el.attribs.href);
    if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:')) return true;
    const href = url.hash === '' ? url.href : url.href.slice(0, url.href.indexOf('#'));
    const text = collapseWhitespace(textContent(el)) || collapseWhitespace(el.attribs.title ?? el.attribs.alt ?? '');
    const seen = byUrl.get(href);
    if (!seen) byUrl.set(href, { url: href, text });
    else if (seen.text === '' && text !== '') seen.text = text;
    return true;
  });
  return [...byUrl.values()];
}
