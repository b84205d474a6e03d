import { Injectable } from '@nestjs/common';
import type { Caller } from '@app/auth';
import { Errors, Usage } from '@app/core';
import { splitFetchControl } from '@app/fetch';
import { completedPage, JobIntakeService } from '@app/intake';
import { ResultsService, ScreenshotsService, type RequestOrigin } from '@app/results';
import type { ScrapeRequestDto } from './dto/scrape-request.dto';
import { formatsFetchProblem, formatsNeedModel, normaliseFormats } from '@app/pages';
import { PROVENANCE_DEFAULTS } from '@app/provenance';
import type { ScrapeJobInput, ScrapeJsonInput } from './scrape-job-input';

/** The fields that only the `json` format reads (docs/scrape.md "The json format"). */
const JSON_FIELDS = ['schema', 'schema_id', 'prompt', 'llm_config', 'provenance', 'grounding', 'capture_debug'] as const;

/**
 * API side of POST /scrape: checks what the DTO cannot state (a screenshot needs the browser, the
 * fetch control rules, the `json` format's schema), records a `scrape` job (without `json` no model: nothing
 * is planned or charged; with it the model check and the sealed BYOK key of an extract), waits for a
 * crawler worker to finish it and answers with its formats (504 with the job id when the wait runs out).
 */
@Injectable()
export class ScrapeRequestsService {
  constructor(
    private readonly intake: JobIntakeService,
    private readonly results: ResultsService,
    private readonly screenshots: ScreenshotsService,
  ) {}

  async scrape(caller: Caller, dto: ScrapeRequestDto, requestId: string, origin: RequestOrigin) {
    const formats = normaliseFormats(dto.formats);
    const fetchMode = dto.fetch_mode ?? 'auto';
    const problem = formatsFetchProblem(formats, fetchMode);
    if (problem) throw Errors.validation([{ location: 'body.formats', message: problem }]);
    const control = splitFetchControl(dto, fetchMode);
    await this.intake.authProfile(caller, dto.auth_profile, 'body.auth_profile');
    const json = await this.jsonFormat(caller, dto, formatsNeedModel(formats));
    const job = await this.intake.submit<ScrapeJobInput>(caller, {
      type: 'scrape',
      url: dto.url,
      input: (llmConfig) => ({
        url: dto.url,
        formats,
        only_main_content: dto.only_main_content ?? true,
        ...(dto.include_tags?.length ? { include_tags: dto.include_tags } : {}),
        ...(dto.exclude_tags?.length ? { exclude_tags: dto.exclude_tags } : {}),
        fetch_mode: fetchMode,
        timeout_ms: dto.timeout_ms ?? null,
        full_page_screenshot: dto.full_page_screenshot ?? false,
        fetch_control: control.stored,
        json: json ? { ...json, llm_config: llmConfig } : null,
      }),
      requestId,
      webhooks: dto,
      captureDebug: dto.capture_debug ?? false,
      llmConfig: dto.llm_config,
      requireModel: json !== null,
      secrets: control.secrets,
    });
    const done = await this.intake.awaitJob(job.id);
    // The page (a retried run's, not the failure an earlier run stored), else its failure as its own problem.
    const item = completedPage(done._id, await this.results.firstOf(done));
    const { fetched_at, ...metadata } = item.metadata as Record<string, unknown> & { fetched_at?: string; screenshot_id?: string };
    const link = metadata.screenshot_id ? this.screenshots.signedLink(metadata.screenshot_id, origin) : undefined;
    return {
      job_id: done._id,
      url: item.url,
      fetched_at: fetched_at ?? done.started_at,
      data: item.data,
      metadata: {
        ...metadata,
        ...(link ? { screenshot_url: link.url, screenshot_expires_at: link.expires_at } : {}),
      },
      // The job's counters: the page's model calls (a failed attempt's too), as POST /extract answers them.
      ...(json ? { usage: { ...Usage.toWire(Usage.fromRecordFields(done)), is_byok: dto.llm_config?.api_key !== undefined } } : {}),
      warnings: item.warnings,
    };
  }

  /**
   * The `json` format's extraction (docs/scrape.md "The json format"): its schema (given or saved), prompt and
   * provenance settings; null without the format, whose fields are then a 422 (they would be silently unused).
   */
  private async jsonFormat(caller: Caller, dto: ScrapeRequestDto, wanted: boolean): Promise<Omit<ScrapeJsonInput, 'llm_config'> | null> {
    if (!wanted) {
      const stray = JSON_FIELDS.filter((name) => dto[name] !== undefined);
      if (stray.length > 0)
        throw Errors.validation(stray.map((name) => ({ location: `body.${name}`, message: 'is only for a request with the json format' })));
      return null;
    }
    if ((dto.schema === undefined || dto.schema === null) && dto.schema_id === undefined && dto.prompt === undefined)
      throw Errors.validation([
        { location: 'body.schema', message: 'is required with the json format (or give a schema_id, or a prompt)' },
      ]);
    const { parsed, schemaId } = await this.intake.schema(caller, dto, null);
    return {
      schema: parsed.jsonSchema,
      schema_id: schemaId,
      prompt: dto.prompt ?? null,
      provenance: dto.provenance ?? PROVENANCE_DEFAULTS.provenance,
      grounding: dto.grounding ?? PROVENANCE_DEFAULTS.grounding,
      warnings: parsed.warnings ?? [],
    };
  }
}
