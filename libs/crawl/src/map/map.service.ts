import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '@app/config';
import { AppError, Errors } from '@app/core';
import { fetchLoggedIn, AuthSessions } from '@app/auth-profiles';
import {
  controlledFetcher,
  guardFromSettings,
  openRequestControl,
  RobotsCache,
  StaticFetcher,
  type FetchControl,
  type FetchOptions,
  type PlainFetcher,
} from '@app/fetch';
import { JobIntakeService } from '@app/intake';
import { PageLoaderService } from '@app/pages';
import { LOGGER, type AppLogger } from '@app/observability';
import type { BodyStream } from '@app/results';
import { canonicalize } from '../url-canon';
import { MAP_DEFAULTS, type MapRequestDto } from './dto/map-request.dto';
import { SiteMapper } from './site-mapper';

export const MAP_NDJSON = 'application/x-ndjson';

/**
 * POST /map (docs/crawl.md "Map"): a synchronous answer within GLEANER_MAP_TIME_BUDGET_MS. The fetches
 * go through the address guard like every other fetch; robots.txt is read once per origin per map.
 * JSON by default; JSON lines (one URL object per line, the totals in `x-map-*` headers) when the
 * caller asks for application/x-ndjson, written as a stream.
 */
@Injectable()
export class MapService {
  private readonly fetcher: StaticFetcher;

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(LOGGER) logger: AppLogger,
    private readonly intake: JobIntakeService,
    private readonly sessions: AuthSessions,
    private readonly pages: PageLoaderService,
  ) {
    this.fetcher = new StaticFetcher({
      guard: guardFromSettings(config, logger),
      timeoutMs: config.fetchTimeoutMs,
      maxBytes: config.fetchMaxBytes,
    });
  }

  /** The site's URLs (what POST /map answers, before it is written): also the Firecrawl-compatible map's source. */
  async discover(dto: MapRequestDto, caller?: { userId: string }): Promise<{ url: string; map: Awaited<ReturnType<SiteMapper['map']>> }> {
    const seed = canonicalize(dto.url);
    if (!seed) throw Errors.validation([{ location: 'body.url', message: 'must be an http or https URL', value: dto.url }]);
    if (dto.auth_profile) {
      if (!caller) throw new Error('a map naming an auth profile is made for its caller');
      await this.intake.authProfile(caller, dto.auth_profile, 'body.auth_profile');
    }
    // Every read of the map (robots.txt, sitemaps, the seed page) with the request's fetch control: its headers and
    // cookies to the seed's host only, its User-Agent, its proxy pool (docs/proxies.md), its auth profile's session.
    const control = openRequestControl(dto, { host: new URL(seed.url).host, ...(caller ? { owner: caller.userId } : {}) });
    const fetcher = this.withSession(controlledFetcher(this.fetcher, control), control, seed.url);
    const robots = new RobotsCache({
      fetcher,
      userAgent: this.config.robotsUserAgent,
      errorTtlMs: this.config.robotsRetryMs,
    });
    const mapper = new SiteMapper({ fetcher, robots });
    const budget = AbortSignal.timeout(this.config.mapTimeBudgetMs);
    const map = await mapper
      .map(
        {
          url: seed.url,
          useSitemap: dto.use_sitemap ?? MAP_DEFAULTS.use_sitemap,
          includeSubdomains: dto.include_subdomains ?? MAP_DEFAULTS.include_subdomains,
          search: dto.search,
          limit: dto.limit ?? MAP_DEFAULTS.limit,
        },
        budget,
      )
      .catch((error: unknown) => {
        throw seedFailure(error);
      });
    return { url: seed.url, map };
  }

  async map(
    dto: MapRequestDto,
    accept: string | undefined,
    caller?: { userId: string },
  ): Promise<{ headers: Record<string, string>; body: BodyStream }> {
    const { url, map } = await this.discover(dto, caller);
    const totals = {
      url,
      complete: map.complete,
      count: map.urls.length,
      found: map.found,
      sitemap_files: map.sitemapFiles,
      robots_excluded: map.robotsExcluded,
    };
    const headers = {
      'x-map-complete': String(map.complete),
      'x-map-count': String(map.urls.length),
      'x-map-found': String(map.found),
    };
    if (wantsNdjson(accept)) {
      async function* lines(): AsyncIterable<string> {
        for (let i = 0; i < map.urls.length; i += 500)
          yield map.urls
            .slice(i, i + 500)
            .map((u) => `${JSON.stringify(u)}\n`)
            .join('');
      }
      return { headers, body: { contentType: MAP_NDJSON, filename: 'map.jsonl', chunks: lines() } };
    }
    async function* json(): AsyncIterable<string> {
      const head = JSON.stringify({ ...totals, urls: [] });
      yield head.slice(0, -2);
      for (let i = 0; i < map.urls.length; i += 500)
        yield (
          (i === 0 ? '' : ',') +
          map.urls
            .slice(i, i + 500)
            .map((u) => JSON.stringify(u))
            .join(',')
        );
      yield ']}\n';
    }
    return { headers, body: { contentType: 'application/json', filename: 'map.json', chunks: json() } };
  }

  /**
   * With an auth profile, the session's cookies on every read of the map (to the profile's hosts only), and the seed
   * page judged logged in or out as a page is (one re-login, then `auth_failed`).
   */
  private withSession(base: PlainFetcher, control: FetchControl, seed: string): PlainFetcher {
    const ref = control.authProfile;
    if (!ref) return base;
    const agent = this.pages.loginAgent(control);
    const session = async (options: FetchOptions = {}) => ({ ...options, session: (await this.sessions.current(ref, agent)).cookies });
    return {
      fetch: async (url, options) =>
        url === seed
          ? fetchLoggedIn(this.sessions, ref, agent, (u, o) => base.fetch(u, o), url, options ?? {})
          : base.fetch(url, await session(options)),
      fetchRaw: async (url, options) => base.fetchRaw(url, await session(options)),
    };
  }
}

/** The seed page could not be read (and no sitemap was asked for): a forbidden address is the caller's 422, anything else the site's 502. */
function seedFailure(error: unknown): AppError {
  const category = error instanceof AppError ? error.category : undefined;
  const detail = `The seed page could not be read: ${error instanceof AppError ? (error.detail ?? error.message) : String(error)}`;
  if (category === 'ssrf_blocked')
    return new AppError('validation-error', detail, { category, errors: [{ location: 'body.url', message: detail }] });
  return new AppError('upstream-failure', detail, { category: category ?? 'fetch_error' });
}

/** JSON lines when the caller prefers them (Accept lists application/x-ndjson before JSON, or alone). */
function wantsNdjson(accept: string | undefined): boolean {
  if (!accept) return false;
  const types = accept.split(',').map((part) => part.split(';')[0].trim().toLowerCase());
  const nd = types.findIndex((t) => t === MAP_NDJSON || t === 'application/jsonl');
  const json = types.findIndex((t) => t === 'application/json');
  return nd >= 0 && (json < 0 || nd < json);
}
