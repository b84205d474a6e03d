import { randomUUID } from 'node:crypto';
import {
  BUSY_RETRY_MS,
  type Acquisition,
  type HostRequestPolicy,
  type HostState,
  type PolitenessPort,
  type PolitenessSettings,
  type RateLimitPause,
  type ReleaseOptions,
} from './politeness.port';

interface Host {
  pausedUntil: number;
  nextAt: number;
  crawlDelayMs: number;
  step: number;
  decaysAt: number;
  limitedSince: number;
  touched: number;
  /** token → {expires, intervalMs} */
  tokens: Map<string, { expires: number; intervalMs: number }>;
}

/** Embedded mode: the same rules as the Redis adapter, in this process. */
/** Hosts untouched this long with nothing pending are forgotten (like the Redis keys' expiry). */
const IDLE_FORGET_MS = 6 * 60 * 60 * 1000;

export class MemoryPoliteness implements PolitenessPort {
  readonly kind = 'memory' as const;
  private readonly hosts = new Map<string, Host>();
  private operations = 0;

  constructor(
    private readonly settings: PolitenessSettings,
    private readonly now: () => number = Date.now,
  ) {}

  acquire(host: string, policy: HostRequestPolicy): Promise<Acquisition> {
    const h = this.host(host);
    const now = this.now();
    const wait = this.wait(h, policy, now);
    if (wait) return Promise.resolve({ granted: false, ...wait });
    const token = randomUUID();
    h.tokens.set(token, { expires: now + policy.leaseMs, intervalMs: this.spacing(h, policy) });
    return Promise.resolve({ granted: true, token });
  }

  renew(host: string, token: string, leaseMs: number): Promise<boolean> {
    const h = this.host(host);
    const now = this.now();
    this.prune(h, now);
    const held = h.tokens.get(token);
    if (held) held.expires = now + leaseMs;
    return Promise.resolve(held !== undefined);
  }

  release(host: string, token: string, options: ReleaseOptions = {}): Promise<void> {
    const h = this.host(host);
    const held = h.tokens.get(token);
    if (held) {
      h.tokens.delete(token);
      h.nextAt = Math.max(h.nextAt, this.now() + held.intervalMs);
    }
    return options.answered ? this.reportSuccess(host) : Promise.resolve();
  }

  readyIn(host: string, policy: HostRequestPolicy): Promise<number> {
    const h = this.host(host);
    return Promise.resolve(this.wait(h, policy, this.now())?.retryInMs ?? 0);
  }

  reportRateLimit(host: string, retryAfterMs: number | null): Promise<RateLimitPause> {
    const h = this.host(host);
    const now = this.now();
    const given = retryAfterMs !== null && retryAfterMs > 0 ? retryAfterMs : null;
    if (now >= h.decaysAt) {
      // A new burst: step the backoff once for all the 429s that arrive within this pause.
      h.step += 1;
      const delay = given ?? Math.min(this.settings.backoffBaseMs * 2 ** (h.step - 1), this.settings.backoffMaxMs);
      h.pausedUntil = Math.max(h.pausedUntil, now + delay);
      h.decaysAt = h.pausedUntil;
      if (h.limitedSince === 0) h.limitedSince = now;
    } else if (given !== null) {
      h.pausedUntil = Math.max(h.pausedUntil, now + given);
      h.decaysAt = Math.max(h.decaysAt, h.pausedUntil);
    }
    return Promise.resolve({
      pausedUntil: h.pausedUntil,
      pauseMs: Math.max(0, h.pausedUntil - now),
      step: h.step,
      limitedSince: h.limitedSince,
    });
  }

  reportSuccess(host: string): Promise<void> {
    const h = this.host(host);
    if (this.now() >= h.decaysAt) {
      h.step = 0;
      h.limitedSince = 0;
    }
    return Promise.resolve();
  }

  setCrawlDelay(host: string, ms: number): Promise<void> {
    this.host(host).crawlDelayMs = Math.max(0, Math.floor(ms));
    return Promise.resolve();
  }

  hostState(host: string): Promise<HostState> {
    const h = this.host(host);
    const now = this.now();
    this.prune(h, now);
    return Promise.resolve({
      pausedUntil: h.pausedUntil,
      nextAt: h.nextAt,
      crawlDelayMs: h.crawlDelayMs,
      inFlight: h.tokens.size,
      step: h.step,
      limitedSince: h.limitedSince,
      now,
    });
  }

  close(): Promise<void> {
    this.hosts.clear();
    return Promise.resolve();
  }

  private spacing(h: Host, policy: HostRequestPolicy): number {
    return Math.max(policy.intervalMs, h.crawlDelayMs);
  }

  private wait(h: Host, policy: HostRequestPolicy, now: number): { retryInMs: number; reason: 'paused' | 'interval' | 'busy' } | null {
    this.prune(h, now);
    if (now < h.pausedUntil) return { retryInMs: h.pausedUntil - now, reason: 'paused' };
    if (now < h.nextAt) return { retryInMs: h.nextAt - now, reason: 'interval' };
    const exclusive = this.spacing(h, policy) > 0;
    const spacedInFlight = [...h.tokens.values()].some((t) => t.intervalMs > 0);
    if (h.tokens.size > 0 && (exclusive || spacedInFlight)) return { retryInMs: BUSY_RETRY_MS, reason: 'busy' };
    if (h.tokens.size >= Math.max(1, policy.maxInFlight)) return { retryInMs: BUSY_RETRY_MS, reason: 'busy' };
    return null;
  }

  private prune(h: Host, now: number): void {
    for (const [token, held] of h.tokens) if (held.expires <= now) h.tokens.delete(token);
  }

  private host(name: string): Host {
    const key = name.toLowerCase();
    const now = this.now();
    if (++this.operations % 10_000 === 0) this.forgetIdle(now);
    let h = this.hosts.get(key);
    if (!h) {
      h = { pausedUntil: 0, nextAt: 0, crawlDelayMs: 0, step: 0, decaysAt: 0, limitedSince: 0, touched: now, tokens: new Map() };
      this.hosts.set(key, h);
    }
    h.touched = now;
    return h;
  }

  /** Bounded memory over 100,000s of hosts: a host with nothing pending is forgotten after a long idle time. */
  private forgetIdle(now: number): void {
    for (const [key, h] of this.hosts) {
      if (now - h.touched < IDLE_FORGET_MS) continue;
      this.prune(h, now);
      if (h.tokens.size === 0 && h.pausedUntil <= now && h.nextAt <= now) this.hosts.delete(key);
    }
  }
}
