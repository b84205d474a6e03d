import { Inject, Injectable } from '@nestjs/common';
import type { Caller } from '@app/auth';
import { APP_CONFIG, type AppConfig } from '@app/config';
import { MapRequestDto, MapService } from '@app/crawl';
import { JobsRepository, UsageService } from '@app/jobs';
import { asGleanerDto } from './gleaner-dto';
import { parseWith } from './wire/errors';
import { historicalQuerySchema, mapRequestSchema } from './wire/requests';
import type {
  ConcurrencyResponse,
  CreditHistoryResponse,
  CreditUsageResponse,
  MapResponse,
  QueueStatusResponse,
  TokenHistoryResponse,
  TokenUsageResponse,
} from './wire/responses';

/**
 * What a self-hosted server says where Firecrawl's cloud counts credits: there is no plan, so nothing runs
 * out (docs/firecrawl.md "Usage"). A large constant rather than a missing field: clients compare with it.
 */
export const UNLIMITED = 1_000_000_000;
/** One day of Gleaner's usage report. */
type UsageDay = Awaited<ReturnType<UsageService['report']>>['days'][number];

/** Jobs of the caller read for the queue reads. */
const QUEUE_SCAN = 1000;

function monthStart(date: Date): Date {
  return new Date(Date.UTC(date.getUTCFullYear(), date.getUTCMonth(), 1));
}

/** POST /v2/map, and the team reads (credit and token usage, queue status, concurrency) from Gleaner's own usage and jobs. */
@Injectable()
export class FirecrawlMapAndTeamService {
  constructor(
    private readonly maps: MapService,
    private readonly usage: UsageService,
    private readonly jobs: JobsRepository,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  /** The site's URLs (Gleaner's map: sitemaps and the seed page's links), `sitemap: only` keeping the sitemaps' alone. */
  async map(body: unknown): Promise<MapResponse> {
    const request = parseWith(mapRequestSchema, body);
    const dto = await asGleanerDto(MapRequestDto, {
      url: request.url,
      use_sitemap: request.sitemap !== 'skip',
      ...(request.includeSubdomains !== undefined ? { include_subdomains: request.includeSubdomains } : {}),
      ...(request.search ? { search: request.search } : {}),
      ...(request.limit ? { limit: request.limit } : {}),
    });
    const { map } = await this.maps.discover(dto);
    const urls = request.sitemap === 'only' ? map.urls.filter((u) => u.source === 'sitemap') : map.urls;
    return {
      success: true,
      links: urls.map((u) => ({ url: u.url, ...(u.text ? { title: u.text } : {}) })),
      ...(map.complete ? {} : { warning: 'The map was cut short by the server time budget: these are the URLs found by then.' }),
    };
  }

  /** Credits as Firecrawl counts them (a page one credit), this billing period (the UTC month). */
  async creditUsage(caller: Caller): Promise<CreditUsageResponse> {
    const report = await this.usage.report(caller, monthStart(new Date()).toISOString());
    return {
      success: true,
      data: {
        remainingCredits: UNLIMITED,
        planCredits: UNLIMITED,
        creditsUsed: report.total.pages,
        billingPeriodStart: report.from,
        billingPeriodEnd: null,
      },
    };
  }

  async tokenUsage(caller: Caller): Promise<TokenUsageResponse> {
    const report = await this.usage.report(caller, monthStart(new Date()).toISOString());
    return {
      success: true,
      data: {
        remainingTokens: UNLIMITED,
        planTokens: UNLIMITED,
        tokensUsed: report.total.input_tokens + report.total.output_tokens,
        billingPeriodStart: report.from,
        billingPeriodEnd: null,
      },
    };
  }

  /** Pages month by month over the last year (usage keeps every job's counts; `byApiKey` is not split: the caller's key is its tenant). */
  async creditHistory(caller: Caller, query: unknown): Promise<CreditHistoryResponse> {
    const months = await this.monthly(caller, query, (day) => day.pages);
    return { success: true, periods: months.map(({ used, ...period }) => ({ ...period, creditsUsed: used })) };
  }

  /** Model tokens month by month over the last year. */
  async tokenHistory(caller: Caller, query: unknown): Promise<TokenHistoryResponse> {
    const months = await this.monthly(caller, query, (day) => day.input_tokens + day.output_tokens);
    return { success: true, periods: months.map(({ used, ...period }) => ({ ...period, tokensUsed: used })) };
  }

  private async monthly(
    caller: Caller,
    query: unknown,
    count: (day: UsageDay) => number,
  ): Promise<Array<{ startDate: string; endDate: string; used: number }>> {
    parseWith(historicalQuerySchema, query, 'query');
    const now = new Date();
    const from = monthStart(new Date(Date.UTC(now.getUTCFullYear() - 1, now.getUTCMonth() + 1, 1)));
    const report = await this.usage.report(caller, from.toISOString());
    const months = new Map<string, number>();
    for (const day of report.days) {
      const month = day.date.slice(0, 7);
      months.set(month, (months.get(month) ?? 0) + count(day));
    }
    return [...months.entries()].map(([month, used]) => {
      const start = new Date(`${month}-01T00:00:00.000Z`);
      const end = new Date(Date.UTC(start.getUTCFullYear(), start.getUTCMonth() + 1, 1));
      return { startDate: start.toISOString(), endDate: end.toISOString(), used };
    });
  }

  /** The caller's jobs waiting and running, the per-user cap, and when a job last completed. */
  async queueStatus(caller: Caller): Promise<QueueStatusResponse> {
    const owner = { userId: caller.userId };
    const unfinished = await this.jobs.unfinishedOf(owner, QUEUE_SCAN);
    const active = unfinished.filter((job) => job.status === 'running').length;
    const recent = await this.jobs.listOwn(owner, 100, 0);
    const lastDone = recent.find((job) => job.status === 'completed' && job.completed_at);
    return {
      success: true,
      jobsInQueue: unfinished.length,
      activeJobsInQueue: active,
      waitingJobsInQueue: unfinished.length - active,
      maxConcurrency: this.config.maxRunningJobsPerUser,
      mostRecentSuccess: lastDone?.completed_at ?? null,
    };
  }

  async concurrency(caller: Caller): Promise<ConcurrencyResponse> {
    const unfinished = await this.jobs.unfinishedOf({ userId: caller.userId }, QUEUE_SCAN);
    return {
      success: true,
      data: { concurrency: unfinished.filter((job) => job.status === 'running').length, maxConcurrency: this.config.maxRunningJobsPerUser },
    };
  }
}
