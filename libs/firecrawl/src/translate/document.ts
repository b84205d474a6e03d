import type { PageInfo, ScrapeData } from '@app/pages';
import type { FormatPlan } from './formats';
import { imagesOf } from './images';

/** Firecrawl's `Document` (the SDK's type is the contract: test/contract/firecrawl-shapes.spec.ts). */
export interface FirecrawlDocument {
  markdown?: string;
  html?: string;
  rawHtml?: string;
  json?: unknown;
  summary?: string;
  links?: string[];
  images?: string[];
  screenshot?: string;
  changeTracking?: Record<string, unknown>;
  warning?: string;
  metadata: Record<string, unknown>;
}

/** One page as Gleaner made it: a scrape's answer, or a crawl or batch result item. */
export interface GleanerPage {
  /** The final URL (after redirects). */
  url: string;
  /** The URL asked for (Firecrawl's `sourceURL`); the final URL when not known. */
  requestedUrl?: string;
  data: ScrapeData & { json?: unknown; summary?: unknown };
  metadata: Record<string, unknown>;
  /** The job that made it (Firecrawl's `scrapeId`). */
  jobId: string;
  /** A link to the screenshot that needs no key (signed, 1 hour). */
  screenshotUrl?: string | null;
  /** Set when the page came from the archive (`maxAge`): Firecrawl's cacheState `hit`. */
  cachedAt?: string | null;
}

/** `og:site_name` → `ogSiteName`, as Firecrawl names Open Graph properties in `metadata`. */
function openGraphName(property: string): string {
  const rest = property.replace(/^og:/, '');
  return `og${rest
    .split(/[:_-]/)
    .filter(Boolean)
    .map((part) => part[0].toUpperCase() + part.slice(1))
    .join('')}`;
}

/** Firecrawl's `metadata` of a page from Gleaner's `page_info` and result metadata. */
export function documentMetadata(page: GleanerPage, info: PageInfo | undefined): Record<string, unknown> {
  const metadata: Record<string, unknown> = {};
  if (info?.title) metadata.title = info.title;
  if (info?.description) metadata.description = info.description;
  if (info?.language) metadata.language = info.language;
  for (const [property, value] of Object.entries(info?.open_graph ?? {})) metadata[openGraphName(property)] = value;
  if (info?.document) {
    metadata.numPages = info.document.pages;
    if (info.document.author) metadata.author = info.document.author;
  }
  metadata.sourceURL = page.requestedUrl ?? page.url;
  metadata.url = page.url;
  metadata.statusCode = info?.status_code ?? page.metadata.status_code ?? 200;
  metadata.contentType = info?.content_type ?? page.metadata.content_type;
  metadata.scrapeId = page.jobId;
  metadata.proxyUsed = 'basic';
  metadata.cacheState = page.cachedAt ? 'hit' : 'miss';
  if (page.cachedAt) metadata.cachedAt = page.cachedAt;
  // One page is one credit; a page the model read (json, summary) five, as Firecrawl counts (docs/firecrawl.md "Usage").
  metadata.creditsUsed = page.data.json !== undefined || page.data.summary !== undefined ? 5 : 1;
  return metadata;
}

/** A Gleaner page as Firecrawl's Document, with exactly the formats the plan asked for. */
export function toDocument(page: GleanerPage, plan: FormatPlan): FirecrawlDocument {
  const data = page.data;
  const doc: FirecrawlDocument = { metadata: documentMetadata(page, data.page_info) };
  const wanted = plan.wanted;
  if (wanted.has('markdown')) doc.markdown = data.markdown ?? '';
  if (wanted.has('html')) doc.html = data.html ?? '';
  if (wanted.has('rawHtml')) doc.rawHtml = data.raw_html ?? '';
  if (wanted.has('links')) doc.links = (data.links ?? []).map((link) => link.url);
  if (wanted.has('images')) doc.images = data.raw_html ? imagesOf(data.raw_html, page.url) : [];
  if (wanted.has('screenshot') && page.screenshotUrl) doc.screenshot = page.screenshotUrl;
  if (wanted.has('json')) doc.json = data.json ?? null;
  if (wanted.has('summary') && typeof (data.summary as { summary?: unknown } | undefined)?.summary === 'string')
    doc.summary = (data.summary as { summary: string }).summary;
  else if (wanted.has('summary') && typeof data.summary === 'string') doc.summary = data.summary;
  return doc;
}
