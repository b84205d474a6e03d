import type { Counter } from 'prom-client';
import type { AppConfig } from '@app/config';
import { AppError, isStoreUnavailable } from '@app/core';
import { RedirectStopped, type FetchResult } from '@app/fetch';
import type { JobRecord } from '@app/jobs';
import { conditionalHeaders } from '@app/monitors';
import { pageLoadOptions, type ModelPagePlan } from '@app/extraction';
import type { LoadedPage, PageLoaderService } from '@app/pages';
import { hostnameOf, withHostSlot, type PolitenessPort } from '@app/politeness';
import { crawlHostPolicy } from '../crawl-host-policy';
import { crawlPageControl, type CrawlJobInput } from '../crawl-input';
import type { CrawlScope } from '../crawl-scope';
import type { CrawlStorePort } from '../crawl.repository';
import type { PageDuplicate, PageOutcome, PageTaskPayload } from '../crawl.types';
import { isRetryableFailure } from '../page-retry-policy';
import type { ArchivedPages } from './archived-pages';
import type { CrawlFormatsPlan } from './job-contexts';
import { crawlPagePlan } from './page-outcomes';
import type { DomainLabels } from './domain-labels';
import { unchangedOutcome, type MonitorNote } from './monitor-note';

/** What the fetch stage needs of a page task's job. */
export interface FetchContext {
  job: JobRecord;
  input: CrawlJobInput;
  scope: CrawlScope;
  /** How its pages are extracted (what the load must give them). */
  plan: ModelPagePlan | CrawlFormatsPlan;
}

/**
 * A fetched page; `kept`: its archiving, running while the page is extracted (it never fails: an error is
 * logged), to be awaited before the page's outcome is reported.
 */
export type FetchedPage = LoadedPage & { kept?: Promise<void> };

/** Stops a page after its fetch, before any model call (a duplicate or off-site redirect target). */
export class StopAfterFetch extends Error {
  constructor(readonly outcome: PageOutcome) {
    super('stop after fetch');
  }
}

/**
 * A page task's fetch stage (docs/crawl.md "Politeness", "Exactly once"): the host's politeness slot, the
 * fetch with the address guard on every hop, redirects judged before they are followed (off the crawl's
 * domain, or to a URL it fetches on its own), a monitor's conditional request, the page kept in the
 * archive, and the outcome of a fetch that gave no page (a 429 pauses the host for every worker).
 */
export class PageFetch {
  constructor(
    private readonly politeness: PolitenessPort,
    private readonly config: AppConfig,
    private readonly loader: PageLoaderService,
    private readonly repository: CrawlStorePort<{ entries: 'entry' }>,
    private readonly archived: ArchivedPages,
    private readonly pauses: Counter<'domain'>,
    private readonly domains: DomainLabels,
  ) {}

  /**
   * The page fetched under the host's politeness slot, or the outcome. A crawl that keeps pages archives it
   * meanwhile (`kept`): archiving is a few store writes, no reason for the model call to wait for them.
   */
  async fetch(
    task: PageTaskPayload,
    context: FetchContext,
    signal: AbortSignal,
    note: MonitorNote | null,
    secrets: Record<string, string>,
  ): Promise<FetchedPage | PageOutcome> {
    const options = context.input.options;
    const host = hostnameOf(task.url);
    const control = crawlPageControl(context.input, secrets, context.job.user_id, context.job._id);
    // A failed fetch is judged while the slot is held: a 429 pauses the host before its slot frees, so no
    // other worker slips a request in between.
    const loaded = await withHostSlot(
      this.politeness,
      host,
      crawlHostPolicy(options.delay_ms, this.config),
      async () => {
        try {
          return {
            ok: true as const,
            page: await this.loader.load(task.url, options.fetch_mode, {
              signal,
              linkSelector: options.follow_selector ?? undefined,
              // `paginate`: the page's next-page links too (docs/long-lists.md "Pagination").
              ...(task.extract && context.input.paginate ? { nextSelector: context.input.paginate.selector } : {}),
              control,
              keepRaw: options.archive,
              // A page that is extracted: what its plan needs of the load (its formats, or the attribute values a
              // value may be grounded on: docs/provenance.md).
              ...(task.extract ? pageLoadOptions(crawlPagePlan(context, task.key)) : {}),
              // A monitor's paginated page is not asked conditionally: a 304 of its first page says nothing of its
              // next pages (docs/monitors.md "Paginated lists"); their text hash decides.
              headers: conditionalHeaders(task.extract && context.input.paginate ? null : (note?.memory ?? null)),
              beforeConvert: (fetched) => {
                if (note) {
                  // A 304 carries no body: last run's record and links stand (docs/monitors.md "Cheap re-runs").
                  note.etag = fetched.headers.etag ?? (fetched.status === 304 ? (note.memory?.etag ?? null) : null);
                  note.lastModified =
                    fetched.headers['last-modified'] ?? (fetched.status === 304 ? (note.memory?.lastModified ?? null) : null);
                  if (fetched.status === 304 && note.memory) {
                    note.via = 'not_modified';
                    note.textHash = note.memory.textHash;
                    throw new StopAfterFetch(unchangedOutcome(fetched, note.memory.links, note.memory.data, task.extract));
                  }
                }
                return this.checkFinalUrl(task, context, fetched);
              },
              beforeRedirect: async (next) => (await this.redirectVerdict(task, context, next))?.why ?? null,
            }),
          };
        } catch (error) {
          return { ok: false as const, failure: await this.loadFailure(task, context, host, error) };
        }
        // A normal answer ends the host's rate-limited streak (reportSuccess), told with the slot's release.
      },
      { answered: (result) => result.ok },
    );
    if (!loaded.ran) return { kind: 'deferred', retry_in_ms: loaded.retryInMs, reason: loaded.reason };
    if (!loaded.value.ok) return loaded.value.failure;
    const page: FetchedPage = loaded.value.page;
    if (options.archive) page.kept = this.archived.keep(context.job, task.key, task.url, page);
    return page;
  }

  /**
   * After the fetch, before any model call: a redirect that left the crawl's domain, or that landed on
   * a URL this crawl already fetched, ends the page here.
   */
  private async checkFinalUrl(task: PageTaskPayload, context: FetchContext, fetched: FetchResult): Promise<void> {
    const verdict = await this.redirectVerdict(task, context, fetched.url);
    if (verdict) {
      throw new StopAfterFetch({
        kind: 'skipped',
        reason: verdict.reason,
        why: `redirected to ${fetched.url}, ${verdict.why}`,
        final_url: fetched.url,
        ...(verdict.duplicate ? { duplicate: verdict.duplicate } : {}),
      });
    }
  }

  /**
   * Whether a redirect target is one this page should not go to: off the crawl's domain
   * (same_domain_only), or a URL this crawl fetches on its own. Asked before each hop is followed (so
   * no request goes there) and once more for the final URL (browser rendering follows redirects itself).
   * A duplicate names the page it redirects to (the crawl map's `duplicate_of`, reason `redirect`: docs/dedup.md).
   */
  private async redirectVerdict(
    task: PageTaskPayload,
    context: FetchContext,
    next: string,
  ): Promise<{ reason: 'filtered' | 'duplicate'; why: string; duplicate?: PageDuplicate } | null> {
    if (next === task.url) return null; // no redirect (the usual final URL): one canonical form, nothing to judge
    const target = context.scope.canonical(next);
    const requested = context.scope.canonical(task.url);
    if (!target || !requested || target.key === requested.key) return null;
    const outside = context.scope.outsideDomain(target);
    if (outside) return { reason: 'filtered', why: outside };
    const known = await this.repository.entries.entry(`${task.job_id}:${target.key}`);
    if (known && (known.status === 'completed' || known.status === 'running' || known.status === 'failed')) {
      return {
        reason: 'duplicate',
        why: 'which this crawl fetches on its own',
        duplicate: { duplicate_of: known.url, duplicate_key: known.key, duplicate_reason: 'redirect', similarity: null },
      };
    }
    return null;
  }

  /** The outcome of a page whose load did not give a page: stopped after the fetch, a redirect refused, or a failure. */
  private async loadFailure(task: PageTaskPayload, context: FetchContext, host: string, error: unknown): Promise<PageOutcome> {
    if (error instanceof StopAfterFetch) return error.outcome;
    // A redirect onto the auth profile's logout URL: skipped as a link to it is (docs/auth-profiles.md "Logout links").
    if (error instanceof RedirectStopped && error.kind === 'logout_link')
      return { kind: 'skipped', reason: 'logout_link', why: `redirected to ${error.next}, ${error.reason}`, final_url: error.next };
    if (error instanceof RedirectStopped) {
      const verdict = await this.redirectVerdict(task, context, error.next);
      return {
        kind: 'skipped',
        reason: verdict?.reason ?? 'filtered',
        why: `redirected to ${error.next}, ${error.reason}`,
        final_url: error.next,
        ...(verdict?.duplicate ? { duplicate: verdict.duplicate } : {}),
      };
    }
    return this.fetchFailure(host, error);
  }

  private async fetchFailure(host: string, error: unknown): Promise<PageOutcome> {
    if (isStoreUnavailable(error)) throw error; // not the page's failure (see deliver)
    const appError = error instanceof AppError ? error : null;
    const status = typeof appError?.extensions?.status === 'number' ? appError.extensions.status : null;
    if (appError?.category === 'rate_limit') {
      const retryAfterMs = appError.retryAfterSeconds !== undefined ? appError.retryAfterSeconds * 1000 : null;
      const pause = await this.politeness.reportRateLimit(host, retryAfterMs);
      if (pause.step > 0) this.pauses.inc({ domain: this.domains.label(host) });
      return {
        kind: 'rate_limited',
        paused_until: pause.pausedUntil,
        limited_since: pause.limitedSince,
        http_status: status ?? 429,
        retry_after_ms: retryAfterMs,
      };
    }
    return {
      kind: 'failed',
      error_category: appError?.category ?? 'fetch_error',
      error_message: appError ? (appError.detail ?? appError.message) : 'The fetch failed.',
      error_details: appError?.category === 'http_error' && status ? `HTTP ${status}` : null,
      http_status: status,
      final_url: typeof appError?.extensions?.url === 'string' ? appError.extensions.url : null,
      retryable: isRetryableFailure('fetch', error),
      usage: null,
    };
  }
}
