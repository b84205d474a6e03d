import type { PageOutcome } from '../crawl.types';
import type { StoredPageOutcome } from '../stored-outcome';

/** A frontier item in the owner's memory (the store holds every entry; this window holds the next few thousand). */
export interface WindowEntry {
  id: string;
  key: string;
  url: string;
  host: string;
  depth: number;
  parentUrl: string | null;
  seq: number;
  extract: boolean;
  /** Admission ticket once admitted (retries keep it), else null. */
  ticket: number | null;
  dispatch: number;
  retryCount: number;
  rateLimitRetries: number;
  robotsDeferrals: number;
  /** Not before this time (ms since epoch). */
  notBefore: number;
  /** The last retryable failure (reported if the retries run out). */
  lastFailure?: Extract<PageOutcome, { kind: 'failed' }>;
  /**
   * The page was in flight under an earlier owner, and this owner has not dispatched it since: its task's
   * outcome may be in the store already (a new dispatch number is a task no worker has seen).
   */
  outcomeMayBeStored?: boolean;
  /**
   * An announcement of the page (SSE `result`, webhook `job.page`) may have happened already: an earlier
   * owner's or an earlier attempt's. Then the announcement looks its dedupe key up first.
   */
  mayBeAnnounced?: boolean;
  /**
   * The outcome of the page's current task as a page worker of this process handed it over, not stored yet
   * (local-outcomes.ts): a completed or failed page's commit batch stores it before the page's result.
   */
  unstoredOutcome?: { taskId: string; outcome: StoredPageOutcome };
}

/**
 * The ready part of the frontier: per-host FIFO queues served round-robin (a slow or paused host never
 * holds back the others), plus entries waiting for a time (retry backoff, a host's pause). Pure data
 * structure; the owner decides what "a host can start" means (politeness, its own in-flight count).
 */
export class FrontierWindow {
  private readonly ready = new Map<string, WindowEntry[]>();
  private readonly hosts: string[] = [];
  private cursor = 0;
  private delayed: WindowEntry[] = [];
  private readonly ids = new Set<string>();

  get size(): number {
    return this.ids.size;
  }

  has(id: string): boolean {
    return this.ids.has(id);
  }

  /** Adds an entry (ready now, or delayed until its notBefore). Ignores one already held. */
  add(entry: WindowEntry, now: number): void {
    if (this.ids.has(entry.id)) return;
    this.ids.add(entry.id);
    if (entry.notBefore > now) this.insertDelayed(entry);
    else this.enqueue(entry);
  }

  /**
   * The next entry to start: round-robin over hosts that have ready entries and for which `canStart`
   * says yes. Delayed entries that came due are promoted first. Null when nothing can start now.
   */
  next(now: number, canStart: (host: string) => boolean): WindowEntry | null {
    this.promote(now);
    for (let tried = 0; tried < this.hosts.length; tried++) {
      const index = (this.cursor + tried) % this.hosts.length;
      const host = this.hosts[index];
      if (!canStart(host)) continue;
      const queue = this.ready.get(host)!;
      const entry = queue.shift()!;
      if (queue.length === 0) {
        this.ready.delete(host);
        this.hosts.splice(index, 1);
        this.cursor = this.hosts.length === 0 ? 0 : index % this.hosts.length;
      } else {
        this.cursor = (index + 1) % this.hosts.length;
      }
      this.ids.delete(entry.id);
      return entry;
    }
    return null;
  }

  /** Whether an entry could start now for some host `canStart` accepts (no mutation besides promotion). */
  hasStartable(now: number, canStart: (host: string) => boolean): boolean {
    this.promote(now);
    return this.hosts.some((host) => canStart(host));
  }

  /** The earliest time a delayed entry comes due (ms since epoch), or null. */
  nextDueAt(): number | null {
    return this.delayed.length > 0 ? this.delayed[0].notBefore : null;
  }

  /** Removes and returns every entry matching `predicate` (e.g. unadmitted ones once max_pages is reached). */
  removeWhere(predicate: (entry: WindowEntry) => boolean): WindowEntry[] {
    const removed: WindowEntry[] = [];
    for (const [host, queue] of this.ready) {
      const keep = queue.filter((e) => !predicate(e) || (removed.push(e), false));
      if (keep.length > 0) this.ready.set(host, keep);
      else {
        this.ready.delete(host);
        this.hosts.splice(this.hosts.indexOf(host), 1);
      }
    }
    this.delayed = this.delayed.filter((e) => !predicate(e) || (removed.push(e), false));
    for (const e of removed) this.ids.delete(e.id);
    this.cursor = this.hosts.length === 0 ? 0 : this.cursor % this.hosts.length;
    return removed;
  }

  /** Every held entry (for a snapshot; not in any particular order). */
  all(): WindowEntry[] {
    return [...[...this.ready.values()].flat(), ...this.delayed];
  }

  private enqueue(entry: WindowEntry): void {
    let queue = this.ready.get(entry.host);
    if (!queue) {
      queue = [];
      this.ready.set(entry.host, queue);
      this.hosts.push(entry.host);
    }
    queue.push(entry);
  }

  private insertDelayed(entry: WindowEntry): void {
    // Binary search keeps `delayed` sorted by notBefore (then seq): promotion takes from the front.
    let lo = 0;
    let hi = this.delayed.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      const m = this.delayed[mid];
      if (m.notBefore < entry.notBefore || (m.notBefore === entry.notBefore && m.seq < entry.seq)) lo = mid + 1;
      else hi = mid;
    }
    this.delayed.splice(lo, 0, entry);
  }

  private promote(now: number): void {
    let due = 0;
    while (due < this.delayed.length && this.delayed[due].notBefore <= now) due++;
    if (due === 0) return;
    for (const entry of this.delayed.splice(0, due)) this.enqueue(entry);
  }
}
