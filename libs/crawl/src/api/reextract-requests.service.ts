import { Inject, Injectable } from '@nestjs/common';
import { PageArchive, type ArchivedPageRecord } from '@app/archive';
import type { Caller } from '@app/auth';
import { APP_CONFIG, type AppConfig } from '@app/config';
import { Errors } from '@app/core';
import { JobIntakeService } from '@app/intake';
import { JobsService, isTerminal, onCrawlEngine } from '@app/jobs';
import { publicBaseUrl, type RequestOrigin } from '@app/results';
import type { PageFormatsPlan } from '@app/pages';
import type { JsonSchemaObject } from '@app/schema';
import { resolveCrawlOptions, type CrawlOptions } from '@app/sites';
import { archivedJobOptions } from './archived-job-options';
import type { CrawlJobInput } from '../crawl-input';
import { CrawlRepository } from '../crawl.repository';
import type { ReextractRequestDto, ReextractResponse } from './dto/archive.dto';
import { crawlSource, extractSource } from './reextract-source';

export interface ReextractAnswer {
  location: string;
  body: ReextractResponse;
}

/**
 * API side of POST /jobs/{id}/reextract (docs/archive.md "Re-extraction"): a `reextract` job on the
 * crawl engine over the source job's archived pages, with a new schema, model or extraction mode. The
 * source must be a finished job of the caller: of the crawl engine (crawl, batch, reextract,
 * warc-extract), or an extract that kept its page; its pages are counted now (the job's `max_pages`).
 * No request reaches a site: every option about finding or fetching URLs is off.
 */
@Injectable()
export class ReextractRequestsService {
  constructor(
    private readonly intake: JobIntakeService,
    private readonly jobs: JobsService,
    private readonly repository: CrawlRepository,
    private readonly archive: PageArchive,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  async start(
    caller: Caller,
    sourceJobId: string,
    dto: ReextractRequestDto,
    requestId: string,
    origin: RequestOrigin,
  ): Promise<ReextractAnswer> {
    const source = await this.jobs.getRecord(caller, sourceJobId);
    if (!onCrawlEngine(source.type) && source.type !== 'extract') {
      throw Errors.conflict(
        `A ${source.type} job keeps no archived pages to re-extract; crawl, batch, extract, reextract and warc-extract jobs do.`,
      );
    }
    if (!isTerminal(source.status)) throw Errors.conflict(`The job is ${source.status}; re-extract it once it has finished.`);
    const only = dto.only ?? 'all';
    const from =
      source.type === 'extract' ? await extractSource(this.archive, source, only) : await crawlSource(this.repository, source, only);
    const { input, pages } = from;
    if (pages === 0) throw Errors.conflict(from.nothing);
    const given = dto.schema !== undefined || dto.schema_id !== undefined;
    // A crawl without a schema stored page formats: there is no schema of its own to extract again with.
    if (!given && input.schema === null)
      throw Errors.validation([
        { location: 'body.schema', message: 'is required: the job stored page formats, not a schema (or give a schema_id)' },
      ]);
    const schema = given ? await this.intake.schema(caller, dto, null) : null;
    const options = reextractOptions(input.options, pages, dto);
    const job = await this.intake.submit<CrawlJobInput>(caller, {
      type: 'reextract',
      url: source.url,
      input: (llmConfig) => ({
        url: input.url,
        schema: schema ? schema.parsed.jsonSchema : input.schema,
        schema_id: schema ? schema.schemaId : input.schema_id,
        page_formats: null,
        site_id: input.site_id,
        llm_config: llmConfig,
        options,
        extraction_mode: dto.extraction_mode ?? 'model',
        source: { kind: 'archive', source_job_id: source._id, only, pages, ...(from.singlePage ? { single_page: from.singlePage } : {}) },
      }),
      captureDebug: dto.capture_debug ?? false,
      requestId,
      webhooks: dto,
      llmConfig: dto.llm_config,
      requireModel: true,
    });
    const statusUrl = `${publicBaseUrl(this.config.publicUrl, origin, this.config.port)}/api/v1/jobs/${job.id}`;
    return {
      location: statusUrl,
      body: { job_id: job.id, status: job.status, status_url: statusUrl, source_job_id: source._id, page_count: pages },
    };
  }

  /**
   * A `reextract` job that turns one archived page into page formats: no request to the site, and no model
   * unless the formats hold `json` (then `schema` is extracted by the caller's model chain, as the json format
   * always is: docs/scrape.md "The json format"). The
   * Firecrawl-compatible API serves `maxAge` and compares `changeTracking` with it (docs/firecrawl.md); the job
   * is listed, streamed and deleted like any re-extraction (`source_job_id` is the job that kept the page).
   */
  async formatsOfPage(
    caller: Caller,
    page: Pick<ArchivedPageRecord, 'job_id' | 'key' | 'url'>,
    formats: PageFormatsPlan,
    requestId: string,
    schema: JsonSchemaObject | null = null,
  ): Promise<{ job_id: string }> {
    const json = formats.formats.includes('json');
    if (json !== (schema !== null)) throw Errors.internal('The json format of a re-extracted page goes with its schema.');
    const options = reextractOptions(resolveCrawlOptions({}), 1, {});
    const job = await this.intake.submit<CrawlJobInput>(caller, {
      type: 'reextract',
      url: page.url,
      input: () => ({
        url: page.url,
        schema,
        schema_id: null,
        page_formats: formats,
        site_id: null,
        llm_config: null,
        options,
        extraction_mode: 'model',
        source: { kind: 'archive', source_job_id: page.job_id, only: 'all', pages: 1, single_page: { url: page.url, key: page.key } },
      }),
      requestId,
      requireModel: json,
    });
    return { job_id: job.id };
  }
}

/** The source's options with everything about finding and fetching URLs off: one page per archived page. */
function reextractOptions(
  source: CrawlOptions,
  pages: number,
  dto: Pick<ReextractRequestDto, 'concurrency' | 'max_cost_usd'>,
): CrawlOptions {
  // Its pages are in the archive: the workers copy each source page to this job as they read it.
  return archivedJobOptions(source, pages, { concurrency: dto.concurrency ?? source.concurrency, max_cost_usd: dto.max_cost_usd ?? null });
}
