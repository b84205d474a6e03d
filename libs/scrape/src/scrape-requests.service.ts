import { Injectable } from '@nestjs/common';
import type { Caller } from '@app/auth';
import { Errors } from '@app/core';
import { splitFetchControl } from '@app/fetch';
import { JobIntakeService } from '@app/intake';
import { ResultsService, ScreenshotsService, type RequestOrigin } from '@app/results';
import type { ScrapeRequestDto } from './dto/scrape-request.dto';
import { formatsFetchProblem, normaliseFormats } from '@app/pages';
import type { ScrapeJobInput } from './scrape-job-input';

/**
 * API side of POST /scrape: checks what the DTO cannot state (a screenshot needs the browser, the
 * fetch control rules), records a `scrape` job (no model: nothing is planned or charged), waits for a
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
    const job = await this.intake.submit<ScrapeJobInput>(caller, {
      type: 'scrape',
      url: dto.url,
      input: () => ({
        url: dto.url,
        formats,
        only_main_content: dto.only_main_content ?? true,
        fetch_mode: fetchMode,
        timeout_ms: dto.timeout_ms ?? null,
        full_page_screenshot: dto.full_page_screenshot ?? false,
        fetch_control: control.stored,
      }),
      requestId,
      webhooks: dto,
      requireModel: false,
      secrets: control.secrets,
    });
    const done = await this.intake.awaitJob(job.id);
    const item = await this.results.firstOf(done);
    if (!item || item.status !== 'completed') throw Errors.internal('The scrape job completed without its result.');
    const { fetched_at, ...metadata } = item.metadata as Record<string, unknown> & { fetched_at?: string; screenshot_id?: string };
    const link = metadata.screenshot_id ? this.screenshots.signedLink(metadata.screenshot_id, origin) : undefined;
    return {
      job_id: done._id,
      url: item.url,
      fetched_at: fetched_at ?? done.started_at,
      data: item.data,
      metadata: { ...metadata, ...(link ? { screenshot_url: link.url, screenshot_expires_at: link.expires_at } : {}) },
      warnings: item.warnings,
    };
  }
}
