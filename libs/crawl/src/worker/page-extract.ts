import { AppError, isStoreUnavailable, type Warning } from '@app/core';
import {
  ExtractionFailure,
  captureRecorder,
  groundedCallOf,
  type ExtractionService,
  type ExtractOutput,
  type GroundedCall,
  type GroundedResult,
  type GroundingService,
} from '@app/extraction';
import type { JobRecord } from '@app/jobs';
import { crawlSession, learnedTemplates, type GroundingCheck, type LearnedResult, type ModelRequest } from '@app/learned';
import { llmConfigFor, type ModelTarget } from '@app/llm';
import type { AppLogger } from '@app/observability';
import type { LoadedPage } from '@app/pages';
import type { ResultsService } from '@app/results';
import type { DocumentStore } from '@app/storage';
import { extractionSchema, type CrawlJobInput } from '../crawl-input';
import type { PageOutcome, PageTaskPayload } from '../crawl.types';
import { isRetryableFailure } from '../page-retry-policy';

type Completed = Extract<PageOutcome, { kind: 'completed' }>;
type PageResult = Completed['result'] & object;

/** A crawl's model plan is resolved once per this long per process (not once per page). */
export const PLAN_CACHE_MS = 30_000;

/** What the extract stage needs of a page task's job; `plan` is its cache of the crawl's model plan. */
export interface ExtractContext {
  job: JobRecord;
  input: CrawlJobInput;
  plan?: { targets: ModelTarget[]; at: number };
}

/**
 * `grounding: fail_page` and a value not on the page: the page fails, not to be retried (the same answer would come
 * back), its model call paid for (docs/provenance.md "Policies").
 */
function ungroundedFailure(grounded: GroundedResult, status: number, url: string, result: PageResult): PageOutcome {
  const failure = grounded.failure!;
  return {
    kind: 'failed',
    error_category: 'ungrounded_output',
    error_message: failure.detail ?? failure.message,
    error_details: null,
    http_status: status,
    final_url: url,
    retryable: false,
    usage: { token_usage_input: result.token_usage_input, token_usage_output: result.token_usage_output, cost_usd: result.cost_usd },
    ungrounded_fields: grounded.metadata.ungrounded_fields,
  };
}

/**
 * A page task's extract stage (docs/crawl.md, docs/provenance.md, docs/learned-extraction.md): the model chain
 * (or the crawl's learned extraction) on the page's markdown, each call recorded for debug capture, the answer
 * grounded on what the model was given, and the outcome of an extraction that failed. A store outage or an abort
 * is not the page's failure: it is thrown on to the worker.
 */
export class PageExtract {
  constructor(
    private readonly extraction: Pick<ExtractionService, 'extract' | 'plan'>,
    private readonly grounding: GroundingService,
    private readonly results: ResultsService,
    private readonly store: DocumentStore,
    private readonly logger: AppLogger,
  ) {}

  /** The page's outcome: completed with its result and provenance, or failed; `started` is when the task's run began. */
  async extract(
    task: PageTaskPayload,
    context: ExtractContext,
    page: LoadedPage,
    base: Omit<Completed, 'kind' | 'extract_duration_ms' | 'result'>,
    signal: AbortSignal,
    secrets: Record<string, string>,
    started: number,
  ): Promise<PageOutcome> {
    const { input, job } = context;
    const options = input.options;
    const extractStarted = Date.now();
    const llmConfig = llmConfigFor(input.llm_config, secrets);
    const groundingPage = this.grounding.pageOf(page.fetch.url, page.content);
    // The model call whose answer is in the result, and what it was given (its values are grounded on that).
    let call: GroundedCall | undefined;
    // That call's warnings (its text cut to fit the model), for the page's result.
    let warnings: Warning[] = [];
    try {
      const targets = await this.plan(context, llmConfig);
      // A learned partial call asks for some fields only, or sends the page's text around their values (an excerpt).
      const callModel = async (request?: ModelRequest) => {
        const out = await this.extraction.extract(
          {
            userId: job.user_id,
            url: page.fetch.url,
            content: request?.excerpt ?? page.content.markdown,
            schema: request?.schema ?? extractionSchema(input),
            ...(request?.excerpt !== undefined ? { excerpt: true } : {}),
            ...(request?.kind === 'partial' ? { partial: true } : {}),
            llmConfig,
            signal,
            onCall: captureRecorder(
              this.results,
              job,
              { url: page.fetch.url, fetchMode: page.fetch.mode, schema: JSON.stringify(extractionSchema(input)) },
              secrets,
            ),
          },
          targets,
        );
        call = groundedCallOf(out, request?.excerpt !== undefined);
        warnings = out.warnings;
        return out;
      };
      let result: PageResult;
      let rules: LearnedResult['rules'];
      if (input.extraction_mode === 'auto') {
        ({ result, rules } = await this.extractLearned(
          context,
          page.fetch.url,
          page.fetch.html,
          callModel,
          this.grounding.learnedGuard(groundingPage),
        ));
      } else {
        const answer = await callModel();
        result = {
          data: answer.data,
          llm_model: answer.target.model,
          llm_provider: answer.target.provider,
          token_usage_input: answer.usage.inputTokens,
          token_usage_output: answer.usage.outputTokens,
          cost_usd: answer.costUsd,
          llm_cost_usd: answer.llmCostUsd,
        };
      }
      const grounded = this.grounding.ground({
        page: groundingPage,
        data: result.data,
        schema: extractionSchema(input),
        settings: { provenance: options.provenance, grounding: options.grounding },
        call,
        rules,
      });
      if (grounded.failure) return ungroundedFailure(grounded, page.fetch.status, page.fetch.url, result);
      return {
        kind: 'completed',
        ...base,
        extract_duration_ms: Date.now() - extractStarted,
        result: { ...result, data: grounded.data, provenance: grounded.metadata, ...(warnings.length > 0 ? { warnings } : {}) },
      };
    } catch (error) {
      // A store outage is not the page's failure: the task goes back to the queue until the store is back.
      if (signal.aborted || isStoreUnavailable(error)) throw error;
      const summary = error instanceof ExtractionFailure ? error.summary : null;
      const appError = error instanceof AppError ? error : null;
      if (!appError) this.logger.error({ err: error, job_id: task.job_id, url: task.url }, 'crawl page extraction failed unexpectedly');
      return {
        kind: 'failed',
        error_category: appError?.category ?? 'internal',
        error_message: appError
          ? (appError.detail ?? appError.message)
          : `Extraction failed unexpectedly (started ${extractStarted - started} ms after the fetch).`,
        error_details: null,
        http_status: page.fetch.status,
        final_url: page.fetch.url,
        retryable: isRetryableFailure('extract', error),
        usage: summary
          ? { token_usage_input: summary.usage.inputTokens, token_usage_output: summary.usage.outputTokens, cost_usd: summary.costUsd }
          : null,
      };
    }
  }

  /**
   * extraction_mode auto: the page goes through the crawl's learned extraction (templates and
   * rules in the store, shared by every page worker; the crawl is a consumer of them, so another
   * crawl of the same templates is never sent back to verification); the model is called only for
   * the fields the template's state asks for (docs/learned-extraction.md).
   */
  private async extractLearned(
    context: ExtractContext,
    url: string,
    html: string,
    callModel: (request: ModelRequest) => Promise<ExtractOutput>,
    grounded: GroundingCheck,
  ): Promise<{ result: PageResult; rules: LearnedResult['rules'] }> {
    const { input, job } = context;
    const templates = await learnedTemplates(this.store);
    let modelOut: ExtractOutput | undefined;
    const session = crawlSession(templates, { userId: job.user_id, schema: extractionSchema(input), crawlId: job._id }, async (request) => {
      modelOut = await callModel(request);
      return modelOut.data as Record<string, unknown>;
    });
    const learned = await session.extract(url, html, { grounded });
    const result = {
      data: learned.data,
      method: learned.method,
      program_id: learned.programId ?? null,
      template_id: learned.templateId,
      model_fields: learned.modelFields ?? null,
      model_call: learned.call ?? null,
      llm_model: modelOut?.target.model ?? null,
      llm_provider: modelOut?.target.provider ?? null,
      token_usage_input: modelOut?.usage.inputTokens ?? 0,
      token_usage_output: modelOut?.usage.outputTokens ?? 0,
      cost_usd: modelOut?.costUsd ?? 0,
      llm_cost_usd: modelOut?.llmCostUsd ?? 0,
    };
    return { result, rules: learned.rules };
  }

  /** The model plan of a crawl, resolved once per PLAN_CACHE_MS per process (not once per page). */
  private async plan(context: ExtractContext, llmConfig: Parameters<ExtractionService['plan']>[1]): Promise<ModelTarget[]> {
    if (context.plan && Date.now() - context.plan.at < PLAN_CACHE_MS) return context.plan.targets;
    const targets = await this.extraction.plan(context.job.user_id, llmConfig);
    context.plan = { targets, at: Date.now() };
    return targets;
  }
}
