import type { FetchMode } from '@app/fetch';

/** Kinds of repeated structure the analyser reports (docs/api.md "Analysis result fields", `detected_elements[].type`). */
export type ElementType = 'list_item' | 'card' | 'table_row' | 'link_list' | 'article' | 'form';

/** What a field of a repeated element holds; maps onto schema-language types when suggesting a schema. */
export type FieldKind = 'string' | 'number' | 'url' | 'image' | 'date' | 'list';

/** A field seen inside the members of a repeated element. */
export interface FieldHint {
  /** snake_case field name (unique within the element). */
  name: string;
  kind: FieldKind;
  /** CSS selector relative to a member (`''` = the member itself). */
  selector: string;
  /** Share of members that have the field, 0..1. */
  presence: number;
  /** A sample value (trimmed text, URL or src) from the first member that has it. */
  sample: string;
}

export interface DetectedElement {
  name: string;
  type: ElementType;
  description: string;
  count: number;
  /** CSS selector matching the members (checked against the document when possible). */
  selector: string;
  fields: FieldHint[];
  /** count × text richness; the list is sorted by it. */
  score: number;
  /** Share of the page's visible text inside the members, 0..1. */
  textShare: number;
  /** Mean visible text characters per member. */
  avgTextChars: number;
}

export interface FollowPattern {
  /** RE2 regex, anchored, on absolute URLs. */
  pattern: string;
  description: string;
  /** At most 5 distinct absolute URLs the pattern matches. */
  sample_urls: string[];
  kind: 'pagination' | 'detail' | 'other';
  /** How many distinct links on the page matched. */
  linkCount: number;
}

export interface PageLink {
  url: string;
  text: string;
}

export interface PageMetadataInput {
  title?: string;
  description?: string;
  jsonLd?: unknown[];
  openGraph?: Record<string, string>;
}

export type PageType = 'listing' | 'detail' | 'article' | 'product' | 'search' | 'home' | 'other';

export interface PageTypeVerdict {
  pageType: PageType;
  /** 0..1 */
  confidence: number;
  reasons: string[];
}

export interface FetchModeVerdict {
  mode: FetchMode;
  reason: string;
  staticTextChars: number;
  renderedTextChars: number;
}

/** A `label: value` pair or a main heading on a detail page, for schema suggestion. */
export interface DetailField {
  name: string;
  kind: FieldKind;
  label: string;
  sample: string;
}

export interface AnalysisHeuristics {
  pageType: PageType;
  pageTypeConfidence: number;
  pageTypeReasons: string[];
  siteSummary: string;
  recommendedFetchMode: FetchMode;
  fetchModeReason: string;
  staticTextChars: number;
  renderedTextChars: number;
  suggestedSchema: string;
  sampleLinks: string[];
  detectedElements: DetectedElement[];
  followPatterns: FollowPattern[];
  detailFields: DetailField[];
  /** Which HTML the structure was read from. */
  analysedHtml: 'static' | 'rendered';
  ms: number;
}

/** The docs/api.md "Analysis result fields" subset the heuristics fill. */
export interface AnalysisResultFields {
  page_type: string;
  site_summary: string;
  recommended_fetch_mode: FetchMode;
  suggested_schema: string;
  sample_links: string[];
  detected_elements: Array<{ name: string; type: string; description: string; count: number }>;
  follow_patterns: Array<{ pattern: string; description: string; sample_urls: string[] }>;
}
