import { nowIso, Usage } from '@app/core';
import { completedResult, failedResult } from '@app/extraction';
import type { CrawlStorePort } from '../crawl.repository';
import type { CrawlEntry, PageDuplicate, PageOutcome, SkipReason } from '../crawl.types';
import { exhaustedFailure, retryDelayMs, type PageRoute } from '../page-retry-policy';
import type { CanonicalUrl } from '../url-canon';
import { entryId, unadmittedTicket } from './crawl-entry';
import type { CrawlLease } from './crawl-lease';
import type { CrawlRun } from './crawl-run';
import type { Frontier } from './frontier';
import type { WindowEntry } from './frontier-window';
import type { HostSchedule } from './host-schedule';
import type { InFlightPages } from './in-flight';
import { isModelFailure, type JobCounters } from './job-counters';
import type { CommitBatch } from './commit-batch';
import type { PageAnnouncer } from './page-announcer';
import type { TicketBook } from './ticket-book';
import { callKind } from './call-kind';

type Completed = Extract<PageOutcome, { kind: 'completed' }>;
type Failed = Extract<PageOutcome, { kind: 'failed' }>;

export type CommitStore = CrawlStorePort<{ entries: 'settle' | 'entry' | 'relabelSkipped' | 'skipPending'; states: 'updateState' }>;

export interface CommitMetrics {
  commits: { inc(labels: { status: string }): void };
  /** Pages skipped as duplicates after their fetch, by reason (gleaner_crawl_duplicates_total). */
  duplicates?: { inc(labels: { reason: string }): void };
  savedCalls?: { inc(): void };
}

/** PageCommitter's collaborators, by name (a crawl's parts; several are Picks of overlapping shapes). */
export interface PageCommitterParts {
  store: CommitStore;
  /** Completed and failed pages are written in batches (commit-batch.ts). */
  batch: Pick<CommitBatch, 'commit'>;
  announcer: PageAnnouncer;
  lease: Pick<CrawlLease, 'holds'>;
  frontier: Pick<Frontier, 'offerLinks' | 'recordRedirectTarget' | 'remove' | 'putBack' | 'rescan' | 'scope'>;
  tickets: Pick<TicketBook, 'giveBack'>;
  inFlight: InFlightPages;
  hosts: Pick<HostSchedule, 'pause'>;
  counters: Pick<JobCounters, 'add' | 'checkBudget'>;
  metrics: CommitMetrics;
}

/**
 * Commits a page's outcome (docs/crawl.md "Commit order for a page"). Each step is idempotent, so a crash
 * between any two is safe: the children (new frontier entries), then, in the page's commit batch with the
 * other pages finished meanwhile (commit-batch.ts), the result (keyed by the page), the announcement (stored
 * once by its dedupe key) and the entry, marked announced in the same fenced write; then the job's counters
 * (coalesced). The entry write is fenced by the owner's epoch: a refusal means this owner is stale, and it
 * stops. Before its unfenced writes (children; the batch's results) the owner checks its lease (self-fencing),
 * so a stale owner stops there.
 */
export class PageCommitter {
  private readonly store: PageCommitterParts['store'];
  private readonly batch: PageCommitterParts['batch'];
  private readonly announcer: PageCommitterParts['announcer'];
  private readonly lease: PageCommitterParts['lease'];
  private readonly frontier: PageCommitterParts['frontier'];
  private readonly tickets: PageCommitterParts['tickets'];
  private readonly inFlight: PageCommitterParts['inFlight'];
  private readonly hosts: PageCommitterParts['hosts'];
  private readonly counters: PageCommitterParts['counters'];
  private readonly metrics: PageCommitterParts['metrics'];

  constructor(
    private readonly run: CrawlRun,
    parts: PageCommitterParts,
  ) {
    this.store = parts.store;
    this.batch = parts.batch;
    this.announcer = parts.announcer;
    this.lease = parts.lease;
    this.frontier = parts.frontier;
    this.tickets = parts.tickets;
    this.inFlight = parts.inFlight;
    this.hosts = parts.hosts;
    this.counters = parts.counters;
    this.metrics = parts.metrics;
  }

  /** Carries out a route (page-retry-policy.ts). A `retry` is thrown, for Crawlee to reclaim the page. */
  async apply(entry: WindowEntry, route: PageRoute, outcome: PageOutcome): Promise<void> {
    if (outcome.kind === 'rate_limited') await this.noteRateLimit(entry, outcome.paused_until);
    switch (route.kind) {
      case 'complete':
        return this.completed(entry, route.outcome);
      case 'fail':
        return this.failed(entry, route.outcome);
      case 'retry':
        entry.lastFailure = route.failure;
        throw new RetryPage(route.failure);
      case 'requeue':
        if (route.rateLimited) entry.rateLimitRetries++;
        return this.requeue(entry, { notBefore: route.notBefore, rateLimited: route.rateLimited });
      case 'skip':
        return this.skipped(entry, route.outcome.reason, route.outcome.why, route.outcome.final_url, route.outcome.duplicate);
      case 'cancel':
        this.run.halt('cancelled');
        this.run.throwIfStopped();
    }
  }

  /** Crawlee retries a page that failed with a retryable error: back to the frontier after a backoff. */
  async retryLater(entry: WindowEntry, retryCount: number): Promise<void> {
    await this.requeue(entry, { notBefore: Date.now() + retryDelayMs(retryCount), retryCount });
  }

  /** The page's attempts ran out (or it failed in a way Crawlee could not retry): it fails. */
  async giveUp(entry: WindowEntry, error: unknown, attempts: number): Promise<void> {
    await this.failed(entry, exhaustedFailure(entry.lastFailure, error, attempts));
  }

  private async completed(entry: WindowEntry, outcome: Completed): Promise<void> {
    await this.learnAlias(entry.host, outcome.final_url);
    const final = this.frontier.scope.canonical(outcome.final_url);
    if (final && final.key !== entry.key) {
      const clash = await this.claimRedirectTarget(entry, final);
      if (clash)
        return this.skipped(entry, 'duplicate', clash, final.url, {
          duplicate_of: final.url,
          duplicate_key: final.key,
          duplicate_reason: 'redirect',
          similarity: null,
        });
    }
    // Self-fencing before the unfenced writes (children here, the result in the batch): a stale owner stops here (see Frontier.sweep).
    if (!(await this.lease.holds())) return;
    // After the redirect check (the page's own address is not a redirect onto its twin), before its links are read.
    if (outcome.canonical_url) await this.learnAlias(hostOf(outcome.final_url) ?? entry.host, outcome.canonical_url);
    await this.frontier.offerLinks(entry, outcome.links, outcome.final_url);
    const result = outcome.result;
    const usage = Usage.toRecordFields(result?.usage ?? Usage.NONE);
    const firstTime = this.announcer.firstAnnouncement(entry);
    const settled = await this.batch.commit({
      entry,
      status: 'completed',
      // A page a monitor's run found unchanged stores no result and announces none: its record is the
      // monitor's already (docs/monitors.md "Cheap re-runs"); the entry and the counters still count it.
      result:
        result && result.made.method !== 'unchanged'
          ? completedResult(result, {
              url: outcome.final_url,
              depth: entry.depth,
              parentUrl: entry.parentUrl,
              fetchDurationMs: outcome.fetch_duration_ms,
              extractDurationMs: outcome.extract_duration_ms,
              requestWarnings: this.run.input.warnings ?? [],
            })
          : null,
      announced: { key: entry.key, url: entry.url, status: 'completed', error_category: null, error_message: null },
      firstTime,
      outcome: entry.unstoredOutcome,
      set: {
        final_url: outcome.final_url,
        http_status: outcome.http_status,
        fetch_duration_ms: outcome.fetch_duration_ms,
        extract_duration_ms: outcome.extract_duration_ms,
        llm_model: result?.model?.model ?? null,
        llm_provider: result?.model?.provider ?? null,
        method: result ? result.made.method : null,
        model_call: result ? callKind(result.made) : null,
        ...(result?.provenance ? { ungrounded_fields: result.provenance.ungrounded_fields } : {}),
        ...(result?.completeness?.items ? { items_missing: itemsMissing(result.completeness.items) } : {}),
        ...usage,
        event_done: true,
        completed_at: nowIso(),
      },
    });
    if (!settled) return;
    if (result) {
      const method = result.made.method;
      const kind = callKind(result.made);
      this.counters.add({
        page_count: 1,
        [`pages_by_method.${method}`]: 1,
        model_calls: kind ? 1 : 0,
        ...(kind
          ? {
              [`model_calls_by_kind.${kind}`]: 1,
              [`tokens_by_call_kind.${kind}.input`]: usage.token_usage_input,
              [`tokens_by_call_kind.${kind}.output`]: usage.token_usage_output,
            }
          : {}),
        ...usage,
        ungrounded_fields: result.provenance?.ungrounded_fields ?? 0,
      });
    }
    await this.counters.checkBudget();
  }

  private async failed(entry: WindowEntry, outcome: Failed): Promise<void> {
    const category = outcome.error_category;
    const used = outcome.usage ?? Usage.NONE;
    const usage = Usage.toRecordFields(used);
    const firstTime = this.announcer.firstAnnouncement(entry);
    const settled = await this.batch.commit({
      entry,
      status: 'failed',
      result: entry.extract
        ? failedResult(outcome.final_url ?? entry.url, { category, message: outcome.error_message }, used, entry)
        : null,
      announced: { key: entry.key, url: entry.url, status: 'failed', error_category: category, error_message: outcome.error_message },
      firstTime,
      outcome: entry.unstoredOutcome,
      set: {
        error_category: category,
        error_message: outcome.error_message,
        error_details: outcome.error_details,
        http_status: outcome.http_status,
        final_url: outcome.final_url,
        ...usage,
        ...(outcome.ungrounded_fields !== undefined ? { ungrounded_fields: outcome.ungrounded_fields } : {}),
        event_done: true,
        completed_at: nowIso(),
      },
    });
    if (!settled) return;
    await this.store.states.updateState(this.run.jobId, this.run.epoch, { $inc: { [`errors_by_category.${category}`]: 1 } });
    this.counters.add({
      failed_count: 1,
      model_calls: isModelFailure(category) ? 1 : 0,
      ...usage,
      ungrounded_fields: outcome.ungrounded_fields ?? 0,
    });
    await this.counters.checkBudget();
  }

  /** A page the crawl does not keep after all (redirected off-site, or onto a page fetched on its own). Its ticket is given back. */
  private async skipped(
    entry: WindowEntry,
    reason: SkipReason,
    why: string,
    finalUrl: string | null,
    duplicate?: PageDuplicate,
  ): Promise<void> {
    // A page skipped for its rel=canonical shows, as a redirect does, that its host and the canonical's are one site.
    if (duplicate?.duplicate_reason === 'canonical')
      await this.learnAlias(hostOf(finalUrl ?? entry.url) ?? entry.host, duplicate.duplicate_of);
    const ticket = entry.ticket;
    const settled = await this.settle(entry, 'skipped', {
      error_category: reason,
      error_message: `Not kept: ${why}.`,
      final_url: finalUrl,
      ...(duplicate
        ? {
            duplicate_of: duplicate.duplicate_of,
            duplicate_key: duplicate.duplicate_key,
            duplicate_reason: duplicate.duplicate_reason,
            similarity: duplicate.similarity,
          }
        : {}),
      ticket: unadmittedTicket(entry.key),
      admitted: false,
      event_done: true,
      completed_at: nowIso(),
    });
    if (!settled) return;
    // One more page may be admitted after all: a full book reopens, and the unadmitted entries come back from the store.
    if (ticket !== null && this.tickets.giveBack(ticket)) this.frontier.rescan();
    await this.store.states.updateState(this.run.jobId, this.run.epoch, { $inc: { [`skipped_by_reason.${reason}`]: 1 } });
    if (duplicate) {
      // Skipped before its model call (docs/dedup.md): a model call saved when the job calls one. A redirect onto a page
      // fetched on its own is found here, after its extraction: nothing saved.
      const saved = duplicate.duplicate_reason !== 'redirect' && entry.extract && this.run.input.schema !== null;
      this.counters.add({ [`duplicates.${duplicate.duplicate_reason}`]: 1, model_calls_saved: saved ? 1 : 0 });
      this.metrics.duplicates?.inc({ reason: duplicate.duplicate_reason });
      if (saved) this.metrics.savedCalls?.inc();
    }
  }

  /**
   * A redirect landed on `final`. If this crawl already has that URL done or running, this page is a
   * duplicate (returns why); if it is only known, the known entry is closed, as this page fetched it.
   */
  private async claimRedirectTarget(entry: WindowEntry, final: CanonicalUrl): Promise<string | null> {
    if (await this.frontier.recordRedirectTarget(final, entry)) return null;
    const id = entryId(this.run.jobId, final.key);
    const known = await this.store.entries.entry(id);
    if (!known) return null;
    const fetchedHere = `Fetched as the redirect target of ${entry.url}.`;
    if (known.status === 'skipped') {
      // Recorded as not to crawl (too deep, filtered), yet fetched through this redirect: say so.
      if (known.error_category !== 'duplicate')
        await this.store.entries.relabelSkipped(id, { error_category: 'duplicate', error_message: fetchedHere });
      return null;
    }
    if (known.status === 'pending' && !this.inFlight.has(id)) {
      const closed = await this.store.entries.skipPending(id, {
        error_category: 'duplicate',
        error_message: fetchedHere,
        completed_at: nowIso(),
        event_done: true,
      });
      if (closed) {
        this.frontier.remove(id);
        if (typeof closed.ticket === 'number' && this.tickets.giveBack(closed.ticket)) this.frontier.rescan();
        return null;
      }
    }
    return `redirected to ${final.url}, which this crawl fetches on its own`;
  }

  /**
   * `canonicalize: strict`: a page that redirected from a `www.` host to its bare twin (or the reverse), or whose
   * rel=canonical names the twin, shows the two are one site; links to `from` are read as the twin from now on, and the
   * alias is kept for a later owner.
   */
  private async learnAlias(from: string, to: string): Promise<void> {
    const host = hostOf(to);
    if (!host || !this.frontier.scope.learnAlias(from, host)) return;
    // The whole map: a host name's dots would make a path of a single key.
    await this.store.states.updateState(this.run.jobId, this.run.epoch, { $set: { host_aliases: this.frontier.scope.knownAliases() } });
  }

  /** The host is paused for this crawl's admission too (the page worker paused it for every replica). */
  private async noteRateLimit(entry: WindowEntry, pausedUntil: number): Promise<void> {
    this.hosts.pause(entry.host, pausedUntil);
    await this.store.states.updateState(this.run.jobId, this.run.epoch, { $set: { met_rate_limit: true } });
  }

  /** Back to the frontier (and pending in the store) under a new dispatch number, not before `notBefore`. */
  private async requeue(entry: WindowEntry, how: { notBefore: number; retryCount?: number; rateLimited?: boolean }): Promise<void> {
    entry.dispatch++;
    entry.notBefore = how.notBefore;
    if (how.retryCount !== undefined) entry.retryCount = how.retryCount;
    const settled = await this.settle(entry, 'pending', {
      dispatch: entry.dispatch,
      not_before: new Date(how.notBefore).toISOString(),
      retry_count: entry.retryCount,
      rate_limit_retries: entry.rateLimitRetries,
      ...(how.rateLimited ? { rate_limited: true } : {}),
    });
    if (settled) this.frontier.putBack(entry);
  }

  /**
   * The fenced entry write: running (this epoch) → status. A refusal means this owner is stale: it stops.
   * A store error leaves the entry in flight: Crawlee's retry path settles it again.
   */
  private async settle(entry: WindowEntry, status: CrawlEntry['status'], set: Partial<CrawlEntry>): Promise<CrawlEntry | null> {
    const leased = await this.lease.holds();
    const settled = leased ? await this.store.entries.settle(entry.id, this.run.epoch, status, set) : null;
    this.inFlight.remove(entry);
    this.run.wake();
    if (!leased) return null;
    if (!settled) {
      this.run.halt('lease-lost');
      return null;
    }
    this.metrics.commits.inc({ status });
    return settled;
  }
}

/** A retryable failure, thrown so that Crawlee retries the page (it calls the bridge's reclaimRequest). */
export class RetryPage extends Error {
  constructor(readonly failure: Failed) {
    super(failure.error_message);
  }
}

/**
 * Items a page's lists are known to lack (the crawl map's `list_incomplete=true`): what the page's count says is
 * missing, at least 1 for a list that is not complete for another reason (its text was cut).
 */
export function itemsMissing(items: ReadonlyArray<{ expected: number | null; extracted: number; complete: boolean | null }>): number {
  return items.reduce((n, i) => n + (i.complete === false ? Math.max(1, (i.expected ?? 0) - i.extracted) : 0), 0);
}

/** A URL's host name, lower case (null: not a URL). */
function hostOf(url: string): string | null {
  try {
    return new URL(url).hostname.toLowerCase();
  } catch {
    return null;
  }
}
