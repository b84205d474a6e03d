import { BACKOFFS, type ErrorCategory } from '@app/core';
import { messageBackoff } from '@app/queue';

/** The public job types. */
export const JOB_TYPES = ['extract', 'crawl', 'analyze', 'scrape', 'batch', 'reextract', 'warc-extract'] as const;
/** A job type for tests only: its handler and controller are mounted by the test app (test/test-app), never by a production build. */
export const TEST_JOB_TYPE = 'test' as const;
/** Every type a job record may have. */
export const ALL_JOB_TYPES = [...JOB_TYPES, TEST_JOB_TYPE] as const;
export type JobType = (typeof ALL_JOB_TYPES)[number];

export const JOB_STATUSES = ['pending', 'running', 'completed', 'failed', 'cancelled'] as const;
export type JobStatus = (typeof JOB_STATUSES)[number];

export const TERMINAL_STATUSES: readonly JobStatus[] = ['completed', 'failed', 'cancelled'];

/** The only allowed moves (docs/api.md "Jobs"); terminal states are final. */
const ALLOWED_MOVES: Record<JobStatus, readonly JobStatus[]> = {
  pending: ['running', 'failed', 'cancelled'],
  running: ['completed', 'failed', 'cancelled'],
  completed: [],
  failed: [],
  cancelled: [],
};

export function canMove(from: JobStatus, to: JobStatus): boolean {
  return ALLOWED_MOVES[from].includes(to);
}

/** The statuses a job may be in for a move to `to` to be allowed. */
export function sourcesOf(to: JobStatus): JobStatus[] {
  return JOB_STATUSES.filter((from) => canMove(from, to));
}

export function isTerminal(status: JobStatus): boolean {
  return TERMINAL_STATUSES.includes(status);
}

/** A webhook target stored on a job at request time (saved webhooks are resolved live at each event). */
export interface JobWebhookTarget {
  /** Stable per job: `saved:<id>`, `inline` or `url`. */
  key: string;
  kind: 'saved' | 'inline' | 'url';
  webhook_id: string | null;
  url: string | null;
  /** Sealed secret (inline only). */
  secret: string | null;
  events: string[];
  headers: Array<{ name: string; value: string }>;
}

/** What a job's stored record and its wire view (JobView) both carry, by the same names (a type: records need no index signature). */
export type JobSummaryFields = {
  type: JobType;
  status: JobStatus;
  url: string | null;
  capture_debug: boolean;
  created_at: string;
  started_at: string | null;
  completed_at: string | null;
  cost_usd: number;
  page_count: number;
  urls_queued: number;
  failed_count: number;
  token_usage_input: number;
  token_usage_output: number;
  error_category: ErrorCategory | null;
  error_message: string | null;
};

/** A job's summary fields before it starts: no time, pages, tokens, cost or error yet (a new record; the CLI's first view of a job). */
export const NOT_STARTED = {
  started_at: null,
  completed_at: null,
  cost_usd: 0,
  page_count: 0,
  urls_queued: 0,
  failed_count: 0,
  token_usage_input: 0,
  token_usage_output: 0,
  error_category: null,
  error_message: null,
} as const satisfies Partial<JobSummaryFields>;

/**
 * A job as stored, typed by its input and its result (as BullMQ's `Job<Data, Return>`): `I`, the type-specific
 * input its handler parses (JobHandler.parseInput); `R`, what a one-page job leaves on its record for its
 * answer (an extract's `extraction` facts; JobCompletion<R>). Writer and reader of each name the same types.
 * A record read without knowing its type is `JobRecord` (input and result unknown). Wire views are built by
 * toJobView.
 */
export type JobRecord<I = unknown, R = unknown> = JobSummaryFields & {
  _id: string;
  user_id: string;
  organization_id: string;
  /** One-page jobs: what their model calls cost at the provider's prices (the answer's `usage.llm_cost_usd` reads the job's facts). */
  llm_cost_usd?: number;
  /** Last event sequence number allocated for this job. */
  event_seq: number;
  /** Whether this job holds one of its user's running slots. */
  holds_slot: boolean;
  /** Pending because its user already runs the maximum number of jobs; woken when a slot frees. */
  parked?: boolean;
  request_id: string | null;
  /** Webhook targets of this job (saved webhook references, inline webhooks, webhook_url). */
  webhook_targets?: JobWebhookTarget[];
  /** Type-specific input (validated request), never containing BYOK secrets. */
  input: I;
  /** A one-page job's result facts for its answer (an extract's: model, timings, how it was made), written with its completion. */
  extraction?: R;
  /** Model attempts of a one-page job (provider, model, outcome, tokens, duration, cost). */
  attempts?: unknown[];
  /** Crawls: extracted pages by method (`model`, `selectors`, `mixed`), bumped per page and recounted at the end. */
  pages_by_method?: { model?: number; selectors?: number; mixed?: number; scrape?: number; unchanged?: number };
  /** Crawls: pages sent to the model (see crawlCounters). */
  model_calls?: number;
  /** Crawls and batches: pages skipped as duplicates after their fetch, by reason (docs/dedup.md); absent before it existed. */
  duplicates?: Partial<DuplicateCounts>;
  /** Crawls and batches: model calls those duplicates did not make. */
  model_calls_saved?: number;
  /** Crawls: completed pages' model calls by kind (`full`, `partial`; see crawlCounters). */
  model_calls_by_kind?: { full?: number; partial?: number };
  /** Crawls: those calls' tokens by kind. */
  tokens_by_call_kind?: { full?: { input?: number; output?: number }; partial?: { input?: number; output?: number } };
  /** Extracts and crawls: values of the results not found on their pages (docs/provenance.md); absent before it existed. */
  ungrounded_fields?: number;
  /** Set when the job is deleted (its records go after); a deleted job is never run or shown. */
  deleted_at?: string | null;
};

export interface JobView extends JobSummaryFields {
  id: string;
  /** Model attempts of the job (provider, model, outcome, tokens, duration, cost), when it called models. */
  attempts?: unknown[];
  /** Extraction facts of a single-page job: model, provider, timings, model cost, whose key paid. */
  extraction?: Record<string, unknown>;
  /** A crawl's options as it runs them (the request's over the site's over the defaults). */
  options?: Record<string, unknown>;
  /** The monitor whose run this crawl is (docs/monitors.md). */
  monitor_id?: string;
  /** Crawls: extracted pages by method (docs/learned-extraction.md). */
  pages_by_method?: PagesByMethod;
  /** Crawls: pages sent to the model. */
  model_calls?: number;
  /** Crawls: the model calls of completed pages, full and partial, and their tokens. */
  model_calls_by_kind?: { full: number; partial: number };
  tokens_by_call_kind?: TokensByCallKind;
  /** Crawls and batches: pages skipped as duplicates after their fetch, by reason, and the model calls they saved (docs/dedup.md). */
  duplicates?: DuplicateCounts;
  model_calls_saved?: number;
  /** Re-extractions: the job whose archived pages this one extracts again. */
  source_job_id?: string;
  /** Extracts and crawls: values of the results not found on their pages. */
  ungrounded_fields?: number;
}

export interface PagesByMethod {
  model: number;
  selectors: number;
  mixed: number;
  /** Pages stored as formats by a crawl or batch without a schema (no model call). */
  scrape: number;
  /** Monitor runs only (present when not 0): pages known unchanged by a 304 or their text hash, no model call. */
  unchanged?: number;
}

/** Pages skipped as duplicates after their fetch, by reason (docs/dedup.md). */
export interface DuplicateCounts {
  /** The page's rel=canonical names another address of the job. */
  canonical: number;
  /** The same normalised text as an earlier page (`dedupe: exact` or `near`). */
  exact: number;
  /** A near-duplicate of an earlier page (`dedupe: near`). */
  near: number;
  /** A redirect onto a page the job fetches on its own. */
  redirect: number;
}

export interface TokensByCallKind {
  full: { input: number; output: number };
  partial: { input: number; output: number };
}

export interface CrawlCounters {
  pages_by_method: PagesByMethod;
  model_calls: number;
  model_calls_by_kind: { full: number; partial: number };
  tokens_by_call_kind: TokensByCallKind;
  duplicates: DuplicateCounts;
  model_calls_saved: number;
}

/**
 * A crawl's per-method counters (docs/api.md "Jobs"): `pages_by_method` splits `page_count` into pages
 * extracted by a model call, by a learned program, and by both (`mixed`: the program filled some fields and a
 * partial model call the others; extraction_mode auto); `model_calls` counts the pages sent to the model: every
 * page extracted by `model` or `mixed` (learning, verification and check pages included) plus every page whose
 * model call failed (an `llm_*` error_category). `model_calls_by_kind` splits the completed pages' calls into
 * `full` (the whole page, every field) and `partial` ones, with their tokens in `tokens_by_call_kind`. A crawl
 * stored before these counters existed made a full model call for every page, so it shows `page_count` as model
 * pages and full calls, and its token totals as the full calls' tokens.
 */
export function crawlCounters(job: JobRecord): CrawlCounters {
  const byMethod = job.pages_by_method;
  const model = byMethod ? (byMethod.model ?? 0) : job.page_count;
  const mixed = byMethod?.mixed ?? 0;
  const kinds = job.model_calls_by_kind;
  const tokens = job.tokens_by_call_kind;
  return {
    pages_by_method: {
      model,
      selectors: byMethod?.selectors ?? 0,
      mixed,
      scrape: byMethod?.scrape ?? 0,
      ...(byMethod?.unchanged ? { unchanged: byMethod.unchanged } : {}),
    },
    model_calls: job.model_calls ?? model,
    model_calls_by_kind: kinds ? { full: kinds.full ?? 0, partial: kinds.partial ?? 0 } : { full: model, partial: 0 },
    tokens_by_call_kind: tokens
      ? {
          full: { input: tokens.full?.input ?? 0, output: tokens.full?.output ?? 0 },
          partial: { input: tokens.partial?.input ?? 0, output: tokens.partial?.output ?? 0 },
        }
      : { full: { input: job.token_usage_input, output: job.token_usage_output }, partial: { input: 0, output: 0 } },
    duplicates: {
      canonical: job.duplicates?.canonical ?? 0,
      exact: job.duplicates?.exact ?? 0,
      near: job.duplicates?.near ?? 0,
      redirect: job.duplicates?.redirect ?? 0,
    },
    model_calls_saved: job.model_calls_saved ?? 0,
  };
}

export function toJobView(job: JobRecord): JobView {
  // Any job type's input: the view shows what the crawl engine's inputs carry (their options, monitor, source).
  const input = isRecord(job.input) ? job.input : {};
  return {
    id: job._id,
    type: job.type,
    status: job.status,
    url: job.url,
    capture_debug: job.capture_debug,
    created_at: job.created_at,
    started_at: job.started_at,
    completed_at: job.completed_at,
    cost_usd: job.cost_usd,
    page_count: job.page_count,
    urls_queued: job.urls_queued,
    failed_count: job.failed_count,
    token_usage_input: job.token_usage_input,
    token_usage_output: job.token_usage_output,
    error_category: job.error_category,
    error_message: job.error_message,
    ...(Array.isArray(job.attempts) ? { attempts: job.attempts } : {}),
    ...(isRecord(job.extraction) ? { extraction: job.extraction } : {}),
    ...(onCrawlEngine(job.type) && isRecord(input.options) ? { options: input.options } : {}),
    ...(typeof input.monitor_id === 'string' ? { monitor_id: input.monitor_id } : {}),
    ...(onCrawlEngine(job.type) ? crawlCounters(job) : {}),
    ...(job.type === 'reextract' && isRecord(input.source) && typeof input.source.source_job_id === 'string'
      ? { source_job_id: input.source.source_job_id }
      : {}),
    ...groundingCounters(job),
  };
}

/**
 * Extracts and the jobs on the crawl engine (crawls, batches) count the values of their results not found on their pages (docs/provenance.md "Counters"),
 * bumped as pages finish (a crawl recounts them from its map); jobs stored before had none counted.
 */
export function groundingCounters(job: JobRecord): { ungrounded_fields?: number } {
  return onCrawlEngine(job.type) || job.type === 'extract' ? { ungrounded_fields: job.ungrounded_fields ?? 0 } : {};
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export type JobEventName = 'status' | 'result' | 'error' | 'complete';

export type JobEventRecord = {
  _id: string;
  job_id: string;
  seq: number;
  event: JobEventName;
  data: Record<string, unknown>;
  /** Unique per job: an event that must be stored once (a page's `result`, `complete`) names itself; others `#<seq>`. */
  dedupe_key?: string;
  created_at: string;
};

/**
 * The queue contract: crawls have a queue of their own, so a long crawl never occupies the worker
 * slots single-page jobs (extract, analyze) need; every other job type shares `jobs`. One message name.
 */
export const JOBS_QUEUE = 'jobs';
export const CRAWLS_QUEUE = 'crawls';
export const RUN_JOB = 'run-job';
/** Deliveries of a job's message: a worker that dies mid-job is replaced a few times, then the watchdog takes over. */
export const RUN_JOB_OPTIONS = { attempts: 5, backoff: messageBackoff(BACKOFFS.job) } as const;

/** Job classes: each has its own queue, its own per-process worker slots and its own per-user running cap. */
export type JobClass = 'single' | 'crawl';
/**
 * Job types the crawl engine runs (a crawl from a seed, a batch from a URL list, a re-extraction from
 * another job's archive, a WARC extraction from an uploaded file): the crawl class, the crawl counters.
 */
export const CRAWL_ENGINE_TYPES: readonly JobType[] = ['crawl', 'batch', 'reextract', 'warc-extract'];
export function onCrawlEngine(type: JobType): boolean {
  return CRAWL_ENGINE_TYPES.includes(type);
}
export function jobClassOf(type: JobType): JobClass {
  return onCrawlEngine(type) ? 'crawl' : 'single';
}
export function queueOf(type: JobType): string {
  return jobClassOf(type) === 'crawl' ? CRAWLS_QUEUE : JOBS_QUEUE;
}
export function typesOfClass(jobClass: JobClass): JobType[] {
  return ALL_JOB_TYPES.filter((type) => jobClassOf(type) === jobClass);
}
export interface RunJobPayload {
  job_id: string;
  request_id: string | null;
  /** Request-only secrets (a BYOK api_key), sealed under GLEANER_SECRET; never stored on the job. */
  secrets?: string;
}
export const jobChannel = (jobId: string) => `job:${jobId}`;
export const jobControlChannel = (jobId: string) => `job-control:${jobId}`;
