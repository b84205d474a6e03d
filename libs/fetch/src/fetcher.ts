import { AddressGuard, type AddressGuardOptions } from './address-guard';
import { detectBotWall } from './bot-wall-detector';
import { BrowserDownload, DynamicFetcher, type DynamicFetcherOptions } from './dynamic-fetcher';
import { runBrowserScript, type BrowserScriptInput, type BrowserScriptResult } from './browser-script';
import { fetchError, statusError } from './errors';
import type { FetchMode, FetchOptions, FetchResult } from './fetch-types';
import { ProxyPools } from './proxy-pool/proxy-pool';
import { InMemoryHostModeMemory, type HostModeMemory } from './host-mode-memory';
import { detectNeedsJs, type JsDetectorOptions } from './js-detector';
import { StaticFetcher, type StaticFetcherOptions } from './static-fetcher';

export interface FetcherOptions {
  guard?: AddressGuard;
  /** Used when no guard is given. */
  guardOptions?: AddressGuardOptions;
  static?: Omit<StaticFetcherOptions, 'guard'>;
  /** `false` disables the browser: dynamic requests fail, auto never escalates. */
  dynamic?: Omit<DynamicFetcherOptions, 'guard'> | false;
  hostMemory?: HostModeMemory;
  jsDetector?: JsDetectorOptions;
  /** The operator's pools a fetch may name (`proxyPool`); default: none configured. */
  proxyPools?: ProxyPools;
}

export interface ModeFetchOptions extends FetchOptions {
  mode?: FetchMode;
  /** The operator's pool a page goes through, by name (fetch control's `proxy`; `none` or absent: direct). */
  proxyPool?: string;
}

/**
 * The one entry point for page fetching: `static` never launches a browser, `dynamic` always
 * renders, `auto` fetches statically and escalates to the browser when the page needs JavaScript
 * or shows a bot wall, remembering per host which mode worked.
 */
export class Fetcher {
  readonly guard: AddressGuard;
  readonly staticFetcher: StaticFetcher;
  readonly dynamicFetcher?: DynamicFetcher;
  readonly hostMemory: HostModeMemory;
  private readonly jsOptions: JsDetectorOptions;
  private readonly proxyPools: ProxyPools;

  constructor(options: FetcherOptions = {}) {
    this.guard = options.guard ?? new AddressGuard(options.guardOptions);
    this.staticFetcher = new StaticFetcher({ ...options.static, guard: this.guard });
    this.dynamicFetcher = options.dynamic === false ? undefined : new DynamicFetcher({ ...options.dynamic, guard: this.guard });
    this.hostMemory = options.hostMemory ?? new InMemoryHostModeMemory();
    this.jsOptions = options.jsDetector ?? {};
    this.proxyPools = options.proxyPools ?? new ProxyPools(new Map());
  }

  async fetch(url: string, given: ModeFetchOptions = {}): Promise<FetchResult> {
    const mode = given.mode ?? 'auto';
    const options = given.proxyPool ? { ...given, proxy: this.proxyPools.get(given.proxyPool) } : given;
    if (mode === 'static') return this.staticFetcher.fetch(url, options);
    try {
      // What only a browser can do (wait for something, take a screenshot) makes auto render.
      if (mode === 'dynamic' || options.waitFor !== undefined || options.screenshot !== undefined) {
        return await this.requireBrowser().fetch(url, options);
      }
      return await this.auto(url, options);
    } catch (error) {
      // A PDF that the browser would only download is read over plain HTTP (same control, same guard).
      if (error instanceof BrowserDownload) return this.staticFetcher.fetch(url, options);
      throw error;
    }
  }

  /** One static request that answers 4xx and 5xx instead of throwing, through the named pool (an auth profile's login). */
  async fetchRaw(url: string, given: ModeFetchOptions = {}): Promise<FetchResult> {
    const options = given.proxyPool ? { ...given, proxy: this.proxyPools.get(given.proxyPool) } : given;
    const { kind: _kind, retryAfterSeconds: _ra, ...result } = await this.staticFetcher.fetchRaw(url, options);
    return result;
  }

  /** A scripted browser session confined to its hosts (an auth profile's browser login), through the named pool. */
  browserScript(input: Omit<BrowserScriptInput, 'proxy'> & { proxyPool?: string }): Promise<BrowserScriptResult> {
    const { proxyPool, ...script } = input;
    return runBrowserScript(this.requireBrowser(), { ...script, ...(proxyPool ? { proxy: this.proxyPools.get(proxyPool) } : {}) });
  }

  async close(): Promise<void> {
    this.staticFetcher.close();
    await this.dynamicFetcher?.close();
  }

  private async auto(url: string, options: FetchOptions): Promise<FetchResult> {
    const host = hostKey(url);
    if (this.dynamicFetcher && (await this.hostMemory.get(host)) === 'dynamic') {
      const result = await this.dynamicFetcher.fetch(url, options);
      return { ...result, escalation: { from: 'static', reason: `host ${host} remembered as needing the browser` } };
    }
    const raw = await this.staticFetcher.fetchRaw(url, options);
    const { kind, retryAfterSeconds, ...result } = raw;
    // A conditional request's 304 has no body to judge: the caller knows the page (a monitor's run).
    if (raw.status === 304) return result;

    const wall = kind === 'html' || raw.status >= 400 ? detectBotWall(raw.html, raw.status, raw.headers) : { blocked: false as const };
    if (wall.blocked) {
      if (!this.dynamicFetcher) throw fetchError('blocked', `Bot wall detected: ${wall.reason}.`, { url: raw.url, status: raw.status });
      return this.escalate(url, host, options, `bot wall: ${wall.reason}`);
    }
    if (raw.status >= 400) throw statusError(raw.status, raw.url, retryAfterSeconds);
    if (kind === 'html' && this.dynamicFetcher) {
      const js = detectNeedsJs(raw.html, this.jsOptions);
      if (js.needsJs) return this.escalate(url, host, options, js.reason ?? 'needs JavaScript');
    }
    await this.hostMemory.set(host, 'static');
    return result;
  }

  private async escalate(url: string, host: string, options: FetchOptions, reason: string): Promise<FetchResult> {
    const result = await this.requireBrowser().fetch(url, options);
    await this.hostMemory.set(host, 'dynamic');
    return { ...result, escalation: { from: 'static', reason } };
  }

  private requireBrowser(): DynamicFetcher {
    if (!this.dynamicFetcher) throw fetchError('invalid_request', 'Browser rendering is disabled on this server.');
    return this.dynamicFetcher;
  }
}

function hostKey(url: string): string {
  try {
    return new URL(url).host.toLowerCase();
  } catch {
    throw fetchError('invalid_request', `Not a valid URL: ${url}`);
  }
}
