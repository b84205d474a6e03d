import type { JobRecord } from '@app/jobs';
import type { ScrapeData } from '@app/pages';
import type { ResultItem } from '@app/results';
import type { FirecrawlJobNote } from './firecrawl-jobs.repository';
import { documentMetadata, toDocument, type FirecrawlDocument } from './translate/document';
import type { FormatPlan } from './translate/formats';
import type { SupportedFormat } from './wire/scrape-options';

/** Gleaner formats a job stores → the Firecrawl formats to answer, for jobs made by Gleaner's own API (no note). */
const FROM_GLEANER: Record<string, SupportedFormat> = {
  markdown: 'markdown',
  html: 'html',
  raw_html: 'rawHtml',
  links: 'links',
  screenshot: 'screenshot',
  json: 'json',
};

/** The Firecrawl formats of a job: its /v2 note, else what its stored page formats are in Firecrawl's names. */
export function planOfJob(job: JobRecord, note: FirecrawlJobNote | null): { plan: FormatPlan; jsonOnly: boolean } {
  if (note) return { plan: planOf(note.formats), jsonOnly: note.json_only };
  const pageFormats = (job.input as { page_formats?: { formats?: string[] } | null }).page_formats;
  if (!pageFormats?.formats) return { plan: planOf(['json']), jsonOnly: true };
  return { plan: planOf(pageFormats.formats.map((f) => FROM_GLEANER[f]).filter(Boolean)), jsonOnly: false };
}

function planOf(formats: SupportedFormat[]): FormatPlan {
  return { wanted: new Set(formats), gleanerFormats: [], fullPageScreenshot: false, json: null, changeTracking: null };
}

/** Gleaner's status in Firecrawl's words: a job that has not ended is `scraping`. */
export function firecrawlStatus(status: JobRecord['status']): 'scraping' | 'completed' | 'failed' | 'cancelled' {
  return status === 'pending' || status === 'running' ? 'scraping' : status;
}

/**
 * A crawl or batch page result as Firecrawl's Document. A page made with a schema (a `json`-only crawl or
 * batch, or an extract) has its data as `json`; a page stored as formats has them under Firecrawl's names.
 */
export function itemDocument(
  job: JobRecord,
  item: ResultItem,
  plan: FormatPlan,
  jsonOnly: boolean,
  screenshotUrl: (id: string) => string | null,
): FirecrawlDocument {
  const metadata = (item.metadata ?? {}) as Record<string, unknown>;
  const page = {
    url: typeof metadata.final_url === 'string' ? metadata.final_url : item.url,
    requestedUrl: item.url,
    metadata,
    jobId: job._id,
  };
  if (jsonOnly) {
    return { json: item.data, metadata: { ...documentMetadata({ ...page, data: { json: item.data } }, undefined), pageId: item.id } };
  }
  const data = (item.data ?? {}) as ScrapeData;
  const screenshotId = typeof metadata.screenshot_id === 'string' ? metadata.screenshot_id : null;
  const doc = toDocument({ ...page, data, screenshotUrl: screenshotId ? screenshotUrl(screenshotId) : null }, plan);
  doc.metadata.pageId = item.id;
  return doc;
}
