import type { BrowserContext, Page, Response } from 'playwright';
import { AppError } from '@app/core';
import { AddressGuard } from './address-guard';
import { detectBotWall } from './bot-wall-detector';
import { removePeerConnections } from './browser-egress';
import { BrowserPool, type BrowserLease, type BrowserPoolOptions, type BrowserPoolStats } from './browser-pool';
import { takeScreenshot, waitForInPage } from './browser-page-steps';
import { SessionRouter, type NavigationState } from './browser-routing';
import { isPdfMediaType, kindFromMediaType, mediaType } from './content-type';
import { fetchError, statusError } from './errors';
import {
  DEFAULT_MAX_BYTES,
  DEFAULT_MAX_REDIRECTS,
  DEFAULT_TIMEOUT_MS,
  RedirectStopped,
  type FetchOptions,
  type FetchResult,
} from './fetch-types';
import { GuardedProxy, REFUSED_HEADER } from './guarded-proxy';
import type { ProxyPool } from './proxy-pool/proxy-pool';
import { scopeHostOf, type ScopedRequestData, type SessionCookies } from './request-control';
import { parseRetryAfter } from './retry-after';

export type BlockableResource = 'image' | 'media' | 'font' | 'stylesheet';

export interface DynamicFetcherOptions {
  guard?: AddressGuard;
  pool?: BrowserPoolOptions;
  timeoutMs?: number;
  /** After domcontentloaded, wait at most this long for network idle, then take what is there. */
  settleMs?: number;
  /** How long to wait for a JavaScript challenge page to pass by itself. 0 disables. */
  challengeWaitMs?: number;
  maxBytes?: number;
  maxRedirects?: number;
  blockResources?: BlockableResource[];
  userAgent?: string;
  viewport?: { width: number; height: number };
}

export interface DynamicFetcherStats extends BrowserPoolStats {
  openContexts: number;
  openPages: number;
  proxyRefused: number;
}

/** A browser context shared by the fetches of one job (cookies carry over, e.g. a passed challenge). */
export interface BrowserSession {
  fetch(url: string, options?: FetchOptions): Promise<FetchResult>;
  close(): Promise<void>;
}

/** What a session is opened with: the caller's fetch control, which holds for every page of the session. */
export interface BrowserSessionOptions {
  /** Replaces the browser's User-Agent. */
  userAgent?: string;
  /** Headers and cookies for one host (its `host`, else the first fetched URL's host). */
  scoped?: ScopedRequestData;
  /** Loads images and fonts too (a screenshot should look like the page). */
  loadAllResources?: boolean;
  /** The proxy pool the context's connections go through, behind the guard (docs/proxies.md). */
  proxy?: ProxyPool;
  /** An auth profile's session: host-only cookies of each profile host (the scoped cookies, added after, win by name). */
  session?: SessionCookies;
}

/** The browser would download the document (a PDF): the caller may read it over plain HTTP instead. */
export class BrowserDownload extends Error {
  constructor(readonly url: string) {
    super(`The browser would download ${url} instead of showing it.`);
    this.name = 'BrowserDownload';
  }
}

/**
 * Renders pages in headless Chromium from a BrowserPool. Every request of the browser is checked
 * twice: by a route handler (abort + record, resource blocking) and by the GuardedProxy the
 * browser is launched with (pins the connection to the vetted address, covers redirects and sockets).
 */
export class DynamicFetcher {
  readonly guard: AddressGuard;
  private readonly proxy: GuardedProxy;
  private proxyUrl?: Promise<string>;
  /** One guard proxy per proxy pool a context used, each chaining its pool behind the guard. */
  private readonly poolProxies = new Map<ProxyPool, { proxy: GuardedProxy; url: Promise<string> }>();
  private readonly poolOptions: BrowserPoolOptions;
  private poolInstance?: BrowserPool;
  private readonly timeoutMs: number;
  private readonly settleMs: number;
  private readonly challengeWaitMs: number;
  private readonly maxBytes: number;
  private readonly maxRedirects: number;
  private readonly blockResources: Set<string>;
  private readonly userAgent?: string;
  private readonly viewport: { width: number; height: number };
  private openContexts = 0;
  /** What the guard proxies of closed session contexts (a session held to one proxy of a pool) refused. */
  private sessionProxiesRefused = 0;
  private openPages = 0;

  constructor(options: DynamicFetcherOptions = {}) {
    this.guard = options.guard ?? new AddressGuard();
    this.proxy = new GuardedProxy(this.guard);
    this.poolOptions = options.pool ?? {};
    this.timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    this.settleMs = options.settleMs ?? 5_000;
    this.challengeWaitMs = options.challengeWaitMs ?? 8_000;
    this.maxBytes = options.maxBytes ?? DEFAULT_MAX_BYTES;
    this.maxRedirects = options.maxRedirects ?? DEFAULT_MAX_REDIRECTS;
    this.blockResources = new Set(options.blockResources ?? ['image', 'media', 'font']);
    this.userAgent = options.userAgent;
    this.viewport = options.viewport ?? { width: 1366, height: 900 };
  }

  /** One page in a fresh context. */
  async fetch(url: string, options: FetchOptions = {}): Promise<FetchResult> {
    const session = await this.openSession(options.signal, {
      userAgent: options.userAgent,
      scoped: options.scoped && { ...options.scoped, host: scopeHostOf(options.scoped, url) },
      loadAllResources: options.screenshot !== undefined,
      proxy: options.proxy,
      ...(options.session ? { session: options.session } : {}),
    });
    try {
      return await session.fetch(url, options);
    } finally {
      await session.close();
    }
  }

  /** A fresh context for a group of fetches (one job). Close it when the job ends. */
  async openSession(signal?: AbortSignal, options: BrowserSessionOptions = {}): Promise<BrowserSession> {
    const pool = await this.getPool();
    // A session held to one proxy of the pool (SessionCookies.proxyKey) gets a guard proxy of its own for the context.
    const key = options.session?.proxyKey;
    const own =
      options.proxy && key !== undefined
        ? new GuardedProxy(this.guard, undefined, options.proxy, { hosts: options.session!.hosts, key })
        : undefined;
    const closeOwn = own
      ? async () => {
          this.sessionProxiesRefused += own.refused;
          await own.close();
        }
      : undefined;
    let lease;
    let poolProxy: string | undefined;
    try {
      poolProxy = own ? await own.start() : options.proxy ? await this.poolProxyUrl(options.proxy) : undefined;
      lease = await pool.acquire(signal);
    } catch (error) {
      await own?.close();
      throw error;
    }
    const context = await this.newContext(lease, poolProxy, options.userAgent, closeOwn);
    const close = this.closerOf(context, lease, closeOwn);
    const scopeHost = options.scoped?.host;
    const router = new SessionRouter(
      this.guard,
      options.loadAllResources ? new Set(['media']) : this.blockResources,
      options.scoped,
      scopeHost,
    );
    await this.prepare(context, router, close, async () => {
      const sessionCookies = Object.entries(options.session?.cookies ?? {});
      for (const host of sessionCookies.length > 0 ? (options.session?.hosts ?? []) : []) {
        await context.addCookies(sessionCookies.map(([name, value]) => ({ name, value, url: `http://${host}/` })));
      }
      const items = options.session?.localStorage ?? {};
      if (Object.keys(items).length > 0) await context.addInitScript({ content: localStorageScript(options.session!.hosts, items) });
      const cookies = Object.entries(options.scoped?.cookies ?? {});
      if (scopeHost !== undefined && cookies.length > 0) {
        // Host-only cookies of the scope host: the browser sends them to that host and nowhere else.
        await context.addCookies(cookies.map(([name, value]) => ({ name, value, url: `http://${scopeHost}/` })));
      }
    });
    return { fetch: (url, fetchOptions = {}) => this.render(context, url, fetchOptions, router), close };
  }

  /**
   * A context confined to `hosts` for a scripted login (browser-script.ts): its own guard proxy refuses every
   * connection to another host (documents, redirects, a 307 re-posting a form, scripts' requests), chained to the
   * proxy pool when one is given; the session router refuses them early too. Nothing is blocked by type.
   */
  async openConfined(
    hosts: readonly string[],
    options: { signal?: AbortSignal; proxy?: ProxyPool; proxyKey?: string; userAgent?: string },
  ): Promise<{ context: BrowserContext; router: SessionRouter; close(): Promise<void> }> {
    const guard = this.guard.confinedTo(hosts);
    const affinity = options.proxyKey !== undefined ? { hosts, key: options.proxyKey } : undefined;
    const proxy = new GuardedProxy(guard, undefined, options.proxy, affinity);
    const server = await proxy.start();
    const pool = await this.getPool();
    let lease;
    try {
      lease = await pool.acquire(options.signal);
    } catch (error) {
      await proxy.close();
      throw error;
    }
    const release = lease;
    const context = await this.newContext(release, server, options.userAgent, () => proxy.close());
    const close = this.closerOf(context, release, () => proxy.close());
    const router = new SessionRouter(guard, new Set(['media']), undefined, undefined);
    await this.prepare(context, router, close);
    return { context, router, close };
  }

  /**
   * A browser context on `lease` with the fetcher's settings, through `proxyServer` when there is one. When it
   * cannot be opened, the lease is released and `onFail` runs (a context's own proxy is closed).
   */
  private async newContext(
    lease: BrowserLease,
    proxyServer: string | undefined,
    userAgent: string | undefined,
    onFail?: () => Promise<void>,
  ): Promise<BrowserContext> {
    try {
      return await lease.browser.newContext({
        ...(proxyServer ? { proxy: { server: proxyServer } } : {}),
        ignoreHTTPSErrors: true,
        serviceWorkers: 'block', // service workers' requests bypass route()
        userAgent: userAgent ?? this.userAgent,
        viewport: this.viewport,
        javaScriptEnabled: true,
        acceptDownloads: false,
      });
    } catch (error) {
      await lease.release();
      await onFail?.();
      throw fetchError('fetch_error', `Could not open a browser context: ${(error as Error).message}`, { retryable: true, cause: error });
    }
  }

  /** Counts a new context open; returns what closes it once: the context, then its lease, then `after` (its own proxy). */
  private closerOf(context: BrowserContext, lease: BrowserLease, after?: () => Promise<void>): () => Promise<void> {
    this.openContexts++;
    let closed = false;
    return async () => {
      if (closed) return;
      closed = true;
      this.openContexts--;
      await context.close().catch(() => undefined);
      await lease.release();
      await after?.();
    };
  }

  /** Readies a new context (no peer connections, the session router, then `more`); when that fails, it is closed. */
  private async prepare(
    context: BrowserContext,
    router: SessionRouter,
    close: () => Promise<void>,
    more?: () => Promise<void>,
  ): Promise<void> {
    try {
      await removePeerConnections(context);
      await router.install(context);
      await more?.();
    } catch (error) {
      await close();
      throw fetchError('fetch_error', `Could not prepare the browser context: ${(error as Error).message}`, {
        retryable: true,
        cause: error,
      });
    }
  }

  stats(): DynamicFetcherStats {
    const pool = this.poolInstance?.stats() ?? {
      browsers: 0,
      retiringBrowsers: 0,
      activeLeases: 0,
      waiting: 0,
      launches: 0,
      leasesServed: 0,
      waitingForMemory: 0,
      deferredForMemory: 0,
      killed: 0,
    };
    let proxyRefused = this.proxy.refused + this.sessionProxiesRefused;
    for (const { proxy } of this.poolProxies.values()) proxyRefused += proxy.refused;
    return { ...pool, openContexts: this.openContexts, openPages: this.openPages, proxyRefused };
  }

  async close(): Promise<void> {
    await this.poolInstance?.close();
    await this.proxy.close();
    for (const { proxy } of this.poolProxies.values()) await proxy.close();
    this.poolProxies.clear();
  }

  /** The loopback guard proxy of a pool, started on first use. */
  private poolProxyUrl(pool: ProxyPool): Promise<string> {
    let entry = this.poolProxies.get(pool);
    if (!entry) {
      const proxy = new GuardedProxy(this.guard, undefined, pool);
      entry = { proxy, url: proxy.start() };
      this.poolProxies.set(pool, entry);
    }
    return entry.url;
  }

  private async getPool(): Promise<BrowserPool> {
    this.proxyUrl ??= this.proxy.start();
    const proxyServer = await this.proxyUrl;
    this.poolInstance ??= new BrowserPool({ ...this.poolOptions, proxyServer });
    return this.poolInstance;
  }

  private async render(context: BrowserContext, url: string, options: FetchOptions, router: SessionRouter): Promise<FetchResult> {
    const started = Date.now();
    const deadline = started + (options.timeoutMs ?? this.timeoutMs);
    const maxBytes = options.maxBytes ?? this.maxBytes;
    const blocked = router.blocked;
    const blockedBefore = blocked.length;

    const page = await context.newPage();
    this.openPages++;
    const navigation = router.track(page, deadline);
    // An auth profile's session: each main-frame redirect is judged before it is followed (its logout URLs never requested).
    navigation.stepRedirects = options.session !== undefined && options.beforeRedirect !== undefined;
    let crashed = false;
    page.on('crash', () => (crashed = true));
    let lastDocument: Response | undefined;
    page.on('response', (r) => {
      if (r.request().isNavigationRequest() && r.frame() === page.mainFrame()) lastDocument = r;
    });
    let lastFailedNavigation: { url: string; error: string } | undefined;
    page.on('requestfailed', (r) => {
      if (r.isNavigationRequest() && r.frame() === page.mainFrame())
        lastFailedNavigation = { url: r.url(), error: r.failure()?.errorText ?? '' };
    });
    try {
      if (options.headers) await page.setExtraHTTPHeaders(options.headers);
      const { response, redirects: followed } = await this.navigate(page, url, navigation, deadline, options, blocked, blockedBefore).catch(
        (error: unknown) => {
          throw crashed ? tabCrashed(url) : error;
        },
      );
      if (options.waitFor) await waitForInPage(page, options.waitFor, deadline);
      // Bounded settle: network idle or the cap, whichever first; then take what is there.
      await page
        .waitForLoadState('networkidle', { timeout: Math.max(1, Math.min(this.settleMs, deadline - Date.now())) })
        .catch(() => undefined);

      let html = await this.content(page, deadline, () => crashed);
      let doc = lastDocument ?? response ?? undefined;
      let wall = detectBotWall(html, doc?.status() ?? 200, doc?.headers() ?? {});
      // A JavaScript challenge usually passes by itself and navigates to the real page.
      const challengeDeadline = Math.min(deadline, Date.now() + this.challengeWaitMs);
      while (wall.blocked && Date.now() < challengeDeadline) {
        await page.waitForTimeout(250);
        await page.waitForLoadState('domcontentloaded', { timeout: Math.max(1, challengeDeadline - Date.now()) }).catch(() => undefined);
        html = await this.content(page, deadline, () => crashed);
        doc = lastDocument ?? doc;
        wall = detectBotWall(html, doc?.status() ?? 200, doc?.headers() ?? {});
      }
      if (wall.blocked && doc?.status() !== undefined && doc.status() < 400) {
        // A 200 wall after the challenge passed into a new navigation: settle that one too.
        await page.waitForLoadState('networkidle', { timeout: 1000 }).catch(() => undefined);
      }

      this.assertLanded(page, navigation, lastFailedNavigation, blocked.slice(blockedBefore));
      const headers = doc?.headers() ?? {};
      const status = doc?.status() ?? 200;
      if (headers[REFUSED_HEADER]) throw fetchError('ssrf_blocked', headers[REFUSED_HEADER], { url: doc?.url() });
      if (wall.blocked) throw fetchError('blocked', `Bot wall detected: ${wall.reason}.`, { url: page.url(), status });
      if (status >= 400) throw statusError(status, page.url(), parseRetryAfter(headers['retry-after']));

      const type = mediaType(headers['content-type']) || 'text/html';
      // Chromium shows a PDF in its viewer (or downloads it): its bytes are read over plain HTTP instead.
      if (options.acceptPdf && isPdfMediaType(type)) throw new BrowserDownload(page.url());
      if (kindFromMediaType(type) === 'binary')
        throw fetchError('unsupported_content', `Unsupported content type ${type}.`, { url: page.url(), status });
      const bytes = Buffer.byteLength(html, 'utf8');
      if (bytes > maxBytes)
        throw fetchError('content_too_large', `The rendered page is larger than ${maxBytes} bytes.`, { url: page.url() });

      const redirects = [...followed, ...redirectChain(doc)];
      if (redirects.length > this.maxRedirects)
        throw fetchError('fetch_error', `Too many redirects (more than ${this.maxRedirects}).`, { url, retryable: false });
      const screenshot = options.screenshot ? await takeScreenshot(page, options.screenshot, this.viewport.width, deadline) : undefined;
      // The document's bytes as the server sent them (the archive keeps them beside the rendered HTML).
      const raw = options.keepRaw ? await doc?.body().catch(() => undefined) : undefined;
      return {
        url: page.url(),
        status,
        headers,
        contentType: type,
        charset: 'utf-8', // page.content() is already decoded by the browser
        html,
        bytes,
        redirects,
        durationMs: Date.now() - started,
        mode: 'dynamic',
        blockedRequests: blocked.slice(blockedBefore),
        ...(screenshot ? { screenshot } : {}),
        ...(raw && raw.length <= maxBytes ? { raw } : {}),
      };
    } finally {
      this.openPages--;
      await page.close().catch(() => undefined);
    }
  }

  /**
   * Navigates to the URL, following the main-frame redirects the session router hands back (those of
   * requests that carried the caller's scoped headers, and all of a page that steps its redirects) as new
   * navigations, each judged by the caller's `beforeRedirect` first (a reason: `RedirectStopped`) and checked by the guard.
   */
  private async navigate(
    page: Page,
    url: string,
    navigation: NavigationState,
    deadline: number,
    options: FetchOptions,
    blocked: string[],
    blockedBefore: number,
  ): Promise<{ response: Response | null; redirects: string[] }> {
    const redirects: string[] = [];
    let target = parseUrl(url);
    for (;;) {
      await this.guard.checkUrl(target); // a clear ssrf_blocked before the browser is involved
      navigation.redirectTo = undefined;
      try {
        const response = await page.goto(target.href, { waitUntil: 'domcontentloaded', timeout: Math.max(1, deadline - Date.now()) });
        return { response, redirects };
      } catch (error) {
        if (navigation.redirectTo === undefined) {
          if (options.acceptPdf && isDownload(error)) throw new BrowserDownload(target.href);
          const mapped = this.mapNavigationError(error, target.href, blocked.slice(blockedBefore));
          // A load that fails once its deadline has come failed because of it (the browser may report the load cut
          // at the deadline as a network error): a timeout, as for a navigation the deadline stopped itself.
          if (mapped.category === 'fetch_error' && Date.now() >= deadline)
            throw fetchError('timeout', `Rendering ${target.href} exceeded its deadline.`, { url: target.href });
          throw mapped;
        }
      }
      redirects.push(target.href);
      const next = new URL(navigation.redirectTo);
      next.hash = '';
      const stop = options.beforeRedirect ? await options.beforeRedirect(next.href) : null;
      if (stop) throw new RedirectStopped(stop, next.href);
      if (redirects.includes(next.href)) throw fetchError('fetch_error', `Redirect loop at ${next.href}.`, { url, retryable: false });
      if (redirects.length > this.maxRedirects)
        throw fetchError('fetch_error', `Too many redirects (more than ${this.maxRedirects}).`, { url, retryable: false });
      target = next;
    }
  }

  /**
   * page.content() fails while a navigation is in flight; retry until it is stable or the deadline. It also
   * never returns while the page's script keeps the tab busy (an endless loop), so it races the deadline.
   */
  private async content(page: Page, deadline: number, crashed: () => boolean): Promise<string> {
    for (;;) {
      try {
        return await beforeDeadline(page.content(), deadline, page.url());
      } catch (error) {
        if (crashed()) throw tabCrashed(page.url());
        if (error instanceof AppError) throw error;
        if (Date.now() >= deadline)
          throw fetchError('timeout', 'The page kept navigating until the deadline.', { url: page.url(), cause: error });
        await page.waitForLoadState('domcontentloaded', { timeout: Math.max(1, deadline - Date.now()) }).catch(() => undefined);
      }
    }
  }

  /**
   * The page's final state is a page, not the browser's error page, and the page never went anywhere the
   * guard refused: a script, a meta refresh or a form that navigates the tab to a forbidden address after
   * it loaded leaves `chrome-error://chromewebdata/` behind, which is a failed page, never content.
   */
  private assertLanded(
    page: Page,
    navigation: NavigationState,
    failed: { url: string; error: string } | undefined,
    blocked: string[],
  ): void {
    if (navigation.refused)
      throw fetchError('ssrf_blocked', `The page navigated to ${navigation.refused}, which the address guard refused.`, {
        url: navigation.refused,
      });
    if (!page.url().startsWith('chrome-error:')) return;
    const target = failed?.url ?? page.url();
    throw this.mapNavigationError(new Error(failed?.error || 'navigation failed'), target, blocked);
  }

  private mapNavigationError(error: unknown, url: string, blocked: string[]): AppError {
    if (error instanceof AppError) return error;
    const message = (error as Error).message ?? String(error);
    if ((error as Error).name === 'TimeoutError' || /Timeout \d+ms exceeded/.test(message)) {
      return fetchError('timeout', `Rendering ${url} exceeded its deadline.`, { url });
    }
    if (/ERR_BLOCKED_BY_CLIENT/.test(message) && blocked.length > 0) {
      return fetchError('ssrf_blocked', `The navigation was refused by the address guard (${blocked[0]}).`, { url });
    }
    if (/ERR_TUNNEL_CONNECTION_FAILED/.test(message)) {
      return fetchError('ssrf_blocked', `The address guard refused a connection while loading ${url}.`, { url });
    }
    if (/Download is starting|ERR_ABORTED/.test(message)) {
      return fetchError('unsupported_content', `The browser would download ${url} instead of showing it.`, { url });
    }
    if (/ERR_TOO_MANY_REDIRECTS/.test(message)) return fetchError('fetch_error', 'Too many redirects.', { url, retryable: false });
    const code = /net::(ERR_[A-Z_]+)/.exec(message)?.[1] ?? 'navigation failed';
    return fetchError('fetch_error', `Loading ${url} failed: ${code}.`, { url, cause: error });
  }
}

/**
 * An init script giving the pages of the session's hosts the local storage a browser login kept (before the
 * page's own scripts run); pages of other hosts get nothing.
 */
function localStorageScript(hosts: readonly string[], items: Record<string, string>): string {
  return `(() => { try { if (${JSON.stringify(hosts)}.includes(location.hostname.toLowerCase())) for (const [k, v] of Object.entries(${JSON.stringify(items)})) localStorage.setItem(k, v); } catch (e) {} })();`;
}

/** A page that crashed its tab (out of memory past the tab's heap cap, or a renderer fault): retrying would crash it again. */
function tabCrashed(url: string): AppError {
  return fetchError('fetch_error', `The page crashed its browser tab (out of memory or a renderer fault) while loading ${url}.`, {
    url,
    retryable: false,
  });
}

/** `work`, or a timeout error at `deadline` (the work is left to fail on its own when the page closes). */
async function beforeDeadline<T>(work: Promise<T>, deadline: number, url: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(fetchError('timeout', `The page's script kept the tab busy past the deadline (${url}).`, { url })),
      Math.max(1, deadline - Date.now()),
    );
  });
  work.catch(() => undefined);
  try {
    return await Promise.race([work, late]);
  } finally {
    clearTimeout(timer);
  }
}

function isDownload(error: unknown): boolean {
  return /Download is starting/.test((error as Error)?.message ?? '');
}

function redirectChain(response: Response | undefined): string[] {
  const chain: string[] = [];
  let request = response?.request().redirectedFrom() ?? null;
  while (request) {
    chain.unshift(request.url());
    request = request.redirectedFrom();
  }
  return chain;
}

function parseUrl(url: string): URL {
  try {
    return new URL(url);
  } catch {
    throw fetchError('invalid_request', `Not a valid URL: ${url}`);
  }
}
