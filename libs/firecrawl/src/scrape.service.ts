import { Injectable } from '@nestjs/common';
import type { Caller } from '@app/auth';
import { ExtractionRequestsService, ExtractRequestDto } from '@app/extraction';
import type { RequestOrigin } from '@app/results';
import type { ScrapeData } from '@app/pages';
import type { JsonSchemaObject } from '@app/schema';
import { ScrapeRequestDto, ScrapeRequestsService } from '@app/scrape';
import { FirecrawlArchivedScrapes } from './archived-scrape.service';
import { asGleanerDto } from './gleaner-dto';
import { changeTracking } from './translate/change-tracking';
import { fetchFields, refuseUnsupported } from './translate/fetch-options';
import { planFormats, type FormatPlan } from './translate/formats';
import { toDocument, type GleanerPage } from './translate/document';
import { jsonFormatFields, jsonFormatSchema, SUMMARY_SCHEMA } from './translate/model-formats';
import { parseWith } from './wire/errors';
import type { ChangeTracking, ScrapeResponse } from './wire/responses';
import { scrapeRequestSchema, type ScrapeRequest } from './wire/scrape-options';

/**
 * POST /v2/scrape: a Gleaner scrape job (listed, streamed, on the dashboards like any), its answer as
 * Firecrawl's Document. `json` is the scrape's own json format (an extract beside it when the archive serves
 * or keeps the page) and `summary` a Gleaner extract job on the same page, with the caller's model chain
 * (docs/firecrawl.md "Formats"). With `maxAge` or `changeTracking` the
 * page archive takes part (archived-scrape.service.ts): the page is kept, served from a copy younger than
 * `maxAge`, or compared with the previous copy.
 */
@Injectable()
export class FirecrawlScrapeService {
  constructor(
    private readonly scrapes: ScrapeRequestsService,
    private readonly extracts: ExtractionRequestsService,
    private readonly archived: FirecrawlArchivedScrapes,
  ) {}

  async scrape(caller: Caller, body: unknown, requestId: string, origin: RequestOrigin): Promise<ScrapeResponse> {
    const request = parseWith(scrapeRequestSchema, body);
    refuseUnsupported(request);
    const plan = planFormats(request);
    // A live scrape makes `json` itself (Gleaner's json format: one fetch, one job); a page from or into the
    // archive gets it from an extract of the same page beside it.
    const live = !plan.changeTracking && (request.maxAge ?? 0) <= 0;
    const jsonFields = jsonFormatFields(plan);
    const [{ page, tracking }, json, summary] = await Promise.all([
      this.page(caller, request, plan, requestId, origin, live ? jsonFields : null),
      live ? Promise.resolve(undefined) : this.extractWith(caller, request, jsonFields, requestId),
      plan.wanted.has('summary')
        ? this.extractWith(caller, request, { schema: { ...SUMMARY_SCHEMA } }, requestId)
        : Promise.resolve(undefined),
    ]);
    const document = toDocument(
      { ...page, data: { ...page.data, ...(json !== undefined ? { json } : {}), ...(summary !== undefined ? { summary } : {}) } },
      plan,
    );
    return { success: true, data: tracking ? { ...document, changeTracking: tracking } : document };
  }

  /**
   * The page: a scrape job; with `changeTracking` a live fetch that keeps the page, compared with the tenant's
   * previous archived copy (read before the fetch); with `maxAge` the newest copy younger than it, else a live
   * fetch that keeps the page (docs/firecrawl.md "maxAge and change tracking").
   */
  private async page(
    caller: Caller,
    request: ScrapeRequest,
    plan: FormatPlan,
    requestId: string,
    origin: RequestOrigin,
    jsonFields: ReturnType<typeof jsonFormatFields>,
  ): Promise<{ page: GleanerPage; tracking?: ChangeTracking }> {
    if (plan.changeTracking) {
      const { modes, tag, json } = plan.changeTracking;
      // The json mode: both copies extracted with its schema (the json format of the fetch, and of the re-extraction).
      const schema = json ? jsonFormatSchema({ ...plan, json }, 'formats') : null;
      const previousCopy = tag
        ? await this.archived.latestTracked(caller, request.url, tag)
        : await this.archived.latest(caller, request.url);
      const [page, previous] = await Promise.all([
        this.archived.fetchAndKeep(caller, request, plan, requestId, origin, schema),
        previousCopy
          ? this.archived.fromArchive(
              caller,
              previousCopy,
              request,
              schema ? ['markdown', 'json'] : ['markdown'],
              requestId,
              origin,
              schema as JsonSchemaObject | null,
            )
          : Promise.resolve(null),
      ]);
      if (tag) await this.archived.tracked(caller, page, plan, tag);
      const before = previous
        ? { markdown: previous.data.markdown ?? '', json: previous.data.json, fetchedAt: previousCopy!.fetched_at }
        : null;
      const tracking = changeTracking(before, { markdown: page.data.markdown ?? '', json: page.data.json }, modes);
      // The json extracted for the comparison is not the Document's `json` unless that format was asked for.
      const { json: _compared, ...data } = page.data;
      return { page: { ...page, data }, tracking };
    }
    const maxAge = request.maxAge ?? 0;
    if (maxAge > 0) {
      // A screenshot is taken by a browser at fetch time: the archive has none, so such a request is always a live fetch.
      const copy = plan.wanted.has('screenshot') ? null : await this.archived.latest(caller, request.url, new Date(Date.now() - maxAge));
      if (copy) return { page: await this.archived.fromArchive(caller, copy, request, plan.gleanerFormats, requestId, origin) };
      return { page: await this.archived.fetchAndKeep(caller, request, plan, requestId, origin) };
    }
    const dto = await asGleanerDto(ScrapeRequestDto, {
      url: request.url,
      formats: jsonFields ? [...plan.gleanerFormats, 'json'] : plan.gleanerFormats,
      ...jsonFields,
      ...fetchFields(request),
      ...(plan.fullPageScreenshot ? { full_page_screenshot: true } : {}),
    });
    const answer = await this.scrapes.scrape(caller, dto, requestId, origin);
    const metadata = answer.metadata as Record<string, unknown>;
    return {
      page: {
        url: answer.url,
        requestedUrl: request.url,
        data: answer.data as ScrapeData,
        metadata,
        jobId: answer.job_id,
        screenshotUrl: typeof metadata.screenshot_url === 'string' ? metadata.screenshot_url : null,
      },
    };
  }

  /** A model-made format: a Gleaner extract of the same page with the caller's model chain. */
  private async extractWith(
    caller: Caller,
    request: ScrapeRequest,
    what: ReturnType<typeof jsonFormatFields>,
    requestId: string,
  ): Promise<unknown> {
    if (!what) return undefined;
    const fields = fetchFields(request);
    const dto = await asGleanerDto(ExtractRequestDto, {
      url: request.url,
      ...what,
      ...(fields.wait_for ? { wait_for: fields.wait_for } : {}),
      ...(fields.headers ? { headers: fields.headers } : {}),
    });
    const answer = (await this.extracts.extract(caller, dto, requestId)) as { data: unknown };
    return answer.data;
  }
}
