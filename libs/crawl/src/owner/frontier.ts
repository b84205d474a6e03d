import { nowIso } from '@app/core';
import type { CrawlStorePort } from '../crawl.repository';
import { CrawlScope } from '../crawl-scope';
import { SKIPPED_RECORD_MAX, SKIPPED_RECORD_MIN, type CrawlEntry, type EntryVia, type SkipReason } from '../crawl.types';
import { canonicalize, type CanonicalUrl } from '../url-canon';
import { needsTicket, newEntry, toWindowEntry, type Candidate, type SkippedCandidate } from './crawl-entry';
import type { CrawlRun } from './crawl-run';
import { FrontierWindow, type WindowEntry } from './frontier-window';
import type { InFlightPages } from './in-flight';
import { SeenKeys } from './seen-keys';

/** The window is refilled from the store below this many entries, up to WINDOW_BATCH more. */
export const WINDOW_LOW = 1000;
export const WINDOW_BATCH = 2000;
/** While the owner has nothing to start, the store is asked at most this often whether pending entries wait behind the window. */
export const LOOK_BEHIND_MS = 1000;

export type FrontierStore = CrawlStorePort<{
  entries: 'insertEntries' | 'pendingAfter' | 'pendingAnywhere' | 'countPending' | 'iterateKeys' | 'skipPending';
  states: 'updateState';
}>;

export interface FrontierLinks {
  /** Whether admission has stopped for good (max_pages reached): unadmitted URLs are then skipped, not queued. */
  admissionClosed: () => boolean;
  /** A host's URL entered the window (its robots.txt may be read ahead). */
  onWindowEntry: (entry: WindowEntry) => void;
  /** New URLs were queued (the job's `urls_queued`). */
  onQueued: (count: number) => void;
}

/**
 * Which URLs the crawl knows and which come next (docs/crawl.md "Which URLs are crawled"). Every URL is
 * a stored entry before it is acted on; the frontier keeps the seen-set (one entry per URL, whatever its
 * status), hands out discovery numbers (`seq`, the map's order), records the URLs it rules out as
 * `skipped` (up to a cap, counted beyond it), and holds a window of the pending ones in memory: per-host
 * queues served round-robin, refilled from the store in discovery order when it runs low, so a
 * 100,000-URL crawl does not live in one process's memory. It writes only pending entries and entries
 * skipped before admission; running entries are the committer's.
 */
export class Frontier {
  readonly scope: CrawlScope;
  private readonly window = new FrontierWindow();
  /** Every URL key the crawl has an entry for, as 64-bit fingerprints (seen-keys.ts). */
  private readonly seen = new SeenKeys();
  private nextSeq = 1;
  /** The window holds (or held) every pending entry up to this seq; the refill reads past it. */
  private loadedUpTo = 0;
  /** No pending entry in the store past loadedUpTo: new entries may join the window directly. */
  private storeExhausted = false;
  private skippedRecorded = 0;
  /** When lookBehind last asked the store (ms since epoch). */
  private lookedBehindAt = Number.NEGATIVE_INFINITY;
  /**
   * Entries handed out by next() whose admission has not ended (release): out of the window and not yet in
   * flight, yet still pending in the store. A refill or a sweep running meanwhile (Crawlee asks isFinished while
   * a task admits) must not load them again: a second copy would be admitted and dispatched beside the first.
   */
  private readonly taken = new Set<string>();

  constructor(
    private readonly run: CrawlRun,
    private readonly store: FrontierStore,
    private readonly inFlight: Pick<InFlightPages, 'has'>,
    private readonly links: FrontierLinks,
  ) {
    this.scope = new CrawlScope(run.seed, run.options, run.logoutLinks);
  }

  /**
   * Takeover: rebuilds the seen-set and the next discovery number from the store. Returns the admission
   * tickets the entries hold.
   */
  async restore(skippedRecorded: number): Promise<Set<number>> {
    this.skippedRecorded = skippedRecorded;
    const tickets = new Set<number>();
    let maxSeq = 0;
    for await (const e of this.store.entries.iterateKeys(this.run.jobId)) {
      this.seen.add(e.key);
      if (typeof e.ticket === 'number') tickets.add(e.ticket);
      if (e.seq > maxSeq) maxSeq = e.seq;
    }
    this.nextSeq = maxSeq + 1;
    return tickets;
  }

  knows(key: string): boolean {
    return this.seen.has(key);
  }

  /** The links of a fetched page (depth + 1), through the scope; known ones are ignored. A batch follows no links. */
  async offerLinks(parent: WindowEntry, links: string[], base: string): Promise<void> {
    if (!this.run.followsLinks) return;
    const depth = parent.depth + 1;
    await this.offerDecided(
      links.map((link) => ({ raw: link, base })),
      depth,
      parent.url,
      'link',
      false,
    );
  }

  /** URLs from a sitemap (depth 1; follow_pattern does not apply to them). */
  async offerSitemapUrls(urls: string[], sitemap: string): Promise<void> {
    await this.offerDecided(
      urls.map((raw) => ({ raw })),
      1,
      sitemap,
      'sitemap',
      true,
    );
  }

  /**
   * A batch's URLs (depth 0, in list order from index `start`), all to fetch: the scope does not apply
   * (a list is what the caller asked for); ones the crawl knows (a chunk stored again) are ignored.
   */
  async offerListUrls(urls: string[], start: number): Promise<void> {
    const admitted: Candidate[] = [];
    urls.forEach((raw, i) => {
      const target = canonicalize(raw);
      if (target && !this.seen.has(target.key))
        admitted.push({ target, depth: 0, parentUrl: null, via: 'list', extract: true, listIndex: start + i });
    });
    await this.add(admitted, []);
  }

  /** The seed (depth 0), unless the crawl knows it already. */
  async offerSeed(): Promise<void> {
    if (this.seen.has(this.run.seed.key)) return;
    await this.add([{ target: this.run.seed, depth: 0, parentUrl: null, via: 'seed', extract: this.run.options.extract_from_seed }], []);
  }

  /**
   * Stores newly discovered URLs (admitted ones pending, the others as skipped entries up to the
   * recorded-skip cap, counted beyond it) and marks them seen. Discovery order is the `seq`.
   */
  async add(admitted: Candidate[], skipped: SkippedCandidate[]): Promise<void> {
    const now = nowIso();
    const docs: CrawlEntry[] = [];
    const fresh: WindowEntry[] = [];
    const skipCounts: Record<string, number> = {};
    let recorded = 0;
    const skipCap = Math.min(SKIPPED_RECORD_MAX, Math.max(SKIPPED_RECORD_MIN, this.run.options.max_pages * 10));
    const toSkip = [...skipped];
    for (const c of admitted) {
      if (this.seen.has(c.target.key)) continue;
      if (this.links.admissionClosed() && c.extract) {
        toSkip.push({ ...c, reason: 'max_pages', why: `max_pages (${this.run.options.max_pages}) reached` });
        continue;
      }
      this.seen.add(c.target.key);
      const doc = this.entry(c.target, c.depth, c.parentUrl, c.via, now, {
        extract: c.extract,
        ...(c.listIndex !== undefined ? { list_index: c.listIndex } : {}),
      });
      docs.push(doc);
      fresh.push(toWindowEntry(doc));
    }
    for (const s of toSkip) {
      if (this.seen.has(s.target.key)) continue;
      this.seen.add(s.target.key);
      skipCounts[s.reason] = (skipCounts[s.reason] ?? 0) + 1;
      if (this.skippedRecorded + recorded >= skipCap) continue;
      recorded++;
      docs.push(
        this.entry(s.target, s.depth, s.parentUrl, 'link', now, {
          status: 'skipped',
          error_category: s.reason,
          error_message: `Not crawled: ${s.why}.`,
          completed_at: now,
          event_done: true,
        }),
      );
    }
    if (docs.length === 0) return;
    const duplicates = await this.store.entries.insertEntries(docs);
    const inc: Record<string, number> = {};
    for (const [reason, n] of Object.entries(skipCounts)) inc[`skipped_by_reason.${reason}`] = n;
    if (recorded > 0) inc.skipped_recorded = recorded;
    this.skippedRecorded += recorded;
    if (Object.keys(inc).length > 0) await this.store.states.updateState(this.run.jobId, this.run.epoch, { $inc: inc });
    const added = fresh.filter((w) => !duplicates.has(w.id));
    if (added.length > 0) this.links.onQueued(added.length);
    // New entries join the window directly when nothing older waits in the store; otherwise the refill finds them.
    if (this.storeExhausted && this.window.size < WINDOW_LOW + WINDOW_BATCH) {
      const at = Date.now();
      for (const w of added) this.toWindow(w, at);
      for (const w of added) this.loadedUpTo = Math.max(this.loadedUpTo, w.seq);
    } else if (added.length > 0) {
      this.storeExhausted = false;
    }
    this.run.wake();
  }

  /**
   * Records a URL fetched as the redirect target of another page, which the crawl had not seen: skipped
   * (`duplicate`), so it is never fetched on its own. Returns false when the crawl has an entry for it
   * already (then the caller looks at that entry).
   */
  async recordRedirectTarget(target: CanonicalUrl, from: WindowEntry): Promise<boolean> {
    if (this.seen.has(target.key)) return false;
    this.seen.add(target.key);
    const now = nowIso();
    const entry = this.entry(target, from.depth, from.url, 'redirect', now, {
      status: 'skipped',
      error_category: 'duplicate',
      error_message: `Fetched as the redirect target of ${from.url}.`,
      completed_at: now,
      event_done: true,
    });
    // An entry this owner never saw (an earlier owner's late write) is found by its id.
    const duplicates = await this.store.entries.insertEntries([entry]);
    return !duplicates.has(entry._id);
  }

  /** A pending entry the crawl will not fetch after all (robots.txt): skipped, with why, and counted. */
  async skipPending(entry: WindowEntry, reason: SkipReason, why: string): Promise<void> {
    await this.store.entries.skipPending(entry.id, {
      error_category: reason,
      error_message: `Not crawled: ${why}.`,
      completed_at: nowIso(),
      event_done: true,
    });
    await this.store.states.updateState(this.run.jobId, this.run.epoch, { $inc: { [`skipped_by_reason.${reason}`]: 1 } });
  }

  /** Loads the next pending entries (discovery order) into the window when it runs low. */
  async refill(): Promise<void> {
    if (this.storeExhausted || this.window.size >= WINDOW_LOW) return;
    const batch = await this.store.entries.pendingAfter(this.run.jobId, this.loadedUpTo, WINDOW_BATCH);
    const at = Date.now();
    for (const entry of batch) {
      this.loadedUpTo = Math.max(this.loadedUpTo, entry.seq);
      const w = toWindowEntry(entry);
      if (this.links.admissionClosed() && needsTicket(w)) continue;
      if (!this.held(entry._id)) this.toWindow(w, at);
    }
    if (batch.length < WINDOW_BATCH) this.storeExhausted = true;
  }

  /**
   * The last look before the crawl ends: pending entries anywhere in the store, not only past the window's
   * position. A stale owner (stopped past its lease, then resumed) can store the children of its last page
   * before its fenced write refuses it, under sequence numbers this owner had already passed; without this
   * look they would be closed as never crawled. True when it found work.
   */
  async sweep(): Promise<boolean> {
    const closed = this.links.admissionClosed();
    const found = await this.store.entries.pendingAnywhere(this.run.jobId, closed, WINDOW_BATCH);
    const at = Date.now();
    let added = 0;
    for (const entry of found) {
      if (this.held(entry._id)) continue;
      const w = toWindowEntry(entry);
      if (closed && needsTicket(w)) continue;
      this.seen.add(entry.key);
      this.toWindow(w, at);
      added++;
    }
    if (added > 0) {
      this.run.log.info({ entries: added }, 'pending entries found behind the window (stored by an earlier owner): crawling them');
      this.rescan();
    }
    return added > 0;
  }

  /**
   * The owner has nothing it can start now (its window holds only entries waiting for a time or a host), and no page is
   * in flight or being admitted (the caller's condition: a sweep must not bring back an entry that is on its way to
   * running). Pending entries an earlier owner stored behind the window after this one read the store would otherwise
   * wait until the window runs dry, as long as its entries wait (docs/crawl.md "Takeover"). The store's count of pending
   * entries says whether any is not in the window; only then does it sweep. At most once per LOOK_BEHIND_MS
   * (`now`, ms since epoch), so an idle owner does not ask the store at every turn of its pool. True when it found work.
   */
  async lookBehind(now: number): Promise<boolean> {
    if (now - this.lookedBehindAt < LOOK_BEHIND_MS) return false;
    this.lookedBehindAt = now;
    const pending = await this.store.entries.countPending(this.run.jobId, this.links.admissionClosed());
    if (pending <= this.window.size) return false;
    return this.sweep();
  }

  /**
   * The next entry to start, round-robin over the hosts `canStart` accepts; null when none can start now. The entry
   * is the caller's until it calls release() (its admission ended: in flight, back in the window, or closed).
   */
  next(now: number, canStart: (host: string) => boolean): WindowEntry | null {
    const entry = this.window.next(now, canStart);
    if (entry) this.taken.add(entry.id);
    return entry;
  }

  /** Entries handed out by next() whose admission has not ended. */
  get admitting(): number {
    return this.taken.size;
  }

  /** The admission of an entry next() handed out has ended. */
  release(entry: WindowEntry): void {
    this.taken.delete(entry.id);
  }

  /** The owner holds the entry: in the window, handed out for admission, or in flight. */
  private held(id: string): boolean {
    return this.window.has(id) || this.taken.has(id) || this.inFlight.has(id);
  }

  hasStartable(now: number, canStart: (host: string) => boolean): boolean {
    return this.window.hasStartable(now, canStart);
  }

  /** Back to the window (a retry, a paused host, robots.txt unreadable for now), not before its notBefore. */
  putBack(entry: WindowEntry): void {
    this.window.add(entry, Date.now());
    this.run.wake();
  }

  remove(id: string): void {
    this.window.removeWhere((w) => w.id === id);
  }

  /** Admission closed (max_pages): entries without a ticket leave the window (and are not loaded again). */
  dropUnadmitted(): void {
    this.window.removeWhere(needsTicket);
  }

  /** Reads the store from the start again at the next refill (admission reopened, or entries found behind). */
  rescan(): void {
    this.storeExhausted = false;
    this.loadedUpTo = 0;
  }

  /** Entries held in memory. */
  get size(): number {
    return this.window.size;
  }

  /** The earliest time a delayed entry comes due (ms since epoch), or null. */
  nextDueAt(): number | null {
    return this.window.nextDueAt();
  }

  private async offerDecided(
    urls: Array<{ raw: string; base?: string }>,
    depth: number,
    parentUrl: string,
    via: EntryVia,
    fromSitemap: boolean,
  ): Promise<void> {
    const admitted: Candidate[] = [];
    const skipped: SkippedCandidate[] = [];
    for (const { raw, base } of urls) {
      const decision = this.scope.decide(raw, depth, base, fromSitemap);
      if (!decision || this.seen.has(decision.target.key)) continue;
      if (decision.admit) admitted.push({ target: decision.target, depth, parentUrl, via, extract: true });
      else skipped.push({ target: decision.target, depth, parentUrl, reason: decision.reason, why: decision.why });
    }
    await this.add(admitted, skipped);
  }

  private toWindow(entry: WindowEntry, at: number): void {
    this.window.add(entry, at);
    this.links.onWindowEntry(entry);
  }

  private entry(target: CanonicalUrl, depth: number, parentUrl: string | null, via: EntryVia, now: string, extra: Partial<CrawlEntry>) {
    return newEntry(
      { jobId: this.run.jobId, userId: this.run.job.user_id },
      target,
      { depth, parentUrl, via, seq: this.nextSeq++, now },
      extra,
    );
  }
}
