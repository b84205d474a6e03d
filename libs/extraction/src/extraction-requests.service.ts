import { Injectable } from '@nestjs/common';
import type { Caller } from '@app/auth';
import { Usage } from '@app/core';
import { completedPage, JobIntakeService, refuseLearnedFromPrompt } from '@app/intake';
import { ResultsService } from '@app/results';
import { resolveCrawlOptions, validCrawlOptions } from '@app/sites';
import type { AnalyzeRequestDto, ExtractRequestDto } from './dto/extract-request.dto';
import { extractArchives } from './extract-archive';
import type { ExtractionFacts } from './extraction-facts';
import type { AnalyzeJobInput, ExtractJobInput } from './job-inputs';
import { paginateInput } from './pagination/paginate-input';

/** The answer's provenance (the stored item's `metadata`); jobs stored before provenance existed have none to show. */
function provenanceOf(metadata: Record<string, unknown> | undefined) {
  return {
    ...(metadata?.fields ? { fields: metadata.fields } : {}),
    ...(typeof metadata?.fields_omitted === 'number' ? { fields_omitted: metadata.fields_omitted } : {}),
    ungrounded_fields: typeof metadata?.ungrounded_fields === 'number' ? metadata.ungrounded_fields : 0,
  };
}

/** Whether the answer is complete (docs/long-lists.md "The answer"): present on items stored since it existed. */
function completenessOf(metadata: Record<string, unknown> | undefined) {
  return {
    ...(metadata?.content_truncated === true ? { content_truncated: true as const } : {}),
    ...(Array.isArray(metadata?.items) ? { items: metadata.items as unknown[] } : {}),
  };
}

/**
 * API side of POST /extract and /analyze: job intake (saved sites and schemas, webhooks, the model
 * check, the sealed BYOK key), then waits for a crawler worker to finish the job and answers with
 * its result (504 with the job id when the wait runs out; the job goes on).
 */
@Injectable()
export class ExtractionRequestsService {
  constructor(
    private readonly intake: JobIntakeService,
    private readonly results: ResultsService,
  ) {}

  async extract(caller: Caller, dto: ExtractRequestDto, requestId: string) {
    const site = await this.intake.site(caller, dto.site_id);
    const url = this.intake.url(dto.url, site);
    const fetchMode = dto.fetch_mode ?? site?.fetch_mode ?? 'auto';
    const saved = validCrawlOptions(site?.crawl_options);
    // The site's headers and cookies under the request's own, as for a crawl of the site (422 at body.url off
    // its host); its saved user_agent and wait_for when the request has none.
    const control = this.intake.pageFetchControl(site, url, dto, fetchMode, saved);
    await this.intake.authProfile(caller, control.stored?.auth_profile, dto.auth_profile ? 'body.auth_profile' : 'body.site_id');
    const { parsed, schemaId } = await this.intake.schema(caller, dto, site?.default_schema_id ?? null);
    refuseLearnedFromPrompt(parsed.jsonSchema, dto.extraction_mode);
    const paginate = paginateInput(dto.paginate, parsed.jsonSchema);
    // provenance and grounding: the request's, else the site's saved options, else the defaults (one resolution with crawls).
    const { provenance, grounding } = resolveCrawlOptions({ provenance: dto.provenance, grounding: dto.grounding }, saved);
    const job = await this.intake.submit<ExtractJobInput>(caller, {
      type: 'extract',
      url,
      input: (llmConfig) => ({
        url,
        fetch_mode: fetchMode,
        schema: parsed.jsonSchema,
        schema_id: schemaId,
        site_id: site?._id ?? null,
        llm_config: llmConfig,
        max_cost_usd: dto.max_cost_usd ?? null,
        extraction_mode: dto.extraction_mode ?? 'model',
        fetch_control: control.stored,
        provenance,
        grounding,
        archive: extractArchives(dto.archive, saved),
        warnings: parsed.warnings,
        prompt: dto.prompt ?? null,
        paginate,
      }),
      captureDebug: dto.capture_debug ?? false,
      requestId,
      webhooks: dto,
      llmConfig: dto.llm_config,
      requireModel: true,
      secrets: control.secrets,
    });
    const done = await this.intake.awaitJob<ExtractJobInput, ExtractionFacts>(job.id);
    // The page (a retried run's, not the failure an earlier run stored); a failed page answers its own failure, as
    // POST /scrape does, rather than `data: null` (a job stored without its item keeps the answer it always had).
    const stored = await this.results.firstOf(done);
    const item = stored && completedPage(done._id, stored);
    // Jobs finished before some facts existed lack them (each has its fallback below).
    const facts: Partial<ExtractionFacts> = done.extraction ?? {};
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
        // Jobs finished before extraction_mode existed were all made by the model.
        method: facts.method ?? 'model',
        ...(facts.program_id ? { program_id: facts.program_id } : {}),
        ...(facts.template_id ? { template_id: facts.template_id } : {}),
        ...(facts.model_fields ? { model_fields: facts.model_fields } : {}),
        ...(facts.model_call ? { model_call: facts.model_call } : {}),
        // A prompt without a schema: the schema the model proposed for the page (the data follows it).
        ...(item?.metadata?.schema ? { schema: item.metadata.schema } : {}),
        ...completenessOf(item?.metadata),
        // paginate: the pages the answer is made of (docs/long-lists.md "Pagination").
        ...(item?.metadata?.pagination ? { pagination: item.metadata.pagination } : {}),
        ...provenanceOf(item?.metadata),
      },
      usage: {
        // The job's counters (the page's model calls, a failed attempt's too) with the model cost of its facts.
        ...Usage.toWire(Usage.fromRecordFields({ ...done, llm_cost_usd: facts.llm_cost_usd })),
        is_byok: facts.is_byok ?? false,
      },
      warnings: item?.warnings ?? [],
    };
  }

  async analyze(caller: Caller, dto: AnalyzeRequestDto, requestId: string) {
    const site = await this.intake.site(caller, dto.site_id);
    const url = this.intake.url(dto.url, site);
    const fetchMode = dto.fetch_mode ?? site?.fetch_mode ?? 'auto';
    // An analysis takes of fetch control only the fields its request declares (its pool and auth profile), the saved
    // site's headers and cookies (sealed with the job), and the site's pool and profile when the request names none.
    const saved = validCrawlOptions(site?.crawl_options);
    const { stored, secrets } = this.intake.pageFetchControl(site, url, dto, fetchMode, {
      proxy: saved.proxy,
      auth_profile: saved.auth_profile,
    });
    await this.intake.authProfile(caller, stored?.auth_profile, dto.auth_profile ? 'body.auth_profile' : 'body.site_id');
    const job = await this.intake.submit<AnalyzeJobInput>(caller, {
      type: 'analyze',
      url,
      input: (llmConfig) => ({
        url,
        depth: dto.depth ?? 0,
        fetch_mode: fetchMode,
        site_id: site?._id ?? null,
        llm_config: llmConfig,
        fetch_control: stored,
      }),
      captureDebug: dto.debug ?? true,
      requestId,
      llmConfig: dto.llm_config,
      requireModel: true,
      secrets,
    });
    const done = await this.intake.awaitJob(job.id);
    const item = await this.results.firstOf(done);
    return { job_id: done._id, ...((item?.data as Record<string, unknown> | undefined) ?? {}) };
  }
}
