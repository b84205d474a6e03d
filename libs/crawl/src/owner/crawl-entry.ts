import type { CrawlEntry, EntryVia, SkipReason } from '../crawl.types';
import type { CanonicalUrl } from '../url-canon';
import type { WindowEntry } from './frontier-window';

/** A URL the frontier takes in (to crawl). */
export interface Candidate {
  target: CanonicalUrl;
  depth: number;
  parentUrl: string | null;
  via: EntryVia;
  extract: boolean;
  /** A batch's URL: its index in the (deduplicated) list. */
  listIndex?: number;
}

/** A URL the frontier records as not crawled, and why. */
export interface SkippedCandidate {
  target: CanonicalUrl;
  depth: number;
  parentUrl: string | null;
  reason: SkipReason;
  why: string;
}

/** The id of a crawl's entry for a URL: one entry per URL per crawl. */
export function entryId(jobId: string, key: string): string {
  return `${jobId}:${key}`;
}

/** A new crawl-map entry: pending, unadmitted (its ticket field holds a unique placeholder), not dispatched. */
export function newEntry(
  owner: { jobId: string; userId: string },
  target: CanonicalUrl,
  at: { depth: number; parentUrl: string | null; via: EntryVia; seq: number; now: string },
  extra: Partial<CrawlEntry> = {},
): CrawlEntry {
  return {
    _id: entryId(owner.jobId, target.key),
    job_id: owner.jobId,
    user_id: owner.userId,
    key: target.key,
    url: target.url,
    host: target.host,
    depth: at.depth,
    parent_url: at.parentUrl,
    seq: at.seq,
    via: at.via,
    status: 'pending',
    ticket: unadmittedTicket(target.key),
    admitted: false,
    lease_epoch: 0,
    dispatch: 0,
    retry_count: 0,
    rate_limit_retries: 0,
    not_before: '',
    extract: true,
    error_category: null,
    error_message: null,
    error_details: null,
    http_status: null,
    final_url: null,
    rate_limited: false,
    llm_model: null,
    llm_provider: null,
    method: null,
    model_call: null,
    fetch_duration_ms: null,
    extract_duration_ms: null,
    token_usage_input: 0,
    token_usage_output: 0,
    cost_usd: 0,
    result_id: null,
    event_done: false,
    discovered_at: at.now,
    completed_at: null,
    ...extra,
  };
}

/** The ticket field of an entry without an admission ticket: unique per URL, so the unique ticket index holds. */
export function unadmittedTicket(key: string): string {
  return `~${key}`;
}

/** The owner's in-memory view of a stored entry. */
export function toWindowEntry(entry: CrawlEntry): WindowEntry {
  return {
    id: entry._id,
    key: entry.key,
    url: entry.url,
    host: entry.host,
    depth: entry.depth,
    parentUrl: entry.parent_url,
    seq: entry.seq,
    extract: entry.extract,
    ticket: typeof entry.ticket === 'number' ? entry.ticket : null,
    dispatch: entry.dispatch,
    retryCount: entry.retry_count,
    rateLimitRetries: entry.rate_limit_retries,
    robotsDeferrals: 0,
    notBefore: entry.not_before ? Date.parse(entry.not_before) : 0,
  };
}

/** An entry that needs an admission ticket to start (an extracted page not yet admitted). */
export function needsTicket(entry: WindowEntry): boolean {
  return entry.extract && entry.ticket === null;
}
