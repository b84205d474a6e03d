import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import {
  BUSY_RETRY_MS,
  type Acquisition,
  type HostRequestPolicy,
  type HostState,
  type PolitenessPort,
  type PolitenessSettings,
  type RateLimitPause,
} from './politeness.port';

export interface RedisPolitenessOptions {
  /** Either a URL (the adapter owns the connection) or an existing client (the caller owns it). */
  redisUrl?: string;
  client?: Redis;
  keyPrefix?: string;
  settings: PolitenessSettings;
}

/** Host state lives this long after its last use (and at least as long as any pause). */
const TTL_MS = 24 * 60 * 60 * 1000;

// Every script reads the clock from Redis (TIME), so all replicas share one clock. Keys per host:
// KEYS[1] hash {paused_until, next_at, crawl_delay, step, decays_at, limited_since},
// KEYS[2] zset of in-flight tokens scored by lease expiry, KEYS[3] hash token → spacing (ms).
const PRELUDE = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local function num(field) return tonumber(redis.call('HGET', KEYS[1], field) or '0') or 0 end
local function prune()
  local expired = redis.call('ZRANGEBYSCORE', KEYS[2], '-inf', now)
  for _, token in ipairs(expired) do redis.call('HDEL', KEYS[3], token) end
  redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', now)
end
local function touch(ttl)
  redis.call('PEXPIRE', KEYS[1], ttl) redis.call('PEXPIRE', KEYS[2], ttl) redis.call('PEXPIRE', KEYS[3], ttl)
end
-- returns wait ms (0 = may start) and a reason
local function check(interval, max_in_flight)
  prune()
  local paused = num('paused_until')
  if now < paused then return paused - now, 'paused' end
  local nxt = num('next_at')
  if now < nxt then return nxt - now, 'interval' end
  local spacing = math.max(interval, num('crawl_delay'))
  local in_flight = redis.call('ZCARD', KEYS[2])
  if in_flight > 0 then
    if spacing > 0 then return ${BUSY_RETRY_MS}, 'busy' end
    for _, v in ipairs(redis.call('HVALS', KEYS[3])) do
      if tonumber(v) > 0 then return ${BUSY_RETRY_MS}, 'busy' end
    end
    if in_flight >= math.max(1, max_in_flight) then return ${BUSY_RETRY_MS}, 'busy' end
  end
  return 0, 'ok'
end
`;

// ARGV: interval, max_in_flight, lease_ms, token, ttl
const ACQUIRE = `${PRELUDE}
local interval = tonumber(ARGV[1])
local wait, reason = check(interval, tonumber(ARGV[2]))
if wait > 0 then return {0, wait, reason} end
local spacing = math.max(interval, num('crawl_delay'))
redis.call('ZADD', KEYS[2], now + tonumber(ARGV[3]), ARGV[4])
redis.call('HSET', KEYS[3], ARGV[4], spacing)
touch(tonumber(ARGV[5]))
return {1, 0, 'ok'}
`;

// ARGV: interval, max_in_flight
const READY_IN = `${PRELUDE}
local wait, reason = check(tonumber(ARGV[1]), tonumber(ARGV[2]))
return wait
`;

// ARGV: token, lease_ms, ttl
const RENEW = `${PRELUDE}
prune()
if not redis.call('ZSCORE', KEYS[2], ARGV[1]) then return 0 end
redis.call('ZADD', KEYS[2], 'XX', now + tonumber(ARGV[2]), ARGV[1])
touch(tonumber(ARGV[3]))
return 1
`;

// ARGV: token, ttl
const RELEASE = `${PRELUDE}
local spacing = redis.call('HGET', KEYS[3], ARGV[1])
redis.call('ZREM', KEYS[2], ARGV[1])
redis.call('HDEL', KEYS[3], ARGV[1])
if spacing then
  local nxt = now + tonumber(spacing)
  if nxt > num('next_at') then redis.call('HSET', KEYS[1], 'next_at', nxt) end
end
touch(tonumber(ARGV[2]))
return 1
`;

// ARGV: retry_after_ms (-1 when absent), base_ms, max_ms, ttl
const RATE_LIMITED = `${PRELUDE}
local given = tonumber(ARGV[1])
local step = num('step')
local paused = num('paused_until')
local decays = num('decays_at')
local since = num('limited_since')
if now >= decays then
  step = step + 1
  local delay = given
  if delay <= 0 then delay = math.min(tonumber(ARGV[2]) * (2 ^ (step - 1)), tonumber(ARGV[3])) end
  paused = math.max(paused, now + delay)
  decays = paused
  if since == 0 then since = now end
elseif given > 0 then
  paused = math.max(paused, now + given)
  decays = math.max(decays, paused)
end
redis.call('HSET', KEYS[1], 'step', step, 'paused_until', paused, 'decays_at', decays, 'limited_since', since)
touch(math.max(tonumber(ARGV[4]), paused - now + 60000))
return {paused, math.max(0, paused - now), step, since}
`;

const SUCCESS = `${PRELUDE}
if now >= num('decays_at') and (num('step') > 0 or num('limited_since') > 0) then
  redis.call('HSET', KEYS[1], 'step', 0, 'limited_since', 0)
end
return 1
`;

// ARGV: crawl_delay_ms, ttl
const CRAWL_DELAY = `${PRELUDE}
redis.call('HSET', KEYS[1], 'crawl_delay', tonumber(ARGV[1]))
touch(tonumber(ARGV[2]))
return 1
`;

const STATE = `${PRELUDE}
prune()
return {num('paused_until'), num('next_at'), num('crawl_delay'), redis.call('ZCARD', KEYS[2]), num('step'), num('limited_since'), now}
`;

type Script = 'acquire' | 'readyIn' | 'renew' | 'release' | 'rateLimited' | 'success' | 'crawlDelay' | 'state';
const SCRIPTS: Record<Script, string> = {
  acquire: ACQUIRE,
  readyIn: READY_IN,
  renew: RENEW,
  release: RELEASE,
  rateLimited: RATE_LIMITED,
  success: SUCCESS,
  crawlDelay: CRAWL_DELAY,
  state: STATE,
};

type ScriptClient = Redis & Record<`gleanerPoliteness_${Script}`, (...args: Array<string | number>) => Promise<unknown>>;

/**
 * Cluster mode: host state in Redis, changed only by Lua scripts (atomic, one clock), so every
 * crawler replica sees a pause or a spacing at once. A Redis restart loses the state: hosts then
 * start over (robots.txt is read again by each crawl, so Crawl-delay comes back).
 */
export class RedisPoliteness implements PolitenessPort {
  readonly kind = 'redis' as const;
  private readonly client: ScriptClient;
  private readonly ownsClient: boolean;
  private readonly prefix: string;

  constructor(private readonly options: RedisPolitenessOptions) {
    if (!options.client && !options.redisUrl) throw new Error('RedisPoliteness needs redisUrl or client');
    this.ownsClient = !options.client;
    const client = options.client ?? new Redis(options.redisUrl!);
    if (this.ownsClient) client.on('error', () => undefined); // surfaced by the failing call
    for (const [name, lua] of Object.entries(SCRIPTS)) client.defineCommand(`gleanerPoliteness_${name}`, { numberOfKeys: 3, lua });
    this.client = client as ScriptClient;
    this.prefix = options.keyPrefix ?? 'gleaner:pol';
  }

  async acquire(host: string, policy: HostRequestPolicy): Promise<Acquisition> {
    const token = randomUUID();
    const [granted, wait, reason] = (await this.run(
      'acquire',
      host,
      policy.intervalMs,
      policy.maxInFlight,
      policy.leaseMs,
      token,
      TTL_MS,
    )) as [number, number, string];
    if (granted === 1) return { granted: true, token };
    return { granted: false, retryInMs: Number(wait), reason: reason as 'paused' | 'interval' | 'busy' };
  }

  async renew(host: string, token: string, leaseMs: number): Promise<boolean> {
    return Number(await this.run('renew', host, token, Math.max(1, Math.floor(leaseMs)), TTL_MS)) === 1;
  }

  async release(host: string, token: string): Promise<void> {
    await this.run('release', host, token, TTL_MS);
  }

  async readyIn(host: string, policy: HostRequestPolicy): Promise<number> {
    return Number(await this.run('readyIn', host, policy.intervalMs, policy.maxInFlight));
  }

  async reportRateLimit(host: string, retryAfterMs: number | null): Promise<RateLimitPause> {
    const { backoffBaseMs, backoffMaxMs } = this.options.settings;
    const [pausedUntil, pauseMs, step, limitedSince] = (await this.run(
      'rateLimited',
      host,
      retryAfterMs !== null && retryAfterMs > 0 ? Math.round(retryAfterMs) : -1,
      backoffBaseMs,
      backoffMaxMs,
      TTL_MS,
    )) as number[];
    return { pausedUntil: Number(pausedUntil), pauseMs: Number(pauseMs), step: Number(step), limitedSince: Number(limitedSince) };
  }

  async reportSuccess(host: string): Promise<void> {
    await this.run('success', host);
  }

  async setCrawlDelay(host: string, ms: number): Promise<void> {
    await this.run('crawlDelay', host, Math.max(0, Math.floor(ms)), TTL_MS);
  }

  async hostState(host: string): Promise<HostState> {
    const [pausedUntil, nextAt, crawlDelayMs, inFlight, step, limitedSince, now] = ((await this.run('state', host)) as number[]).map(
      Number,
    );
    return { pausedUntil, nextAt, crawlDelayMs, inFlight, step, limitedSince, now };
  }

  async close(): Promise<void> {
    if (!this.ownsClient || this.client.status === 'end') return;
    try {
      await Promise.race([this.client.quit(), new Promise((r) => setTimeout(r, 500).unref())]);
    } catch {
      // already closed
    }
    this.client.disconnect();
  }

  private run(script: Script, host: string, ...args: Array<string | number>): Promise<unknown> {
    const key = `${this.prefix}:{${host.toLowerCase()}}`;
    return this.client[`gleanerPoliteness_${script}`](key, `${key}:tokens`, `${key}:spacing`, ...args);
  }
}
