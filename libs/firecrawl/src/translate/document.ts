import type { PageInfo, ScrapeData } from '@app/pages';
import type { DocumentMetadata, FirecrawlDocument } from '../wire/responses';
import type { FormatPlan } from './formats';
import { imagesOf } from './images';

export type { FirecrawlDocument };

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
export function documentMetadata(page: GleanerPage, info: PageInfo | undefined): DocumentMetadata {
  const openGraph: Record<string, string> = {};
  for (const [property, value] of Object.entries(info?.open_graph ?? {})) openGraph[openGraphName(property)] = value;
  const status = info?.status_code ?? page.metadata.status_code;
  const contentType = info?.content_type ?? page.metadata.content_type;
  return {
    ...(info?.title ? { title: info.title } : {}),
    ...(info?.description ? { description: info.description } : {}),
    ...(info?.language ? { language: info.language } : {}),
    ...openGraph,
    ...(info?.document ? { numPages: info.document.pages, ...(info.document.author ? { author: info.document.author } : {}) } : {}),
    sourceURL: page.requestedUrl ?? page.url,
    url: page.url,
    statusCode: typeof status === 'number' ? status : 200,
    ...(typeof contentType === 'string' ? { contentType } : {}),
    scrapeId: page.jobId,
    proxyUsed: 'basic',
    cacheState: page.cachedAt ? 'hit' : 'miss',
    ...(page.cachedAt ? { cachedAt: page.cachedAt } : {}),
    // One page is one credit; a page the model read (json, summary) five, as Firecrawl counts (docs/firecrawl.md "Usage").
    creditsUsed: page.data.json !== undefined || page.data.summary !== undefined ? 5 : 1,
  };
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
