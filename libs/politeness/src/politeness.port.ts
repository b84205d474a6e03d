/**
 * The politeness port: per-host state shared by every crawl of every crawler replica (Redis in
 * cluster mode, in process in embedded mode), so that what one worker learns about a host (a 429,
 * a robots.txt Crawl-delay) holds for all of them at once. docs/crawl.md explains the rules.
 *
 * A host is a hostname (lower case, no port). Times are milliseconds; the adapters use one clock for
 * every worker (Redis `TIME` in cluster mode), never each worker's own.
 */
export interface HostRequestPolicy {
  /**
   * Spacing this request asks for: the next request to the host may start this long after this
   * one ended (the crawl's delay_ms and the system floor; robots Crawl-delay is added by the port).
   * A spaced request is exclusive: nothing else is in flight to the host while it runs.
   */
  intervalMs: number;
  /** Requests in flight to the host allowed when no spacing applies. */
  maxInFlight: number;
  /** How long a granted slot is held at most: a worker that dies without releasing frees it after this. */
  leaseMs: number;
}

export type Acquisition =
  | { granted: true; token: string }
  | {
      granted: false;
      /** When to ask again (ms from now). */
      retryInMs: number;
      reason: 'paused' | 'interval' | 'busy';
    };

export interface RateLimitPause {
  /** The host is paused for everyone until this time (ms since epoch, the port's clock). */
  pausedUntil: number;
  /** Length of the pause from now. */
  pauseMs: number;
  /** Backoff step of the current rate-limited streak (1 for the first 429; a burst counts once). */
  step: number;
  /** When the host's current rate-limited streak began (ms since epoch). */
  limitedSince: number;
}

export interface HostState {
  pausedUntil: number;
  nextAt: number;
  crawlDelayMs: number;
  inFlight: number;
  step: number;
  limitedSince: number;
  now: number;
}

export interface ReleaseOptions {
  /** The request got a normal answer (not a 429 or a failure): ends a rate-limited streak as reportSuccess does. */
  answered?: boolean;
}

export interface PolitenessSettings {
  /** Backoff of a 429 without Retry-After: base · 2^(step−1), capped. */
  backoffBaseMs: number;
  backoffMaxMs: number;
}

export interface PolitenessPort {
  readonly kind: 'redis' | 'memory';
  /** Starts a request to `host` if the rules allow it now; never waits (a refused caller serves another host). */
  acquire(host: string, policy: HostRequestPolicy): Promise<Acquisition>;
  /**
   * Extends a granted slot's lease to `leaseMs` from now (the holder is alive and still fetching).
   * False when the slot is gone (its lease ran out, or it was released): the holder goes on, but the
   * host may already serve another request.
   */
  renew(host: string, token: string, leaseMs: number): Promise<boolean>;
  /**
   * Ends a request started by acquire: frees its slot and starts the host's spacing clock. With `answered`,
   * the request got a normal answer: the same as reportSuccess after the release, in the same call.
   */
  release(host: string, token: string, options?: ReleaseOptions): Promise<void>;
  /** Without reserving anything: how long until a request with this policy could start (0: now). */
  readyIn(host: string, policy: HostRequestPolicy): Promise<number>;
  /**
   * The host answered 429, or 503 with Retry-After: pause it for every worker. `retryAfterMs` is the
   * server's Retry-After (null when absent; 0 counts as absent). Concurrent reports within one pause
   * are one burst and step the backoff once.
   */
  reportRateLimit(host: string, retryAfterMs: number | null): Promise<RateLimitPause>;
  /** A normal answer: once the current pause has passed, the host's rate-limited streak is over. */
  reportSuccess(host: string): Promise<void>;
  /** robots.txt Crawl-delay of the host (0 clears it); spaces every request to the host. */
  setCrawlDelay(host: string, ms: number): Promise<void>;
  hostState(host: string): Promise<HostState>;
  close(): Promise<void>;
}

export const POLITENESS = Symbol('POLITENESS');

/**
 * A slot held while a request runs: its lease is short and renewed while the holder lives, so the
 * slot of a worker that died mid-request frees within one lease (docs/crawl.md, "Politeness"), not
 * after the longest possible request. Returns the function that stops the renewal (call it before release).
 */
export function keepSlot(port: PolitenessPort, host: string, token: string, leaseMs: number): () => void {
  const timer = setInterval(() => void port.renew(host, token, leaseMs).catch(() => undefined), Math.max(50, Math.floor(leaseMs / 3)));
  timer.unref();
  return () => clearInterval(timer);
}

/** What a busy host (all slots taken) asks a caller to wait before trying again. */
export const BUSY_RETRY_MS = 50;

/**
 * The key a host's politeness is kept under: the lower-cased host name without the port, so every port
 * of one machine shares one budget. Throws on a URL that does not parse (callers hold canonical URLs).
 */
export function hostnameOf(url: string): string {
  return new URL(url).hostname.toLowerCase();
}
