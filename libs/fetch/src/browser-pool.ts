import type { Browser, LaunchOptions } from 'playwright';
import { fetchError } from './errors';

export interface BrowserPoolOptions {
  executablePath?: string;
  /** Browsers alive at once (each is a Chromium process tree, ~150–300 MB). */
  maxBrowsers?: number;
  /** Concurrent contexts (jobs) per browser. */
  maxContextsPerBrowser?: number;
  /** A browser is retired (closed once idle) after serving this many leases: Chromium leaks memory over time. */
  retireAfterPages?: number;
  /** Loopback proxy every browser connection goes through (the address guard). */
  proxyServer?: string;
  extraArgs?: string[];
  launchTimeoutMs?: number;
}

export interface BrowserPoolStats {
  browsers: number;
  retiringBrowsers: number;
  activeLeases: number;
  waiting: number;
  launches: number;
  leasesServed: number;
}

export interface BrowserLease {
  browser: Browser;
  release(): Promise<void>;
}

export const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-dev-shm-usage',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
  '--disable-quic',
  '--disable-default-apps',
  '--disable-extensions',
  '--mute-audio',
];

interface Entry {
  id: number;
  browser: Promise<Browser>;
  active: number;
  served: number;
  retired: boolean;
  closed: boolean;
}

/** A small pool of Chromium processes, launched lazily, shared by leases, recycled after N pages. */
export class BrowserPool {
  private readonly entries: Entry[] = [];
  private readonly waiters: Array<() => void> = [];
  private readonly options: Required<Omit<BrowserPoolOptions, 'proxyServer'>> & { proxyServer?: string };
  private launches = 0;
  private served = 0;
  private nextId = 1;
  private closing = false;

  constructor(options: BrowserPoolOptions = {}) {
    this.options = {
      executablePath: options.executablePath ?? '/usr/bin/chromium',
      maxBrowsers: options.maxBrowsers ?? 2,
      maxContextsPerBrowser: options.maxContextsPerBrowser ?? 8,
      retireAfterPages: options.retireAfterPages ?? 100,
      extraArgs: options.extraArgs ?? [],
      launchTimeoutMs: options.launchTimeoutMs ?? 30_000,
      proxyServer: options.proxyServer,
    };
  }

  async acquire(signal?: AbortSignal): Promise<BrowserLease> {
    for (;;) {
      if (this.closing) throw fetchError('fetch_error', 'The browser pool is closed.', { retryable: true });
      const entry = this.pick();
      if (entry) {
        entry.active++;
        entry.served++;
        this.served++;
        if (entry.served >= this.options.retireAfterPages) entry.retired = true;
        try {
          const browser = await entry.browser;
          return { browser, release: () => this.release(entry) };
        } catch (error) {
          entry.active--;
          this.drop(entry);
          throw fetchError('fetch_error', `Chromium did not start: ${(error as Error).message}`, { retryable: true, cause: error });
        }
      }
      await new Promise<void>((resolve, reject) => {
        const wake = (): void => resolve();
        this.waiters.push(wake);
        signal?.addEventListener('abort', () => reject(fetchError('timeout', 'Waited too long for a browser.')), { once: true });
      });
    }
  }

  stats(): BrowserPoolStats {
    const live = this.entries.filter((e) => !e.closed);
    return {
      browsers: live.filter((e) => !e.retired).length,
      retiringBrowsers: live.filter((e) => e.retired).length,
      activeLeases: live.reduce((n, e) => n + e.active, 0),
      waiting: this.waiters.length,
      launches: this.launches,
      leasesServed: this.served,
    };
  }

  async close(): Promise<void> {
    this.closing = true;
    for (const wake of this.waiters.splice(0)) wake();
    await Promise.all(this.entries.splice(0).map((e) => this.closeEntry(e)));
  }

  private pick(): Entry | undefined {
    const open = this.entries.filter((e) => !e.retired && !e.closed);
    const free = open.filter((e) => e.active < this.options.maxContextsPerBrowser).sort((a, b) => a.active - b.active)[0];
    if (free) return free;
    if (open.length >= this.options.maxBrowsers) return undefined;
    return this.launch();
  }

  private launch(): Entry {
    this.launches++;
    const entry: Entry = {
      id: this.nextId++,
      browser: undefined as unknown as Promise<Browser>,
      active: 0,
      served: 0,
      retired: false,
      closed: false,
    };
    entry.browser = (async () => {
      const { chromium } = await import('playwright');
      const launchOptions: LaunchOptions = {
        executablePath: this.options.executablePath,
        headless: true,
        args: [...CHROMIUM_ARGS, ...this.options.extraArgs],
        timeout: this.options.launchTimeoutMs,
        // No bypass list: Playwright adds <-loopback>, so even loopback goes through the guard proxy.
        proxy: this.options.proxyServer ? { server: this.options.proxyServer } : undefined,
      };
      const browser = await chromium.launch(launchOptions);
      browser.on('disconnected', () => this.drop(entry));
      return browser;
    })();
    entry.browser.catch(() => undefined); // failures surface to the acquirer
    this.entries.push(entry);
    return entry;
  }

  private async release(entry: Entry): Promise<void> {
    entry.active--;
    if (entry.retired && entry.active <= 0) await this.closeEntry(entry);
    this.waiters.shift()?.();
  }

  private drop(entry: Entry): void {
    entry.closed = true;
    const i = this.entries.indexOf(entry);
    if (i >= 0) this.entries.splice(i, 1);
    this.waiters.shift()?.();
  }

  private async closeEntry(entry: Entry): Promise<void> {
    if (entry.closed) return;
    this.drop(entry);
    try {
      await (await entry.browser).close();
    } catch {
      /* already gone */
    }
  }
}
