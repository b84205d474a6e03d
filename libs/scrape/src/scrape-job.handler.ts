import { Injectable } from '@nestjs/common';
import { finalJobError } from '@app/extraction';
import { fetchControlFor, type RenderMode } from '@app/fetch';
import type { JobContext, JobHandler } from '@app/jobs';
import { buildFormats, loadOptionsFor, PageLoaderService, type LoadedPage } from '@app/pages';
import { ResultsService, ScreenshotsService } from '@app/results';
import { parseScrapeInput, type ScrapeJobInput } from './scrape-job-input';

/** How the page was made into its formats: the scrape result's `metadata` (docs/scrape.md "Answer"). */
export interface ScrapeMade {
  method: 'scrape';
  fetched_at: string;
  fetch_mode: RenderMode;
  status_code: number;
  content_type: string;
  fetch_duration_ms: number;
  convert_duration_ms: number;
  screenshot_id?: string;
}

/**
 * Runs a `scrape` job: load the page with the request's fetch control (the browser when a screenshot
 * or wait_for asks for it), convert it into the requested formats, store the screenshot, record the
 * result. No model call, no cost.
 */
@Injectable()
export class ScrapeJobHandler implements JobHandler<ScrapeJobInput> {
  readonly type = 'scrape';
  readonly parseInput = parseScrapeInput;

  constructor(
    private readonly loader: PageLoaderService,
    private readonly results: ResultsService,
    private readonly screenshots: ScreenshotsService,
  ) {}

  async run({ job, input, signal, jobs, secrets }: JobContext<ScrapeJobInput>): Promise<void> {
    // Recorded by an earlier delivery that did not get to finish the job (a crash or a store outage in
    // between): only the finish is left (see ExtractJobHandler).
    if (job.page_count > 0) return;
    let url = input.url;
    try {
      const control = fetchControlFor(input.fetch_control, secrets);
      const page: LoadedPage = await this.loader.load(input.url, input.fetch_mode, {
        signal,
        ...loadOptionsFor(input),
        control: { ...control, ...(input.timeout_ms !== null ? { timeoutMs: input.timeout_ms } : {}) },
      });
      url = page.fetch.url;
      // One page per scrape job: the screenshot's id is derived from the job, so a run redone after a crash stores it once.
      const screenshotId = page.fetch.screenshot ? `${job._id}-1` : undefined;
      const data = buildFormats(page, input.formats, screenshotId ? ScreenshotsService.path(job._id, screenshotId) : null);
      if (screenshotId) await this.screenshots.store(job, screenshotId, page.fetch.screenshot!);
      const made: ScrapeMade = {
        method: 'scrape',
        fetched_at: page.fetchedAt,
        fetch_mode: page.fetch.mode,
        status_code: page.fetch.status,
        content_type: page.fetch.contentType,
        fetch_duration_ms: page.fetchDurationMs,
        convert_duration_ms: Math.round(page.content.stats.ms),
        ...(screenshotId ? { screenshot_id: screenshotId } : {}),
      };
      await this.results.record(job, {
        url,
        status: 'completed',
        data,
        fetch_duration_ms: made.fetch_duration_ms,
        extract_duration_ms: made.convert_duration_ms,
        cost_usd: 0,
        metadata: { ...made },
      });
      await jobs.recordUsage(job._id, { page_count: 1 });
    } catch (error) {
      const failure = finalJobError(error, 'Scrape');
      await this.results.record(job, {
        url,
        status: 'failed',
        data: null,
        error_category: failure.category,
        error_message: failure.detail ?? failure.message,
      });
      await jobs.recordUsage(job._id, { failed_count: 1 });
      throw failure;
    }
  }
}
