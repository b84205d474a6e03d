import { Usage } from '@app/core';
import type { FetchResult } from '@app/fetch';
import type { PageMemory, PageObservation } from '@app/monitors';
import type { CrawlJobInput } from '../crawl-input';
import type { PageOutcome, PageTaskPayload } from '../crawl.types';

/** What a page task of a monitor's run learns on the way: last run's memory, this run's validators and text hash. */
export interface MonitorNote {
  memory: PageMemory | null;
  via: 'not_modified' | 'hash' | 'lastmod' | null;
  etag: string | null;
  lastModified: string | null;
  textHash: string | null;
}

/** A page known unchanged (a 304, or the same text): last run's record, no model call (method `unchanged`). */
export function unchangedOutcome(
  fetched: Pick<FetchResult, 'url' | 'status' | 'mode' | 'durationMs'>,
  links: string[],
  data: unknown,
  extract: boolean,
  fetchMs = fetched.durationMs,
): PageOutcome {
  return {
    kind: 'completed',
    final_url: fetched.url,
    http_status: fetched.status,
    fetch_mode: fetched.mode,
    links,
    fetch_duration_ms: fetchMs,
    extract_duration_ms: null,
    result: extract ? { data, made: { method: 'unchanged' }, model: null, usage: Usage.NONE } : null,
  };
}

/**
 * What the monitor records of a page's outcome: `gone` for a 404 or 410 (a miss), `failed` for any other
 * failure (never a removal), nothing for a page that will be tried again or was not kept.
 */
export function monitorObservation(
  task: PageTaskPayload,
  input: CrawlJobInput,
  outcome: PageOutcome,
  note: MonitorNote,
): PageObservation | null {
  const base = {
    job_id: task.job_id,
    monitor_id: input.monitor_id!,
    url: task.url,
    via: note.via,
    etag: note.etag,
    last_modified: note.lastModified,
    text_hash: note.textHash,
  };
  if (outcome.kind === 'completed') {
    const result = outcome.result;
    const method = result?.made.method;
    const modelCall = Boolean(result) && method !== 'selectors' && method !== 'unchanged';
    const unchanged = method === 'unchanged';
    const usage = result?.usage ?? Usage.NONE;
    return {
      ...base,
      kind: !result ? 'navigation' : unchanged ? 'unchanged' : 'extracted',
      // Known unchanged (a 304, the same text, the sitemap's lastmod), navigation pages included.
      memory_same: note.via !== null && sameMemory(note, outcome.links),
      data: result?.data ?? null,
      http_status: outcome.http_status,
      links: outcome.links,
      model_call: modelCall,
      tokens_input: usage.inputTokens,
      tokens_output: usage.outputTokens,
      cost_usd: usage.costUsd,
    };
  }
  if (outcome.kind === 'failed') {
    const gone = outcome.http_status === 404 || outcome.http_status === 410;
    return {
      ...base,
      kind: gone ? 'gone' : 'failed',
      via: null,
      data: null,
      http_status: outcome.http_status,
      links: [],
      model_call: outcome.usage !== null,
      tokens_input: outcome.usage?.inputTokens ?? 0,
      tokens_output: outcome.usage?.outputTokens ?? 0,
      cost_usd: outcome.usage?.costUsd ?? 0,
    };
  }
  return null;
}

/** Whether this run saw the page exactly as the monitor remembers it (validators, text hash, links). */
function sameMemory(note: MonitorNote, links: string[]): boolean {
  const memory = note.memory;
  if (!memory) return false;
  if (memory.etag !== note.etag || memory.lastModified !== note.lastModified || memory.textHash !== note.textHash) return false;
  return links === memory.links || (links.length === memory.links.length && links.every((link, i) => link === memory.links[i]));
}
