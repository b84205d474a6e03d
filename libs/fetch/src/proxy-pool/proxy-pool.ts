import { createHash } from 'node:crypto';
import { BACKOFFS, backoffMs, Errors, type FieldError } from '@app/core';
import { FetchControlUnusable } from '../fetch-control/control-unusable';
import { NO_PROXY, type ProxyEndpoint, type ProxyPoolConfig } from './proxy-pools-config';

/** What a pool counts per proxy, by pool name and the proxy's label (never its credentials). */
export interface ProxyCounters {
  /** A configured proxy's series, at 0 until it counts (so rate() and increase() see its first request). */
  start(pool: string, proxy: string): void;
  request(pool: string, proxy: string): void;
  failure(pool: string, proxy: string): void;
  rested(pool: string, proxy: string): void;
}

const NO_COUNTERS: ProxyCounters = { start: () => {}, request: () => {}, failure: () => {}, rested: () => {} };

interface Health {
  failuresInRow: number;
  restedUntil: number;
}

/** Session keys whose proxy order a pool keeps (a few per auth profile in use; the oldest is dropped first). */
const RANKED_KEYS = 512;

/**
 * One named pool: which proxy a request goes through. Rotation per request (round robin over the proxies not
 * resting), or the same proxy for a host for `stickyMs`, or, for a session's key, the proxy the key picks;
 * a proxy that fails to connect rests with backoff (BACKOFFS.proxyRest) and the caller retries on the next.
 * Health is kept per process, in memory: no store or Redis command per page (docs/proxies.md).
 */
export class ProxyPool {
  readonly name: string;
  readonly size: number;
  private readonly proxies: readonly ProxyEndpoint[];
  private readonly stickyMs: number;
  private readonly health: Health[];
  private readonly sticky = new Map<string, { index: number; until: number }>();
  private readonly ranked = new Map<string, readonly number[]>();
  private next = 0;

  constructor(
    config: ProxyPoolConfig,
    private readonly counters: ProxyCounters = NO_COUNTERS,
    private readonly now: () => number = Date.now,
  ) {
    this.name = config.name;
    this.proxies = config.proxies;
    this.size = config.proxies.length;
    this.stickyMs = config.stickyMs;
    this.health = config.proxies.map(() => ({ failuresInRow: 0, restedUntil: 0 }));
    for (const proxy of config.proxies) counters.start(this.name, proxy.label);
  }

  /**
   * The proxy for a request to `host`, skipping `tried` (those that failed for this request already). When every
   * proxy rests, the one whose rest ends first is tried anyway: a pool is never empty for a request. Returns
   * undefined only when every proxy has been tried.
   *
   * With a session's `key` (an auth profile's session, docs/auth-profiles.md "Sessions"), the proxy is the first
   * healthy one of the key's own order of the pool (rendezvous hashing of the key with each proxy): the
   * same in every process that has the pool, with no shared state, so a session leaves from one proxy on every
   * replica while it lives; a new session (a new key) draws again. A resting proxy gives way to the next of the
   * order, and the session returns to its proxy once that one rests no more.
   */
  pick(host: string, tried: ReadonlySet<ProxyEndpoint> = new Set(), key?: string): ProxyEndpoint | undefined {
    const now = this.now();
    if (key !== undefined) return this.pickFor(key, host, tried, now);
    const held = this.stickyMs > 0 ? this.sticky.get(host) : undefined;
    if (held && held.until > now && this.health[held.index].restedUntil <= now && !tried.has(this.proxies[held.index]))
      return this.chosen(host, held.index, now, false);
    let fallback: number | undefined;
    for (let step = 0; step < this.size; step++) {
      const index = (this.next + step) % this.size;
      if (tried.has(this.proxies[index])) continue;
      if (this.health[index].restedUntil <= now) {
        this.next = (index + 1) % this.size;
        return this.chosen(host, index, now, true);
      }
      if (fallback === undefined || this.health[index].restedUntil < this.health[fallback].restedUntil) fallback = index;
    }
    return fallback === undefined ? undefined : this.chosen(host, fallback, now, true);
  }

  /** The proxy connected (and tunnelled) as asked: it is healthy again. */
  succeeded(proxy: ProxyEndpoint): void {
    const health = this.health[this.proxies.indexOf(proxy)];
    if (health) health.failuresInRow = 0;
  }

  /** The proxy could not be reached or refused the tunnel: it rests, longer for each failure in a row. */
  failed(proxy: ProxyEndpoint): void {
    const index = this.proxies.indexOf(proxy);
    const health = this.health[index];
    if (!health) return;
    health.failuresInRow++;
    const rest = backoffMs(BACKOFFS.proxyRest, health.failuresInRow);
    health.restedUntil = this.now() + rest;
    for (const [host, held] of this.sticky) if (held.index === index) this.sticky.delete(host);
    this.counters.failure(this.name, proxy.label);
    this.counters.rested(this.name, proxy.label);
  }

  /** Whether a proxy is resting now (for tests and the pool's status). */
  resting(proxy: ProxyEndpoint): boolean {
    const health = this.health[this.proxies.indexOf(proxy)];
    return health !== undefined && health.restedUntil > this.now();
  }

  private pickFor(key: string, host: string, tried: ReadonlySet<ProxyEndpoint>, now: number): ProxyEndpoint | undefined {
    let fallback: number | undefined;
    for (const index of this.order(key)) {
      if (tried.has(this.proxies[index])) continue;
      if (this.health[index].restedUntil <= now) return this.chosen(host, index, now, false);
      if (fallback === undefined || this.health[index].restedUntil < this.health[fallback].restedUntil) fallback = index;
    }
    return fallback === undefined ? undefined : this.chosen(host, fallback, now, false);
  }

  /**
   * The key's order of the proxies: by the hash of the key with each proxy (its label and credentials: one gateway
   * with a username per exit is several proxies), highest first. Hashed in memory only, never shown.
   */
  private order(key: string): readonly number[] {
    let order = this.ranked.get(key);
    if (order) return order;
    const scores = this.proxies.map((proxy) =>
      createHash('sha256')
        .update(JSON.stringify([key, proxy.label, proxy.username ?? '', proxy.password ?? '']))
        .digest()
        .readUIntBE(0, 6),
    );
    order = scores.map((_, index) => index).sort((a, b) => scores[b] - scores[a] || a - b);
    if (this.ranked.size >= RANKED_KEYS) this.ranked.delete(this.ranked.keys().next().value!);
    this.ranked.set(key, order);
    return order;
  }

  private chosen(host: string, index: number, now: number, renew: boolean): ProxyEndpoint {
    if (this.stickyMs > 0 && renew) this.sticky.set(host, { index, until: now + this.stickyMs });
    const proxy = this.proxies[index];
    this.counters.request(this.name, proxy.label);
    return proxy;
  }
}

/**
 * The fetch failure (`fetch_error`) of a pool no longer configured. A robots.txt read rethrows it (robots.ts): the
 * crawl's page then fails on it as its own fetch would, instead of waiting out a robots.txt "unreachable".
 */
export class UnconfiguredProxyPool extends FetchControlUnusable {
  constructor(name: string) {
    super('upstream-failure', `The proxy pool ${name} is not configured (GLEANER_PROXY_POOLS).`, {
      category: 'fetch_error',
      retryable: false,
    });
  }
}

/** Every pool of the process, by name (GLEANER_PROXY_POOLS). */
export class ProxyPools {
  private readonly pools = new Map<string, ProxyPool>();

  constructor(configs: ReadonlyMap<string, ProxyPoolConfig>, counters?: ProxyCounters, now?: () => number) {
    for (const [name, config] of configs) this.pools.set(name, new ProxyPool(config, counters, now));
  }

  /** The pool names an operator configured, sorted (what a 422 lists). */
  names(): string[] {
    return [...this.pools.keys()].sort();
  }

  /**
   * Checks a name a request, site, crawl, batch or monitor gives (`proxy`): a configured pool or `none`. An
   * unknown name is a 422 at `location` that lists the known ones.
   */
  assertKnown(name: string, location: string): void {
    const problem = this.problem(name, location);
    if (problem) throw Errors.validation([problem]);
  }

  /** The field error of an unknown pool name (null: known, or none). */
  problem(name: string, location: string): FieldError | null {
    if (name === NO_PROXY || this.pools.has(name)) return null;
    const known = this.names();
    const choices =
      known.length > 0 ? `known pools: ${known.join(', ')}, or none` : 'no pool is configured (GLEANER_PROXY_POOLS); use none';
    return { location, message: `no proxy pool is named ${JSON.stringify(name.slice(0, 64))}; ${choices}` };
  }

  /**
   * The pool a fetch goes through (undefined: none). A name no longer configured (a saved site's pool the operator
   * removed) fails the fetch rather than fetching without the proxy its owner chose.
   */
  get(name: string | null | undefined): ProxyPool | undefined {
    if (!name || name === NO_PROXY) return undefined;
    const pool = this.pools.get(name);
    if (!pool) throw new UnconfiguredProxyPool(name);
    return pool;
  }
}
