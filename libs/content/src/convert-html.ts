import { performance } from 'node:perf_hooks';
import { findFirst, parseHtml, type Element } from './dom';
import { extractLinks, selectLinks } from './link-extractor';
import { extractMainContent } from './main-content';
import { MarkdownRenderer } from './markdown-renderer';
import { extractMetadata } from './metadata-extractor';
import { isSiteChrome } from './site-chrome';
import { UrlResolver } from './url-resolver';
import { isHidden, NON_CONTENT_TAGS } from './visibility';
import type { ConversionInput, ConversionResult } from './types';

/** Never rendered in any mode: non-text elements and hidden ones. */
export function isInvisible(el: Element): boolean {
  return NON_CONTENT_TAGS.has(el.name) || isHidden(el);
}

function isFullModeSkipped(el: Element): boolean {
  return isInvisible(el) || isSiteChrome(el);
}

/**
 * HTML → compact markdown plus metadata and links. Pure and synchronous: the same input always
 * yields the same output (apart from `stats.ms`).
 */
export function convertHtml(input: ConversionInput): ConversionResult {
  const started = performance.now();
  const html = typeof input.html === 'string' ? input.html : '';
  const document = parseHtml(html);
  const resolver = new UrlResolver(document, input.url);
  const metadata = extractMetadata(document, resolver);
  const links = extractLinks(document, resolver);
  const format = input.format ?? 'markdown';
  const linkUrls = input.linkUrls ?? 'prose';

  let markdown: string;
  if (input.mode === 'main') {
    const { roots, removed } = extractMainContent(document, isInvisible);
    const renderer = new MarkdownRenderer({
      resolver,
      format,
      linkUrls,
      dropActionLinks: false,
      skip: (el) => removed.has(el) || isInvisible(el),
    });
    markdown = renderer.renderAll(roots);
  } else {
    const root = findFirst(document, 'body') ?? document;
    markdown = new MarkdownRenderer({ resolver, format, linkUrls, dropActionLinks: true, skip: isFullModeSkipped }).render(root);
  }

  return {
    markdown,
    metadata,
    links,
    ...(input.linkSelector ? { selectedLinks: selectLinks(document, resolver, input.linkSelector) } : {}),
    stats: {
      htmlBytes: Buffer.byteLength(html, 'utf8'),
      markdownBytes: Buffer.byteLength(markdown, 'utf8'),
      ms: performance.now() - started,
    },
  };
}
