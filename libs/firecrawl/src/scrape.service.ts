import { Injectable } from '@nestjs/common';
import type { Caller } from '@app/auth';
import { ExtractionRequestsService, ExtractRequestDto } from '@app/extraction';
import type { RequestOrigin } from '@app/results';
import { ScrapeRequestDto, ScrapeRequestsService } from '@app/scrape';
import { asGleanerDto } from './gleaner-dto';
import { fetchFields, refuseUnsupported } from './translate/fetch-options';
import { planFormats } from './translate/formats';
import { toDocument, type FirecrawlDocument } from './translate/document';
import { jsonFormatSchema, SUMMARY_SCHEMA } from './translate/model-formats';
import { optionNotSupported, parseWith } from './wire/errors';
import { scrapeRequestSchema, type ScrapeRequest } from './wire/scrape-options';

/**
 * POST /v2/scrape: a Gleaner scrape job (listed, streamed, on the dashboards like any), its answer as
 * Firecrawl's Document. `json` and `summary` are Gleaner extract jobs on the same page, run beside the
 * scrape with the caller's model chain (docs/firecrawl.md "Formats").
 */
@Injectable()
export class FirecrawlScrapeService {
  constructor(
    private readonly scrapes: ScrapeRequestsService,
    private readonly extracts: ExtractionRequestsService,
  ) {}

  async scrape(
    caller: Caller,
    body: unknown,
    requestId: string,
    origin: RequestOrigin,
  ): Promise<{ success: true; data: FirecrawlDocument }> {
    const request = parseWith(scrapeRequestSchema, body);
    refuseUnsupported(request);
    const plan = planFormats(request);
    if (plan.changeTracking) throw optionNotSupported('formats', 'changeTracking (compare two scrapes with a monitor: /v2/monitor)');
    const dto = await asGleanerDto(ScrapeRequestDto, {
      url: request.url,
      formats: plan.gleanerFormats,
      ...fetchFields(request),
      ...(plan.fullPageScreenshot ? { full_page_screenshot: true } : {}),
    });
    const [page, json, summary] = await Promise.all([
      this.scrapes.scrape(caller, dto, requestId, origin),
      this.extractWith(caller, request, jsonFormatSchema(plan), requestId),
      plan.wanted.has('summary') ? this.extractWith(caller, request, { ...SUMMARY_SCHEMA }, requestId) : Promise.resolve(undefined),
    ]);
    const metadata = page.metadata as Record<string, unknown>;
    return {
      success: true,
      data: toDocument(
        {
          url: page.url,
          requestedUrl: request.url,
          data: { ...(page.data as object), ...(json !== undefined ? { json } : {}), ...(summary !== undefined ? { summary } : {}) },
          metadata,
          jobId: page.job_id,
          screenshotUrl: typeof metadata.screenshot_url === 'string' ? metadata.screenshot_url : null,
        },
        plan,
      ),
    };
  }

  /** A model-made format: a Gleaner extract of the same page with the caller's model chain. */
  private async extractWith(
    caller: Caller,
    request: ScrapeRequest,
    schema: Record<string, unknown> | null,
    requestId: string,
  ): Promise<unknown> {
    if (!schema) return undefined;
    const fields = fetchFields(request);
    const dto = await asGleanerDto(ExtractRequestDto, {
      url: request.url,
      schema,
      ...(fields.wait_for ? { wait_for: fields.wait_for } : {}),
      ...(fields.headers ? { headers: fields.headers } : {}),
    });
    const answer = (await this.extracts.extract(caller, dto, requestId)) as { data: unknown };
    return answer.data;
  }
}
