import { parseHtml } from './dom';
import { extractLinks } from './link-extractor';
import type { PageLink } from './types';
import { UrlResolver } from './url-resolver';

/** The http(s) links of a page with their text, without converting it (POST /map reads the seed page so). */
export function pageLinks(html: string, url: string): PageLink[] {
  const document = parseHtml(html);
  return extractLinks(document, new UrlResolver(document, url));
}
