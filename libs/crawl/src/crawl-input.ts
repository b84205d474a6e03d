import { z } from 'zod';
import type { Warning } from '@app/core';
import { openFetchControl, type FetchControl } from '@app/fetch';
import { extractionModeSchema, storedPaginate, storedWarnings, type ExtractionMode, type Paginate } from '@app/extraction';
import { storedLlmConfigSchema, type StoredLlmConfig } from '@app/llm';
import { pageFormatsPlanSchema, type PageFormatsPlan } from '@app/pages';
import type { JsonSchemaObject } from '@app/schema';
import { resolveCrawlOptions, validCrawlOptions, type CrawlOptions, type CrawlOptionsDto } from '@app/sites';

export interface CrawlJobInput {
  /** The seed, canonical. */
  url: string;
  /**
   * What to extract from every page; null for a crawl that stores each page's formats instead (`page_formats`), and
   * with them the `json` format's schema (docs/scrape.md "The json format").
   */
  schema: JsonSchemaObject | null;
  /** A crawl or batch with formats: how each page is stored as formats (docs/scrape.md "Crawls and batches"). */
  page_formats: PageFormatsPlan | null;
  /** The `json` format's prompt (told to the model beside the schema); absent without one and on older jobs. */
  prompt?: string | null;
  schema_id: string | null;
  site_id: string | null;
  llm_config: StoredLlmConfig | null;
  /** Every default applied (docs/api.md "Crawl options"), as stored on the job. */
  options: CrawlOptions;
  /** `model`: a model call per page; `auto`: learned selector programs per template (docs/learned-extraction.md). */
  extraction_mode: ExtractionMode;
  /**
   * Where the crawl's URLs come from when not from the seed: a batch's URL list (stored in chunks,
   * canonical and deduplicated; `url` is then its first URL). Absent: a crawl from `url` (and sitemaps).
   */
  source?: ListSource | ArchiveSource | WarcSource;
  /** A monitor's run (docs/monitors.md): page workers make conditional requests and report what they saw. */
  monitor_id?: string;
  monitor_run_id?: string;
  /** The request's warnings (libs/core warnings.ts), on every page's result; absent (none) on older jobs and re-runs. */
  warnings?: Warning[];
  /** Each extracted page's list read over its next pages (docs/long-lists.md "Pagination"); absent or null without. */
  paginate?: Paginate | null;
}

/** A batch's URL list: `urls` distinct canonical URLs in `batch_lists` chunks under `list_id`; `duplicates` removed at intake. */
export interface ListSource {
  kind: 'list';
  list_id: string;
  urls: number;
  duplicates: number;
}

/** Which of the source job's pages a re-extraction reads: every fetched one, the failed ones, or those with a value not on the page. */
export const REEXTRACT_ONLY = ['all', 'failed', 'ungrounded'] as const;
export type ReextractOnly = (typeof REEXTRACT_ONLY)[number];

/**
 * A re-extraction's pages (docs/archive.md "Re-extraction"): the archived pages of `source_job_id`,
 * `pages` of them as counted at intake (`only`: every fetched page, or only those that failed).
 */
export interface ArchiveSource {
  kind: 'archive';
  source_job_id: string;
  only: ReextractOnly;
  pages: number;
  /**
   * A one-page source (an extract): its page's URL and its key in the source's archive. Without it, the
   * pages are the source's crawl entries, each archived under the key the re-extraction gives it too.
   */
  single_page?: { url: string; key: string };
}

/** A WARC upload's pages (docs/archive.md "WARC in"): the file stored as blob `upload_id`, read by the owner. */
export interface WarcSource {
  kind: 'warc';
  upload_id: string;
  bytes: number;
}

/** The sources whose pages come from the archive: no request reaches a site. */
export function isArchiveSource(source: CrawlJobInput['source']): source is ArchiveSource | WarcSource {
  return source?.kind === 'archive' || source?.kind === 'warc';
}

/**
 * Stored options are read with the options DTO's own rules (one definition: CrawlOptionsDto): a field
 * that fails them makes the input malformed (the job fails as `internal`, it never runs half-typed).
 */
const storedOptionsSchema = z.custom<CrawlOptionsDto>(
  (raw) => typeof raw === 'object' && raw !== null && Object.keys(validCrawlOptions(raw)).length === countPresent(raw),
  'must be crawl options as the options DTO accepts them',
);

const crawlInputSchema = z.object({
  url: z.string(),
  schema: z
    .custom<JsonSchemaObject>((v) => typeof v === 'object' && v !== null && !Array.isArray(v), 'must be a JSON Schema object')
    .nullable(),
  page_formats: pageFormatsPlanSchema.nullish().transform((v) => v ?? null),
  schema_id: z.string().nullable(),
  site_id: z.string().nullable(),
  llm_config: storedLlmConfigSchema,
  options: storedOptionsSchema,
  extraction_mode: extractionModeSchema,
  source: z
    .discriminatedUnion('kind', [
      z.object({ kind: z.literal('list'), list_id: z.string(), urls: z.number().int().min(1), duplicates: z.number().int().min(0) }),
      z.object({
        kind: z.literal('archive'),
        source_job_id: z.string(),
        only: z.enum(REEXTRACT_ONLY),
        pages: z.number().int().min(0),
        single_page: z.object({ url: z.string(), key: z.string() }).optional(),
      }),
      z.object({ kind: z.literal('warc'), upload_id: z.string(), bytes: z.number().int().min(0) }),
    ])
    .optional(),
  monitor_id: z.string().optional(),
  monitor_run_id: z.string().optional(),
  warnings: storedWarnings,
  prompt: z.string().nullish(),
  paginate: storedPaginate.nullish(),
});

export function parseCrawlInput(raw: unknown): CrawlJobInput {
  const input = crawlInputSchema.parse(raw);
  // A schema without formats; formats without one, or with the json format and its schema.
  const wantsSchema = input.page_formats === null || input.page_formats.formats.includes('json');
  if ((input.schema !== null) !== wantsSchema)
    throw new Error('a crawl input has a schema, page formats, or page formats with json and a schema');
  return { ...input, options: resolveCrawlOptions(input.options) };
}

function countPresent(raw: object): number {
  return Object.values(raw).filter((value) => value !== null && value !== undefined).length;
}

/** A batch's stored input: a crawl input whose URLs come from a list. */
export function parseBatchInput(raw: unknown): CrawlJobInput {
  const input = parseCrawlInput(raw);
  if (input.source?.kind !== 'list') throw new Error('a batch input names its URL list (source)');
  return input;
}

/** A re-extraction's stored input: a crawl input whose pages come from another job's archive. */
export function parseReextractInput(raw: unknown): CrawlJobInput {
  const input = parseCrawlInput(raw);
  if (input.source?.kind !== 'archive') throw new Error('a reextract input names its source job (source)');
  return input;
}

/** A WARC extraction's stored input: a crawl input whose pages come from an uploaded WARC file. */
export function parseWarcInput(raw: unknown): CrawlJobInput {
  const input = parseCrawlInput(raw);
  if (input.source?.kind !== 'warc') throw new Error('a warc-extract input names its upload (source)');
  return input;
}

/** The schema of a crawl that extracts (every crawl without `page_formats` has one: parseCrawlInput checks it). */
export function extractionSchema(input: CrawlJobInput): JsonSchemaObject {
  if (!input.schema) throw new Error('this crawl stores page formats; it has no schema to extract');
  return input.schema;
}

/**
 * The caller's fetch control for a page of a crawl or batch (docs/scrape.md "Fetch control"): the User-Agent
 * and wait_for from its options, headers and cookies opened from the task's sealed secrets. A crawl sends
 * headers and cookies to its seed's host only (links may lead elsewhere); a batch to each listed URL's own
 * host (the caller named every one). An auth profile's session goes to the profile's hosts (docs/auth-profiles.md).
 * The crawl's owner opens the same control for its robots.txt and sitemap reads (sideReadFetcher).
 */
export function crawlPageControl(input: CrawlJobInput, secrets: Record<string, string>, owner: string, job?: string): FetchControl {
  return openFetchControl(input.options, secrets, {
    owner,
    ...(job ? { job } : {}),
    ...(input.source ? {} : { host: new URL(input.url).host }),
  });
}
