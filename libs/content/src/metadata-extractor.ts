import { collapseWhitespace, textContent, walk, type Document, type Element } from './dom';
import type { UrlResolver } from './url-resolver';
import type { PageMetadata } from './types';

/** title, description, language, canonical URL, og:* and JSON-LD from one pass over the document. */
export function extractMetadata(document: Document, resolver: UrlResolver): PageMetadata {
  let title: string | undefined;
  let firstH1: string | undefined;
  let description: string | undefined;
  let language: string | undefined;
  let contentLanguage: string | undefined;
  let canonical: string | undefined;
  const openGraph: Record<string, string> = {};
  const jsonLd: unknown[] = [];

  walk(document, (el: Element) => {
    const a = el.attribs;
    switch (el.name) {
      case 'html':
        if (language === undefined && a.lang?.trim()) language = a.lang.trim();
        if (language === undefined && a['xml:lang']?.trim()) language = a['xml:lang'].trim();
        break;
      case 'title':
        // <title> inside <svg> is a tooltip, not the page title.
        if (title === undefined && !insideSvg(el)) title = collapseWhitespace(textContent(el)) || undefined;
        return false;
      case 'h1':
        if (firstH1 === undefined) firstH1 = collapseWhitespace(textContent(el)) || undefined;
        return false;
      case 'meta': {
        const key = (a.property ?? a.name ?? '').trim().toLowerCase();
        const content = a.content === undefined ? undefined : collapseWhitespace(a.content);
        if (content === undefined || content === '') break;
        if (key.startsWith('og:')) {
          if (!(key in openGraph)) openGraph[key] = content;
        } else if (key === 'description' && description === undefined) {
          description = content;
        } else if (a['http-equiv']?.toLowerCase() === 'content-language' && contentLanguage === undefined) {
          contentLanguage = content;
        }
        break;
      }
      case 'link':
        if (canonical === undefined && a.rel?.toLowerCase().split(/\s+/).includes('canonical')) {
          const url = resolver.resolve(a.href);
          if (url && (url.protocol === 'http:' || url.protocol === 'https:')) canonical = url.href;
        }
        break;
      case 'script':
        if (a.type?.trim().toLowerCase() === 'application/ld+json') {
          const parsed = parseJsonLd(textContent(el));
          if (parsed !== undefined) jsonLd.push(parsed);
        }
        return false;
      case 'style':
        return false;
    }
    return true;
  });

  const metadata: PageMetadata = { openGraph, jsonLd };
  const finalTitle = title ?? openGraph['og:title'] ?? firstH1;
  if (finalTitle) metadata.title = finalTitle;
  const finalDescription = description ?? openGraph['og:description'];
  if (finalDescription) metadata.description = finalDescription;
  const finalLanguage = language ?? contentLanguage ?? openGraph['og:locale'];
  if (finalLanguage) metadata.language = finalLanguage;
  if (canonical) metadata.canonicalUrl = canonical;
  return metadata;
}

function insideSvg(el: Element): boolean {
  for (let p = el.parent; p; p = p.parent) if ((p as Element).name === 'svg') return true;
  return false;
}

/** Strips the HTML comment / CDATA wrappers some CMSs put around JSON-LD; invalid JSON is skipped. */
function parseJsonLd(raw: string): unknown {
  const text = raw
    .trim()
    .replace(/^(?:<!--|\/\/\s*<!\[CDATA\[|<!\[CDATA\[)\s*/, '')
    .replace(/\s*(?:-->|\/\/\s*\]\]>|\]\]>)$/, '')
    .trim();
  if (text === '') return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}
