import { Inject, Injectable, Optional, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { Counter, Gauge, Histogram } from 'prom-client';
import { APP_CONFIG, type AppConfig } from '@app/config';
import { ContentPool, type ContentPoolOptions, type ConversionInput, type ConversionMode, type ConversionResult } from '@app/content';

/** How a fetched page becomes content: the conversion options every caller of `convert` gives (one shape, the pipeline's). */
export interface ConvertOptions {
  mode: ConversionMode;
  linkSelector?: string;
  nextSelector?: string;
  also?: ConversionInput['also'];
  tags?: ConversionInput['tags'];
}
import { AppError } from '@app/core';
import { AuthSessions, authFailed, fetchLoggedIn, type LoginAgent } from '@app/auth-profiles';
import {
  Fetcher,
  guardFromSettings,
  HOST_MODE_MEMORY,
  MemoryAdmission,
  proxyPoolCounters,
  reapOrphanedBrowsers,
  sideReadControl,
  useProxyPools,
  type FetchMode,
  type FetchOptions,
  type FetchResult,
  type FetchControl,
  type HostModeMemory,
  type ModeFetchOptions,
  type ScreenshotKind,
} from '@app/fetch';
import { LOGGER, METRICS, Metrics, type AppLogger } from '@app/observability';

export interface LoadOptions {
  signal?: AbortSignal;
  conversion?: ConversionMode;
  linkSelector?: string;
  /** A list's next-page link selector (`paginate`): its links in `content.nextLinks`. */
  nextSelector?: string;
  /** Runs between fetch and conversion; throwing ends the load there. */
  beforeConvert?: (fetched: FetchResult) => void | Promise<void>;
  beforeRedirect?: FetchOptions['beforeRedirect'];
  /** The caller's fetch control for this page (openFetchControl), handed to the fetcher as it is. */
  control?: FetchControl;
  /** A PNG of the rendered page (the fetch then uses the browser). */
  screenshot?: ScreenshotKind;
  /** Plain text and cleaned HTML besides the markdown. */
  also?: ConversionInput['also'];
  /** CSS selectors that shape the content (`include_tags`, `exclude_tags`). */
  tags?: ConversionInput['tags'];
  /** Request headers of Gleaner's own (a monitor's If-None-Match / If-Modified-Since). */
  headers?: Record<string, string>;
  /** A browser fetch also reads the document's own bytes (FetchResult.raw), for the page archive. */
  keepRaw?: boolean;
}

export interface LoadedPage {
  fetch: FetchResult;
  content: ConversionResult;
  fetchedAt: string;
  fetchDurationMs: number;
}

/** The content pool's worker module, when not its own: provided only by the test apps (test/test-app). */
export const CONTENT_WORKER_FILE = Symbol('CONTENT_WORKER_FILE');

/**
 * The page pipeline shared by single-page jobs and crawls: fetch (static / browser / auto, behind
 * the address guard, the mode auto chose remembered per host for every replica) then HTML →
 * markdown in the worker-thread pool. One fetcher (one browser pool) and one content pool per process.
 */
@Injectable()
export class PageLoaderService implements OnApplicationBootstrap, OnApplicationShutdown {
  readonly fetcher: Fetcher;
  private readonly pool: ContentPool;
  private readonly pages: Counter<'outcome'>;
  private readonly fetchDuration: Histogram<'mode'>;

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(METRICS) metrics: Metrics,
    @Inject(HOST_MODE_MEMORY) hostMemory: HostModeMemory,
    @Inject(LOGGER) private readonly logger: AppLogger,
    @Optional() @Inject(CONTENT_WORKER_FILE) workerFile?: ContentPoolOptions['workerFile'],
    @Optional() private readonly sessions?: AuthSessions,
  ) {
    // Read (and checked) at start: a GLEANER_PROXY_POOLS that does not parse stops the process here.
    const proxyPools = useProxyPools(config.proxyPools, proxyPoolCounters(metrics.registry));
    this.fetcher = new Fetcher({
      guard: guardFromSettings(config, logger),
      proxyPools,
      hostMemory,
      static: { timeoutMs: config.fetchTimeoutMs, maxBytes: config.fetchMaxBytes },
      dynamic: config.browserEnabled
        ? {
            timeoutMs: config.fetchTimeoutMs,
            maxBytes: config.fetchMaxBytes,
            pool: {
              executablePath: config.chromiumPath,
              maxBrowsers: config.browserMaxBrowsers,
              pageHeapMb: config.browserPageHeapMb,
              admission: new MemoryAdmission({ share: config.browserMemoryPercent / 100 }),
            },
          }
        : false,
    });
    this.pool = new ContentPool({ threads: config.contentThreads, taskTimeoutMs: config.contentTimeoutMs, workerFile });
    this.pages = new Counter({
      name: 'gleaner_pages_total',
      help: 'Pages loaded (fetched and converted to text) for extractions and crawls, by outcome (success or an error_category). Unit: pages.',
      labelNames: ['outcome'],
      registers: [metrics.registry],
    });
    const fetcher = this.fetcher;
    // Sampled at scrape time from the pool itself: open pages and contexts, browsers, waiting leases.
    new Gauge({
      name: 'gleaner_browser_pool_pages',
      help: 'Browser pool of this process at scrape time, by state: open_pages and open_contexts (pages and contexts), browsers (live browser processes), waiting (loads waiting for a page). Unit: pages, contexts, browsers or loads (per state).',
      labelNames: ['state'],
      registers: [metrics.registry],
      collect() {
        const stats = fetcher.dynamicFetcher?.stats();
        if (!stats) return;
        this.set({ state: 'open_pages' }, stats.openPages);
        this.set({ state: 'open_contexts' }, stats.openContexts);
        this.set({ state: 'browsers' }, stats.browsers);
        this.set({ state: 'waiting' }, stats.waiting);
      },
    });
    this.fetchDuration = new Histogram({
      name: 'gleaner_fetch_duration_seconds',
      help: 'Duration of page fetches (request to full body, or to the rendered page), by the mode that answered (static, dynamic). Unit: seconds.',
      labelNames: ['mode'],
      buckets: [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
      registers: [metrics.registry],
    });
  }

  async load(url: string, mode: FetchMode, options: LoadOptions = {}): Promise<LoadedPage> {
    const fetchedAt = new Date().toISOString();
    let fetched: FetchResult;
    try {
      fetched = await this.fetchPage(url, mode, options);
    } catch (error) {
      this.pages.inc({ outcome: error instanceof AppError && error.category ? error.category : 'fetch_error' });
      throw error;
    }
    this.fetchDuration.observe({ mode: fetched.mode }, fetched.durationMs / 1000);
    await options.beforeConvert?.(fetched);
    let content: ConversionResult;
    try {
      content = await this.convert(fetched, {
        mode: options.conversion ?? 'full',
        linkSelector: options.linkSelector,
        nextSelector: options.nextSelector,
        also: options.also,
        tags: options.tags,
      });
    } catch (error) {
      if (error instanceof AppError && error.category && error.category !== 'internal') this.pages.inc({ outcome: error.category });
      throw error;
    }
    this.pages.inc({ outcome: 'success' });
    return { fetch: fetched, content, fetchedAt, fetchDurationMs: fetched.durationMs };
  }

  /** The page's fetch: the job's fetch control under the load's own options. */
  private fetchPage(url: string, mode: FetchMode, options: LoadOptions): Promise<FetchResult> {
    return this.fetchControlled(url, options.control, {
      mode,
      signal: options.signal,
      beforeRedirect: options.beforeRedirect,
      acceptPdf: true,
      headers: options.headers,
      screenshot: options.screenshot,
      keepRaw: options.keepRaw,
    });
  }

  /**
   * One fetch with a job's opened fetch control (a page's, or an analysis's two fetches of its page) under the
   * fetch's own `options`. With an auth profile (docs/auth-profiles.md): its session goes along to the profile's
   * hosts, and an answer that shows it logged out (a redirect to the login page, judged before the caller's own
   * redirect rules such as a crawl's duplicate rule; a logged-out status; the profile's check) is fetched once
   * more after one fresh login (RELOGINS_PER_PAGE, not one of a crawl page's attempts); still logged out, the
   * page fails `auth_failed`.
   */
  fetchControlled(url: string, given: FetchControl | undefined, options: ModeFetchOptions): Promise<FetchResult> {
    const { authProfile, ...control } = given ?? {};
    const fetchOptions = { ...control, ...options };
    if (!authProfile) return this.fetcher.fetch(url, fetchOptions);
    if (!this.sessions) throw authFailed('Auth profiles are not available in this process.');
    const agent = this.loginAgent(control, options.signal);
    return fetchLoggedIn(
      this.sessions,
      authProfile,
      agent,
      (pageUrl, pageOptions) => this.fetcher.fetch(pageUrl, pageOptions),
      url,
      fetchOptions,
    );
  }

  /**
   * How an auth profile's login reaches its site from this process: static requests, or a browser confined to the
   * profile's hosts when this process renders; both through the guard, with what of the job's fetch control the
   * reads besides its pages take (sideReadControl: the page's proxy pool).
   */
  loginAgent(control: FetchControl, signal?: AbortSignal): LoginAgent {
    const reach = sideReadControl(control);
    return {
      http: (url, options) => this.fetcher.fetchRaw(url, { ...options, ...reach, signal }),
      ...(this.fetcher.dynamicFetcher
        ? { browser: (script) => this.fetcher.browserScript({ ...script, ...reach, signal, timeoutMs: this.config.fetchTimeoutMs }) }
        : {}),
    };
  }

  /**
   * HTML is converted (with the links a `linkSelector` picks), a PDF's text laid out as markdown
   * (docs/scrape.md "PDFs"); JSON, XML and plain-text bodies go to the model as they are.
   */
  async convert(fetched: FetchResult, options: ConvertOptions): Promise<ConversionResult> {
    const { mode, linkSelector, nextSelector, also, tags } = options;
    const none = { ...(linkSelector ? { selectedLinks: [] } : {}), ...(nextSelector ? { nextLinks: [] } : {}) };
    if (fetched.contentType === 'application/pdf' && fetched.body) {
      const pdf = await this.pool.convertPdf({ pdf: fetched.body, url: fetched.url, maxPages: this.config.pdfMaxPages });
      return { ...pdf, ...none };
    }
    if (!/html|xml\+xhtml/.test(fetched.contentType) && fetched.contentType !== 'application/xhtml+xml') {
      return {
        markdown: fetched.html,
        ...(also?.text ? { text: fetched.html } : {}),
        metadata: { openGraph: {}, jsonLd: [] },
        links: [],
        ...none,
        stats: { htmlBytes: fetched.bytes, markdownBytes: fetched.html.length, ms: 0 },
      };
    }
    return this.pool.convert({
      html: fetched.html,
      url: fetched.url,
      mode,
      ...(linkSelector ? { linkSelector } : {}),
      ...(nextSelector ? { nextSelector } : {}),
      ...(also ? { also } : {}),
      ...(tags && (tags.include?.length || tags.exclude?.length) ? { tags } : {}),
    });
  }

  /** After the job runner finished or handed back in-flight pages (beforeApplicationShutdown), which still use the pools. */
  /** The HTTP client and the converter threads warm up in the background at start, not on the first page (~300 ms together). */
  onApplicationBootstrap(): void {
    void this.fetcher.staticFetcher.warmUp().catch(() => undefined);
    void this.pool.warmUp().catch(() => undefined);
    // Browsers a predecessor left (killed with -9, OOM-killed) on this machine: their owner is gone.
    if (this.config.browserEnabled) {
      const reaped = reapOrphanedBrowsers();
      if (reaped.length > 0) this.logger.warn({ browsers: reaped.length }, 'killed browsers a dead predecessor left');
    }
  }

  async onApplicationShutdown(): Promise<void> {
    await Promise.allSettled([this.fetcher.close(), this.pool.close()]);
  }
}
