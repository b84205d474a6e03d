/** What the owner knows of one host of its crawl (the politeness port holds what every replica shares). */
export interface HostState {
  /** Pages of this crawl in flight to the host. */
  inFlight: number;
  /** No page starts before this time (ms since epoch): the host's 429 pause as a page worker reported it. */
  pausedUntil: number;
  /** The host's robots.txt Crawl-delay (ms), once read; 0 when none. */
  spacingMs: number;
  /** Why the host is not crawled at all (a Crawl-delay over the maximum), or null. */
  tooSlow: string | null;
}

export interface HostRules {
  /** The crawl's `delay_ms`. */
  delayMs: number;
  /** GLEANER_HOST_MIN_INTERVAL_MS. */
  minIntervalMs: number;
  /** GLEANER_HOST_MAX_CONCURRENCY. */
  maxConcurrency: number;
}

/**
 * One record per host of the crawl, and the rules on it: whether a page of a host may start now (not
 * paused, under the host's cap), the cap (one at a time when requests to the host are spaced: a spaced
 * request is exclusive), and when the next paused host resumes (docs/crawl.md "Politeness"). Pure: no
 * I/O and no clock of its own (the caller passes `now`). The page workers enforce the same rules across
 * replicas through the politeness port; this keeps the owner from admitting pages that would only wait.
 */
export class HostSchedule {
  private readonly hosts = new Map<string, HostState>();

  constructor(private readonly rules: HostRules) {}

  canStart(host: string, now: number): boolean {
    const state = this.hosts.get(host);
    if (!state) return true;
    return state.pausedUntil <= now && state.inFlight < this.cap(host);
  }

  /** Pages of the crawl allowed in flight to the host at once. */
  cap(host: string): number {
    const spaced = this.rules.delayMs > 0 || this.rules.minIntervalMs > 0 || (this.hosts.get(host)?.spacingMs ?? 0) > 0;
    return spaced ? 1 : this.rules.maxConcurrency;
  }

  started(host: string): void {
    this.state(host).inFlight++;
  }

  ended(host: string): void {
    const state = this.hosts.get(host);
    if (!state) return;
    state.inFlight = Math.max(0, state.inFlight - 1);
    this.forgetIfPlain(host, state);
  }

  /** The host answered 429 (or 503 with Retry-After): nothing starts there before `until`. */
  pause(host: string, until: number): void {
    const state = this.state(host);
    state.pausedUntil = Math.max(state.pausedUntil, until);
  }

  /** robots.txt asks for this Crawl-delay (ms). */
  space(host: string, ms: number): void {
    this.state(host).spacingMs = ms;
  }

  markTooSlow(host: string, why: string): void {
    this.state(host).tooSlow = why;
  }

  tooSlow(host: string): string | null {
    return this.hosts.get(host)?.tooSlow ?? null;
  }

  inFlight(host: string): number {
    return this.hosts.get(host)?.inFlight ?? 0;
  }

  /** The earliest time a paused host resumes, after `now`; null when none is paused. */
  nextResumeAt(now: number): number | null {
    let at: number | null = null;
    for (const state of this.hosts.values()) {
      if (state.pausedUntil > now && (at === null || state.pausedUntil < at)) at = state.pausedUntil;
    }
    return at;
  }

  private state(host: string): HostState {
    let state = this.hosts.get(host);
    if (!state) {
      state = { inFlight: 0, pausedUntil: 0, spacingMs: 0, tooSlow: null };
      this.hosts.set(host, state);
    }
    return state;
  }

  /** A host with nothing in flight and nothing to remember needs no record (a crawl of 100,000 hosts). */
  private forgetIfPlain(host: string, state: HostState): void {
    if (state.inFlight === 0 && state.pausedUntil === 0 && state.spacingMs === 0 && state.tooSlow === null) {
      this.hosts.delete(host);
    }
  }
}
