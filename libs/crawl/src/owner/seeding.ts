import type { AppConfig } from '@app/config';
import type { StaticFetcher } from '@app/fetch';
import { hostnameOf, whenHostFree, type PolitenessPort } from '@app/politeness';
import { crawlHostPolicy } from '../crawl-host-policy';
import type { CrawlStateStore } from '../store/crawl-state-store';
import { canonicalize } from '../url-canon';
import { BackgroundReading } from './background-reading';
import type { CrawlRun } from './crawl-run';
import type { Frontier } from './frontier';
import type { RobotsGate } from './robots-gate';
import type { SeedSource } from './seed-source';
import { walkSitemaps } from './sitemaps';

/** Sitemap files read per crawl, and how deep sitemap indexes are followed. */
const SITEMAP_LIMITS = { maxFiles: 100, maxDepth: 3 } as const;
const SITEMAP_MAX_BYTES = 50 * 1024 * 1024;

export interface SitemapLastmods {
  rememberLastmods(jobId: string, monitorId: string, urls: string[], lastmods: Array<string | null>): Promise<void>;
}

export type SeedingStore = Pick<CrawlStateStore, 'state' | 'updateState'>;

export type SeedingConfig = Pick<AppConfig, 'hostMinIntervalMs' | 'hostMaxConcurrency' | 'hostSlotLeaseMs'>;

/** Seeding's collaborators and settings, by name. */
export interface SeedingParts {
  store: SeedingStore;
  frontier: Pick<Frontier, 'offerSeed' | 'offerSitemapUrls'>;
  robots: Pick<RobotsGate, 'sitemaps'>;
  fetcher: Pick<StaticFetcher, 'fetch'>;
  politeness: PolitenessPort;
  config: SeedingConfig;
  /** A monitor's run: where the sitemap `lastmod` of its URLs goes for the page workers (docs/monitors.md "Cheap re-runs"). */
  lastmods?: SitemapLastmods;
}

/**
 * The crawl's first URLs, once per crawl whoever owns it (flags in the crawl state): the seed, then with
 * `use_sitemap` the sitemaps of the seed's origin (docs/crawl.md "Which URLs are crawled", Sitemaps):
 * `Sitemap:` lines of robots.txt, and `/sitemap.xml`; indexes followed, gzip read; their URLs enter at
 * depth 1 and pass the same scope. Sitemap files are fetched under the host's politeness slot, as pages
 * are. The sitemaps are read while the crawl runs (the seed does not wait for them); the crawl is not
 * finished while they may still bring URLs.
 */
export class Seeding implements SeedSource {
  private readonly sitemaps = new BackgroundReading(() => this.run.wake());

  private readonly store: SeedingParts['store'];
  private readonly frontier: SeedingParts['frontier'];
  private readonly robots: SeedingParts['robots'];
  private readonly fetcher: SeedingParts['fetcher'];
  private readonly politeness: SeedingParts['politeness'];
  private readonly config: SeedingParts['config'];
  private readonly lastmods?: SeedingParts['lastmods'];

  constructor(
    private readonly run: CrawlRun,
    parts: SeedingParts,
  ) {
    this.store = parts.store;
    this.frontier = parts.frontier;
    this.robots = parts.robots;
    this.fetcher = parts.fetcher;
    this.politeness = parts.politeness;
    this.config = parts.config;
    this.lastmods = parts.lastmods;
  }

  /** Stores the seed (once per crawl), and starts reading the sitemaps (once per crawl) without waiting for them. */
  async ingest(): Promise<void> {
    const state = await this.store.state(this.run.jobId);
    if (!state?.seed_done) {
      await this.frontier.offerSeed();
      await this.store.updateState(this.run.jobId, this.run.epoch, { $set: { seed_done: true } });
    }
    if (this.run.options.use_sitemap && !state?.sitemap_done) {
      this.sitemaps.start(async () => {
        await this.ingestSitemaps();
        await this.store.updateState(this.run.jobId, this.run.epoch, { $set: { sitemap_done: true } });
      });
    }
  }

  /** Sitemaps are being read: more URLs may come. */
  get busy(): boolean {
    return this.sitemaps.busy;
  }

  /** Waits for the sitemaps; their failure (a store error, a stop) is the crawl's. */
  settled(): Promise<void> {
    return this.sitemaps.settled();
  }

  private async ingestSitemaps(): Promise<void> {
    const seedUrl = this.run.seed.url;
    const roots = new Set<string>();
    try {
      for (const s of await this.robots.sitemaps(seedUrl)) roots.add(s);
    } catch {
      // robots.txt unreachable: /sitemap.xml alone
    }
    roots.add(`${new URL(seedUrl).origin}/sitemap.xml`);
    const source = { fetch: (url: string) => this.fetchPolitely(url) };
    const maxUrls = Math.max(50_000, this.run.options.max_pages * 10);
    const onSkip = (url: string, error: unknown) =>
      this.run.log.info({ sitemap: url, err: error instanceof Error ? error.message : String(error) }, 'sitemap skipped');
    for await (const batch of walkSitemaps([...roots], source, { ...SITEMAP_LIMITS, maxUrls }, onSkip)) {
      this.run.throwIfStopped();
      const monitorId = this.run.input.monitor_id;
      if (monitorId && this.lastmods) {
        // Stored before the URLs enter the frontier, so a page task never runs before its lastmod is known.
        const canonical = batch.urls.map((raw) => canonicalize(raw)?.url ?? '');
        await this.lastmods.rememberLastmods(this.run.jobId, monitorId, canonical, batch.lastmods);
      }
      await this.frontier.offerSitemapUrls(batch.urls, batch.sitemap);
    }
  }

  private async fetchPolitely(url: string): Promise<string> {
    const page = await whenHostFree(
      this.politeness,
      hostnameOf(url),
      crawlHostPolicy(this.run.options.delay_ms, this.config),
      () => this.fetcher.fetch(url, { acceptGzip: true, maxBytes: SITEMAP_MAX_BYTES, signal: this.run.signal }),
      { signal: this.run.signal, beforeTry: () => this.run.throwIfStopped() },
    );
    return page.html;
  }
}
