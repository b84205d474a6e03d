import { performance } from 'node:perf_hooks';
import { attributeValues } from './attribute-values';
import { cleanHtml } from './clean-html';
import { escapeText } from 'entities';
import { collapseWhitespace, findFirst, parseHtml, type AnyNode, type Element } from './dom';
import { extractLinks, selectLinks } from './link-extractor';
import { extractMainContent } from './main-content';
import { MarkdownRenderer } from './markdown-renderer';
import { extractMetadata } from './metadata-extractor';
import { isSiteChrome } from './site-chrome';
import { declaredProductDescription } from './structure/declared-description';
import { declaredKinds } from './structure/declared-kind';
import { adoptContentAfterBody } from './structure/after-body';
import { resolveAsyncFragments } from './structure/async-fragments';
import { readNestedDocuments } from './structure/nested-document';
import { isExcerpt, shownBesideChrome } from './structure/no-main-content';
import { revealedWrappers } from './structure/revealed-wrappers';
import { resolveStreamedBoundaries } from './structure/streamed-boundaries';
import { UrlResolver } from './url-resolver';
import { utf8Length } from './utf8-length';
import { selectTags } from './tag-filter';
import { isHidden, NON_CONTENT_TAGS } from './visibility';
import type { ConversionInput, ConversionResult, OutputFormat } from './types';

const HAS_WORD = /[\p{L}\p{N}]/u;

function summaryHtml(summary: string): string {
  return summary === '' ? '' : `<p>${escapeText(summary)}</p>`;
}

/** Never rendered in any mode: non-text elements and hidden ones, but for wrappers the page's scripts show. */
function nonContent(revealed: ReadonlySet<Element>): (el: Element) => boolean {
  return (el) => NON_CONTENT_TAGS.has(el.name) || (isHidden(el) && !revealed.has(el));
}

/**
 * HTML → compact markdown plus metadata and links. Pure and synchronous: the same input always
 * yields the same output (apart from `stats.ms`).
 */
export function convertHtml(input: ConversionInput): ConversionResult {
  const started = performance.now();
  const html = typeof input.html === 'string' ? input.html : '';
  const document = parseHtml(html);
  resolveStreamedBoundaries(document, html);
  resolveAsyncFragments(document, html);
  adoptContentAfterBody(document);
  readNestedDocuments(document);
  const isNonContent = nonContent(revealedWrappers(document));
  const isFullModeSkipped = (el: Element) => isNonContent(el) || isSiteChrome(el);
  const resolver = new UrlResolver(document, input.url);
  const metadata = extractMetadata(document, resolver);
  const links = extractLinks(document, resolver);
  const format = input.format ?? 'markdown';
  const linkUrls = input.linkUrls ?? 'prose';

  let roots: AnyNode[];
  let skip: (el: Element) => boolean;
  let dropActionLinks: boolean;
  const tags = selectTags(document, input.tags);
  if (tags.roots) {
    // The caller chose the content: its elements as they are (main-content detection and chrome aside).
    roots = tags.roots;
    skip = isNonContent;
    dropActionLinks = true;
  } else if (input.mode === 'main') {
    const main = extractMainContent(document, isNonContent, {
      kinds: declaredKinds(metadata),
      title: [metadata.title, metadata.openGraph['og:title']].filter((t): t is string => !!t),
      productDescription: declaredProductDescription(metadata.jsonLd),
    });
    roots = main.roots;
    skip = (el) => main.removed.has(el) || main.isSkipped(el);
    dropActionLinks = true;
  } else {
    roots = [findFirst(document, 'body') ?? document];
    skip = isFullModeSkipped;
    dropActionLinks = true;
  }
  // `exclude_tags` leaves its elements out in every mode and fallback below.
  const leaveOut = (base: (el: Element) => boolean) => (tags.excluded.size > 0 ? (el: Element) => tags.excluded.has(el) || base(el) : base);
  skip = leaveOut(skip);
  let several = input.mode === 'main' || tags.roots !== null;
  const render = (as: OutputFormat, nodes = roots, leftOut = skip, all = several) => {
    const renderer = new MarkdownRenderer({ resolver, format: as, linkUrls, dropActionLinks, skip: leftOut });
    return all ? renderer.renderAll(nodes) : renderer.render(nodes[0]);
  };
  let summary: string | undefined;
  let markdown = render(format);
  if (input.mode === 'main' && !tags.roots) {
    // A detection that finds no words gives the whole page without chrome. When the page without chrome has no
    // words either, and the detection shows only chrome (menus, footers, a notice to turn on JavaScript), the page's
    // HTML holds no main content (a script-rendered shell, structure/no-main-content.ts): its description when that
    // is a cut of its text (a topic's first lines, which its scripts draw), else nothing.
    const found = HAS_WORD.test(markdown);
    if (!found || !shownBesideChrome(roots, skip, (besides, skip) => render('text', besides, skip))) {
      const page = [findFirst(document, 'body') ?? document];
      const pageSkip = leaveOut(isFullModeSkipped);
      const whole = render(format, page, pageSkip, false);
      if (HAS_WORD.test(whole)) {
        if (!found) [roots, skip, several, markdown] = [page, pageSkip, false, whole];
      } else {
        const description = collapseWhitespace(metadata.description ?? metadata.openGraph['og:description'] ?? '');
        summary = isExcerpt(description) ? description : '';
        markdown = summary;
      }
    }
  }

  return {
    markdown,
    ...(input.also?.text ? { text: format === 'text' || summary !== undefined ? markdown : render('text') } : {}),
    ...(input.also?.html ? { html: summary !== undefined ? summaryHtml(summary) : cleanHtml(roots, resolver, skip) } : {}),
    ...(input.also?.attributes ? { attributes: attributeValues(document, resolver) } : {}),
    metadata,
    links,
    ...(input.linkSelector ? { selectedLinks: selectLinks(document, resolver, input.linkSelector) } : {}),
    ...(input.nextSelector ? { nextLinks: selectLinks(document, resolver, input.nextSelector) } : {}),
    stats: {
      htmlBytes: utf8Length(html),
      markdownBytes: utf8Length(markdown),
      ms: performance.now() - started,
    },
  };
}
