import { AppError } from '@app/core';
import type { LoadedPage } from './page-loader.service';
import type { ScrapeFormat } from './scrape-formats';

/** The page's `page_info` format: what the page says about itself (named so it never clashes with an item's `metadata`). */
export interface PageInfo {
  title: string | null;
  description: string | null;
  language: string | null;
  canonical_url: string | null;
  open_graph: Record<string, string>;
  json_ld: unknown[];
  status_code: number;
  content_type: string;
  /** PDFs: the document's own info; null for other pages. */
  document: {
    pages: number;
    author: string | null;
    creator: string | null;
    producer: string | null;
    keywords: string | null;
    created_at: string | null;
    modified_at: string | null;
  } | null;
}

export interface ScrapeData {
  markdown?: string;
  text?: string;
  html?: string | null;
  raw_html?: string | null;
  links?: Array<{ url: string; text: string }>;
  page_info?: PageInfo;
  screenshot?: string | null;
  /** The `json` format: the schema's data as the model extracted it (set by the page pipeline, not by buildFormats). */
  json?: unknown;
}

/** A page's formats together are stored as one result: above this they fail as content_too_large. */
export const MAX_SCRAPE_DATA_BYTES = 12 * 1024 * 1024;

/**
 * The requested formats of a loaded page. `html` (the content the markdown is made of, cleaned) and
 * `raw_html` (the body as fetched, or as the browser rendered it) are null for a PDF, which has no
 * HTML; `screenshot` is the path to read the PNG from, null when none was taken (a PDF).
 */
export function buildFormats(page: LoadedPage, formats: readonly ScrapeFormat[], screenshotPath: string | null): ScrapeData {
  const { fetch, content } = page;
  const isPdf = fetch.contentType === 'application/pdf';
  const isHtml = !isPdf && /html/.test(fetch.contentType);
  const data: ScrapeData = {};
  for (const format of formats) {
    switch (format) {
      case 'markdown':
        data.markdown = content.markdown;
        break;
      case 'text':
        data.text = content.text ?? content.markdown;
        break;
      case 'html':
        data.html = isHtml ? (content.html ?? '') : null;
        break;
      case 'raw_html':
        data.raw_html = isPdf ? null : fetch.html;
        break;
      case 'links':
        data.links = content.links.map((link) => ({ url: link.url, text: link.text }));
        break;
      case 'page_info':
        data.page_info = pageInfo(page);
        break;
      case 'screenshot':
        data.screenshot = screenshotPath;
        break;
    }
  }
  const size = Buffer.byteLength(JSON.stringify(data), 'utf8');
  if (size > MAX_SCRAPE_DATA_BYTES) {
    throw new AppError(
      'upstream-failure',
      `The requested formats of this page take ${size} bytes, over ${MAX_SCRAPE_DATA_BYTES}; ask for fewer.`,
      {
        category: 'content_too_large',
        retryable: false,
      },
    );
  }
  return data;
}

function pageInfo(page: LoadedPage): PageInfo {
  const meta = page.content.metadata;
  const doc = meta.document;
  return {
    title: meta.title ?? null,
    description: meta.description ?? null,
    language: meta.language ?? null,
    canonical_url: meta.canonicalUrl ?? null,
    open_graph: meta.openGraph,
    json_ld: meta.jsonLd,
    status_code: page.fetch.status,
    content_type: page.fetch.contentType,
    document: doc
      ? {
          pages: doc.pages,
          author: doc.author ?? null,
          creator: doc.creator ?? null,
          producer: doc.producer ?? null,
          keywords: doc.keywords ?? null,
          created_at: doc.createdAt ?? null,
          modified_at: doc.modifiedAt ?? null,
        }
      : null,
  };
}
