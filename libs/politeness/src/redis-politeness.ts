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
  type ReleaseOptions,
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
/**
 * A host's expiry is pushed back to TTL_MS when it was last pushed back longer ago than this, not on every
 * call: state lives between TTL_MS − TOUCH_EVERY_MS and TTL_MS after its last use, for one PEXPIRE an hour.
 */
const TOUCH_EVERY_MS = 60 * 60 * 1000;

// One hash per host (KEYS[1]) holds all of its state: paused_until, next_at, crawl_delay, step, decays_at,
// limited_since, touched (when its expiry was last set) and one field per granted slot, `t:<token>` =
// "<lease expiry>:<spacing ms>" (a slot whose lease expiry is not after now is gone). Every script reads the
// clock from Redis (TIME), so all replicas share one clock, at most once and only when its rule needs it.
// ARGV[1] is always the TTL; the script's own arguments follow.
const PRELUDE = `
local ttl = tonumber(ARGV[1])
local now = nil
local function clock()
  if not now then
    local t = redis.call('TIME')
    now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
  end
  return now
end
local function n(v) return tonumber(v or '0') or 0 end
-- the whole hash as a table
local function load()
  local flat = redis.call('HGETALL', KEYS[1])
  local h = {}
  for i = 1, #flat, 2 do h[flat[i]] = flat[i + 1] end
  return h
end
local function slot(v)
  local expires, spacing = string.match(v, '^(%-?%d+):(%-?%d+)$')
  return tonumber(expires), tonumber(spacing)
end
-- the spacings of the live slots, and the fields of the expired ones (deleted when the script writes)
local function slots(h)
  local live, dead = {}, {}
  for k, v in pairs(h) do
    if string.sub(k, 1, 2) == 't:' then
      local expires, spacing = slot(v)
      if expires <= now then dead[#dead + 1] = k else live[#live + 1] = spacing end
    end
  end
  return live, dead
end
local function drop(dead) if #dead > 0 then redis.call('HDEL', KEYS[1], unpack(dead)) end end
-- pushes the expiry back when it was last set long ago, or when a pause needs longer (fields: the HSET's own)
local function touch(fields, touched, paused, force)
  local keep = math.max(ttl, paused - now + 60000)
  if force or now - touched >= ${TOUCH_EVERY_MS} then
    fields[#fields + 1] = 'touched'
    fields[#fields + 1] = now
    return keep
  end
  return nil
end
local function write(fields, expiry)
  if #fields > 0 then redis.call('HSET', KEYS[1], unpack(fields)) end
  if expiry then redis.call('PEXPIRE', KEYS[1], expiry) end
end
-- returns wait ms (0 = may start) and a reason; h: the loaded hash, live: its live slots
local function check(h, live, interval, max_in_flight)
  local paused = n(h.paused_until)
  if now < paused then return paused - now, 'paused' end
  local nxt = n(h.next_at)
  if now < nxt then return nxt - now, 'interval' end
  local spacing = math.max(interval, n(h.crawl_delay))
  if #live > 0 then
    if spacing > 0 then return ${BUSY_RETRY_MS}, 'busy' end
    for _, s in ipairs(live) do
      if s > 0 then return ${BUSY_RETRY_MS}, 'busy' end
    end
    if #live >= math.max(1, max_in_flight) then return ${BUSY_RETRY_MS}, 'busy' end
  end
  return 0, 'ok'
end
`;

// ARGV: ttl, interval, max_in_flight, lease_ms, token
const ACQUIRE = `${PRELUDE}
clock()
local h = load()
local live, dead = slots(h)
local interval = tonumber(ARGV[2])
local wait, reason = check(h, live, interval, tonumber(ARGV[3]))
if wait > 0 then return {0, wait, reason} end
drop(dead)
local fields = {'t:' .. ARGV[5], (now + tonumber(ARGV[4])) .. ':' .. math.max(interval, n(h.crawl_delay))}
write(fields, touch(fields, n(h.touched), n(h.paused_until), false))
return {1, 0, 'ok'}
`;

// ARGV: ttl, interval, max_in_flight
const READY_IN = `${PRELUDE}
clock()
local h = load()
local live = slots(h)
local wait = check(h, live, tonumber(ARGV[2]), tonumber(ARGV[3]))
return wait
`;

// ARGV: ttl, token, lease_ms
const RENEW = `${PRELUDE}
local field = 't:' .. ARGV[2]
local v = redis.call('HMGET', KEYS[1], field, 'touched', 'paused_until')
if not v[1] then return 0 end
clock()
local expires, spacing = slot(v[1])
if expires <= now then
  redis.call('HDEL', KEYS[1], field)
  return 0
end
local fields = {field, (now + tonumber(ARGV[3])) .. ':' .. spacing}
write(fields, touch(fields, n(v[2]), n(v[3]), false))
return 1
`;

// ARGV: ttl, token, answered (1: the request got a normal answer, which ends a rate-limited streak as reportSuccess does)
const RELEASE = `${PRELUDE}
local field = 't:' .. ARGV[2]
local v = redis.call('HMGET', KEYS[1], field, 'next_at', 'step', 'limited_since', 'decays_at')
local fields = {}
if v[1] then
  redis.call('HDEL', KEYS[1], field)
  local _, spacing = slot(v[1])
  if spacing > 0 then
    local nxt = clock() + spacing
    if nxt > n(v[2]) then fields[#fields + 1] = 'next_at' fields[#fields + 1] = nxt end
  end
end
if ARGV[3] == '1' and (n(v[3]) > 0 or n(v[4]) > 0) and clock() >= n(v[5]) then
  fields[#fields + 1] = 'step' fields[#fields + 1] = 0
  fields[#fields + 1] = 'limited_since' fields[#fields + 1] = 0
end
write(fields, nil)
return 1
`;

// ARGV: ttl, retry_after_ms (-1 when absent), base_ms, max_ms
const RATE_LIMITED = `${PRELUDE}
clock()
local v = redis.call('HMGET', KEYS[1], 'step', 'paused_until', 'decays_at', 'limited_since')
local given = tonumber(ARGV[2])
local step, paused, decays, since = n(v[1]), n(v[2]), n(v[3]), n(v[4])
if now >= decays then
  step = step + 1
  local delay = given
  if delay <= 0 then delay = math.min(tonumber(ARGV[3]) * (2 ^ (step - 1)), tonumber(ARGV[4])) end
  paused = math.max(paused, now + delay)
  decays = paused
  if since == 0 then since = now end
elseif given > 0 then
  paused = math.max(paused, now + given)
  decays = math.max(decays, paused)
end
local fields = {'step', step, 'paused_until', paused, 'decays_at', decays, 'limited_since', since}
write(fields, touch(fields, 0, paused, true))
return {paused, math.max(0, paused - now), step, since}
`;

const SUCCESS = `${PRELUDE}
local v = redis.call('HMGET', KEYS[1], 'step', 'limited_since', 'decays_at')
if (n(v[1]) > 0 or n(v[2]) > 0) and clock() >= n(v[3]) then
  redis.call('HSET', KEYS[1], 'step', 0, 'limited_since', 0)
end
return 1
`;

// ARGV: ttl, crawl_delay_ms
const CRAWL_DELAY = `${PRELUDE}
clock()
local v = redis.call('HMGET', KEYS[1], 'paused_until')
local fields = {'crawl_delay', tonumber(ARGV[2])}
write(fields, touch(fields, 0, n(v[1]), true))
return 1
`;

const STATE = `${PRELUDE}
clock()
local h = load()
local live, dead = slots(h)
drop(dead)
return {n(h.paused_until), n(h.next_at), n(h.crawl_delay), #live, n(h.step), n(h.limited_since), now}
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
    for (const [name, lua] of Object.entries(SCRIPTS)) client.defineCommand(`gleanerPoliteness_${name}`, { numberOfKeys: 1, lua });
    this.client = client as ScriptClient;
    this.prefix = options.keyPrefix ?? 'gleaner:pol';
  }

  async acquire(host: string, policy: HostRequestPolicy): Promise<Acquisition> {
    const token = randomUUID();
    const [granted, wait, reason] = (await this.run('acquire', host, policy.intervalMs, policy.maxInFlight, policy.leaseMs, token)) as [
      number,
      number,
      string,
    ];
    if (granted === 1) return { granted: true, token };
    return { granted: false, retryInMs: Number(wait), reason: reason as 'paused' | 'interval' | 'busy' };
  }

  async renew(host: string, token: string, leaseMs: number): Promise<boolean> {
    return Number(await this.run('renew', host, token, Math.max(1, Math.floor(leaseMs)))) === 1;
  }

  async release(host: string, token: string, options: ReleaseOptions = {}): Promise<void> {
    await this.run('release', host, token, options.answered ? 1 : 0);
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
    )) as number[];
    return { pausedUntil: Number(pausedUntil), pauseMs: Number(pauseMs), step: Number(step), limitedSince: Number(limitedSince) };
  }

  async reportSuccess(host: string): Promise<void> {
    await this.run('success', host);
  }

  async setCrawlDelay(host: string, ms: number): Promise<void> {
    await this.run('crawlDelay', host, Math.max(0, Math.floor(ms)));
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
    return this.client[`gleanerPoliteness_${script}`](this.keyOf(host), TTL_MS, ...args);
  }

  /** The one key of a host's state (a hash). */
  keyOf(host: string): string {
    return `${this.prefix}:{${host.toLowerCase()}}`;
  }
}
