import { readFileSync } from 'node:fs';
import type { Browser, LaunchOptions } from 'playwright';
import { withEgressSwitches } from './browser-egress';
import { markedBrowsers, OWNER_SWITCH, ownerMark } from './browser-owner';
import { fetchError } from './errors';
import type { MemoryAdmission } from './memory-admission';

export interface BrowserPoolOptions {
  executablePath?: string;
  /** Browsers alive at once, retiring ones included (each is a Chromium process tree, ~150–300 MB). */
  maxBrowsers?: number;
  /** Concurrent contexts (jobs) per browser. */
  maxContextsPerBrowser?: number;
  /** A browser is retired (closed once idle) after serving this many leases: Chromium leaks memory over time. */
  retireAfterPages?: number;
  /** Loopback proxy every browser connection goes through (the address guard). */
  proxyServer?: string;
  extraArgs?: string[];
  launchTimeoutMs?: number;
  /** JavaScript heap cap of each tab in MB (V8's max-old-space-size): a runaway page crashes its tab, not the container. */
  pageHeapMb?: number;
  /** How long a browser gets to close before its process group is killed (default 10 s). */
  closeTimeoutMs?: number;
  /** Memory-aware admission: a lease (a page's browser context) waits while the container is short of memory. */
  admission?: MemoryAdmission;
}

export interface BrowserPoolStats {
  browsers: number;
  retiringBrowsers: number;
  activeLeases: number;
  waiting: number;
  launches: number;
  leasesServed: number;
  /** Leases waiting for memory (admission), and those handed back to be tried later after waiting too long. */
  waitingForMemory: number;
  deferredForMemory: number;
  /** Browsers killed because they did not close in time. */
  killed: number;
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
  /** Being closed: no new leases, still counted. */
  closing: boolean;
  /** The browser's main process, once launched (Linux). */
  pid?: number;
  closed: boolean;
}

/** Marks each browser of a pool (with OWNER_SWITCH) so a wedged one can be found and killed. */
const BROWSER_SWITCH = '--gleaner-pool-browser';
let poolSerial = 0;

/**
 * A small pool of Chromium processes, launched lazily, shared by leases, recycled after N pages. Never more
 * than `maxBrowsers` process trees: a retiring browser counts until it closed, and one that does not close
 * in time is killed with its process group. Each browser is marked with its owner (browser-owner.ts), so
 * the next start of a crawler that died with -9 reaps what it left.
 */
export class BrowserPool {
  private readonly entries: Entry[] = [];
  private readonly waiters: Array<() => void> = [];
  private readonly options: Required<Omit<BrowserPoolOptions, 'proxyServer' | 'admission' | 'pageHeapMb'>> &
    Pick<BrowserPoolOptions, 'proxyServer' | 'admission' | 'pageHeapMb'>;
  private readonly mark = ownerMark();
  private readonly serial = ++poolSerial;
  private launches = 0;
  private served = 0;
  private killed = 0;
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
      closeTimeoutMs: options.closeTimeoutMs ?? 10_000,
      proxyServer: options.proxyServer,
      admission: options.admission,
      pageHeapMb: options.pageHeapMb,
    };
  }

  async acquire(signal?: AbortSignal): Promise<BrowserLease> {
    // Memory first: a page that waits for memory holds no browser slot meanwhile.
    await this.options.admission?.admit(signal);
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
    const memory = this.options.admission?.stats();
    return {
      browsers: live.filter((e) => !e.retired).length,
      retiringBrowsers: live.filter((e) => e.retired).length,
      activeLeases: live.reduce((n, e) => n + e.active, 0),
      waiting: this.waiters.length,
      launches: this.launches,
      leasesServed: this.served,
      waitingForMemory: memory?.waiting ?? 0,
      deferredForMemory: memory?.deferred ?? 0,
      killed: this.killed,
    };
  }

  async close(): Promise<void> {
    this.closing = true;
    for (const wake of this.waiters.splice(0)) wake();
    await Promise.all(this.entries.splice(0).map((e) => this.closeEntry(e)));
  }

  private pick(): Entry | undefined {
    const live = this.entries.filter((e) => !e.closed);
    const open = live.filter((e) => !e.retired);
    const free = open.filter((e) => e.active < this.options.maxContextsPerBrowser).sort((a, b) => a.active - b.active)[0];
    if (free) return free;
    // Retiring browsers still count: their trees are alive until their last lease ends.
    if (live.length >= this.options.maxBrowsers) return undefined;
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
      closing: false,
      closed: false,
    };
    entry.browser = (async () => {
      const { chromium } = await import('playwright');
      const launchOptions: LaunchOptions = {
        executablePath: this.options.executablePath,
        headless: true,
        // No UDP from pages, one --disable-features (browser-egress.ts, docs/security.md "Rendered pages").
        args: withEgressSwitches([
          ...CHROMIUM_ARGS,
          ...(this.options.pageHeapMb ? [`--js-flags=--max-old-space-size=${this.options.pageHeapMb}`] : []),
          ...this.options.extraArgs,
          `${OWNER_SWITCH}=${this.mark}`,
          `${BROWSER_SWITCH}=${this.serial}.${entry.id}`,
        ]),
        timeout: this.options.launchTimeoutMs,
        // No bypass list: Playwright adds <-loopback>, so even loopback goes through the guard proxy.
        proxy: this.options.proxyServer ? { server: this.options.proxyServer } : undefined,
      };
      const browser = await chromium.launch(launchOptions);
      entry.pid = this.findPid(entry);
      // Closed by us: closeEntry drops it once the process is gone. Otherwise it crashed or was killed: clear
      // what is left of its tree before its slot is given to a new browser.
      browser.on('disconnected', () => {
        if (entry.closing) return;
        this.killGroup(entry);
        this.drop(entry);
      });
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

  /** Closes a browser; it keeps counting against maxBrowsers until its process is gone (closed, or killed). */
  private async closeEntry(entry: Entry): Promise<void> {
    if (entry.closed || entry.closing) return;
    entry.closing = true;
    entry.retired = true;
    let timer: NodeJS.Timeout | undefined;
    const closed = (async () => {
      try {
        await (await entry.browser).close();
      } catch {
        /* already gone */
      }
      return true;
    })();
    const timedOut = new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), this.options.closeTimeoutMs)));
    const inTime = await Promise.race([closed, timedOut]);
    clearTimeout(timer);
    if (!inTime) this.killed++;
    // Also after a clean close: the tree's last processes may still be on their way out.
    this.killGroup(entry);
    this.drop(entry);
  }

  /** The browser's main process (its process group leader), found by its marks. */
  private findPid(entry: Entry): number | undefined {
    const id = `${BROWSER_SWITCH}=${this.serial}.${entry.id}`;
    for (const { pid, owner } of markedBrowsers()) {
      if (owner !== this.mark) continue;
      try {
        if (readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').includes(id)) return pid;
      } catch {
        // gone meanwhile
      }
    }
    return undefined;
  }

  /** SIGKILL the browser's process group (Playwright starts each browser as a group leader). */
  private killGroup(entry: Entry): void {
    if (entry.pid === undefined) return;
    for (const target of [-entry.pid, entry.pid]) {
      try {
        process.kill(target, 'SIGKILL');
      } catch {
        // gone already
      }
    }
  }
}
