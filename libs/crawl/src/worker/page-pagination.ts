import type { AppConfig } from '@app/config';
import {
  PageFailure,
  PageFollower,
  pageLoadOptions,
  type CollectedPages,
  type ExtractionMade,
  type PageExtraction,
  type PagePlan,
} from '@app/extraction';
import { RobotsCache, sideReadFetcher, type FetchControl } from '@app/fetch';
import type { LoadedPage, PageLoaderService } from '@app/pages';
import type { PolitenessPort } from '@app/politeness';
import { crawlPageControl, extractionSchema, isArchiveSource } from '../crawl-input';
import type { JobContext } from './job-contexts';

/** What reading a crawl page's list over its next pages needs of the worker. */
export interface PagePaginationDeps {
  politeness: PolitenessPort;
  config: AppConfig;
  loader: PageLoaderService;
}

/** A page's extraction by the model chain or learned programs (not formats, last run's record, or a duplicate skip). */
function isExtractionMade(extraction: PageExtraction): extraction is PageExtraction<ExtractionMade> {
  const method = extraction.made.method;
  return method === 'model' || method === 'selectors' || method === 'mixed';
}

/**
 * A crawl's, batch's or monitor run's `paginate` (docs/long-lists.md "Pagination"): an extracted page's lists read
 * over its "next" pages by the extract's own follower (PageFollower), so every job kind reads a list over pages one
 * way. The next pages are fetched as the crawl's pages are: robots.txt (unless `respect_robots: false`) by a reader
 * per job and process, its Crawl-delay, the host's politeness slot with the crawl's `delay_ms`, a 429 pausing the
 * host for every job; the page's remaining cost cap (its plan's `maxCostUsd`) stops further pages. A monitor's page
 * has its next pages fetched first (`collect`), its text hash taken over all of them (docs/monitors.md "Paginated lists").
 */
export class PagePagination {
  constructor(private readonly deps: PagePaginationDeps) {}

  /** Whether the job's pages are read over their next pages (a page read from the archive has none to fetch). */
  static applies(context: Pick<JobContext, 'input'>): boolean {
    return !!context.input.paginate && !isArchiveSource(context.input.source);
  }

  /** Whether this page's extraction reads its lists over its next pages: an extracted page of such a job, with a model plan and a schema. */
  static readsPages(context: Pick<JobContext, 'input'>, plan: PagePlan | null): plan is PagePlan & { kind: 'model' } {
    return PagePagination.applies(context) && plan !== null && plan.kind === 'model' && context.input.schema !== null;
  }

  /**
   * A monitor's page (docs/monitors.md "Paginated lists"): its next pages fetched before anything is extracted, as
   * `read` would fetch them, so that the text hash covers every page of the list; `read` then extracts them (`ahead`).
   */
  collect(
    context: JobContext,
    page: LoadedPage,
    plan: PagePlan,
    secrets: Record<string, string>,
    signal: AbortSignal,
  ): Promise<CollectedPages> {
    // Nothing is extracted while collecting.
    const follower = this.follower(context, plan, () => Promise.reject(new Error('collecting extracts nothing')), secrets, signal);
    return follower.collect(page, page.fetch.url, context.input.paginate!);
  }

  /**
   * The page's extraction merged with its next pages' (`metadata.pagination`), or the extraction as it was: a failure,
   * a duplicate skip, formats, or a job without `paginate`. `ahead`: the next pages `collect` fetched already.
   */
  async read(
    context: JobContext,
    page: LoadedPage,
    extracted: PageExtraction | PageFailure,
    plan: PagePlan,
    extract: (next: LoadedPage) => Promise<PageExtraction | PageFailure>,
    secrets: Record<string, string>,
    signal: AbortSignal,
    ahead?: CollectedPages | null,
  ): Promise<PageExtraction | PageFailure> {
    const { input } = context;
    const paginate = input.paginate;
    if (!paginate || !PagePagination.readsPages(context, plan) || extracted instanceof PageFailure || !isExtractionMade(extracted))
      return extracted;
    const follower = this.follower(
      context,
      plan,
      async (next) => {
        const made = await extract(next);
        if (made instanceof PageFailure || isExtractionMade(made)) return made;
        // A next page the duplicate check settled: no items of its own (its list is another page's).
        return { ...made, data: null, made: extracted.made };
      },
      secrets,
      signal,
    );
    return follower.gather(
      { url: page.fetch.url, extraction: extracted, page },
      paginate,
      plan.maxCostUsd ?? null,
      extractionSchema(input),
      ahead ?? undefined,
    );
  }

  /**
   * The extract's follower for a page of this job: its next pages fetched as the crawl's pages are (robots.txt unless
   * `respect_robots: false`, the host's slot with the job's `delay_ms`, its fetch control and mode).
   */
  private follower(
    context: JobContext,
    plan: PagePlan,
    extract: (next: LoadedPage) => Promise<PageExtraction<ExtractionMade> | PageFailure>,
    secrets: Record<string, string>,
    signal: AbortSignal,
  ): PageFollower {
    const { input, job } = context;
    const options = input.options;
    const selector = input.paginate!.selector;
    const control = crawlPageControl(input, secrets, job.user_id, job._id);
    return new PageFollower({
      politeness: this.deps.politeness,
      robots: options.respect_robots ? this.robotsOf(context, control) : null,
      config: this.deps.config,
      delayMs: options.delay_ms,
      load: (url) => this.deps.loader.load(url, options.fetch_mode, { signal, control, nextSelector: selector, ...pageLoadOptions(plan) }),
      extract,
      signal,
    });
  }

  /**
   * The job's robots.txt reader in this process (kept on its context: robots.txt is read once per job and host here),
   * with what of the job's fetch control such reads take (its proxy pool, as the crawl owner's robots.txt reads).
   */
  private robotsOf(context: JobContext, control: FetchControl): RobotsCache {
    context.robots ??= new RobotsCache({
      fetcher: sideReadFetcher(this.deps.loader.fetcher.staticFetcher, control),
      userAgent: this.deps.config.robotsUserAgent,
      errorTtlMs: this.deps.config.robotsRetryMs,
    });
    return context.robots;
  }
}

/** The text a monitor hashes for a paginated page: its own and its next pages' (fetched ahead), in order. */
export function pagesText(first: LoadedPage, ahead: CollectedPages): string {
  return [first, ...ahead.pages.map((collected) => collected.page)].map((page) => page.content.markdown).join('\n\n');
}
