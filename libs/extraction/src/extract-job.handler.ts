import { Inject, Injectable } from '@nestjs/common';
import { PageArchive } from '@app/archive';
import { APP_CONFIG, type AppConfig } from '@app/config';
import { AppError, Usage } from '@app/core';
import { openFetchControl, RobotsCache, sideReadFetcher } from '@app/fetch';
import { finalJobError, type JobCompletion, type JobContext, type JobHandler } from '@app/jobs';
import { EXTRACTS_CONSUMER } from '@app/learned';
import { LOGGER, type AppLogger } from '@app/observability';
import { PageLoaderService, type LoadedPage } from '@app/pages';
import { POLITENESS, type PolitenessPort } from '@app/politeness';
import { ResultsService, SINGLE_PAGE_KEY } from '@app/results';
import type { ExtractionFacts } from './extraction-facts';
import { parseExtractInput, type ExtractJobInput } from './job-inputs';
import { keepPage } from './page/keep-page';
import { PageFollower } from './pagination/page-follower';
import { completedResult, failedResult, PageFailure, type ExtractionMade, type PageExtraction } from './page/page-extraction';
import { PageExtractor } from './page/page-extractor';
import { pageLoadOptions, type ModelPagePlan } from './page/page-plan';

/** An extract's plan: its schema by the model chain, or (extraction_mode auto) the user's learned programs as the extracts consumer. */
export function extractPlan(input: ExtractJobInput): ModelPagePlan {
  return {
    kind: 'model',
    schema: input.schema,
    llmConfig: input.llm_config,
    mode: input.extraction_mode,
    consumer: EXTRACTS_CONSUMER,
    settings: { provenance: input.provenance, grounding: input.grounding },
    maxCostUsd: input.max_cost_usd,
    ...(input.prompt ? { instructions: input.prompt } : {}),
  };
}

/**
 * Runs an `extract` job: its one page through the page pipeline (docs/architecture.md "The page pipeline"):
 * loaded (and kept in the archive when asked, before the model runs: a page whose extraction fails can be read
 * back and extracted again), extracted, then recorded as the job's result, its usage and facts written with
 * the job's completion. A failure is the job's final answer (finalJobError).
 */
@Injectable()
export class ExtractJobHandler implements JobHandler<ExtractJobInput, ExtractionFacts> {
  readonly type = 'extract';
  readonly parseInput = parseExtractInput;

  constructor(
    private readonly loader: PageLoaderService,
    private readonly extractor: PageExtractor,
    private readonly results: ResultsService,
    private readonly archive: PageArchive,
    @Inject(LOGGER) private readonly logger: AppLogger,
    @Inject(POLITENESS) private readonly politeness: PolitenessPort,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  async run(context: JobContext<ExtractJobInput>): Promise<JobCompletion<ExtractionFacts> | void> {
    const { job, input, signal, jobs, secrets } = context;
    // Its page is recorded (result and usage) by an earlier delivery that did not get to finish the job (a
    // crash or a store outage in between): only the finish is left to do, and counting the page again is wrong.
    if (job.page_count > 0) return;
    const plan = extractPlan(input);
    const control = openFetchControl(input.fetch_control, secrets, { owner: job.user_id, job: job._id });
    const load = (url: string) =>
      this.loader.load(url, input.fetch_mode, {
        signal,
        control,
        keepRaw: input.archive,
        ...pageLoadOptions(plan),
        ...(input.paginate ? { nextSelector: input.paginate.selector } : {}),
      });
    // paginate: every page, the first included, fetched as a crawl fetches its pages (docs/long-lists.md "Pagination").
    const follower = input.paginate
      ? new PageFollower({
          politeness: this.politeness,
          robots: new RobotsCache({
            fetcher: sideReadFetcher(this.loader.fetcher.staticFetcher, control),
            userAgent: this.config.robotsUserAgent,
            errorTtlMs: this.config.robotsRetryMs,
          }),
          config: this.config,
          load,
          extract: (next) => this.extractor.extract(next, plan, { job, secrets, signal }),
          signal,
        })
      : null;
    let page: LoadedPage;
    try {
      page = follower ? await follower.fetch(input.url) : await load(input.url);
    } catch (error) {
      const failure = finalJobError(error, 'Extraction');
      await this.results.record(
        job,
        failedResult(input.url, { category: failure.category ?? 'internal', message: failure.detail ?? failure.message }),
      );
      await jobs.recordUsage(job._id, { failed_count: 1 });
      throw failure;
    }
    if (input.archive) await keepPage(this.archive, job, SINGLE_PAGE_KEY, input.url, page, this.logger);
    const started = Date.now();
    let extracted = await this.extractor.extract(page, plan, { job, secrets, signal });
    if (extracted instanceof PageFailure) return this.failed(context, page.fetch.url, extracted);
    if (follower && input.paginate) {
      extracted = await follower.gather(
        { url: page.fetch.url, extraction: extracted, page },
        input.paginate,
        input.max_cost_usd,
        input.schema,
      );
    }
    try {
      return await this.completed(context, page, extracted, Date.now() - started);
    } catch (error) {
      throw finalJobError(error, 'Extraction');
    }
  }

  /** The page's result, then its usage and facts for the job's completion (written with its status), or a budget failure. */
  private async completed(
    { job, input, jobs, startedNow }: JobContext<ExtractJobInput>,
    page: LoadedPage,
    extracted: PageExtraction<ExtractionMade>,
    extractDurationMs: number,
  ): Promise<JobCompletion<ExtractionFacts>> {
    const facts: ExtractionFacts = {
      fetched_at: page.fetchedAt,
      final_url: page.fetch.url,
      llm_model: extracted.model?.model ?? null,
      llm_provider: extracted.model?.provider ?? null,
      fetch_duration_ms: page.fetchDurationMs,
      extract_duration_ms: extractDurationMs,
      llm_cost_usd: extracted.usage.llmCostUsd,
      is_byok: extracted.run?.isByok ?? false,
      ...extracted.made,
    };
    const placement = {
      url: page.fetch.url,
      depth: 0,
      parentUrl: null,
      fetchDurationMs: page.fetchDurationMs,
      extractDurationMs,
      requestWarnings: input.warnings,
    };
    await this.results.record(job, completedResult(extracted, placement), { startedNow });
    const usage = { page_count: 1, ...Usage.toCounters(extracted.usage), ungrounded_fields: extracted.provenance?.ungrounded_fields ?? 0 };
    const set = { extraction: facts, attempts: extracted.run?.attempts ?? [] };
    const costUsd = extracted.usage.costUsd;
    if (input.max_cost_usd !== null && costUsd > input.max_cost_usd) {
      await jobs.recordUsage(job._id, usage, set);
      throw new AppError('validation-error', `The job cost ${costUsd.toFixed(6)} USD, over its cap of ${input.max_cost_usd} USD.`, {
        category: 'budget_exceeded',
      });
    }
    // Written with the job's completion, in the same write as its status.
    return { usage, set };
  }

  /**
   * A page whose model chain or grounding failed is the job's failed result, its failed calls counted on the job (they
   * were billed); an ungrounded page's item carries its call's usage (docs/provenance.md "Policies"). Any other
   * failure (no usable model, a bug) fails the job without a result.
   */
  private async failed({ job, jobs }: JobContext<ExtractJobInput>, url: string, failure: PageFailure): Promise<never> {
    if (failure.stage !== 'page') {
      const usage = failure.usage ?? Usage.NONE;
      await this.results.record(job, failedResult(url, failure, failure.stage === 'grounding' ? usage : undefined));
      await jobs.recordUsage(
        job._id,
        {
          failed_count: 1,
          ...Usage.toCounters(usage),
          ...(failure.ungroundedFields !== undefined ? { ungrounded_fields: failure.ungroundedFields } : {}),
        },
        { attempts: failure.attempts },
      );
    }
    throw finalJobError(failure.thrown, 'Extraction');
  }
}
