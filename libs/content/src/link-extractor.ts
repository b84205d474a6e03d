import { compile, selectAll } from 'css-select';
import type { AnyNode } from 'domhandler';
import { collapseWhitespace, textContent, walk, type Document, type Element } from './dom';
import type { UrlResolver } from './url-resolver';
import type { PageLink } from './types';

/** Every http(s) link of the page for crawling: absolute, fragment removed, first occurrence wins. */
export function extractLinks(document: Document, resolver: UrlResolver): PageLink[] {
  const byUrl = new Map<string, PageLink>();
  walk(document, (el) => {
    if (el.name === 'script' || el.name === 'style' || el.name === 'head') return false;
    addLink(byUrl, el, resolver);
    return true;
  });
  return [...byUrl.values()];
}

/**
 * The links a CSS selector picks: a matched `<a>`/`<area>` itself, or the anchors inside a matched
 * element (so `li.next` and `li.next a` both work). Same normalisation as extractLinks.
 */
export function selectLinks(document: Document, resolver: UrlResolver, selector: string): PageLink[] {
  const byUrl = new Map<string, PageLink>();
  for (const match of selectAll<AnyNode, Element>(selector, document)) {
    addLink(byUrl, match, resolver);
    walk(match, (el) => {
      addLink(byUrl, el, resolver);
      return true;
    });
  }
  return [...byUrl.values()];
}

/** Throws when `selector` is not a CSS selector css-select can run (validated before a crawl starts). */
export function checkCssSelector(selector: string): void {
  compile(selector);
}

function addLink(byUrl: Map<string, PageLink>, el: Element, resolver: UrlResolver): void {
  if ((el.name !== 'a' && el.name !== 'area') || el.attribs.href === undefined) return;
  const url = resolver.resolve(el.attribs.href);
  if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:')) return;
  const href = url.hash === '' ? url.href : url.href.slice(0, url.href.indexOf('#'));
  const seen = byUrl.get(href);
  // A link to an address already named keeps the first name: its text is not read.
  if (seen !== undefined && seen.text !== '') return;
  const text = collapseWhitespace(textContent(el)) || collapseWhitespace(el.attribs.title ?? el.attribs.alt ?? '');
  if (!seen) byUrl.set(href, { url: href, text });
  else if (text !== '') seen.text = text;
}
