import { Injectable } from '@nestjs/common';
import { Usage } from '@app/core';
import { completedResult, failedResult, PageExtractor, PageFailure, type FormatsPagePlan, type ModelPagePlan } from '@app/extraction';
import { openFetchControl } from '@app/fetch';
import { finalJobError, type JobContext, type JobHandler } from '@app/jobs';
import { loadOptionsFor, PageLoaderService } from '@app/pages';
import { ResultsService } from '@app/results';
import { parseScrapeInput, type ScrapeJobInput, type ScrapeJsonInput } from './scrape-job-input';

/** Whose learned trust a scrape's `json` format would use: none, it is always the model's (extraction_mode model). */
const SCRAPE_CONSUMER = 'scrape';

/** The `json` format's model plan (docs/scrape.md "The json format"). */
function jsonPlan(json: ScrapeJsonInput): ModelPagePlan {
  return {
    kind: 'model',
    schema: json.schema,
    llmConfig: json.llm_config,
    mode: 'model',
    consumer: SCRAPE_CONSUMER,
    settings: { provenance: json.provenance, grounding: json.grounding },
    ...(json.prompt ? { instructions: json.prompt } : {}),
  };
}

/**
 * Runs a `scrape` job: its one page through the page pipeline (docs/architecture.md "The page pipeline"), loaded
 * with the request's fetch control (the browser when a screenshot or wait_for asks for it) and made into the
 * requested formats, then recorded as the job's result. No model call and no cost, but for the `json` format (its
 * tokens and cost are the job's, a failed model call's too).
 */
@Injectable()
export class ScrapeJobHandler implements JobHandler<ScrapeJobInput> {
  readonly type = 'scrape';
  readonly parseInput = parseScrapeInput;

  constructor(
    private readonly loader: PageLoaderService,
    private readonly extractor: PageExtractor,
    private readonly results: ResultsService,
  ) {}

  async run({ job, input, signal, jobs, secrets }: JobContext<ScrapeJobInput>): Promise<void> {
    // Recorded by an earlier delivery that did not get to finish the job (a crash or a store outage in
    // between): only the finish is left (see ExtractJobHandler).
    if (job.page_count > 0) return;
    let url = input.url;
    // One page per scrape job: the screenshot's id is derived from the job, so a run redone after a crash stores it once.
    const plan: FormatsPagePlan = {
      kind: 'formats',
      formats: input,
      screenshotId: `${job._id}-1`,
      withFetchDuration: true,
      ...(input.json ? { json: jsonPlan(input.json) } : {}),
    };
    // What a failed model call of the json format cost (it was billed): counted with the failed page.
    let failedUsage = Usage.NONE;
    try {
      const control = openFetchControl(input.fetch_control, secrets, { owner: job.user_id, job: job._id });
      const page = await this.loader.load(input.url, input.fetch_mode, {
        signal,
        ...loadOptionsFor(input),
        control: { ...control, ...(input.timeout_ms !== null ? { timeoutMs: input.timeout_ms } : {}) },
      });
      url = page.fetch.url;
      const extracted = await this.extractor.extract(page, plan, { job, secrets, signal });
      if (extracted instanceof PageFailure) {
        failedUsage = extracted.usage ?? Usage.NONE;
        throw extracted.thrown;
      }
      const placement = {
        url,
        depth: 0,
        parentUrl: null,
        fetchDurationMs: page.fetchDurationMs,
        extractDurationMs: extracted.made.convert_duration_ms,
        requestWarnings: input.json?.warnings ?? [],
      };
      await this.results.record(job, completedResult(extracted, placement));
      await jobs.recordUsage(job._id, {
        page_count: 1,
        ...Usage.toCounters(extracted.usage),
        ...(extracted.provenance ? { ungrounded_fields: extracted.provenance.ungrounded_fields } : {}),
      });
    } catch (error) {
      const failure = finalJobError(error, 'Scrape');
      await this.results.record(
        job,
        failedResult(url, { category: failure.category ?? 'internal', message: failure.detail ?? failure.message }),
      );
      await jobs.recordUsage(job._id, { failed_count: 1, ...Usage.toCounters(failedUsage) });
      throw failure;
    }
  }
}
