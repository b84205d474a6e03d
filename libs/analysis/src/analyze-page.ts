import { mapChrome } from './chrome';
import { extractDetailFields } from './detail-fields';
import { parsePageDom } from './dom';
import { recommendFetchModeFromDoms } from './fetch-mode';
import { inferFollowPatternGroups } from './follow-patterns';
import { extractMetadata } from './metadata';
import { classifyParsed } from './page-type';
import { extractLinks } from './page-links';
import { detectRepeatedInDom } from './repeated-elements';
import { pickSampleLinks } from './sample-links';
import { suggestSchemaFromStructure } from './schema-suggestion';
import type { AnalysisHeuristics, AnalysisResultFields, PageLink, PageMetadataInput } from './types';

export interface AnalyzePageInput {
  /** Static HTML ('' when the static fetch failed). */
  html: string;
  url: string;
  /** Links of the page; when empty they are read from the analysed HTML. */
  links: PageLink[];
  metadata?: PageMetadataInput;
  rendered?: { html: string } | null;
  staticError?: string;
}

/** Rendered HTML is analysed instead of the static copy when it holds this much more text. */
const PREFER_RENDERED_RATIO = 1.2;

/**
 * All heuristics in one pass: each HTML is parsed once and the DOM reused by every detector.
 * Structure is read from the rendered copy when it carries clearly more text than the static one.
 */
export function analyzePage(input: AnalyzePageInput): AnalysisHeuristics {
  const started = performance.now();
  const staticDom = input.html ? parsePageDom(input.html) : null;
  const renderedDom = input.rendered?.html ? parsePageDom(input.rendered.html) : null;
  const useRendered = renderedDom !== null && (staticDom === null || renderedDom.totalText > PREFER_RENDERED_RATIO * staticDom.totalText);
  const dom = useRendered ? renderedDom : (staticDom ?? parsePageDom(''));
  const chrome = mapChrome(dom);
  const repeated = detectRepeatedInDom(dom, input.url, chrome);
  const metadata = input.metadata ?? extractMetadata(dom);
  const links = input.links.length > 0 ? input.links : extractLinks(dom, input.url);
  const followGroups = inferFollowPatternGroups(links, input.url);
  const followPatterns = followGroups.map((g) => g.pattern);
  const detailFields = extractDetailFields(dom, chrome);
  const verdict = classifyParsed(dom, chrome, input.url, repeated, metadata, detailFields);
  const fetchMode = recommendFetchModeFromDoms(
    staticDom ? { dom: staticDom, html: input.html } : null,
    renderedDom,
    input.staticError,
    useRendered ? repeated : undefined,
  );
  const suggestedSchema = suggestSchemaFromStructure({ repeated, pageType: verdict.pageType, metadata, followPatterns, detailFields });
  const sampleLinks = pickSampleLinks(
    links,
    input.url,
    followGroups.map((g) => g.urls),
  );
  const main = repeated.find((r) => r.type !== 'form');
  const pager = followPatterns.find((p) => p.kind === 'pagination');
  const summary = [
    `${capitalise(verdict.pageType)} page${metadata.title ? ` "${metadata.title.slice(0, 80)}"` : ''} (confidence ${verdict.confidence}).`,
    main ? `Main repeated element: ${main.name} ×${main.count} (${main.description}).` : 'No repeated records found.',
    pager ? `Pagination: ${pager.pattern}.` : '',
    `Fetch mode: ${fetchMode.mode}.`,
  ]
    .filter(Boolean)
    .join(' ');
  return {
    pageType: verdict.pageType,
    pageTypeConfidence: verdict.confidence,
    pageTypeReasons: verdict.reasons,
    siteSummary: summary,
    recommendedFetchMode: fetchMode.mode,
    fetchModeReason: fetchMode.reason,
    staticTextChars: fetchMode.staticTextChars,
    renderedTextChars: fetchMode.renderedTextChars,
    suggestedSchema,
    sampleLinks,
    detectedElements: repeated,
    followPatterns,
    detailFields,
    analysedHtml: useRendered ? 'rendered' : 'static',
    ms: Math.round((performance.now() - started) * 100) / 100,
  };
}

/** The docs/api.md "Analysis result fields" (snake_case, extra debugging fields dropped). */
export function toAnalysisResult(h: AnalysisHeuristics): AnalysisResultFields {
  return {
    page_type: h.pageType,
    site_summary: h.siteSummary,
    recommended_fetch_mode: h.recommendedFetchMode,
    suggested_schema: h.suggestedSchema,
    sample_links: h.sampleLinks,
    detected_elements: h.detectedElements.map(({ name, type, description, count }) => ({ name, type, description, count })),
    follow_patterns: h.followPatterns.map(({ pattern, description, sample_urls }) => ({ pattern, description, sample_urls })),
  };
}

function capitalise(s: string): string {
  return s.charAt(0).toUpperCase() + s.slice(1);
}
