import { Inject, Injectable } from '@nestjs/common';
import type { Caller } from '@app/auth';
import { APP_CONFIG, type AppConfig } from '@app/config';
import { Errors, roundUsd } from '@app/core';
import { splitOptionsFetchControl } from '@app/fetch';
import { JobIntakeService } from '@app/intake';
import { JobsService, isTerminal, type JobRecord } from '@app/jobs';
import { ResultsService, publicBaseUrl, type RequestOrigin } from '@app/results';
import { resolveCrawlOptions, validCrawlOptions, withSavedSecrets } from '@app/sites';
import type { CrawlJobInput } from '../crawl-input';
import type { CrawlQuery, CrawlRequestDto } from './dto/crawl-request.dto';
import { canonicalize } from '../url-canon';
import { pagePlan, plannedInput } from './page-plan';

export interface CrawlAnswer {
  /** 202 accepted (or the wait ran out), 200 when wait=true saw the crawl end. */
  status: 200 | 202;
  location: string;
  body: {
    job_id: string;
    status: string;
    status_url: string;
    page_count: number;
    duration_ms: number;
    cost_usd: number;
    token_usage: { input: number; output: number };
    data: Record<string, unknown>;
    error_message: string | null;
  };
}

/** API side of POST /crawl: job intake, then (with wait=true) waits for the crawl and answers with its merged items. */
@Injectable()
export class CrawlRequestsService {
  constructor(
    private readonly intake: JobIntakeService,
    private readonly jobs: JobsService,
    private readonly results: ResultsService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  async start(caller: Caller, dto: CrawlRequestDto, query: CrawlQuery, requestId: string, origin: RequestOrigin): Promise<CrawlAnswer> {
    const site = await this.intake.site(caller, dto.site_id);
    const seed = canonicalize(this.intake.url(dto.url, site));
    if (!seed) throw Errors.validation([{ location: 'body.url', message: 'must be an http or https URL', value: dto.url }]);
    if (dto.max_cost_usd !== undefined && dto.options?.max_cost_usd !== undefined && dto.max_cost_usd !== dto.options.max_cost_usd) {
      throw Errors.validation([
        { location: 'body.max_cost_usd', message: 'differs from options.max_cost_usd; give one of them', value: dto.max_cost_usd },
      ]);
    }
    // A saved site's options were validated when saved; anything unreadable now is ignored. Its headers
    // and cookies join the request's, name by name (the request's win), and travel sealed with the crawl.
    const saved = validCrawlOptions(site?.crawl_options);
    const { options, secrets } = splitOptionsFetchControl(
      resolveCrawlOptions(
        withSavedSecrets(
          { ...dto.options, ...(dto.max_cost_usd !== undefined ? { max_cost_usd: dto.max_cost_usd } : {}) },
          this.intake.siteSecrets(site, [seed.url], 'body.url'),
        ),
        {
          ...saved,
          fetch_mode: saved.fetch_mode ?? site?.fetch_mode,
        },
      ),
      'body.options',
    );
    await this.intake.authProfile(caller, options.auth_profile, dto.options?.auth_profile ? 'body.options.auth_profile' : 'body.site_id');
    const plan = await pagePlan(this.intake, caller, dto, options.fetch_mode, site?.default_schema_id ?? null);
    const job = await this.intake.submit<CrawlJobInput>(caller, {
      type: 'crawl',
      url: seed.url,
      input: (llmConfig) =>
        plannedInput(seed.url, plan, {
          site_id: site?._id ?? null,
          llm_config: llmConfig,
          options,
          extraction_mode: dto.extraction_mode ?? 'model',
        }),
      captureDebug: dto.capture_debug ?? false,
      requestId,
      webhooks: dto,
      llmConfig: dto.llm_config,
      requireModel: plan.schema !== null,
      secrets,
    });
    const base = publicBaseUrl(this.config.publicUrl, origin, this.config.port);
    let record = await this.jobs.getRecord(caller, job.id);
    let data: Record<string, unknown> = {};
    if (query.wait) {
      record = (await this.jobs.waitForTerminal(job.id, (query.timeout ?? 120) * 1000)) ?? record;
      if (isTerminal(record.status)) data = { items: await this.results.merged(caller, job.id) };
    }
    const statusUrl = `${base}/api/v1/jobs/${job.id}`;
    return { status: query.wait && isTerminal(record.status) ? 200 : 202, location: statusUrl, body: crawlResult(record, statusUrl, data) };
  }
}

function crawlResult(job: JobRecord, statusUrl: string, data: Record<string, unknown>): CrawlAnswer['body'] {
  const started = job.started_at ? Date.parse(job.started_at) : null;
  const ended = job.completed_at ? Date.parse(job.completed_at) : Date.now();
  return {
    job_id: job._id,
    status: job.status,
    status_url: statusUrl,
    page_count: job.page_count,
    duration_ms: started === null ? 0 : Math.max(0, ended - started),
    cost_usd: roundUsd(job.cost_usd),
    token_usage: { input: job.token_usage_input, output: job.token_usage_output },
    data,
    error_message: job.error_message,
  };
}
