import type { ErrorCategory, Usage } from '@app/core';
import type { DuplicateReason, PageExtraction } from '@app/extraction';
import type { StoredPageOutcome } from './stored-outcome';

/** A crawl-map entry's status (the map's `status` filter takes the same values). */
export const ENTRY_STATUSES = ['pending', 'running', 'completed', 'failed', 'skipped'] as const;
export type EntryStatus = (typeof ENTRY_STATUSES)[number];

/**
 * Why a URL is not crawled, or a page not kept (a `skipped` entry's error_category). The scope decides
 * `filtered`, `max_depth` and `logout_link`; robots.txt `robots`; the owner the rest.
 */
export type SkipReason =
  | 'filtered'
  | 'max_depth'
  | 'robots'
  | 'max_pages'
  | 'cancelled'
  | 'duplicate'
  | 'budget_exceeded'
  /** A re-extraction: the page's archive expired, was deleted, or was never kept (docs/archive.md). */
  | 'archive_missing'
  /** A crawl with an auth profile: a link that would end the session (docs/auth-profiles.md "Logout links"). */
  | 'logout_link';
export const ENTRY_VIAS = ['seed', 'link', 'sitemap', 'redirect', 'list'] as const;
export type EntryVia = (typeof ENTRY_VIAS)[number];

/**
 * One URL of a crawl: the crawl map entry and the frontier item at once (`crawl_entries`,
 * `_id` = `<job>:<key>`, so a URL exists once per crawl).
 */
export interface CrawlEntry {
  _id: string;
  job_id: string;
  user_id: string;
  key: string;
  url: string;
  host: string;
  depth: number;
  parent_url: string | null;
  /** Discovery order within the crawl: the map's order and the frontier's (breadth-first). */
  seq: number;
  via: EntryVia;
  /** A batch's URL: its index in the deduplicated list (absent on crawl entries). */
  list_index?: number;
  status: EntryStatus;
  /**
   * Admission ticket: a number 1..max_pages once admitted (unique per crawl, so max_pages can never be
   * exceeded, even by an owner that lost its lease), else `~<key>` (also unique, so the index holds).
   */
  ticket: number | string;
  /** Holds a numeric ticket (counts against max_pages). */
  admitted: boolean;
  /** Ownership epoch of the actor that claimed it: a stale owner's commit is refused. */
  lease_epoch: number;
  /** Dispatch number: the page task id is `<job>:<key>:<dispatch>`, so re-sending it is idempotent. */
  dispatch: number;
  retry_count: number;
  rate_limit_retries: number;
  /** Not before this time (RFC 3339; '' = now): retry backoff, a host's rate-limit pause. */
  not_before: string;
  /** Whether this page is extracted (false only for the seed with extract_from_seed false). */
  extract: boolean;
  error_category: ErrorCategory | SkipReason | 'worker_crash' | null;
  error_message: string | null;
  error_details: string | null;
  http_status: number | null;
  final_url: string | null;
  /** The page met a 429 or a Retry-After on the way (crawl-map has_rate_limit). */
  rate_limited: boolean;
  llm_model: string | null;
  llm_provider: string | null;
  method: string | null;
  /** extraction_mode auto: the page's model call, `full` or `partial` (null without one; absent on entries stored before). */
  model_call?: 'full' | 'partial' | null;
  /** Extracted pages: values of the page's data not found on the page (docs/provenance.md); absent on entries stored before. */
  ungrounded_fields?: number;
  /** A `duplicate` skip (docs/dedup.md): the original's address, why, how alike (absent on other entries). */
  duplicate_of?: string;
  /** The original's key (its result is `<job>:p:<key>`: `copy_duplicates`); absent on entries stored before. */
  duplicate_key?: string;
  duplicate_reason?: PageDuplicate['duplicate_reason'];
  similarity?: number | null;
  /** Extracted pages whose schema asks for a list: items the page has that its data lacks (docs/long-lists.md); absent before. */
  items_missing?: number;
  fetch_duration_ms: number | null;
  extract_duration_ms: number | null;
  token_usage_input: number;
  token_usage_output: number;
  cost_usd: number;
  result_id: string | null;
  /** The page's result/error was announced (SSE, webhooks); re-announced after a crash while false. */
  event_done: boolean;
  discovered_at: string;
  completed_at: string | null;
  [key: string]: unknown;
}

/** Per-crawl state besides the entries (`crawl_state`, `_id` = job id): ownership, admission, ingestion. */
export interface CrawlStateRecord {
  _id: string;
  job_id: string;
  user_id: string;
  owner: string | null;
  epoch: number;
  /** RFC 3339; '' = free. */
  lease_until: string;
  /** Admission tickets handed out (≤ max_pages). */
  admitted: number;
  seed_done: boolean;
  sitemap_done: boolean;
  /** A batch: chunks of its URL list stored in the frontier (absent on crawls stored before batches: 0). */
  list_chunks_done?: number;
  /** A re-extraction: the last source entry (its seq) stored in the frontier, and how many were. */
  archive_seq_done?: number;
  archive_offered?: number;
  /** A WARC extraction: records of the file read and stored, and pages offered. */
  warc_records_done?: number;
  warc_offered?: number;
  met_rate_limit: boolean;
  /** The crawl stopped admitting pages at its cost cap. */
  budget_stopped: boolean;
  /** Failed entries by error_category (kept by the owner, recounted on takeover and at the end). */
  errors_by_category: Record<string, number>;
  /** Skipped URLs by reason, including those beyond the recorded-entry cap. */
  skipped_by_reason: Record<string, number>;
  /** Skipped entries actually recorded in the map (bounded, see SKIPPED_RECORD_MIN). */
  skipped_recorded: number;
  /** `canonicalize: strict`: `www.` and bare hosts the site showed to be one (host → the host it is read as); absent: none. */
  host_aliases?: Record<string, string>;
  /** Set once leftover entries of a finished (or cancelled) crawl have been closed. */
  finalized: boolean;
  /**
   * The crawl's request-only secrets (a BYOK key), sealed (AES-256-GCM under GLEANER_SECRET), kept only
   * while the crawl runs so that any owner taking it over can use them; removed when the crawl ends.
   */
  sealed_secrets?: string;
  created_at: string;
  updated_at: string;
  [key: string]: unknown;
}

/** The queue contract of the page worker pool. */
export { CRAWL_PAGES_QUEUE } from '@app/queue';
export const PAGE_TASK = 'page';
export const crawlOutcomeChannel = (jobId: string) => `crawl-outcome:${jobId}`;

export interface PageTaskPayload {
  job_id: string;
  key: string;
  url: string;
  depth: number;
  dispatch: number;
  extract: boolean;
  /** The crawl's request-only secrets (BYOK key), still sealed. */
  secrets?: string;
  request_id: string | null;
  /**
   * The owner sent this task before (a re-send after REDISPATCH_AFTER_MS, or a task adopted after a takeover): its
   * outcome may be stored already, so the worker reads it before running the page.
   */
  maybe_done?: true;
}

export function pageTaskId(jobId: string, key: string, dispatch: number): string {
  return `${jobId}:${key}:${dispatch}`;
}

/**
 * What the page worker reports for one dispatch. A completed page's `result` is its PageExtraction (the one result
 * type of a page, @app/extraction); stored in `crawl_outcomes` in its stored form (stored-outcome.ts).
 */
export type PageOutcome =
  | {
      kind: 'completed';
      final_url: string;
      http_status: number;
      fetch_mode: string;
      links: string[];
      fetch_duration_ms: number;
      /** `canonicalize: strict`: the page's rel=canonical as it declared it (a www alias is learned from it); absent otherwise. */
      canonical_url?: string;
      extract_duration_ms: number | null;
      /** Present when the page was extracted (or made into formats, or known unchanged by a monitor). */
      result: PageExtraction | null;
    }
  | {
      kind: 'failed';
      error_category: ErrorCategory | 'worker_crash';
      error_message: string;
      error_details: string | null;
      http_status: number | null;
      final_url: string | null;
      retryable: boolean;
      /** Failed model attempts still cost money; null when no model was called. */
      usage: Usage | null;
      /** `ungrounded_output` pages: the values not on the page. */
      ungrounded_fields?: number;
    }
  | { kind: 'rate_limited'; paused_until: number; limited_since: number; http_status: number; retry_after_ms: number | null }
  | { kind: 'deferred'; retry_in_ms: number; reason: string }
  | {
      kind: 'skipped';
      reason: SkipReason;
      why: string;
      final_url: string | null;
      /** `duplicate` after the fetch (docs/dedup.md): the original, why, how alike; absent on other skips and older outcomes. */
      duplicate?: PageDuplicate;
    }
  | { kind: 'cancelled' };

/** A page skipped as a copy of another of its job: the crawl map's `duplicate_of`, `duplicate_reason`, `similarity`. */
export interface PageDuplicate {
  duplicate_of: string;
  duplicate_key: string;
  duplicate_reason: DuplicateReason | 'redirect';
  similarity: number | null;
}

/**
 * A page task's outcome in `crawl_outcomes`, stored once when its page is done. (Before the delivery ledger, the
 * record was written at the task's first delivery with `done: false` and counted `deliveries` and `alone_runs`:
 * such records of a crawl running during an upgrade are still finished by finishOutcome and storeOutcomes.)
 */
export interface OutcomeRecord {
  _id: string;
  job_id: string;
  done: boolean;
  outcome: StoredPageOutcome | null;
  [key: string]: unknown;
}

/** Skipped entries recorded per crawl: at least this many, or 10 × max_pages; beyond it they are only counted. */
export const SKIPPED_RECORD_MIN = 1000;
/** Skipped entries recorded at most, however large the crawl (10 × the default GLEANER_CRAWL_MAX_PAGES). */
export const SKIPPED_RECORD_MAX = 1_000_000;
/** Links of one page considered for the frontier. */
export const MAX_LINKS_PER_PAGE = 5000;

/** URLs per stored chunk of a batch's list (`batch_lists`). */
export const LIST_CHUNK_SIZE = 1000;

/** One chunk of a batch's URL list (`batch_lists`, `_id` = `<list>:<chunk>`): read by the owner's list seeding. */
export interface ListChunkRecord {
  _id: string;
  list_id: string;
  user_id: string;
  chunk: number;
  /** Index of the chunk's first URL in the (deduplicated) list. */
  start: number;
  urls: string[];
  created_at: string;
  [key: string]: unknown;
}
