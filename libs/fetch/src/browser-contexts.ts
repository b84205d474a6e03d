import type { BrowserContext } from 'playwright';
import type { AddressGuard } from './address-guard';
import { removePeerConnections } from './browser-egress';
import { BrowserPool, type BrowserLease, type BrowserPoolOptions, type BrowserPoolStats } from './browser-pool';
import type { SessionRouter } from './browser-routing';
import { fetchError } from './errors';
import { GuardedProxy } from './guarded-proxy';
import type { ProxyPool } from './proxy-pool/proxy-pool';

/** What contexts are opened with (DynamicFetcher's options, with their defaults applied). */
export interface BrowserContextsSettings {
  guard: AddressGuard;
  pool: BrowserPoolOptions;
  userAgent?: string;
  viewport: { width: number; height: number };
}

/**
 * Which proxy a context's connections leave through, always behind a guard proxy: the browser's own guard proxy
 * (none named), the shared guard proxy of a proxy pool (`pool`), or a guard proxy of the context's own (`own`: a
 * session held to one proxy of a pool, a confined login); `counted`: what the own proxy refused is added to the
 * fetcher's count when the context closes.
 */
export type ContextProxy = { pool: ProxyPool } | { own: GuardedProxy; counted: boolean } | undefined;

export interface OpenedContext {
  context: BrowserContext;
  /** Closes it once: the context, then its lease, then its own guard proxy. */
  close(): Promise<void>;
}

export interface BrowserContextsStats extends BrowserPoolStats {
  openContexts: number;
  proxyRefused: number;
}

const NO_POOL: BrowserPoolStats = {
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

/**
 * The browser contexts of a DynamicFetcher and what they stand on: the BrowserPool (launched on first use, through
 * the guard proxy every browser connection goes through), the guard proxies chained to proxy pools, and the count of
 * open contexts and of what the guard proxies refused.
 */
export class BrowserContexts {
  private readonly proxy: GuardedProxy;
  private proxyUrl?: Promise<string>;
  /** One guard proxy per proxy pool a context used, each chaining its pool behind the guard. */
  private readonly poolProxies = new Map<ProxyPool, { proxy: GuardedProxy; url: Promise<string> }>();
  private poolInstance?: Pick<BrowserPool, 'acquire' | 'stats' | 'close'>;
  private openContexts = 0;
  /** What the guard proxies of closed contexts (a session held to one proxy of a pool) refused. */
  private ownProxiesRefused = 0;

  constructor(
    private readonly settings: BrowserContextsSettings,
    /** Builds the browser pool (a test's stand-in; the default launches Chromium). */
    private readonly newPool: (options: BrowserPoolOptions) => Pick<BrowserPool, 'acquire' | 'stats' | 'close'> = (options) =>
      new BrowserPool(options),
  ) {
    this.proxy = new GuardedProxy(settings.guard);
  }

  /**
   * A new context on a lease of the pool, through `via`, readied: no peer connections, the session router installed,
   * then `setup`. Whatever fails on the way is undone (the lease released, the own proxy closed, the context closed).
   */
  async open(
    via: ContextProxy,
    router: SessionRouter,
    options: { signal?: AbortSignal; userAgent?: string },
    setup?: (context: BrowserContext) => Promise<void>,
  ): Promise<OpenedContext> {
    const pool = await this.pool();
    const own = via && 'own' in via ? via : undefined;
    const closeOwn = own
      ? async () => {
          if (own.counted) this.ownProxiesRefused += own.own.refused;
          await own.own.close();
        }
      : undefined;
    let lease: BrowserLease;
    let proxyServer: string | undefined;
    try {
      proxyServer = own ? await own.own.start() : via && 'pool' in via ? await this.poolProxyUrl(via.pool) : undefined;
      lease = await pool.acquire(options.signal);
    } catch (error) {
      await own?.own.close();
      throw error;
    }
    const context = await this.newContext(lease, proxyServer, options.userAgent, closeOwn);
    const close = this.closerOf(context, lease, closeOwn);
    try {
      await removePeerConnections(context);
      await router.install(context);
      await setup?.(context);
    } catch (error) {
      await close();
      throw fetchError('fetch_error', `Could not prepare the browser context: ${(error as Error).message}`, {
        retryable: true,
        cause: error,
      });
    }
    return { context, close };
  }

  stats(): BrowserContextsStats {
    const pool = this.poolInstance?.stats() ?? NO_POOL;
    let proxyRefused = this.proxy.refused + this.ownProxiesRefused;
    for (const { proxy } of this.poolProxies.values()) proxyRefused += proxy.refused;
    return { ...pool, openContexts: this.openContexts, proxyRefused };
  }

  async close(): Promise<void> {
    await this.poolInstance?.close();
    await this.proxy.close();
    for (const { proxy } of this.poolProxies.values()) await proxy.close();
    this.poolProxies.clear();
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
        userAgent: userAgent ?? this.settings.userAgent,
        viewport: this.settings.viewport,
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

  /** The loopback guard proxy of a pool, started on first use. */
  private poolProxyUrl(pool: ProxyPool): Promise<string> {
    let entry = this.poolProxies.get(pool);
    if (!entry) {
      const proxy = new GuardedProxy(this.settings.guard, undefined, pool);
      entry = { proxy, url: proxy.start() };
      this.poolProxies.set(pool, entry);
    }
    return entry.url;
  }

  private async pool(): Promise<Pick<BrowserPool, 'acquire' | 'stats' | 'close'>> {
    this.proxyUrl ??= this.proxy.start();
    const proxyServer = await this.proxyUrl;
    this.poolInstance ??= this.newPool({ ...this.settings.pool, proxyServer });
    return this.poolInstance;
  }
}
