import { Injectable } from '@nestjs/common';
import { AppError } from '@app/core';
import { ResultsService } from '@app/results';
import type { JobContext, JobHandler } from '@app/jobs';
import { ExtractionFailure, ExtractionService } from './extraction.service';
import { captureRecorder, finalJobError } from './handler-support';
import { llmConfigFor } from '@app/intake';
import { PageLoaderService } from '@app/pages';
import type { ExtractionFacts } from './extraction-requests.service';
import { parseExtractInput, type ExtractJobInput } from './job-inputs';

/** Runs an `extract` job: load the page, extract with the model chain, record the result and the usage. */
@Injectable()
export class ExtractJobHandler implements JobHandler<ExtractJobInput> {
  readonly type = 'extract';
  readonly parseInput = parseExtractInput;

  constructor(
    private readonly loader: PageLoaderService,
    private readonly extraction: ExtractionService,
    private readonly results: ResultsService,
  ) {}

  async run({ job, input, signal, jobs, secrets }: JobContext<ExtractJobInput>): Promise<void> {
    let page;
    try {
      page = await this.loader.load(input.url, input.fetch_mode, { signal });
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
    const started = Date.now();
    const onCall = captureRecorder(
      this.results,
      job,
      { url: page.fetch.url, fetchMode: page.fetch.mode, schema: JSON.stringify(input.schema) },
      secrets,
    );
    try {
      const out = await this.extraction.extract({
        userId: job.user_id,
        url: page.fetch.url,
        content: page.content.markdown,
        schema: input.schema,
        llmConfig: llmConfigFor(input.llm_config, secrets),
        signal,
        onCall,
      });
      const facts: ExtractionFacts = {
        fetched_at: page.fetchedAt,
        final_url: page.fetch.url,
        llm_model: out.target.model,
        llm_provider: out.target.provider,
        fetch_duration_ms: page.fetchDurationMs,
        extract_duration_ms: Date.now() - started,
        llm_cost_usd: out.llmCostUsd,
        is_byok: out.isByok,
      };
      await this.results.record(job, {
        url: page.fetch.url,
        status: 'completed',
        data: out.data,
        depth: 0,
        parent_url: null,
        token_usage_input: out.usage.inputTokens,
        token_usage_output: out.usage.outputTokens,
        fetch_duration_ms: facts.fetch_duration_ms,
        extract_duration_ms: facts.extract_duration_ms,
        llm_model: facts.llm_model,
        llm_provider: facts.llm_provider,
        cost_usd: out.costUsd,
      });
      await jobs.recordUsage(
        job._id,
        {
          page_count: 1,
          token_usage_input: out.usage.inputTokens,
          token_usage_output: out.usage.outputTokens,
          cost_usd: out.costUsd,
          llm_cost_usd: out.llmCostUsd,
        },
        { extraction: facts, attempts: out.attempts },
      );
      if (input.max_cost_usd !== null && out.costUsd > input.max_cost_usd) {
        throw new AppError('validation-error', `The job cost ${out.costUsd.toFixed(6)} USD, over its cap of ${input.max_cost_usd} USD.`, {
          category: 'budget_exceeded',
        });
      }
    } catch (error) {
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
}
