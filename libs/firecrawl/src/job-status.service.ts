import { Injectable } from '@nestjs/common';
import type { Caller } from '@app/auth';
import { Errors } from '@app/core';
import { CrawlMapService } from '@app/crawl';
import { JobsService, onCrawlEngine, type JobRecord } from '@app/jobs';
import { publicBaseUrl, ResultsService, ScreenshotsService, type RequestOrigin, type ResultItem } from '@app/results';
import { APP_CONFIG, type AppConfig } from '@app/config';
import { Inject } from '@nestjs/common';
import { FirecrawlJobsRepository } from './firecrawl-jobs.repository';
import { firecrawlStatus, itemDocument, planOfJob } from './job-documents';
import { parseWith } from './wire/errors';
import { statusQuerySchema } from './wire/requests';
import type { CancelledResponse, ErrorsResponse, JobSnapshot, JobStatusResponse } from './wire/responses';

/** Documents per status read when the caller gives no `limit` (the SDK follows `next` for the rest). */
export const STATUS_PAGE_SIZE = 100;
/** Errors and robots-blocked URLs listed at most by /errors. */
const MAX_ERRORS = 1000;

export type JobKind = 'crawl' | 'batch';

/**
 * The reads of a /v2 crawl or batch (GET status with `next`, DELETE, GET errors) on the Gleaner job: any
 * crawl-engine job of the caller (one made by Gleaner's own API too), its results paged in finishing order.
 */
@Injectable()
export class FirecrawlJobStatusService {
  constructor(
    private readonly jobs: JobsService,
    private readonly results: ResultsService,
    private readonly screenshots: ScreenshotsService,
    private readonly maps: CrawlMapService,
    private readonly notes: FirecrawlJobsRepository,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  async status(caller: Caller, kind: JobKind, jobId: string, query: unknown, origin: RequestOrigin): Promise<JobStatusResponse> {
    const { skip = 0, limit = STATUS_PAGE_SIZE } = parseWith(statusQuerySchema, query, 'query');
    const { job, items, more } = await this.results.page(caller, jobId, skip, limit);
    if (!onCrawlEngine(job.type)) throw Errors.notFound('Job');
    const base = publicBaseUrl(this.config.publicUrl, origin, this.config.port);
    const path = kind === 'crawl' ? 'crawl' : 'batch/scrape';
    return {
      ...(await this.snapshot(caller, job, items, origin)),
      next: more ? `${base}/v2/${path}/${job._id}?skip=${skip + items.length}${limit !== STATUS_PAGE_SIZE ? `&limit=${limit}` : ''}` : null,
    };
  }

  /** The job's counts and these results as Documents (also what the WebSocket watcher sends). */
  async snapshot(caller: Caller, job: JobRecord, items: ResultItem[], origin: RequestOrigin): Promise<JobSnapshot> {
    const note = await this.notes.find(caller.userId, job._id);
    const { plan, jsonOnly } = planOfJob(job, note);
    const link = (id: string) => this.screenshots.signedLink(id, origin).url;
    const status = firecrawlStatus(job.status);
    return {
      success: true,
      status,
      completed: job.page_count,
      // URLs still queued count while the job runs; once it ended, what was skipped is not part of its total.
      total: job.page_count + job.failed_count + (status === 'scraping' ? job.urls_queued : 0),
      // A page the model read (json, alone or beside other formats) is five credits, as Firecrawl counts.
      creditsUsed: job.page_count * (jsonOnly || plan.wanted.has('json') ? 5 : 1),
      data: items.map((item) => itemDocument(job, item, plan, jsonOnly, link)),
      ...(status === 'failed' && job.error_message ? { error: job.error_message } : {}),
    };
  }

  /** DELETE: cancels the job (Firecrawl answers `{status: "cancelled"}`); one already ended is a 409. */
  async cancel(caller: Caller, jobId: string): Promise<CancelledResponse> {
    const job = await this.jobs.getRecord(caller, jobId);
    if (!onCrawlEngine(job.type)) throw Errors.notFound('Job');
    await this.jobs.cancel(caller, jobId);
    return { success: true, status: 'cancelled' };
  }

  /** GET errors: the failed pages of the crawl map and the URLs robots.txt ruled out. */
  async errors(caller: Caller, jobId: string): Promise<ErrorsResponse> {
    const { failed, robotsBlocked } = await this.maps.failures(caller, jobId, MAX_ERRORS);
    return {
      success: true,
      errors: failed.map((entry) => ({
        id: entry.id,
        ...(entry.completed_at ? { timestamp: entry.completed_at } : {}),
        url: entry.url,
        ...(entry.error_category ? { code: entry.error_category } : {}),
        error: entry.error_message ?? entry.error_category ?? 'failed',
      })),
      robotsBlocked,
    };
  }
}
