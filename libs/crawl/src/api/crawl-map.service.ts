import { Injectable } from '@nestjs/common';
import type { Caller } from '@app/auth';
import { Errors } from '@app/core';
import { JobsService, onCrawlEngine } from '@app/jobs';
import type { BodyStream } from '@app/results';
import { parseCrawlInput } from '../crawl-input';
import { CrawlRepository } from '../crawl.repository';
import type { CrawlEntry, EntryStatus } from '../crawl.types';
import type { CrawlMapQuery } from './dto/crawl-request.dto';

/**
 * GET /jobs/{id}/crawl-map: the totals and the error summary always cover the whole crawl; the
 * entries are the whole map streamed from the store (a 100,000-entry map never sits in memory), or
 * a page of it with limit/offset/status.
 */
@Injectable()
export class CrawlMapService {
  constructor(
    private readonly jobs: JobsService,
    private readonly repository: CrawlRepository,
  ) {}

  async map(caller: Caller, jobId: string, query: CrawlMapQuery): Promise<BodyStream> {
    const job = await this.jobs.getRecord(caller, jobId);
    if (!onCrawlEngine(job.type)) throw Errors.notFound('Crawl map');
    const input = mapInput(job.input);
    const state = await this.repository.states.state(jobId);
    const count = (status?: EntryStatus) => this.repository.map.countEntries(jobId, status);
    const [
      total,
      completed,
      failed,
      skipped,
      pending,
      running,
      rateLimited,
      byModel,
      bySelectors,
      byMixed,
      byScrape,
      ungrounded,
      incomplete,
    ] = await Promise.all([
      count(),
      count('completed'),
      count('failed'),
      count('skipped'),
      count('pending'),
      count('running'),
      this.repository.map.countRateLimited(jobId),
      this.repository.map.countByMethod(jobId, 'model'),
      this.repository.map.countByMethod(jobId, 'selectors'),
      this.repository.map.countByMethod(jobId, 'mixed'),
      this.repository.map.countByMethod(jobId, 'scrape'),
      this.repository.map.countUngrounded(jobId),
      this.repository.map.countListIncomplete(jobId),
    ]);
    const head = {
      job_id: jobId,
      seed_url: input.url,
      max_depth: input.options.max_depth,
      total,
      completed,
      failed,
      skipped,
      pending,
      running,
      skipped_by_reason: state?.skipped_by_reason ?? {},
      // Each page extracted by `model` or `mixed` cost one model call (`mixed`: a partial one); `selectors` and `scrape` pages none.
      extracted_by_method: { model: byModel, selectors: bySelectors, mixed: byMixed, scrape: byScrape },
      error_summary: {
        by_category: state?.errors_by_category ?? {},
        has_rate_limit: Boolean(state?.met_rate_limit) || rateLimited > 0,
        total: failed,
      },
      pages_with_ungrounded_fields: ungrounded,
      pages_with_incomplete_lists: incomplete,
    };
    const paged =
      query.limit !== undefined ||
      query.offset !== undefined ||
      query.status !== undefined ||
      query.ungrounded !== undefined ||
      query.list_incomplete !== undefined;
    const entries = this.repository.map.iterateMap({ userId: job.user_id }, jobId, {
      status: query.status,
      ungrounded: query.ungrounded === 'true',
      listIncomplete: query.list_incomplete === 'true',
      skip: query.offset,
      limit: paged ? (query.limit ?? 100) : undefined,
    });
    async function* chunks(): AsyncIterable<string> {
      const json = JSON.stringify({ ...head, entries: [] });
      yield json.slice(0, -2); // everything up to the entries array's closing bracket
      let first = true;
      for await (const entry of entries) {
        yield (first ? '' : ',') + JSON.stringify(toEntryView(entry));
        first = false;
      }
      yield ']}\n';
    }
    return { contentType: 'application/json', filename: `${jobId}-crawl-map.json`, chunks: chunks() };
  }

  /**
   * The error ledger of a crawl or batch (at most `limit` of each kind): its failed pages, and the URLs
   * robots.txt kept it from (skipped `robots`). Firecrawl's /crawl/{id}/errors reads it (docs/firecrawl.md).
   */
  async failures(caller: Caller, jobId: string, limit: number): Promise<{ failed: CrawlMapFailure[]; robotsBlocked: string[] }> {
    const job = await this.jobs.getRecord(caller, jobId);
    if (!onCrawlEngine(job.type)) throw Errors.notFound('Crawl map');
    const owner = { userId: job.user_id };
    const failed: CrawlMapFailure[] = [];
    for await (const entry of this.repository.map.iterateMap(owner, jobId, { status: 'failed', limit })) {
      failed.push({
        id: entry.key,
        url: entry.url,
        error_category: entry.error_category,
        error_message: entry.error_message,
        completed_at: entry.completed_at,
      });
    }
    const robotsBlocked: string[] = [];
    for await (const entry of this.repository.map.iterateMap(owner, jobId, { status: 'skipped' })) {
      if (entry.error_category === 'robots') robotsBlocked.push(entry.url);
      if (robotsBlocked.length >= limit) break;
    }
    return { failed, robotsBlocked };
  }
}

/** A failed page of a crawl or batch, as the error ledger lists it. */
export interface CrawlMapFailure {
  id: string;
  url: string;
  error_category: string | null;
  error_message: string | null;
  completed_at: string | null;
}

export function toEntryView(entry: CrawlEntry) {
  return {
    id: entry.key,
    url: entry.url,
    parent_url: entry.parent_url,
    status: entry.status,
    depth: entry.depth,
    llm_model: entry.llm_model,
    llm_provider: entry.llm_provider,
    error_category: entry.error_category,
    error_message: entry.error_message,
    error_details: entry.error_details,
    fetch_duration_ms: entry.fetch_duration_ms,
    extract_duration_ms: entry.extract_duration_ms,
    token_usage_input: entry.token_usage_input,
    token_usage_output: entry.token_usage_output,
    discovered_at: entry.discovered_at,
    completed_at: entry.completed_at,
    http_status: entry.http_status,
    final_url: entry.final_url,
    method: entry.method,
    model_call: entry.model_call ?? (entry.method === 'model' ? 'full' : null),
    result_id: entry.result_id,
    rate_limited: entry.rate_limited,
    ungrounded_fields: typeof entry.ungrounded_fields === 'number' ? entry.ungrounded_fields : null,
    items_missing: typeof entry.items_missing === 'number' ? entry.items_missing : null,
    via: entry.via,
    list_index: entry.list_index ?? null,
    duplicate_of: entry.duplicate_of ?? null,
    duplicate_reason: entry.duplicate_reason ?? null,
    similarity: typeof entry.similarity === 'number' ? entry.similarity : null,
  };
}

/** The crawl input of a job with a map; a job refused before it started (a monitor's run, docs/monitors.md) has neither. */
function mapInput(raw: unknown): ReturnType<typeof parseCrawlInput> {
  try {
    return parseCrawlInput(raw);
  } catch {
    throw Errors.notFound('Crawl map');
  }
}
