import { Inject, Injectable } from '@nestjs/common';
import { PageArchive } from '@app/archive';
import { LOGGER, type AppLogger } from '@app/observability';
import { AppError } from '@app/core';
import { ResultsService } from '@app/results';
import type { JobCompletion, JobContext, JobHandler } from '@app/jobs';
import {
  EXTRACTS_CONSUMER,
  consumerSession,
  learnedTemplates,
  type GroundingCheck,
  type LearnedResult,
  type ModelCall,
  type ModelRequest,
} from '@app/learned';
import { DOCUMENT_STORE, type DocumentStore } from '@app/storage';
import { ExtractionFailure, ExtractionService, type ExtractOutput } from './extraction.service';
import { GroundingService, groundedCallOf, type GroundedCall } from './grounding.service';
import { captureRecorder, finalJobError } from './handler-support';
import { fetchControlFor } from '@app/fetch';
import { llmConfigFor } from '@app/llm';
import { PageLoaderService } from '@app/pages';
import type { ExtractionFacts, ExtractionMade } from './extraction-requests.service';
import { parseExtractInput, type ExtractJobInput } from './job-inputs';
import { keepExtractPage } from './extract-archive';

/**
 * Runs an `extract` job: load the page (and keep it in the archive when asked), extract with the model
 * chain (or, with extraction_mode auto, a learned program of the page's template), record the result and
 * the usage.
 */
@Injectable()
export class ExtractJobHandler implements JobHandler<ExtractJobInput> {
  readonly type = 'extract';
  readonly parseInput = parseExtractInput;

  constructor(
    private readonly loader: PageLoaderService,
    private readonly extraction: ExtractionService,
    private readonly results: ResultsService,
    private readonly grounding: GroundingService,
    @Inject(DOCUMENT_STORE) private readonly store: DocumentStore,
    private readonly archive: PageArchive,
    @Inject(LOGGER) private readonly logger: AppLogger,
  ) {}

  async run({ job, input, signal, jobs, secrets, startedNow }: JobContext<ExtractJobInput>): Promise<JobCompletion | void> {
    // Its page is recorded (result and usage) by an earlier delivery that did not get to finish the job (a
    // crash or a store outage in between): only the finish is left to do, and counting the page again is wrong.
    if (job.page_count > 0) return;
    let page;
    try {
      page = await this.loader.load(input.url, input.fetch_mode, {
        signal,
        control: fetchControlFor(input.fetch_control, secrets),
        also: { attributes: true },
        keepRaw: input.archive,
      });
    } catch (error) {
      const failure = finalJobError(error, 'Extraction');
      await this.results.record(job, {
        url: input.url,
        status: 'failed',
        data: null,
        error_category: failure.category,
        error_message: failure.detail ?? failure.message,
      });
      await jobs.recordUsage(job._id, { failed_count: 1 });
      throw failure;
    }
    // Kept as fetched, before the model runs: a page whose extraction fails can be read back and extracted again.
    if (input.archive) await keepExtractPage(this.archive, job, input.url, page, this.logger);
    const started = Date.now();
    const onCall = captureRecorder(
      this.results,
      job,
      { url: page.fetch.url, fetchMode: page.fetch.mode, schema: JSON.stringify(input.schema) },
      secrets,
    );
    const groundingPage = this.grounding.pageOf(page.fetch.url, page.content);
    // The model call whose answer is in the result, and what it was given (its values are grounded on that).
    let call: GroundedCall | undefined;
    // A learned partial call asks for some fields only, or sends the page's text around their values (an excerpt).
    const callModel = async (request?: ModelRequest) => {
      const out = await this.extraction.extract({
        userId: job.user_id,
        url: page.fetch.url,
        content: request?.excerpt ?? page.content.markdown,
        schema: request?.schema ?? input.schema,
        llmConfig: llmConfigFor(input.llm_config, secrets),
        signal,
        onCall,
        ...(request?.excerpt !== undefined ? { excerpt: true } : {}),
        ...(request?.kind === 'partial' ? { partial: true } : {}),
      });
      call = groundedCallOf(out, request?.excerpt !== undefined);
      return out;
    };
    try {
      // The model's outcome when it was called: a page extracted by a learned program has none (no tokens, no cost).
      let out: ExtractOutput | undefined;
      let data: unknown;
      let made: ExtractionMade;
      let rules: LearnedResult['rules'];
      if (input.extraction_mode === 'auto') {
        const learned = await this.extractLearned(
          job.user_id,
          input,
          page.fetch.url,
          page.fetch.html,
          async (request) => {
            out = await callModel(request);
            return out.data as Record<string, unknown>;
          },
          this.grounding.learnedGuard(groundingPage),
        );
        data = learned.data;
        made = madeBy(learned);
        rules = learned.rules;
      } else {
        out = await callModel();
        data = out.data;
        made = { method: 'model' };
      }
      const costUsd = out?.costUsd ?? 0;
      const grounded = this.grounding.ground({
        page: groundingPage,
        data,
        schema: input.schema,
        settings: { provenance: input.provenance, grounding: input.grounding },
        call,
        rules,
      });
      if (grounded.failure) {
        await this.failUngrounded(job, jobs, page.fetch.url, out, grounded.failure, grounded.metadata.ungrounded_fields);
        throw grounded.failure;
      }
      data = grounded.data;
      const facts: ExtractionFacts = {
        fetched_at: page.fetchedAt,
        final_url: page.fetch.url,
        llm_model: out?.target.model ?? null,
        llm_provider: out?.target.provider ?? null,
        fetch_duration_ms: page.fetchDurationMs,
        extract_duration_ms: Date.now() - started,
        llm_cost_usd: out?.llmCostUsd ?? 0,
        is_byok: out?.isByok ?? false,
        ...made,
      };
      await this.results.record(
        job,
        {
          url: page.fetch.url,
          status: 'completed',
          data,
          depth: 0,
          parent_url: null,
          token_usage_input: out?.usage.inputTokens ?? 0,
          token_usage_output: out?.usage.outputTokens ?? 0,
          fetch_duration_ms: facts.fetch_duration_ms,
          extract_duration_ms: facts.extract_duration_ms,
          llm_model: facts.llm_model,
          llm_provider: facts.llm_provider,
          cost_usd: costUsd,
          metadata: { ...made, ...grounded.metadata },
          warnings: [...input.warnings, ...(out?.warnings ?? [])],
        },
        { startedNow },
      );
      const usage = {
        page_count: 1,
        token_usage_input: out?.usage.inputTokens ?? 0,
        token_usage_output: out?.usage.outputTokens ?? 0,
        cost_usd: costUsd,
        llm_cost_usd: out?.llmCostUsd ?? 0,
        ungrounded_fields: grounded.metadata.ungrounded_fields,
      };
      const set = { extraction: facts, attempts: out?.attempts ?? [] };
      if (input.max_cost_usd !== null && costUsd > input.max_cost_usd) {
        await jobs.recordUsage(job._id, usage, set);
        throw new AppError('validation-error', `The job cost ${costUsd.toFixed(6)} USD, over its cap of ${input.max_cost_usd} USD.`, {
          category: 'budget_exceeded',
        });
      }
      // Written with the job's completion, in the same write as its status.
      return { usage, set };
    } catch (error) {
      if (error instanceof AppError && error.category === 'ungrounded_output') throw finalJobError(error, 'Extraction');
      if (error instanceof ExtractionFailure) {
        const summary = error.summary;
        await this.results.record(job, {
          url: page.fetch.url,
          status: 'failed',
          data: null,
          error_category: error.category,
          error_message: error.detail ?? error.message,
        });
        await jobs.recordUsage(
          job._id,
          {
            failed_count: 1,
            token_usage_input: summary?.usage.inputTokens ?? 0,
            token_usage_output: summary?.usage.outputTokens ?? 0,
            cost_usd: summary?.costUsd ?? 0,
            llm_cost_usd: summary?.llmCostUsd ?? 0,
          },
          { attempts: summary?.attempts ?? [] },
        );
      }
      throw finalJobError(error, 'Extraction');
    }
  }

  /**
   * `grounding: fail_page` and a value not on the page: the page's result is a failed item, its model call is paid for
   * (docs/provenance.md "Policies").
   */
  private async failUngrounded(
    job: JobContext<ExtractJobInput>['job'],
    jobs: JobContext<ExtractJobInput>['jobs'],
    url: string,
    out: ExtractOutput | undefined,
    failure: AppError,
    ungrounded: number,
  ): Promise<void> {
    await this.results.record(job, {
      url,
      status: 'failed',
      data: null,
      error_category: failure.category,
      error_message: failure.detail ?? failure.message,
      token_usage_input: out?.usage.inputTokens ?? 0,
      token_usage_output: out?.usage.outputTokens ?? 0,
      cost_usd: out?.costUsd ?? 0,
    });
    await jobs.recordUsage(
      job._id,
      {
        failed_count: 1,
        token_usage_input: out?.usage.inputTokens ?? 0,
        token_usage_output: out?.usage.outputTokens ?? 0,
        cost_usd: out?.costUsd ?? 0,
        llm_cost_usd: out?.llmCostUsd ?? 0,
        ungrounded_fields: ungrounded,
      },
      { attempts: out?.attempts ?? [] },
    );
  }

  /**
   * extraction_mode auto: the page goes through the user's learned templates of its site for this
   * schema (shared with the user's crawls) as the extracts consumer: the model is called only when
   * the template's state asks for it, or until the program has agreed with the model on enough of
   * the user's extracts (docs/learned-extraction.md "Extracts").
   */
  private async extractLearned(
    userId: string,
    input: ExtractJobInput,
    url: string,
    html: string,
    model: ModelCall,
    grounded: GroundingCheck,
  ): Promise<LearnedResult> {
    const session = consumerSession(
      await learnedTemplates(this.store),
      { userId, schema: input.schema, consumer: EXTRACTS_CONSUMER },
      model,
    );
    return session.extract(url, html, { grounded });
  }
}

/** The result's `metadata` for a learned extract (docs/api.md "Results and downloads"). */
export function madeBy(learned: LearnedResult): ExtractionMade {
  return {
    method: learned.method,
    ...(learned.programId ? { program_id: learned.programId } : {}),
    template_id: learned.templateId,
    ...(learned.modelFields ? { model_fields: learned.modelFields } : {}),
    ...(learned.call ? { model_call: learned.call } : {}),
  };
}
