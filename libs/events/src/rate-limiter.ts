import { Redis } from 'ioredis';
import { redisDownProbe, withinRedisOutageWait } from '@app/core';
import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible';
import type { RateLimitDecision, RateLimiterPort } from './event-bus.port';

/**
 * rate-limiter-flexible counts in whole seconds (`duration`), and RateLimiterRedis sets no expiry for
 * a duration under 1 s, so windows are rounded up to whole seconds.
 */
function windowSeconds(windowMs: number): number {
  return Math.max(1, Math.ceil(windowMs / 1000));
}

/** Shared logic: one limiter per (limit, window) pair, and a rejection is a decision, not an error. */
abstract class FlexibleRateLimiter implements RateLimiterPort {
  private readonly limiters = new Map<string, RateLimiterAbstract>();

  protected abstract create(points: number, durationSec: number, keyPrefix: string): RateLimiterAbstract;
  protected abstract readonly keyPrefix: string;

  async consume(key: string, limit: number, windowMs: number): Promise<RateLimitDecision> {
    if (!Number.isInteger(limit) || limit < 1) throw new Error('limit must be a positive integer');
    const seconds = windowSeconds(windowMs);
    const id = `${limit}:${seconds}`;
    let limiter = this.limiters.get(id);
    if (!limiter) {
      // The pair is part of the key so counters of different policies never mix.
      limiter = this.create(limit, seconds, `${this.keyPrefix}:${id}`);
      this.limiters.set(id, limiter);
    }
    try {
      return decision(limit, await limiter.consume(key, 1), true);
    } catch (rejection) {
      if (rejection instanceof RateLimiterRes) return decision(limit, rejection, false);
      throw rejection; // a store error, not a rejection
    }
  }

  abstract close(): Promise<void>;
}

function decision(limit: number, res: RateLimiterRes, allowed: boolean): RateLimitDecision {
  return {
    allowed,
    limit,
    remaining: allowed ? Math.max(0, res.remainingPoints) : 0,
    resetMs: Math.max(0, Math.ceil(res.msBeforeNext)),
  };
}

export interface RedisRateLimiterOptions {
  /** Either a URL (the limiter owns the connection) or an existing client (the caller owns it). */
  redisUrl?: string;
  client?: Redis;
  /** Default 'gleaner:rl'. */
  keyPrefix?: string;
}

/**
 * Cluster mode: counters in Redis, shared by every replica: each request is one atomic script call
 * (increment and expiry together), so the limit holds exactly across replicas. The limiter's own
 * connection pipelines automatically: the calls of requests that arrive together leave in one write
 * (docs/architecture.md "The per-key rate limit in a cluster").
 */
export class RedisRateLimiter extends FlexibleRateLimiter {
  protected readonly keyPrefix: string;
  private readonly client: Redis;
  private readonly ownsClient: boolean;
  private readonly redisDown: () => boolean;

  constructor(options: RedisRateLimiterOptions) {
    super();
    if (!options.client && !options.redisUrl) throw new Error('RedisRateLimiter needs redisUrl or client');
    this.keyPrefix = options.keyPrefix ?? 'gleaner:rl';
    this.ownsClient = !options.client;
    this.client = options.client ?? new Redis(options.redisUrl!, { enableAutoPipelining: true });
    if (this.ownsClient) this.client.on('error', () => undefined); // surfaced by the failing consume()
    this.redisDown = redisDownProbe(this.client);
  }

  protected create(points: number, duration: number, keyPrefix: string): RateLimiterAbstract {
    return new RateLimiterRedis({ storeClient: this.client, points, duration, keyPrefix });
  }

  /** Every authenticated request passes here: while Redis is down it answers 503 within the store's wait, not after ioredis gives up. */
  override consume(key: string, limit: number, windowMs: number): Promise<RateLimitDecision> {
    return withinRedisOutageWait(super.consume(key, limit, windowMs), this.redisDown);
  }

  async close(): Promise<void> {
    if (!this.ownsClient || this.client.status === 'end') return;
    try {
      await this.client.quit();
    } catch {
      this.client.disconnect();
    }
  }
}

/** Embedded mode: counters in this process. */
export class MemoryRateLimiter extends FlexibleRateLimiter {
  protected readonly keyPrefix: string;

  constructor(options: { keyPrefix?: string } = {}) {
    super();
    this.keyPrefix = options.keyPrefix ?? 'gleaner:rl';
  }

  protected create(points: number, duration: number, keyPrefix: string): RateLimiterAbstract {
    return new RateLimiterMemory({ points, duration, keyPrefix });
  }

  async close(): Promise<void> {}
}
