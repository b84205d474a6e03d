import { Inject, Injectable } from '@nestjs/common';
import type { Caller } from '@app/auth';
import { APP_CONFIG, type AppConfig } from '@app/config';
import { nowIso } from '@app/core';
import { BatchRequestDto, BatchRequestsService, CrawlRequestDto, CrawlRequestsService } from '@app/crawl';
import { JobsRepository } from '@app/jobs';
import { publicBaseUrl, type RequestOrigin } from '@app/results';
import { FirecrawlJobsRepository } from './firecrawl-jobs.repository';
import { asGleanerDto } from './gleaner-dto';
import { crawlOptions, batchOptions, FIRECRAWL_DEFAULT_LIMIT, MAX_DEPTH, refuseUnsupportedCrawl } from './translate/crawl-options';
import { fetchFields, hasTagFilters, refuseUnsupported } from './translate/fetch-options';
import { planFormats, type FormatPlan } from './translate/formats';
import { jsonFormatFields } from './translate/model-formats';
import { gleanerWebhook } from './translate/webhook';
import { optionNotSupported, parseWith } from './wire/errors';
import { batchScrapeRequestSchema, crawlRequestSchema, paramsPreviewRequestSchema, type CrawlRequest } from './wire/requests';
import type { ActiveCrawlsResponse, JobStartedResponse, ParamsPreviewResponse } from './wire/responses';
import { isGleanerUrl, type ScrapeOptions } from './wire/scrape-options';

/** Active crawls listed at most. */
const MAX_ACTIVE = 100;

/**
 * What a crawl or batch keeps of each page, in Gleaner's terms: the page formats (no model), the `json` format's
 * schema alone (the pages extracted by the model chain, as Gleaner's crawl with a schema), or both: Gleaner's
 * `json` page format beside the others (docs/firecrawl.md "Formats in crawls and batches").
 */
function pageFields(plan: FormatPlan, at: string, tagFilters: boolean): { fields: Record<string, unknown>; jsonOnly: boolean } {
  const content = [...plan.wanted].filter((f) => f !== 'json');
  if (plan.wanted.has('summary')) throw optionNotSupported(at, 'summary in a crawl or batch (scrape pages one by one for a summary)');
  if (plan.changeTracking) throw optionNotSupported(at, 'changeTracking (a monitor compares runs: /v2/monitor)');
  // Tag filters shape the formats' content: a json format with them is Gleaner's json page format, which reads it.
  if (plan.json && content.length === 0 && !tagFilters) return { fields: { ...jsonFormatFields(plan, at) }, jsonOnly: true };
  return {
    fields: {
      formats: plan.json ? [...plan.gleanerFormats, 'json'] : plan.gleanerFormats,
      ...jsonFormatFields(plan, at),
      ...(plan.fullPageScreenshot ? { full_page_screenshot: true } : {}),
    },
    jsonOnly: false,
  };
}

/** What shapes the formats' content (a schema extraction alone has no formats: the model reads the page as it does). */
function contentFields(scrape: ScrapeOptions, jsonOnly: boolean): Record<string, unknown> {
  if (jsonOnly) return {};
  const { include_tags, exclude_tags } = fetchFields(scrape);
  return {
    ...(scrape.onlyMainContent !== undefined ? { only_main_content: scrape.onlyMainContent } : {}),
    ...(include_tags ? { include_tags } : {}),
    ...(exclude_tags ? { exclude_tags } : {}),
  };
}

/**
 * POST /v2/crawl and POST /v2/batch/scrape: a Gleaner crawl or batch job, made by the same services as
 * POST /api/v1/crawl and /batch/extract after Gleaner's own DTO checks, plus a note of the Firecrawl formats.
 */
@Injectable()
export class FirecrawlJobStartsService {
  constructor(
    private readonly crawls: CrawlRequestsService,
    private readonly batches: BatchRequestsService,
    private readonly notes: FirecrawlJobsRepository,
    private readonly jobs: JobsRepository,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  async crawl(caller: Caller, body: unknown, requestId: string, origin: RequestOrigin): Promise<JobStartedResponse> {
    const request = parseWith(crawlRequestSchema, body);
    refuseUnsupportedCrawl(request);
    const scrape = request.scrapeOptions ?? {};
    refuseUnsupported(scrape, 'scrapeOptions.');
    const plan = planFormats(scrape, 'scrapeOptions.formats');
    const { fields, jsonOnly } = pageFields(plan, 'scrapeOptions.formats', hasTagFilters(scrape));
    const dto = await asGleanerDto(CrawlRequestDto, {
      url: request.url,
      ...fields,
      ...contentFields(scrape, jsonOnly),
      options: crawlOptions(request, scrape),
      ...gleanerWebhook(request.webhook),
    });
    const answer = await this.crawls.start(caller, dto, {}, requestId, origin);
    await this.note(caller, answer.body.job_id, 'crawl', plan, jsonOnly);
    return { success: true, id: answer.body.job_id, url: this.statusUrl(origin, 'crawl', answer.body.job_id) };
  }

  async batch(caller: Caller, body: unknown, requestId: string, origin: RequestOrigin): Promise<JobStartedResponse> {
    const request = parseWith(batchScrapeRequestSchema, body);
    if (request.appendToId) throw optionNotSupported('appendToId', 'adding URLs to a running batch (start another batch)');
    refuseUnsupported(request);
    const plan = planFormats(request);
    const { fields, jsonOnly } = pageFields(plan, 'formats', hasTagFilters(request));
    const { valid, invalid } = splitUrls(request.urls);
    if (invalid.length > 0 && !request.ignoreInvalidURLs) {
      throw optionNotSupported('urls', `invalid URLs (${invalid.slice(0, 5).join(', ')}); send ignoreInvalidURLs: true to leave them out`);
    }
    if (valid.length === 0) throw optionNotSupported('urls', 'no valid URL left');
    const dto = await asGleanerDto(BatchRequestDto, {
      urls: valid,
      ...fields,
      ...contentFields(request, jsonOnly),
      options: batchOptions(request.maxConcurrency, request),
      ...gleanerWebhook(request.webhook),
    });
    const answer = await this.batches.start(caller, dto, {}, requestId, origin);
    await this.note(caller, answer.body.job_id, 'batch', plan, jsonOnly);
    return {
      success: true,
      id: answer.body.job_id,
      url: this.statusUrl(origin, 'batch/scrape', answer.body.job_id),
      ...(invalid.length > 0 ? { invalidURLs: invalid } : {}),
    };
  }

  /**
   * POST /v2/crawl/params-preview: the options this server would crawl with for a URL, in Firecrawl's names.
   * Natural-language prompts are not interpreted (the answer says so in `warning`).
   */
  paramsPreview(body: unknown): ParamsPreviewResponse {
    const request = parseWith(paramsPreviewRequestSchema, body);
    return {
      success: true,
      data: {
        url: request.url,
        limit: FIRECRAWL_DEFAULT_LIMIT,
        maxDiscoveryDepth: MAX_DEPTH,
        sitemap: 'include',
        crawlEntireDomain: false,
        allowSubdomains: false,
        allowExternalLinks: false,
        includePaths: [],
        excludePaths: [],
      },
      warning: 'This server does not turn prompts into crawl options: these are its defaults for the URL; set the options yourself.',
    };
  }

  /** GET /v2/crawl/active (and /ongoing): the caller's crawls that have not ended. */
  async active(caller: Caller): Promise<ActiveCrawlsResponse> {
    const jobs = await this.jobs.unfinishedOf({ userId: caller.userId }, MAX_ACTIVE);
    return {
      success: true,
      crawls: jobs
        .filter((job) => job.type === 'crawl')
        .map((job) => ({
          id: job._id,
          teamId: job.user_id,
          url: job.url ?? '',
          options: (job.input as { options?: Record<string, unknown> }).options ?? null,
        })),
    };
  }

  private statusUrl(origin: RequestOrigin, path: string, id: string): string {
    return `${publicBaseUrl(this.config.publicUrl, origin, this.config.port)}/v2/${path}/${id}`;
  }

  private note(
    caller: Caller,
    jobId: string,
    kind: 'crawl' | 'batch' | 'extract',
    plan: FormatPlan,
    jsonOnly: boolean,
    invalid?: string[],
  ) {
    return this.notes.insert({
      _id: jobId,
      user_id: caller.userId,
      kind,
      formats: [...plan.wanted],
      json_only: jsonOnly,
      ...(invalid ? { invalid_urls: invalid } : {}),
      created_at: nowIso(),
    });
  }
}

/** The URLs Gleaner takes (its own URL rule) and the others. */
export function splitUrls(urls: readonly string[]): { valid: string[]; invalid: string[] } {
  const valid: string[] = [];
  const invalid: string[] = [];
  for (const url of urls) (isGleanerUrl(url.trim()) ? valid : invalid).push(url.trim());
  return { valid, invalid };
}

export type { CrawlRequest };
