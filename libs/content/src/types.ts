import type { TagFilter } from './tag-filter';

/** `full`: everything a reader sees minus site chrome; `main`: the article body only. */
export type ConversionMode = 'full' | 'main';

/** `markdown` keeps link/image URLs and block markup; `text` is the same content as plain text. */
export type OutputFormat = 'markdown' | 'text';

/**
 * Which links keep their URL in the markdown: `all`; `prose` (default) only links inside running
 * text, not menus, link lists or link-only blocks (their URLs are still in `links`); `none`.
 */
export type LinkUrlPolicy = 'all' | 'prose' | 'none';

export interface ConversionInput {
  html: string;
  /** The page URL; relative links resolve against `<base href>` first, then this. */
  url: string;
  mode: ConversionMode;
  format?: OutputFormat;
  linkUrls?: LinkUrlPolicy;
  /** CSS selector of the links a crawl follows (`follow_selector`): matched anchors, or anchors inside matched elements, land in `selectedLinks`. */
  linkSelector?: string;
  /** CSS selector of a list's next-page link (`paginate.selector`, docs/long-lists.md "Pagination"): its links land in `nextLinks`. */
  nextSelector?: string;
  /**
   * Further forms of the same content (scrape formats): `text` (plain text) and `html` (cleaned HTML); `attributes`:
   * the page's attribute values a value may be grounded on (docs/provenance.md).
   */
  also?: { text?: boolean; html?: boolean; attributes?: boolean };
  /** CSS selectors that shape the content (`include_tags`, `exclude_tags`: tag-filter.ts). */
  tags?: TagFilter;
}

/** A PDF to convert (docs/scrape.md "PDFs"). */
export interface PdfConversionInput {
  pdf: Uint8Array;
  url: string;
  /** More pages than this fail with content_too_large. */
  maxPages: number;
}

/** What a PDF's own metadata says (its info dictionary). */
export interface DocumentInfo {
  pages: number;
  author?: string;
  creator?: string;
  producer?: string;
  keywords?: string;
  createdAt?: string;
  modifiedAt?: string;
}

/** An attribute value of the page (`content`, `alt`, `title`, `value`, `datetime`; `href`/`src` absolute). */
export interface AttributeValue {
  name: string;
  value: string;
}

export interface PageLink {
  url: string;
  text: string;
}

export interface PageMetadata {
  title?: string;
  description?: string;
  language?: string;
  canonicalUrl?: string;
  /** `og:*` properties, first value wins. */
  openGraph: Record<string, string>;
  /** Parsed `application/ld+json` blocks; invalid JSON is skipped. */
  jsonLd: unknown[];
  /** PDFs: the document's info. */
  document?: DocumentInfo;
}

export interface ConversionStats {
  htmlBytes: number;
  markdownBytes: number;
  ms: number;
}

export interface ConversionResult {
  markdown: string;
  /** With `also.text`: the same content as plain text. */
  text?: string;
  /** With `also.html`: the same content as cleaned HTML (not for PDFs). */
  html?: string;
  /** With `also.attributes`: attribute values of the page (HTML pages only). */
  attributes?: AttributeValue[];
  metadata: PageMetadata;
  links: PageLink[];
  /** Only with `linkSelector`: the links it selects (absolute, fragment removed, first occurrence wins). */
  selectedLinks?: PageLink[];
  /** Only with `nextSelector`: the links it selects, as `selectedLinks` are. */
  nextLinks?: PageLink[];
  stats: ConversionStats;
}
