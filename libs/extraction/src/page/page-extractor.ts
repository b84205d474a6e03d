import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '@app/config';
import { AppError, isStoreUnavailable, Usage, warning, type Warning } from '@app/core';
import { consumerSession, learnedTemplates, type LearnedResult, type ModelRequest } from '@app/learned';
import { llmConfigFor } from '@app/llm';
import { LOGGER, METRICS, type AppLogger, type Metrics } from '@app/observability';
import { buildFormats, type LoadedPage, type PageLoaderService } from '@app/pages';
import { ScreenshotsService, type ResultsService } from '@app/results';
import { isSchemaFromPrompt, type JsonSchemaObject } from '@app/schema';
import type { DocumentStore } from '@app/storage';
import { ExtractionFailure, type ExtractionService } from '../extraction.service';
import type { GroundingService } from '../grounding.service';
import { listOutcomes, type ListOutcomes } from '../lists/list-metrics';
import { programListReport } from '../lists/program-lists';
import { captureRecorder } from './capture';
import { PageRecords, PageSteps } from './page-extractor-parts';
import { listStep, type ListedCall } from './list-step';
import { joined } from './joined-runs';
import { proposeSchema, type ProposedSchema } from './schema-proposal';
import {
  formatsMade,
  PageFailure,
  type DuplicateMade,
  type ExtractionMade,
  type FormatsMade,
  type PageExtraction,
} from './page-extraction';
import type { FormatsPagePlan, ModelPagePlan, PagePlan, PageRun } from './page-plan';

/**
 * The page pipeline's extraction step (docs/architecture.md "The page pipeline"): one loaded page and its job's
 * plan in, the page's extraction (or its failure) out, for every job type. Model pages go through the model chain
 * or, with extraction_mode auto, the user's learned programs; every model call is recorded for debug capture; the
 * data is grounded on what the model was given; formats pages are built and their screenshot stored. Where the
 * outcome goes (a job's result, a crawl page's outcome) is its caller's business. A store outage is never the
 * page's failure: it is thrown on.
 */
@Injectable()
export class PageExtractor {
  private readonly listOutcomes: ListOutcomes;
  private readonly extraction: ExtractionService;
  private readonly grounding: GroundingService;
  private readonly loader: Pick<PageLoaderService, 'convert'>;
  private readonly results: ResultsService;
  private readonly screenshots: ScreenshotsService;
  private readonly store: DocumentStore;

  constructor(
    steps: PageSteps,
    records: PageRecords,
    @Inject(LOGGER) private readonly logger: AppLogger,
    @Inject(APP_CONFIG) private readonly config: Pick<AppConfig, 'listItemsPerCall'>,
    @Inject(METRICS) metrics: Metrics,
  ) {
    ({ extraction: this.extraction, grounding: this.grounding, loader: this.loader } = steps);
    ({ results: this.results, screenshots: this.screenshots, store: this.store } = records);
    this.listOutcomes = listOutcomes(metrics);
  }

  extract(page: LoadedPage, plan: ModelPagePlan, run: SinglePageRun): Promise<PageExtraction<ExtractionMade> | PageFailure>;
  extract(page: LoadedPage, plan: FormatsPagePlan, run: SinglePageRun): Promise<PageExtraction<FormatsMade> | PageFailure>;
  extract(page: LoadedPage, plan: PagePlan, run: PageRun): Promise<PageExtraction | PageFailure>;
  async extract(page: LoadedPage, plan: PagePlan, run: PageRun): Promise<PageExtraction | PageFailure> {
    // The check before the model call: a page that repeats an earlier page of its job is settled here, for nothing.
    const duplicate = run.duplicates ? await run.duplicates.check(page) : null;
    if (duplicate) return duplicateOf(duplicate);
    return plan.kind === 'formats' ? this.formats(page, plan, run) : this.model(page, plan, run);
  }

  /**
   * The page's formats (docs/scrape.md). Without `json` no model is called and nothing costs; with it the model step
   * makes `data.json`, and the page's model, usage, provenance and warnings are that step's (a model failure is the
   * page's). The PNG of a screenshot is stored after the model answered and before the data names it.
   */
  private async formats(page: LoadedPage, plan: FormatsPagePlan, run: PageRun): Promise<PageExtraction<FormatsMade> | PageFailure> {
    const screenshotId = page.fetch.screenshot ? plan.screenshotId : null;
    try {
      const data = buildFormats(page, plan.formats.formats, screenshotId ? ScreenshotsService.path(run.job._id, screenshotId) : null);
      // The json format reads the main content by default: a list it cuts is counted on the whole page (docs/long-lists.md).
      const mainOnly = plan.formats.only_main_content && !plan.formats.include_tags?.length && !plan.formats.exclude_tags?.length;
      const wholePage = mainOnly ? async () => (await this.loader.convert(page.fetch, { mode: 'full' })).markdown : undefined;
      const json = plan.json ? await this.model(page, plan.json, run, wholePage) : null;
      if (json instanceof PageFailure) return json;
      if (screenshotId) await this.screenshots.store(run.job, screenshotId, page.fetch.screenshot!);
      const made = formatsMade(page, screenshotId, plan.withFetchDuration ? page.fetchDurationMs : undefined);
      const empty = mainOnly ? emptyMainContent(page, plan.formats.formats) : [];
      if (!json) return { data, made, model: null, usage: Usage.NONE, ...(empty.length > 0 ? { warnings: empty } : {}) };
      const { made: by, data: extracted, ...model } = json;
      if (empty.length > 0) model.warnings = [...empty, ...(model.warnings ?? [])];
      // The model call the json format made (none when a learned program filled it): counted as a model page's,
      // and named in the page's metadata (a formats item has no other place for it).
      const call = {
        ...(json.model ? { model_call: by.model_call ?? ('full' as const), model: json.model.model, provider: json.model.provider } : {}),
        ...(by.schema ? { schema: by.schema } : {}),
      };
      return { ...model, data: { ...data, json: extracted }, made: { ...made, ...call } };
    } catch (error) {
      // Too large to store (content_too_large) is the page's; anything else (the store) is thrown on.
      if (!(error instanceof AppError)) throw error;
      return new PageFailure('page', error, null, [], error);
    }
  }

  /**
   * The model chain (or the learned programs) on the page's markdown, grounded on what the model was given
   * (docs/provenance.md, docs/learned-extraction.md). The model plan is resolved at the first model call: a page a
   * learned program fills alone needs none.
   */
  private async model(
    page: LoadedPage,
    plan: ModelPagePlan,
    run: PageRun,
    wholePage?: () => Promise<string>,
  ): Promise<PageExtraction<ExtractionMade> | PageFailure> {
    const { job, secrets, signal } = run;
    const url = page.fetch.url;
    const llmConfig = llmConfigFor(plan.llmConfig, secrets);
    const onCall = captureRecorder(this.results, job, { url, fetchMode: page.fetch.mode, schema: JSON.stringify(plan.schema) }, secrets);
    const groundingPage = this.grounding.pageOf(url, page.content);
    // The model calls whose answers are in the data (a long list's chunks: several), and what they were given.
    let listed: ListedCall | undefined;
    // A prompt without a schema: the schema the model proposes for this page (schema-proposal.ts), then used as a given one.
    const fromPrompt = isSchemaFromPrompt(plan.schema);
    let schema: JsonSchemaObject = plan.schema;
    let proposal: ProposedSchema | undefined;
    const targetsOf = () => (run.plans ? run.plans.get(() => this.extraction.plan(job.user_id, llmConfig)) : Promise.resolve(undefined));
    // A learned partial call asks for some fields only, or sends the page's text around their values (an excerpt).
    const callModel = async (request?: ModelRequest): Promise<unknown> => {
      const targets = await targetsOf();
      const excerpt = request?.excerpt !== undefined;
      listed = await listStep({
        extraction: this.extraction,
        markdown: page.content.markdown,
        schema: request?.schema ?? schema,
        // Lists are counted and chunked on the whole page only: an excerpt is a few values' surroundings.
        lists: !excerpt,
        itemsPerCall: this.config.listItemsPerCall,
        ...(wholePage && !excerpt ? { wholePage } : {}),
        maxCostUsd: plan.maxCostUsd ?? null,
        targets,
        plan: () => this.extraction.plan(job.user_id, llmConfig),
        input: {
          userId: job.user_id,
          url,
          content: request?.excerpt ?? page.content.markdown,
          schema: request?.schema ?? schema,
          llmConfig,
          signal,
          onCall,
          ...(excerpt ? { excerpt: true } : {}),
          ...(request?.kind === 'partial' ? { partial: true } : {}),
          ...(plan.instructions ? { instructions: plan.instructions } : {}),
        },
      });
      return listed.data;
    };
    try {
      let data: unknown;
      let made: ExtractionMade;
      let rules: LearnedResult['rules'];
      if (fromPrompt) {
        proposal = await proposeSchema(
          this.extraction,
          { userId: job.user_id, url, content: page.content.markdown, llmConfig, signal, onCall, prompt: plan.instructions ?? '' },
          await targetsOf(),
        );
        schema = proposal.schema;
      }
      // Learned programs are kept per schema: a schema proposed page by page has none (the intake refuses auto with it).
      if (plan.mode === 'auto' && !fromPrompt) {
        const session = consumerSession(
          await learnedTemplates(this.store),
          { userId: job.user_id, schema: plan.schema, consumer: plan.consumer },
          async (request) => (await callModel(request)) as Record<string, unknown>,
        );
        const learned = await session.extract(url, page.fetch.html, { grounded: this.grounding.learnedGuard(groundingPage) });
        ({ data, rules } = learned);
        made = madeBy(learned);
      } else {
        data = await callModel();
        made = { method: 'model' };
      }
      const out = listed?.answering;
      const proposed = proposal ? Usage.of(joined(proposal.summaries)) : Usage.NONE;
      const usage = Usage.add(proposed, listed ? listed.usage : Usage.NONE);
      const attempts = [...(proposal?.summaries.flatMap((s) => s.attempts) ?? []), ...(listed?.attempts ?? [])];
      if (proposal) made = { ...made, schema };
      const grounded = this.grounding.ground({
        page: groundingPage,
        data,
        schema,
        settings: plan.settings,
        call: listed?.call,
        rules,
      });
      if (grounded.failure) {
        // `grounding: fail_page` and a value not on the page: the model call is paid for (docs/provenance.md "Policies").
        return new PageFailure('grounding', grounded.failure, usage, attempts, grounded.failure, grounded.metadata.ungrounded_fields);
      }
      // A learned program's lists (no model call made them, or a partial one on an excerpt): checked against the page's count.
      const programLists =
        listed?.items || made.method === 'model' ? null : programListReport(page.content.markdown, schema, grounded.data);
      const items = listed?.items ?? programLists?.items;
      if (items) this.listOutcomes.count(items);
      const warnings: Warning[] = [...(listed?.warnings ?? []), ...(programLists?.warnings ?? [])];
      const completeness = programLists ? { ...listed?.completeness, items: programLists.items } : listed?.completeness;
      return {
        data: grounded.data,
        made,
        model: out ? { provider: out.target.provider, model: out.target.model } : null,
        usage,
        provenance: grounded.metadata,
        // The warnings of the calls whose answers are in the data (their text cut to fit the model, a list left incomplete).
        ...(warnings.length > 0 ? { warnings } : {}),
        ...(completeness ? { completeness } : {}),
        run: { isByok: out?.isByok ?? false, attempts },
      };
    } catch (error) {
      if (isStoreUnavailable(error)) throw error;
      // The extraction after a proposed schema failed: the proposal's calls were billed too.
      if (proposal && error instanceof ExtractionFailure)
        return this.failure(new ExtractionFailure(error, joined([...proposal.summaries, error.summary])), run, url);
      return this.failure(error, run, url);
    }
  }

  private failure(error: unknown, run: PageRun, url: string): PageFailure {
    if (error instanceof ExtractionFailure) {
      return new PageFailure('model', error, error.summary ? Usage.of(error.summary) : null, error.summary?.attempts ?? [], error);
    }
    if (error instanceof AppError) return new PageFailure('page', error, null, [], error);
    this.logger.error({ err: error, job_id: run.job._id, url }, 'page extraction failed unexpectedly');
    const internal = new AppError('internal-error', 'Extraction failed unexpectedly.', {
      category: 'internal',
      retryable: true,
      cause: error,
    });
    return new PageFailure('page', internal, null, [], error);
  }
}

/** A page of a single-page job: no earlier page to repeat. */
type SinglePageRun = PageRun & { duplicates?: undefined };

/** The formats that show the page's content (the main content, with only_main_content). */
const CONTENT_FORMATS: readonly string[] = ['markdown', 'text', 'html', 'json'];

/**
 * The warning of an HTML page whose main content is empty (libs/content structure/no-main-content.ts: its HTML
 * holds only chrome, a script-rendered shell): the content formats asked for are empty, and the json format's model
 * read nothing. None for other pages, or when no content format was asked for.
 */
function emptyMainContent(page: LoadedPage, formats: readonly string[]): Warning[] {
  if (!formats.some((f) => CONTENT_FORMATS.includes(f)) || !/html/.test(page.fetch.contentType ?? '')) return [];
  if (/[\p{L}\p{N}]/u.test(page.content.markdown)) return [];
  const how = page.fetch.mode === 'dynamic' ? 'even rendered by the browser' : 'fetched without a browser';
  return [
    warning(
      'main_content_empty',
      `The page's HTML (${how}) holds no main content, only navigation, footers or a notice to turn on JavaScript: its content formats are empty.` +
        (page.fetch.mode === 'dynamic' ? '' : ' If its scripts draw the content, fetch_mode dynamic renders it.'),
    ),
  ];
}

/** A duplicate page's extraction: no data of its own, no model call, no cost. */
function duplicateOf(made: DuplicateMade): PageExtraction<DuplicateMade> {
  return { data: null, made, model: null, usage: Usage.NONE };
}

/** How a learned extraction made the page (the result's `metadata`, docs/api.md "Results and downloads"). */
export function madeBy(learned: LearnedResult): ExtractionMade {
  return {
    method: learned.method,
    ...(learned.programId ? { program_id: learned.programId } : {}),
    template_id: learned.templateId,
    ...(learned.modelFields ? { model_fields: learned.modelFields } : {}),
    ...(learned.call ? { model_call: learned.call } : {}),
  };
}
