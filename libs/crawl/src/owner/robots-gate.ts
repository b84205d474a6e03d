import { AppError } from '@app/core';
import { FetchControlUnusable, type RobotsCache } from '@app/fetch';
import type { PolitenessPort } from '@app/politeness';
import { PAGE_RETRY_LIMITS } from '../page-retry-policy';
import type { CrawlRun } from './crawl-run';
import type { WindowEntry } from './frontier-window';
import type { HostSchedule } from './host-schedule';

/** robots.txt files read ahead of admission at once, at least (or the crawl's concurrency when higher). */
export const ROBOTS_AHEAD_MIN = 8;

export type RobotsSource = Pick<RobotsCache, 'check' | 'crawlDelaySeconds' | 'sitemaps'>;

export type RobotsVerdict =
  | { kind: 'allow' }
  /** robots.txt could not be read for now (5xx, no answer): try the page again at `notBefore`. */
  | { kind: 'defer'; notBefore: number }
  | { kind: 'skip'; why: string };

export interface RobotsGateOptions {
  /** GLEANER_CRAWL_DELAY_MAX_MS: a Crawl-delay above it makes the host too slow to crawl. */
  crawlDelayMaxMs: number;
  /** GLEANER_ROBOTS_RETRY_MS: the wait for a robots.txt that could not be read, when the cache gives none. */
  robotsRetryMs: number;
  /** Whether admission has stopped for good (max_pages reached): then nothing is read ahead. */
  admissionClosed: () => boolean;
}

/**
 * robots.txt for one crawl (docs/crawl.md "Politeness", robots.txt): the verdict on each page at
 * admission, the host's Crawl-delay applied on the first look at its origin, and the robots.txt of a host
 * new to the frontier window read ahead, a few at a time, so that admitting its first page does not wait
 * for it (a crawl that finds 200 new hosts would otherwise spend a concurrency slot on each in turn). The
 * cache shares one read per origin: admission awaits the same one. At most `max_pages` hosts are read
 * ahead, and none once admission has closed.
 */
export class RobotsGate {
  private readonly delayApplied = new Set<string>();
  private readonly aheadHosts = new Set<string>();
  private readonly aheadQueue: string[] = [];
  private aheadRunning = 0;

  constructor(
    private readonly run: CrawlRun,
    private readonly robots: RobotsSource,
    private readonly politeness: Pick<PolitenessPort, 'setCrawlDelay'>,
    private readonly hosts: HostSchedule,
    private readonly options: RobotsGateOptions,
  ) {}

  /** Asks for the robots.txt of the entry's host now, unless it was asked for already (or must not be). */
  readAhead(entry: WindowEntry): void {
    const { respect_robots, max_pages } = this.run.options;
    if (!respect_robots || this.options.admissionClosed() || this.aheadHosts.has(entry.host) || this.aheadHosts.size >= max_pages) return;
    this.aheadHosts.add(entry.host);
    this.aheadQueue.push(entry.url);
    this.pump();
  }

  /** Hosts whose robots.txt was asked for ahead of admission. */
  get hostsReadAhead(): number {
    return this.aheadHosts.size;
  }

  /** The verdict for a page about to be admitted (always `allow` when the crawl does not respect robots.txt). */
  async verdict(entry: WindowEntry): Promise<RobotsVerdict> {
    if (!this.run.options.respect_robots) return { kind: 'allow' };
    await this.applyCrawlDelay(entry);
    const tooSlow = this.hosts.tooSlow(entry.host);
    if (tooSlow) return { kind: 'skip', why: tooSlow };
    let verdict;
    try {
      verdict = await this.robots.check(entry.url);
    } catch (error) {
      // ssrf_blocked: the host itself is forbidden. Its page goes on to fail under the address guard, as its
      // own page with its own category (docs/crawl.md "Batches"), rather than look like a robots.txt refusal.
      // A fetch control this process cannot honour (a proxy pool the operator removed): the page fails as its fetch
      // would (docs/proxies.md), never skipped.
      if (error instanceof FetchControlUnusable || (error instanceof AppError && error.category === 'ssrf_blocked'))
        return { kind: 'allow' };
      return { kind: 'skip', why: error instanceof AppError ? (error.detail ?? error.message) : 'robots.txt could not be read' };
    }
    if (verdict.verdict === 'allowed') return { kind: 'allow' };
    if (verdict.verdict === 'unavailable' && entry.robotsDeferrals < PAGE_RETRY_LIMITS.robotsDeferrals) {
      return { kind: 'defer', notBefore: verdict.retryAt ?? Date.now() + this.options.robotsRetryMs };
    }
    return { kind: 'skip', why: verdict.why };
  }

  /** The `Sitemap:` lines of the URL's robots.txt. */
  sitemaps(url: string): Promise<string[]> {
    return this.robots.sitemaps(url);
  }

  /** The first look at an origin applies its Crawl-delay: the host's spacing, for this crawl and every replica. */
  private async applyCrawlDelay(entry: WindowEntry): Promise<void> {
    const origin = new URL(entry.url).origin;
    if (this.delayApplied.has(origin)) return;
    this.delayApplied.add(origin);
    try {
      const seconds = await this.robots.crawlDelaySeconds(entry.url);
      if (seconds === undefined || seconds <= 0) return;
      const ms = Math.round(seconds * 1000);
      const max = this.options.crawlDelayMaxMs;
      if (ms > max) {
        this.hosts.markTooSlow(entry.host, `robots.txt asks for a Crawl-delay of ${seconds} s, over the maximum of ${max / 1000} s`);
        return;
      }
      this.hosts.space(entry.host, ms);
      await this.politeness.setCrawlDelay(entry.host, ms);
    } catch (error) {
      this.run.log.debug({ err: error, origin }, 'robots.txt crawl-delay unavailable');
    }
  }

  private pump(): void {
    const limit = Math.max(ROBOTS_AHEAD_MIN, this.run.options.concurrency);
    if (this.options.admissionClosed() || this.run.stop) this.aheadQueue.length = 0;
    while (this.aheadRunning < limit && this.aheadQueue.length > 0) {
      const url = this.aheadQueue.shift()!;
      this.aheadRunning++;
      void this.robots
        .check(url)
        // A failure is admission's to handle (it asks again and gets the same answer).
        .catch(() => undefined)
        .finally(() => {
          this.aheadRunning--;
          this.pump();
        });
    }
  }
}
