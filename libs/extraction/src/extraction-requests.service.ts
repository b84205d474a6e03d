import { Inject, Injectable } from '@nestjs/common';
import type { Caller } from '@app/auth';
import { APP_CONFIG, type AppConfig } from '@app/config';
import { AppError, Errors } from '@app/core';
import { JobsService, type JobRecord } from '@app/jobs';
import { ResultsService } from '@app/results';
import { SavedSchemasService } from '@app/saved-schemas';
import { parseSchema, type ParsedSchema } from '@app/schema';
import { SitesService } from '@app/sites';
import { WebhookTargetsService } from '@app/webhooks';
import type { AnalyzeRequestDto, ExtractRequestDto } from './dto/extract-request.dto';
import { ExtractionService } from './extraction.service';
import { jobFailureToProblem } from './failure-mapping';
import { storeLlmConfig, type AnalyzeJobInput, type ExtractJobInput } from './job-inputs';

/** What an extract job leaves on its job record for the synchronous answer. */
export interface ExtractionFacts {
  fetched_at: string;
  final_url: string;
  llm_model: string;
  llm_provider: string;
  fetch_duration_ms: number;
  extract_duration_ms: number;
  llm_cost_usd: number;
  is_byok: boolean;
}

/**
 * API side of POST /extract and /analyze: resolves saved sites/schemas, validates, fails fast when
 * no model is usable, records the job, waits for a crawler worker to finish it, and answers with
 * its result (504 with the job id when the wait runs out; the job goes on).
 */
@Injectable()
export class ExtractionRequestsService {
  constructor(
    private readonly jobs: JobsService,
    private readonly results: ResultsService,
    private readonly sites: SitesService,
    private readonly schemas: SavedSchemasService,
    private readonly targets: WebhookTargetsService,
    private readonly extraction: ExtractionService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  async extract(caller: Caller, dto: ExtractRequestDto, requestId: string) {
    const site = dto.site_id ? await this.sites.resolveForUse(caller, dto.site_id, 'body.site_id') : null;
    const url = dto.url ?? site?.url;
    if (!url) throw Errors.validation([{ location: 'body.url', message: 'is required (or give a site_id)' }]);
    const fetchMode = dto.fetch_mode ?? site?.fetch_mode ?? 'auto';
    const { parsed, schemaId } = await this.resolveSchema(caller, dto, site?.default_schema_id ?? null);
    const webhookTargets = await this.targets.resolve(caller, dto);
    await this.extraction.plan(caller.userId, dto.llm_config); // no_models fails here, before a job exists
    const { stored, secrets } = storeLlmConfig(dto.llm_config);
    const input: ExtractJobInput = {
      url,
      fetch_mode: fetchMode,
      schema: parsed.jsonSchema,
      schema_id: schemaId,
      site_id: site?._id ?? null,
      llm_config: stored,
      max_cost_usd: dto.max_cost_usd ?? null,
    };
    const job = await this.jobs.create(caller, {
      type: 'extract',
      url,
      captureDebug: dto.capture_debug ?? false,
      input: input as unknown as Record<string, unknown>,
      requestId,
      webhookTargets: webhookTargets as unknown as Array<Record<string, unknown>>,
      secrets,
    });
    const done = await this.wait(job.id);
    const item = await this.results.first(caller, job.id);
    const facts = (done.extraction ?? {}) as Partial<ExtractionFacts>;
    return {
      job_id: done._id,
      url: facts.final_url ?? url,
      fetched_at: facts.fetched_at ?? done.started_at,
      data: item?.data ?? null,
      metadata: {
        model: facts.llm_model ?? null,
        provider: facts.llm_provider ?? null,
        fetch_duration_ms: facts.fetch_duration_ms ?? 0,
        extract_duration_ms: facts.extract_duration_ms ?? 0,
      },
      usage: {
        input_tokens: done.token_usage_input,
        output_tokens: done.token_usage_output,
        cost_usd: round(done.cost_usd),
        llm_cost_usd: round(facts.llm_cost_usd ?? 0),
        is_byok: facts.is_byok ?? false,
      },
    };
  }

  async analyze(caller: Caller, dto: AnalyzeRequestDto, requestId: string) {
    const site = dto.site_id ? await this.sites.resolveForUse(caller, dto.site_id, 'body.site_id') : null;
    const url = dto.url ?? site?.url;
    if (!url) throw Errors.validation([{ location: 'body.url', message: 'is required (or give a site_id)' }]);
    await this.extraction.plan(caller.userId, dto.llm_config);
    const { stored, secrets } = storeLlmConfig(dto.llm_config);
    const input: AnalyzeJobInput = {
      url,
      depth: dto.depth ?? 0,
      fetch_mode: dto.fetch_mode ?? site?.fetch_mode ?? 'auto',
      site_id: site?._id ?? null,
      llm_config: stored,
    };
    const job = await this.jobs.create(caller, {
      type: 'analyze',
      url,
      captureDebug: dto.debug ?? true,
      input: input as unknown as Record<string, unknown>,
      requestId,
      secrets,
    });
    const done = await this.wait(job.id);
    const item = await this.results.first(caller, job.id);
    return { job_id: done._id, ...((item?.data as Record<string, unknown> | undefined) ?? {}) };
  }

  private async wait(jobId: string): Promise<JobRecord> {
    const job = await this.jobs.waitForTerminal(jobId, this.config.extractWaitMs);
    if (!job) throw Errors.internal('The job vanished.');
    if (job.status === 'completed') return job;
    if (job.status === 'failed' || job.status === 'cancelled') throw jobFailureToProblem(job._id, job.error_category, job.error_message);
    throw new AppError('upstream-timeout', `The job did not finish within ${Math.round(this.config.extractWaitMs / 1000)} s; it goes on.`, {
      extensions: { job_id: jobId, status_url: `${this.config.publicUrl ?? ''}/api/v1/jobs/${jobId}` },
    });
  }

  private async resolveSchema(
    caller: Caller,
    dto: ExtractRequestDto,
    siteDefault: string | null,
  ): Promise<{ parsed: ParsedSchema; schemaId: string | null }> {
    if (dto.schema !== undefined && dto.schema !== null) return { parsed: parseSchema(dto.schema, 'body.schema'), schemaId: null };
    const id = dto.schema_id ?? siteDefault;
    if (!id)
      throw Errors.validation([{ location: 'body.schema', message: 'is required (or give a schema_id, or a site with a default schema)' }]);
    const location = dto.schema_id ? 'body.schema_id' : 'body.site_id';
    const { parsed } = await this.schemas.resolveForUse(caller, id, location, true);
    return { parsed, schemaId: id };
  }
}

function round(n: number): number {
  return Math.round(n * 1e8) / 1e8;
}
