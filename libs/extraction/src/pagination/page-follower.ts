import { setTimeout as delay } from 'node:timers/promises';
import type { AppConfig } from '@app/config';
import { AppError, Usage } from '@app/core';
import { fetchError, type RobotsCache } from '@app/fetch';
import type { LoadedPage } from '@app/pages';
import { crawlHostPolicy, hostnameOf, withHostSlot, type PolitenessPort } from '@app/politeness';
import { PageFailure, type ExtractionMade, type PageExtraction } from '../page/page-extraction';
import type { JsonSchemaObject } from '@app/schema';
import { listPaths } from '../lists/list-paths';
import { mergePages, type PagedPage, type PaginationStop } from './paged-merge';

/** An extract's `paginate` (docs/long-lists.md "Pagination"): the CSS selector of the next-page link, and how many pages at most. */
export interface Paginate {
  selector: string;
  max_pages: number;
}

export interface FollowerDeps {
  politeness: PolitenessPort;
  /** robots.txt as a crawl reads it; null: not read (a crawl or batch with `respect_robots: false`). */
  robots: Pick<RobotsCache, 'check' | 'crawlDelaySeconds'> | null;
  config: Pick<AppConfig, 'hostMinIntervalMs' | 'hostMaxConcurrency' | 'hostSlotLeaseMs' | 'crawlDelayMaxMs'>;
  /** The job's own spacing of requests to a host (a crawl's `delay_ms`; 0 for an extract: the system's floor). */
  delayMs?: number;
  /** Fetches and converts a page (with the `paginate` selector's links picked: LoadedPage.content.nextLinks). */
  load(url: string): Promise<LoadedPage>;
  /** Extracts a loaded page with the job's plan. */
  extract(page: LoadedPage): Promise<PageExtraction<ExtractionMade> | PageFailure>;
  signal: AbortSignal;
}

/** A next page fetched ahead of its extraction (PageFollower.collect): the URL it was asked at, and the page. */
export interface CollectedPage {
  url: string;
  page: LoadedPage;
}

/** The next pages fetched ahead, in order, and why the fetching stopped (a `refused` or `failed` stop names the page not fetched). */
export interface CollectedPages {
  pages: CollectedPage[];
  stopped: PaginationStop;
}

/** The next page to read (its address, and its fetch or why it was not fetched), or why there is none. */
interface NextPages {
  next(): Promise<{ url: string; load(): Promise<LoadedPage | PaginationStop> } | PaginationStop>;
}

/** The pages `collect` fetched, one by one; a fetch that stopped it comes last, so that the cost cap is looked at first, as when fetching. */
function fetchedAhead(ahead: CollectedPages): NextPages {
  let i = 0;
  return {
    next: () => {
      const collected = ahead.pages[i++];
      if (collected) return Promise.resolve({ url: collected.url, load: () => Promise.resolve(collected.page) });
      const stop = ahead.stopped;
      if (stop.reason === 'refused' || stop.reason === 'failed')
        return Promise.resolve({ url: stop.next, load: () => Promise.resolve(stop) });
      return Promise.resolve(stop);
    },
  };
}

/** The next page's address: the first link the selector picked that is on the page's host and not read yet. */
export function nextPageUrl(page: LoadedPage, visited: ReadonlySet<string>): string | null {
  const host = hostnameOf(page.fetch.url);
  for (const link of page.content.nextLinks ?? []) {
    let url: URL;
    try {
      url = new URL(link.url);
    } catch {
      continue;
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') continue;
    url.hash = '';
    if (url.hostname.toLowerCase() !== host || visited.has(url.href)) continue;
    return url.href;
  }
  return null;
}

/**
 * The pages of a paginated extract fetched as a crawl fetches its pages (docs/crawl.md "Politeness"): each one only
 * when the host's robots.txt allows it (its Crawl-delay applied to the host for every job, a delay over
 * GLEANER_CRAWL_DELAY_MAX_MS refusing the host), under the host's politeness slot (the system's spacing floor, a
 * paused host waited for), through the same politeness port and robots.txt reader as the crawl's.
 */
export class PageFollower {
  private readonly delayApplied = new Set<string>();

  constructor(private readonly deps: FollowerDeps) {}

  /** The page, fetched when robots.txt allows it, under the host's slot; robots_disallowed when it does not. */
  async fetch(url: string): Promise<LoadedPage> {
    const refused = await this.refusal(url);
    if (refused) throw fetchError('robots_disallowed', `${refused} (${url}).`, { url });
    const host = hostnameOf(url);
    const policy = crawlHostPolicy(this.deps.delayMs ?? 0, this.deps.config);
    for (;;) {
      const slot = await withHostSlot(this.deps.politeness, host, policy, () => this.loadReporting(host, url), { answered: () => true });
      if (slot.ran) return slot.value;
      // The host is paused (a 429) or busy with other jobs' requests: wait as a crawl's page would be deferred.
      await delay(slot.retryInMs, undefined, { signal: this.deps.signal });
    }
  }

  /**
   * The page's load; a 429 (rate_limit) pauses the host for every job through the port, as a crawl's page does, told
   * while the slot is held so that no other request slips in, then fails the page (an extract does not wait out a
   * pause: the answer stops there and says why).
   */
  private async loadReporting(host: string, url: string): Promise<LoadedPage> {
    try {
      return await this.deps.load(url);
    } catch (error) {
      if (error instanceof AppError && error.category === 'rate_limit') {
        const retryAfterMs = error.retryAfterSeconds !== undefined ? error.retryAfterSeconds * 1000 : null;
        await this.deps.politeness.reportRateLimit(host, retryAfterMs);
      }
      throw error;
    }
  }

  /**
   * The pages after `first` (page 1, already extracted), up to `paginate.max_pages` in all, each extracted as it
   * comes; stops at the first page without a next link, or one robots.txt refuses, that fails, or that the cost cap
   * (`maxCostUsd`, over all pages) leaves no room for. `ahead`: the next pages fetched already (`collect`, a monitor's
   * page whose text hash covers its next pages), extracted in their order, with the same stops but the fetch's.
   */
  async follow(
    first: PagedPage & { page: LoadedPage },
    paginate: Paginate,
    maxCostUsd: number | null,
    ahead?: CollectedPages,
  ): Promise<{ pages: PagedPage[]; stopped: PaginationStop }> {
    const pages: PagedPage[] = [{ url: first.url, extraction: first.extraction }];
    const source = ahead ? fetchedAhead(ahead) : this.fetching(first.page, first.url, paginate);
    let cost = first.extraction.usage.costUsd;
    for (;;) {
      const step = await source.next();
      if ('reason' in step) return { pages, stopped: step };
      if (maxCostUsd !== null && cost >= maxCostUsd)
        return {
          pages,
          stopped: { reason: 'budget', next: step.url, why: `the pages read cost ${cost.toFixed(6)} USD, the cap is ${maxCostUsd} USD` },
        };
      const page = await step.load();
      if ('reason' in page) return { pages, stopped: page };
      const extraction = await this.deps.extract(page);
      if (extraction instanceof PageFailure) {
        // Its failed calls were billed: counted with the answer's usage.
        if (extraction.usage) pages[pages.length - 1] = withUsage(pages[pages.length - 1], extraction.usage);
        return { pages, stopped: { reason: 'failed', next: step.url, why: extraction.message } };
      }
      pages.push({ url: page.fetch.url, extraction });
      cost += extraction.usage.costUsd;
    }
  }

  /**
   * The pages after `first` fetched as `follow` fetches them (robots.txt, the host's slot, up to `paginate.max_pages`
   * in all), none extracted: a monitor's page compares their texts with last run's before any model call
   * (docs/monitors.md "Paginated lists"), then `follow` extracts them (`ahead`). `requested`: the URL `first` was asked at.
   */
  async collect(first: LoadedPage, requested: string, paginate: Paginate): Promise<CollectedPages> {
    const source = this.fetching(first, requested, paginate);
    const pages: CollectedPage[] = [];
    for (;;) {
      const step = await source.next();
      if ('reason' in step) return { pages, stopped: step };
      const page = await step.load();
      if ('reason' in page) return { pages, stopped: page };
      pages.push({ url: step.url, page });
    }
  }

  /**
   * The next pages as they are found: each one's address (the first link the selector picked, not read yet), or why
   * there is none (`no_next_link`, `max_pages`); its load is the fetch, or why it was not fetched (`refused`, `failed`).
   */
  private fetching(first: LoadedPage, requested: string, paginate: Paginate): NextPages {
    const visited = new Set([canonical(requested), canonical(first.fetch.url)]);
    let last = first;
    let read = 1;
    return {
      next: () => {
        const next = nextPageUrl(last, visited);
        if (!next) return Promise.resolve({ reason: 'no_next_link' as const });
        if (read >= paginate.max_pages) return Promise.resolve({ reason: 'max_pages' as const, next });
        return Promise.resolve({
          url: next,
          load: async () => {
            visited.add(next);
            let page: LoadedPage;
            try {
              page = await this.fetch(next);
            } catch (error) {
              if (this.deps.signal.aborted) throw error;
              const why = error instanceof AppError ? (error.detail ?? error.message) : 'the page could not be fetched';
              const reason = error instanceof AppError && error.category === 'robots_disallowed' ? 'refused' : 'failed';
              return { reason, next, why };
            }
            visited.add(canonical(page.fetch.url));
            last = page;
            read++;
            return page;
          },
        });
      },
    };
  }

  /**
   * The answer of a list over pages: `first` (page 1, fetched and extracted), the pages after it read as `follow`
   * reads them, merged into one extraction (mergePages) with `metadata.pagination`. The one way every job kind
   * (extract, crawl, batch, monitor pages) reads a `paginate` list.
   */
  async gather(
    first: PagedPage & { page: LoadedPage },
    paginate: Paginate,
    maxCostUsd: number | null,
    schema: JsonSchemaObject,
    ahead?: CollectedPages,
  ): Promise<PageExtraction<ExtractionMade>> {
    const { pages, stopped } = await this.follow(first, paginate, maxCostUsd, ahead);
    return mergePages(pages, listPaths(schema), stopped);
  }

  /** Why robots.txt keeps a crawl from the URL (null: it may be fetched); the host's Crawl-delay applied on its first look. */
  private async refusal(url: string): Promise<string | null> {
    if (!this.deps.robots) return null;
    const origin = new URL(url).origin;
    if (!this.delayApplied.has(origin)) {
      this.delayApplied.add(origin);
      const seconds = await this.deps.robots.crawlDelaySeconds(url).catch(() => undefined);
      if (seconds !== undefined && seconds > 0) {
        const ms = Math.round(seconds * 1000);
        if (ms > this.deps.config.crawlDelayMaxMs)
          return `robots.txt asks for a Crawl-delay of ${seconds} s, over the maximum of ${this.deps.config.crawlDelayMaxMs / 1000} s`;
        await this.deps.politeness.setCrawlDelay(hostnameOf(url), ms);
      }
    }
    let verdict;
    try {
      verdict = await this.deps.robots.check(url);
    } catch (error) {
      // ssrf_blocked: the fetch fails under the address guard with its own category, as a crawl's page does.
      if (error instanceof AppError && error.category === 'ssrf_blocked') return null;
      return error instanceof AppError ? (error.detail ?? error.message) : 'robots.txt could not be read';
    }
    return verdict.verdict === 'allowed' ? null : verdict.why;
  }
}

function canonical(url: string): string {
  const u = new URL(url);
  u.hash = '';
  return u.href;
}

function withUsage(page: PagedPage, usage: Usage): PagedPage {
  return { ...page, extraction: { ...page.extraction, usage: Usage.add(page.extraction.usage, usage) } };
}
