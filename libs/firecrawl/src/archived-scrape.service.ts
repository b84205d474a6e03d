import { Injectable } from '@nestjs/common';
import { PageArchive, type ArchivedPageRecord } from '@app/archive';
import type { Caller } from '@app/auth';
import { BatchRequestDto, BatchRequestsService, canonicalize, ReextractRequestsService } from '@app/crawl';
import { completedPage, JobIntakeService } from '@app/intake';
import type { PageFormatsPlan } from '@app/pages';
import type { JsonSchemaObject } from '@app/schema';
import { FirecrawlJobsRepository } from './firecrawl-jobs.repository';
import { ResultsService, ScreenshotsService, type RequestOrigin } from '@app/results';
import { asGleanerDto } from './gleaner-dto';
import type { GleanerPage } from './translate/document';
import { fetchFields } from './translate/fetch-options';
import type { FormatPlan } from './translate/formats';
import type { ScrapeOptions } from './wire/scrape-options';

/** A scrape request in the terms this service needs: its URL and fetch options. */
type ScrapeAsked = ScrapeOptions & { url: string };

/**
 * The scrapes of /v2 that use the page archive (docs/firecrawl.md "maxAge and change tracking"):
 * - a page kept: a live fetch as a one-URL `batch` job with formats, which keeps its page in the archive
 *   (Gleaner's scrape job keeps none);
 * - a page served from the archive: a `reextract` job that converts the tenant's archived copy into the
 *   formats asked for, without a request to the site.
 * Both are Gleaner jobs like any (listed, streamed, deleted with their archived pages); the answer waits for
 * them as POST /scrape waits for its job.
 */
@Injectable()
export class FirecrawlArchivedScrapes {
  constructor(
    private readonly archive: PageArchive,
    private readonly batches: BatchRequestsService,
    private readonly reextracts: ReextractRequestsService,
    private readonly intake: JobIntakeService,
    private readonly results: ResultsService,
    private readonly screenshots: ScreenshotsService,
    private readonly notes: FirecrawlJobsRepository,
  ) {}

  /** The tenant's newest kept copy of the URL (as asked, or canonical), fetched at or after `since` when given. */
  latest(caller: Caller, url: string, since: Date | null = null): Promise<ArchivedPageRecord | null> {
    const canonical = canonicalize(url)?.url;
    return this.archive.latest(caller.userId, canonical ? [url, canonical] : [url], since?.toISOString() ?? null);
  }

  /**
   * The newest copy of the URL in the caller's change-tracking history `tag`: kept by a tagged `changeTracking`
   * scrape (tracked(), below), whatever other jobs kept since.
   */
  async latestTracked(caller: Caller, url: string, tag: string): Promise<ArchivedPageRecord | null> {
    const canonical = canonicalize(url)?.url;
    const jobs = await this.notes.trackedJobs(caller.userId, tag, url);
    return this.archive.latest(caller.userId, canonical ? [url, canonical] : [url], null, jobs);
  }

  /** Records a kept page's job in the caller's change-tracking history `tag` of the URL. */
  async tracked(caller: Caller, page: GleanerPage, plan: FormatPlan, tag: string): Promise<void> {
    await this.notes.insert({
      _id: page.jobId,
      user_id: caller.userId,
      kind: 'tracked',
      formats: [...plan.wanted],
      json_only: false,
      tag,
      url: page.requestedUrl,
      created_at: new Date().toISOString(),
    });
  }

  /** Whether the server keeps pages at all (GLEANER_ARCHIVE_TTL_DAYS > 0). */
  get enabled(): boolean {
    return this.archive.enabled;
  }

  /** A live fetch of the page that keeps it in the archive: a one-URL batch job with the formats. */
  async fetchAndKeep(
    caller: Caller,
    request: ScrapeAsked,
    plan: FormatPlan,
    requestId: string,
    origin: RequestOrigin,
    /** With the json format: the schema extracted from the page (a change-tracking json mode). */
    schema: Record<string, unknown> | null = null,
  ): Promise<GleanerPage> {
    const fetch = fetchFields(request);
    const dto = await asGleanerDto(BatchRequestDto, {
      urls: [request.url],
      formats: schema ? [...plan.gleanerFormats, 'json'] : plan.gleanerFormats,
      ...(schema ? { schema } : {}),
      ...(plan.fullPageScreenshot ? { full_page_screenshot: true } : {}),
      ...(fetch.only_main_content !== undefined ? { only_main_content: fetch.only_main_content } : {}),
      ...(fetch.include_tags ? { include_tags: fetch.include_tags } : {}),
      ...(fetch.exclude_tags ? { exclude_tags: fetch.exclude_tags } : {}),
      // A scrape is not held to robots.txt (POST /scrape is not either); the page is kept whatever the site's default.
      options: {
        archive: true,
        respect_robots: false,
        ...(fetch.headers ? { headers: fetch.headers } : {}),
        ...(fetch.wait_for ? { wait_for: fetch.wait_for } : {}),
      },
    });
    const started = await this.batches.start(caller, dto, {}, requestId, origin);
    return this.pageOf(caller, started.body.job_id, request.url, origin, null);
  }

  /** The archived copy converted into the formats asked for (a `reextract` job: no request to the site, no model). */
  async fromArchive(
    caller: Caller,
    record: ArchivedPageRecord,
    request: ScrapeAsked,
    formats: PageFormatsPlan['formats'],
    requestId: string,
    origin: RequestOrigin,
    /** With `json` among the formats: its schema (extracted by the caller's model chain). */
    schema: JsonSchemaObject | null = null,
  ): Promise<GleanerPage> {
    const fetch = fetchFields(request);
    const plan: PageFormatsPlan = {
      formats,
      only_main_content: request.onlyMainContent ?? true,
      full_page_screenshot: false,
      ...(fetch.include_tags ? { include_tags: fetch.include_tags } : {}),
      ...(fetch.exclude_tags ? { exclude_tags: fetch.exclude_tags } : {}),
    };
    const { job_id } = await this.reextracts.formatsOfPage(caller, record, plan, requestId, schema);
    return this.pageOf(caller, job_id, request.url, origin, record.fetched_at);
  }

  /** The one page of a finished one-page job (a failed job is its failure, as POST /scrape answers it). */
  private async pageOf(
    caller: Caller,
    jobId: string,
    requestedUrl: string,
    origin: RequestOrigin,
    cachedAt: string | null,
  ): Promise<GleanerPage> {
    const job = await this.intake.awaitJob(jobId);
    const item = completedPage(job._id, await this.results.firstOf(job));
    const metadata = (item.metadata ?? {}) as Record<string, unknown>;
    const screenshotId = typeof metadata.screenshot_id === 'string' ? metadata.screenshot_id : null;
    return {
      url: typeof metadata.final_url === 'string' ? metadata.final_url : item.url,
      requestedUrl,
      data: item.data ?? {},
      metadata,
      jobId: job._id,
      screenshotUrl: screenshotId ? this.screenshots.signedLink(screenshotId, origin).url : null,
      cachedAt,
    };
  }
}
