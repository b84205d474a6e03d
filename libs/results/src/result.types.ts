import { warningsOf, type ErrorCategory, type Warning } from '@app/core';

export type ResultStatus = 'completed' | 'failed';

/** One page result as stored in `job_results` (one document per page, `_id` = `<job_id>:<seq padded>`). */
export interface ResultRecord {
  _id: string;
  /** Public id of the result item (a ULID, like every id on the wire). */
  id: string;
  job_id: string;
  user_id: string;
  /** Per-job sequence number (1, 2, ...): the export order. */
  seq: number;
  url: string;
  status: ResultStatus;
  data: unknown;
  error_category: ErrorCategory | null;
  error_message: string | null;
  depth: number;
  parent_url: string | null;
  token_usage_input: number;
  token_usage_output: number;
  fetch_duration_ms: number | null;
  extract_duration_ms: number | null;
  llm_model: string | null;
  llm_provider: string | null;
  cost_usd: number | null;
  /** How the data was made (crawl pages: `{method: 'model' | 'selectors' | 'mixed', ...}`). */
  metadata?: Record<string, unknown>;
  /** The job's type, so an export needs no read of the job (absent on records stored before it existed). */
  job_type?: string;
  /** What worked but deserves a look (libs/core warnings.ts); absent when none. */
  warnings?: Warning[];
  created_at: string;
  [key: string]: unknown;
}

/** What a job handler reports for one page. */
export interface RecordResultInput {
  url: string;
  status: ResultStatus;
  data: unknown;
  error_category?: ErrorCategory | null;
  error_message?: string | null;
  depth?: number;
  parent_url?: string | null;
  token_usage_input?: number;
  token_usage_output?: number;
  fetch_duration_ms?: number | null;
  extract_duration_ms?: number | null;
  llm_model?: string | null;
  llm_provider?: string | null;
  cost_usd?: number | null;
  metadata?: Record<string, unknown>;
  /** The page's warnings (and its request's): the item's `warnings`. */
  warnings?: Warning[];
}

/**
 * How an item's data was made (docs/api.md "Results and downloads"): `model` (a model call),
 * `selectors` (a learned program, no model call), `mixed` (the program filled some fields, a partial
 * model call the others: `model_fields`), `analysis` (POST /analyze: heuristics refined by a model),
 * `scrape` (the page's formats, no model call), `null` on failed items (no data was made).
 * `program_id`/`template_id`/`model_call` as stored by extraction_mode auto.
 */
export interface ResultMetadata {
  method: 'model' | 'selectors' | 'mixed' | 'analysis' | 'scrape' | null;
  program_id?: string;
  template_id?: string;
  /** `mixed`: the fields the model filled. */
  model_fields?: string[];
  /** extraction_mode auto: the page's model call, `full` (the whole page, every field) or `partial`. */
  model_call?: 'full' | 'partial';
  [key: string]: unknown;
}

/** The job result item of docs/api.md "Results and downloads"; `error_*` only on failed items. */
export interface ResultItem {
  id: string;
  url: string;
  status: ResultStatus;
  data: unknown;
  error_category?: ErrorCategory;
  error_message?: string;
  metadata: ResultMetadata;
  /** What worked but deserves a look (docs/api.md "Warnings"); `[]` when nothing does. */
  warnings: Warning[];
}

/** The SSE `result` event and the `job.page` webhook payload: the item plus crawl context and tokens. */
export interface ResultEventItem extends ResultItem {
  depth: number;
  parent_url: string | null;
  token_usage_input: number;
  token_usage_output: number;
}

/**
 * The item's metadata: what the record stores (crawl pages), else what the job type makes — records
 * of extract jobs and crawl pages stored before metadata existed were all made by a model call, an
 * analyze job's by the analysis. A failed item has no data, so no method.
 */
export function resultMetadata(record: ResultRecord, jobType?: string): ResultMetadata {
  if (record.status === 'failed') return { method: null };
  const stored = record.metadata;
  if (stored && typeof stored.method === 'string') return stored as ResultMetadata;
  return { method: jobType === 'analyze' ? 'analysis' : 'model' };
}

/** `jobType` picks the default metadata of records stored without it (see resultMetadata). */
export function toResultItem(record: ResultRecord, jobType?: string): ResultItem {
  const item = { id: record.id, url: record.url, status: record.status, data: record.data } as ResultItem;
  if (record.status === 'failed') {
    item.error_category = record.error_category ?? 'internal';
    item.error_message = record.error_message ?? '';
  }
  item.metadata = resultMetadata(record, jobType);
  item.warnings = warningsOf(record.warnings);
  return item;
}

export function toResultEventItem(record: ResultRecord, jobType?: string): ResultEventItem {
  return {
    ...toResultItem(record, jobType),
    depth: record.depth,
    parent_url: record.parent_url,
    token_usage_input: record.token_usage_input,
    token_usage_output: record.token_usage_output,
  };
}

/** The `request` part of a debug capture (never a key: BYOK and stored keys have no field here). */
export interface CaptureRequest {
  content_size: number;
  fetch_mode: string;
  model: string;
  prompt_size: number;
  provider: string;
}

export interface CaptureResponse {
  duration_ms: number;
  error: string;
  input_tokens: number;
  output_tokens: number;
  success: boolean;
}

/** What extraction code hands to ResultsService.recordCapture for one model call. */
export interface RecordCaptureInput {
  url: string;
  prompt: string;
  raw_content: string;
  /** The normalised schema (a JSON Schema object is serialised to JSON). */
  schema: string | Record<string, unknown>;
  hints_applied?: Record<string, string>;
  request: Partial<CaptureRequest>;
  response: Partial<CaptureResponse>;
  /** Defaults to now. */
  timestamp?: string;
}

/** One capture on the wire (docs/api.md "Debug capture fields"). */
export interface CaptureView {
  id: string;
  job_type: string;
  url: string;
  timestamp: string;
  prompt: string;
  raw_content: string;
  schema: string;
  hints_applied: Record<string, string>;
  request: CaptureRequest;
  response: CaptureResponse;
}

export interface CaptureRecord extends CaptureView {
  _id: string;
  job_id: string;
  user_id: string;
  [key: string]: unknown;
}

export function toCaptureView(record: CaptureRecord): CaptureView {
  return {
    id: record.id,
    job_type: record.job_type,
    url: record.url,
    timestamp: record.timestamp,
    prompt: record.prompt,
    raw_content: record.raw_content,
    schema: record.schema,
    hints_applied: record.hints_applied,
    request: record.request,
    response: record.response,
  };
}
