import { AppError, isOwnFailure, Usage, type ErrorCategory, type Warning } from '@app/core';
import type { RenderMode } from '@app/fetch';
import type { AttemptRecord } from '@app/llm';
import type { LoadedPage } from '@app/pages';
import type { RecordResultInput } from '@app/results';
import type { JsonSchemaObject } from '@app/schema';
import type { ProvenanceMetadata } from '../grounding.service';
import type { ItemsReport } from '../lists/list-merge';
import type { PaginationReport } from '../pagination/paged-merge';

/** How a page's data was made by the model chain or by learned programs (also the stored result's `metadata`). */
export interface ExtractionMade {
  method: 'model' | 'selectors' | 'mixed';
  /** The learned program that extracted the page (or some of its fields), or that was compared with the model on it. */
  program_id?: string;
  /** The page's template of the site (extraction_mode auto). */
  template_id?: string;
  /** `mixed`: the fields the model filled. */
  model_fields?: string[];
  /** extraction_mode auto, when the model was called: a `full` call (the whole page, every field) or a `partial` one. */
  model_call?: 'full' | 'partial';
  /** A prompt without a schema: the schema the model proposed for the page, which its data follows (docs/scrape.md). */
  schema?: JsonSchemaObject;
}

/** How a page was made into its formats, without a model (the result's `metadata`, docs/scrape.md "Answer"). */
export interface FormatsMade {
  method: 'scrape';
  fetched_at: string;
  fetch_mode: RenderMode;
  status_code: number;
  content_type: string;
  /** A one-page scrape's only: its answer is made of this metadata (a crawl page's item has the duration beside it). */
  fetch_duration_ms?: number;
  convert_duration_ms: number;
  screenshot_id?: string;
  /** The `json` format, when the model was called for it: the call's kind (a model page's `model_call`), the model that answered. */
  model_call?: 'full' | 'partial';
  model?: string;
  provider?: string;
  /** The `json` format with a prompt and no schema: the schema the model proposed (ExtractionMade's). */
  schema?: JsonSchemaObject;
}

/** A monitor's page known unchanged (a 304, or the same text): `data` is last run's record (docs/monitors.md "Cheap re-runs"). */
export interface UnchangedMade {
  method: 'unchanged';
}

/**
 * A page that repeats an earlier page of its job (docs/dedup.md): no model call, no data of its own; its job's map
 * names the original. `canonical`: the page names another address of the job as its canonical one (rel=canonical).
 */
export interface DuplicateMade {
  method: 'duplicate';
  /** The original's address, and its key in the job. */
  duplicate_of: string;
  duplicate_key: string;
  reason: DuplicateReason;
  /** 1 for the same text; a near-duplicate's MinHash similarity; null for a canonical link (the text was not compared). */
  similarity: number | null;
}
export const DUPLICATE_REASONS = ['canonical', 'exact', 'near'] as const;
export type DuplicateReason = (typeof DUPLICATE_REASONS)[number];

export type PageMade = ExtractionMade | FormatsMade | UnchangedMade | DuplicateMade;

/**
 * Whether a page's data holds everything the page has (docs/long-lists.md "The answer"), in the result's `metadata`:
 * `content_truncated` when the page's text was cut to fit the model, `items` per list of objects the schema asks for.
 */
export interface Completeness {
  content_truncated?: true;
  items?: ItemsReport[];
}

/** The model whose answer is in a page's data. */
export interface ModelIdentity {
  provider: string;
  model: string;
}

/**
 * A page's extraction: the one result type of a page, whatever job it belongs to (docs/architecture.md "The page
 * pipeline"). Single-page jobs record it as their result; a crawl page's worker reports it in its outcome
 * (PageOutcome `completed.result`) and the crawl's owner records it the same way.
 */
export interface PageExtraction<M extends PageMade = PageMade> {
  data: unknown;
  made: M;
  /** The model call whose answer is in `data`; null without one (a learned program, formats, last run's record). */
  model: ModelIdentity | null;
  usage: Usage;
  /** Grounding of the data on the page (docs/provenance.md): present when a model or a learned program made it. */
  provenance?: ProvenanceMetadata;
  /** Its text cut to fit the model, its lists' item counts (kept in the stored layout). */
  completeness?: Completeness;
  /** The page's own warnings (its text cut to fit the model, libs/core warnings.ts); the request's are added where it is recorded. */
  warnings?: Warning[];
  /** An extract's `paginate`: the pages its data was gathered from (docs/long-lists.md "Pagination"). */
  pagination?: PaginationReport;
  /** The model run's facts a one-page job keeps on its record (whose key paid, each attempt); never stored with a crawl's outcome. */
  run?: { isByok: boolean; attempts: AttemptRecord[] };
}

/**
 * A page that could not be extracted. `stage`: the model chain failed (`model`), the grounding policy failed the
 * page (`grounding`), or anything else (`page`: no usable model, a template read, formats too large, a bug).
 * Store outages are never a page's failure: they are thrown on.
 */
export class PageFailure {
  constructor(
    readonly stage: 'model' | 'grounding' | 'page',
    /** The error as a domain error (an unexpected one becomes `internal`). */
    readonly error: AppError,
    /** What the failed model calls cost (they were billed); null when no model was called. */
    readonly usage: Usage | null,
    readonly attempts: AttemptRecord[],
    /** What was thrown, as it was. */
    readonly thrown: unknown,
    /** `grounding` failures: the values not found on the page. */
    readonly ungroundedFields?: number,
  ) {}

  get category(): ErrorCategory {
    return this.error.category ?? 'internal';
  }

  get message(): string {
    return this.error.detail ?? this.error.message;
  }

  /** Not a domain error: a bug (its message says so, its cause is logged). */
  get unexpected(): boolean {
    return !(this.thrown instanceof AppError);
  }

  /** Worth another attempt: only our own failures (isOwnFailure, the one rule crawl pages and single-page jobs share). */
  get retryable(): boolean {
    return isOwnFailure(this.thrown);
  }
}

/** Where a page's result sits in its job, and how long its fetch and extraction took. */
export interface ResultPlacement {
  url: string;
  depth: number;
  parentUrl: string | null;
  fetchDurationMs: number | null;
  extractDurationMs: number | null;
  /** The request's warnings (its job input's), recorded before the page's own. */
  requestWarnings?: Warning[];
}

/** A page's stored `metadata`: how its data was made, whether it is complete, then its provenance (docs/api.md "Results and downloads"). */
export function resultMetadata(extraction: PageExtraction): Record<string, unknown> {
  return {
    ...extraction.made,
    ...extraction.completeness,
    ...(extraction.pagination ? { pagination: extraction.pagination } : {}),
    ...extraction.provenance,
  };
}

/** The result record of an extracted page, for every job type alike. */
export function completedResult(extraction: PageExtraction, at: ResultPlacement): RecordResultInput {
  return {
    url: at.url,
    status: 'completed',
    data: extraction.data,
    depth: at.depth,
    parent_url: at.parentUrl,
    ...Usage.toRecordFields(extraction.usage),
    fetch_duration_ms: at.fetchDurationMs,
    extract_duration_ms: at.extractDurationMs,
    llm_model: extraction.model?.model ?? null,
    llm_provider: extraction.model?.provider ?? null,
    metadata: resultMetadata(extraction),
    warnings: [...(at.requestWarnings ?? []), ...(extraction.warnings ?? [])],
  };
}

/**
 * The result record of a failed page. `usage`: what its failed model calls cost, on jobs whose items carry it
 * (crawl pages; an extract's ungrounded page); without it the item has no cost of its own (the job's counters do).
 */
export function failedResult(
  url: string,
  failure: { category: ErrorCategory; message: string },
  usage?: Usage,
  at?: Pick<ResultPlacement, 'depth' | 'parentUrl'>,
): RecordResultInput {
  return {
    url,
    status: 'failed',
    data: null,
    error_category: failure.category,
    error_message: failure.message,
    ...(at ? { depth: at.depth, parent_url: at.parentUrl } : {}),
    ...(usage ? Usage.toRecordFields(usage) : {}),
  };
}

/** How a page was made into its formats. `fetchDurationMs`: a one-page scrape's (see FormatsMade). */
export function formatsMade(page: LoadedPage, screenshotId: string | null, fetchDurationMs?: number): FormatsMade {
  return {
    method: 'scrape',
    fetched_at: page.fetchedAt,
    fetch_mode: page.fetch.mode,
    status_code: page.fetch.status,
    content_type: page.fetch.contentType,
    ...(fetchDurationMs !== undefined ? { fetch_duration_ms: fetchDurationMs } : {}),
    convert_duration_ms: Math.round(page.content.stats.ms),
    ...(screenshotId ? { screenshot_id: screenshotId } : {}),
  };
}
