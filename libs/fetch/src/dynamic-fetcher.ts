import type { BrowserContext } from 'playwright';
import { AddressGuard } from './address-guard';
import { BrowserContexts, type BrowserContextsStats, type ContextProxy } from './browser-contexts';
import type { BrowserPoolOptions } from './browser-pool';
import { SessionRouter } from './browser-routing';
import { seedSession } from './browser-session-state';
import { DEFAULT_MAX_BYTES, DEFAULT_MAX_REDIRECTS, DEFAULT_TIMEOUT_MS, type FetchOptions, type FetchResult } from './fetch-types';
import { GuardedProxy } from './guarded-proxy';
import { PageRenderer } from './page-renderer';
import type { ProxyPool } from './proxy-pool/proxy-pool';
import { scopeHostOf, type ScopedRequestData, type SessionCookies } from './request-control';

export { BrowserDownload } from './browser-outcomes';

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

export interface DynamicFetcherStats extends BrowserContextsStats {
  openPages: number;
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

/**
 * Renders pages in headless Chromium from a BrowserPool. Every request of the browser is checked
 * twice: by a route handler (abort + record, resource blocking) and by the GuardedProxy the
 * browser is launched with (pins the connection to the vetted address, covers redirects and sockets).
 * Its parts: BrowserContexts (the pool, the guard proxies, opening and closing contexts), PageRenderer (one page in
 * a context) and browser-outcomes.ts (what the browser's outcomes mean).
 */
export class DynamicFetcher {
  readonly guard: AddressGuard;
  private readonly contexts: BrowserContexts;
  private readonly renderer: PageRenderer;
  private readonly blockResources: Set<string>;

  constructor(options: DynamicFetcherOptions = {}) {
    this.guard = options.guard ?? new AddressGuard();
    const viewport = options.viewport ?? { width: 1366, height: 900 };
    this.contexts = new BrowserContexts({ guard: this.guard, pool: options.pool ?? {}, userAgent: options.userAgent, viewport });
    this.renderer = new PageRenderer({
      guard: this.guard,
      timeoutMs: options.timeoutMs ?? DEFAULT_TIMEOUT_MS,
      settleMs: options.settleMs ?? 5_000,
      challengeWaitMs: options.challengeWaitMs ?? 8_000,
      maxBytes: options.maxBytes ?? DEFAULT_MAX_BYTES,
      maxRedirects: options.maxRedirects ?? DEFAULT_MAX_REDIRECTS,
      viewport,
    });
    this.blockResources = new Set(options.blockResources ?? ['image', 'media', 'font']);
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
    // A session held to one proxy of the pool (SessionCookies.proxyKey) gets a guard proxy of its own for the context.
    const key = options.session?.proxyKey;
    const via: ContextProxy =
      options.proxy && key !== undefined
        ? { own: new GuardedProxy(this.guard, undefined, options.proxy, { hosts: options.session!.hosts, key }), counted: true }
        : options.proxy
          ? { pool: options.proxy }
          : undefined;
    const router = new SessionRouter(
      this.guard,
      options.loadAllResources ? new Set(['media']) : this.blockResources,
      options.scoped,
      options.scoped?.host,
    );
    const { context, close } = await this.contexts.open(via, router, { signal, userAgent: options.userAgent }, (opened) =>
      seedSession(opened, options.session, options.scoped),
    );
    return { fetch: (url, fetchOptions = {}) => this.renderer.render(context, url, fetchOptions, router), close };
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
    const own = new GuardedProxy(guard, undefined, options.proxy, affinity);
    const router = new SessionRouter(guard, new Set(['media']), undefined, undefined);
    const { context, close } = await this.contexts.open({ own, counted: false }, router, options);
    return { context, router, close };
  }

  stats(): DynamicFetcherStats {
    return { ...this.contexts.stats(), openPages: this.renderer.openPages };
  }

  async close(): Promise<void> {
    await this.contexts.close();
  }
}
