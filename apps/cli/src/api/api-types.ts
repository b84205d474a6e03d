/** The shapes of the service's answers the CLI reads (see GET /api/v1/openapi.json). */
import type { JobSummaryFields } from '@app/jobs';

export type JobStatus = 'pending' | 'running' | 'completed' | 'failed' | 'cancelled';

export const TERMINAL_STATUSES: readonly string[] = ['completed', 'failed', 'cancelled'];

/** GET /jobs/{id}: the service's job view as the CLI reads it (a job type or error category it does not know is a string). */
export interface JobView extends Omit<JobSummaryFields, 'type' | 'status' | 'capture_debug' | 'error_category'> {
  id: string;
  type: string;
  status: JobStatus;
  error_category: string | null;
  /** A finished extract's facts (docs/api.md "Jobs"); absent on other jobs. */
  extraction?: ExtractionFactsView;
  [key: string]: unknown;
}

/** GET /jobs/{id} `extraction`: the facts an extract job keeps for its answer (jobs of older versions may lack some). */
export interface ExtractionFactsView {
  fetched_at?: string;
  final_url?: string;
  llm_model?: string | null;
  llm_provider?: string | null;
  fetch_duration_ms?: number;
  extract_duration_ms?: number;
}

export interface JobList {
  jobs: JobView[];
  /** Jobs matching the filters, all pages. */
  total: number;
}

/** POST /crawl (202). */
export interface CrawlStarted {
  job_id: string;
  status: JobStatus;
  status_url: string;
  [key: string]: unknown;
}

/** POST /extract (200). */
export interface ExtractionAnswer {
  job_id: string;
  url: string;
  fetched_at: string;
  data: unknown;
  metadata?: {
    /** `null` when a learned program extracted the page (no model call). */
    model?: string | null;
    provider?: string | null;
    fetch_duration_ms?: number;
    extract_duration_ms?: number;
    /** Per value: where it came from and whether it is on the page (docs/provenance.md). */
    fields?: Record<string, unknown>;
    ungrounded_fields?: number;
  };
  usage?: { input_tokens?: number; output_tokens?: number; cost_usd?: number; llm_cost_usd?: number; is_byok?: boolean };
}

/** SSE `status`. */
export interface StatusEventData {
  job_id: string;
  status: JobStatus;
  page_count: number;
  urls_queued: number;
  failed_count: number;
  cost_usd: number;
}

/** SSE `result`: a result item plus crawl facts. */
export interface ResultEventData {
  id: string;
  url: string;
  status: 'completed' | 'failed';
  data: unknown;
  error_category?: string;
  error_message?: string;
  /** How the data was made ({method, program_id?, template_id?}); absent from servers older than it. */
  metadata?: Record<string, unknown>;
  /** What worked but deserves a look (docs/api.md "Warnings"); absent from servers older than it. */
  warnings?: Array<{ code: string; message: string; location: string | null }>;
  depth?: number;
  parent_url?: string | null;
  token_usage_input?: number;
  token_usage_output?: number;
}

/** SSE `complete`. */
export interface CompleteEventData {
  job_id: string;
  status: JobStatus;
  page_count: number;
  cost_usd: number;
  results_url: string;
  error_category: string | null;
  error_message: string | null;
}

export interface CrawlMapEntry {
  id: string;
  url: string;
  parent_url: string | null;
  status: string;
  depth: number;
  error_category: string | null;
  error_message: string | null;
  http_status: number | null;
  token_usage_input: number;
  token_usage_output: number;
  fetch_duration_ms: number | null;
  extract_duration_ms: number | null;
  rate_limited: boolean;
  [key: string]: unknown;
}

export interface CrawlMap {
  job_id: string;
  seed_url: string;
  max_depth: number;
  total: number;
  completed: number;
  failed: number;
  skipped: number;
  pending: number;
  running: number;
  skipped_by_reason: Record<string, number>;
  error_summary: { by_category: Record<string, number>; has_rate_limit: boolean; total: number };
  entries: CrawlMapEntry[];
}

/** The line written for each result: the item as GET /jobs/{id}/results?format=jsonl has it. */
export function exportedResultItem(event: ResultEventData): Record<string, unknown> {
  const item: Record<string, unknown> = { id: event.id, url: event.url, status: event.status, data: event.data };
  if (event.status === 'failed') {
    item.error_category = event.error_category ?? 'internal';
    item.error_message = event.error_message ?? '';
  }
  if (event.metadata !== undefined) item.metadata = event.metadata;
  if (event.warnings !== undefined) item.warnings = event.warnings;
  return item;
}
