import { AppError, BACKOFFS } from '@app/core';
import { ProxyPool, ProxyPools, type ProxyCounters } from './proxy-pool';
import { parseProxyPools } from './proxy-pools-config';
import { Registry } from 'prom-client';
import { proxyPoolCounters } from './configured-pools';

const POOLS = JSON.stringify({
  rotating: ['http://alice:s3cret@10.0.0.1:3128', 'https://10.0.0.2', 'socks5://bob:hunter22@[fd00::3]:1081'],
  sessions: { proxies: ['http://10.0.1.1:8080', 'http://10.0.1.2:8080'], sticky_seconds: 60 },
});

function counting(): ProxyCounters & { log: string[] } {
  const log: string[] = [];
  return {
    log,
    start: () => {},
    request: (pool, proxy) => log.push(`request ${pool} ${proxy}`),
    failure: (pool, proxy) => log.push(`failure ${pool} ${proxy}`),
    rested: (pool, proxy) => log.push(`rested ${pool} ${proxy}`),
  };
}

describe('parseProxyPools', () => {
  it('reads lists and objects, with credentials, default ports and labels without credentials', () => {
    const pools = parseProxyPools(POOLS);
    expect([...pools.keys()]).toEqual(['rotating', 'sessions']);
    expect(pools.get('rotating')!.proxies).toEqual([
      { protocol: 'http:', host: '10.0.0.1', port: 3128, username: 'alice', password: 's3cret', label: 'http://10.0.0.1:3128' },
      { protocol: 'https:', host: '10.0.0.2', port: 443, label: 'https://10.0.0.2:443' },
      { protocol: 'socks5:', host: 'fd00::3', port: 1081, username: 'bob', password: 'hunter22', label: 'socks5://[fd00::3]:1081' },
    ]);
    expect(pools.get('rotating')!.stickyMs).toBe(0);
    expect(pools.get('sessions')!.stickyMs).toBe(60_000);
  });

  it('is empty when unset or blank', () => {
    expect(parseProxyPools(undefined).size).toBe(0);
    expect(parseProxyPools('  ').size).toBe(0);
  });

  it.each([
    ['not json', 'not valid JSON'],
    ['["http://a:1"]', 'must be a JSON object'],
    ['{"none": ["http://a:1"]}', 'is not allowed'],
    ['{"Bad Name": ["http://a:1"]}', 'is not allowed'],
    ['{"p": []}', 'must be a list of proxy URLs'],
    ['{"p": {"proxies": ["http://a:1"], "sticky": 5}}', 'must be a list of proxy URLs'],
    ['{"p": ["ftp://user:pw-secret@a:21"]}', 'pool p, proxy 1 must be http, https or socks5'],
    ['{"p": ["http://a:1", "http://user:pw-secret@a:1/path"]}', 'pool p, proxy 2 has a path'],
    ['{"p": ["pw-secret"]}', 'pool p, proxy 1 is not a URL'],
  ])('refuses %s, naming the place but never the URL', (raw, message) => {
    let error: Error | undefined;
    try {
      parseProxyPools(raw);
    } catch (e) {
      error = e as Error;
    }
    expect(error?.message).toContain(message);
    expect(error?.message).not.toContain('pw-secret');
  });
});

describe('ProxyPool', () => {
  let now = 1_000_000;
  const clock = () => now;
  beforeEach(() => {
    now = 1_000_000;
  });

  it('rotates per request and counts each request by pool and label', () => {
    const counters = counting();
    const pool = new ProxyPool(parseProxyPools(POOLS).get('rotating')!, counters, clock);
    const picked = [1, 2, 3, 4].map(() => pool.pick('a.example')!.label);
    expect(picked).toEqual(['http://10.0.0.1:3128', 'https://10.0.0.2:443', 'socks5://[fd00::3]:1081', 'http://10.0.0.1:3128']);
    expect(counters.log[0]).toBe('request rotating http://10.0.0.1:3128');
    expect(counters.log.join('\n')).not.toMatch(/s3cret|hunter22|alice/);
  });

  it('rests a failed proxy with doubling backoff and skips it until its rest ends', () => {
    const counters = counting();
    const pool = new ProxyPool(parseProxyPools(POOLS).get('rotating')!, counters, clock);
    const first = pool.pick('a.example')!;
    pool.failed(first);
    expect(counters.log.slice(-2)).toEqual(['failure rotating http://10.0.0.1:3128', 'rested rotating http://10.0.0.1:3128']);
    expect(pool.resting(first)).toBe(true);
    const during = [1, 2, 3, 4].map(() => pool.pick('a.example'));
    expect(during).not.toContain(first);
    now += BACKOFFS.proxyRest.baseMs;
    expect(pool.resting(first)).toBe(false);
    pool.failed(first);
    now += BACKOFFS.proxyRest.baseMs;
    expect(pool.resting(first)).toBe(true);
    now += BACKOFFS.proxyRest.baseMs;
    expect(pool.resting(first)).toBe(false);
    pool.succeeded(first);
    pool.failed(first);
    now += BACKOFFS.proxyRest.baseMs;
    expect(pool.resting(first)).toBe(false);
  });

  it('caps the rest', () => {
    const pool = new ProxyPool(parseProxyPools(POOLS).get('rotating')!, undefined, clock);
    const first = pool.pick('a.example')!;
    for (let i = 0; i < 20; i++) pool.failed(first);
    now += BACKOFFS.proxyRest.maxMs;
    expect(pool.resting(first)).toBe(false);
  });

  it('skips the proxies a request tried, and is out of proxies when it tried them all', () => {
    const pool = new ProxyPool(parseProxyPools(POOLS).get('rotating')!, undefined, clock);
    const tried = new Set([pool.pick('a.example')!]);
    tried.add(pool.pick('a.example', tried)!);
    tried.add(pool.pick('a.example', tried)!);
    expect(tried.size).toBe(3);
    expect(pool.pick('a.example', tried)).toBeUndefined();
  });

  it('when every proxy rests, tries the one whose rest ends first', () => {
    const pool = new ProxyPool(parseProxyPools(POOLS).get('rotating')!, undefined, clock);
    const [a, b, c] = [pool.pick('x')!, pool.pick('x')!, pool.pick('x')!];
    pool.failed(a);
    pool.failed(a);
    pool.failed(c);
    now += 1;
    pool.failed(b);
    expect(pool.pick('x')).toBe(c);
  });

  it('keeps a host on its proxy while sticky, moves it when that proxy fails, and lets it go after the time', () => {
    const pool = new ProxyPool(parseProxyPools(POOLS).get('sessions')!, undefined, clock);
    const held = pool.pick('login.example')!;
    const other = pool.pick('other.example')!;
    expect(other).not.toBe(held);
    expect([1, 2, 3].map(() => pool.pick('login.example'))).toEqual([held, held, held]);
    now += 59_000;
    expect(pool.pick('login.example')).toBe(held);
    pool.failed(held);
    const moved = pool.pick('login.example')!;
    expect(moved).not.toBe(held);
    now += BACKOFFS.proxyRest.baseMs;
    expect(pool.pick('login.example')).toBe(moved);
    now += 60_001;
    const after = [pool.pick('login.example'), pool.pick('login.example')];
    expect(after[0]).toBe(after[1]);
  });
});

describe("ProxyPool with a session's key", () => {
  const EIGHT = JSON.stringify({ many: [1, 2, 3, 4, 5, 6, 7, 8].map((n) => `http://10.0.2.${n}:3128`) });
  let now = 1_000_000;
  const clock = () => now;
  const pool = () => new ProxyPool(parseProxyPools(EIGHT).get('many')!, undefined, clock);
  beforeEach(() => {
    now = 1_000_000;
  });

  it('picks the same proxy for a key in every process, whatever else the pools were asked before; other keys spread', () => {
    const one = pool();
    const two = pool();
    // The second "process" rotated a while for other pages first: rotation does not move a key.
    for (let i = 0; i < 5; i++) two.pick('site.example');
    const keys = Array.from({ length: 24 }, (_, n) => `auth-profile:p${n}:1`);
    const first = keys.map((key) => one.pick('members.example', new Set(), key)!.label);
    expect(keys.map((key) => two.pick('other.example', new Set(), key)!.label)).toEqual(first);
    expect(keys.map((key) => one.pick('members.example', new Set(), key)!.label)).toEqual(first);
    expect(new Set(first).size).toBeGreaterThan(3);
    // Rotation of pages without a key goes on as before.
    const fresh = pool();
    fresh.pick('a', new Set(), keys[0]);
    expect([fresh.pick('a')!.label, fresh.pick('a')!.label]).toEqual(['http://10.0.2.1:3128', 'http://10.0.2.2:3128']);
  });

  it('moves a key to the next of its order while its proxy rests, in step on every process, and back after the rest', () => {
    const one = pool();
    const two = pool();
    const key = 'auth-profile:p1:1';
    const held = one.pick('m', new Set(), key)!;
    one.failed(held);
    two.failed(two.pick('m', new Set(), key)!);
    const moved = one.pick('m', new Set(), key)!;
    expect(moved.label).not.toBe(held.label);
    expect(two.pick('m', new Set(), key)!.label).toBe(moved.label);
    // A proxy the request tried already is skipped the same way.
    expect(one.pick('m', new Set([moved]), key)).not.toBe(moved);
    now += BACKOFFS.proxyRest.baseMs + 1;
    expect(one.pick('m', new Set(), key)).toBe(held);
  });

  it('tells proxies of one gateway apart by their credentials (one username per exit)', () => {
    const gateway = new ProxyPool(
      parseProxyPools(JSON.stringify({ gw: [1, 2, 3, 4, 5, 6].map((n) => `http://exit-${n}:pw@10.0.3.1:8000`) })).get('gw')!,
    );
    const picked = Array.from({ length: 24 }, (_, n) => gateway.pick('m', new Set(), `auth-profile:g${n}:1`)!.username);
    expect(new Set(picked).size).toBeGreaterThan(2);
  });
});

describe('ProxyPools', () => {
  const pools = new ProxyPools(parseProxyPools(POOLS));

  it('knows its pools and none', () => {
    expect(pools.names()).toEqual(['rotating', 'sessions']);
    expect(() => pools.assertKnown('rotating', 'body.proxy')).not.toThrow();
    expect(() => pools.assertKnown('none', 'body.proxy')).not.toThrow();
    expect(pools.get('none')).toBeUndefined();
    expect(pools.get(null)).toBeUndefined();
    expect(pools.get('sessions')?.size).toBe(2);
  });

  it('fails a fetch whose pool is no longer configured instead of fetching without it', () => {
    expect(() => pools.get('removed')).toThrow(expect.objectContaining({ category: 'fetch_error', retryable: false }));
  });

  it('answers an unknown pool with a 422 listing the known ones', () => {
    let error: AppError | undefined;
    try {
      pools.assertKnown('residential', 'body.options.proxy');
    } catch (e) {
      error = e as AppError;
    }
    expect(error?.slug).toBe('validation-error');
    expect(error?.errors).toEqual([
      { location: 'body.options.proxy', message: 'no proxy pool is named "residential"; known pools: rotating, sessions, or none' },
    ]);
  });

  it('says when no pool is configured', () => {
    expect(() => new ProxyPools(new Map()).assertKnown('any', 'body.proxy')).toThrow(
      expect.objectContaining({
        errors: [expect.objectContaining({ message: expect.stringContaining('no pool is configured (GLEANER_PROXY_POOLS); use none') })],
      }),
    );
  });
});

describe('proxy counters', () => {
  it('export every configured proxy at 0 from the start (increase() sees its first request), without credentials', async () => {
    const registry = new Registry();
    const pools = new ProxyPools(parseProxyPools(POOLS), proxyPoolCounters(registry));
    const before = await registry.metrics();
    for (const name of ['gleaner_proxy_requests_total', 'gleaner_proxy_failures_total', 'gleaner_proxy_rested_total']) {
      expect(before).toContain(`${name}{pool="rotating",proxy="http://10.0.0.1:3128"} 0`);
      expect(before).toContain(`${name}{pool="sessions",proxy="http://10.0.1.2:8080"} 0`);
    }
    expect(before).not.toMatch(/alice|s3cret|bob|hunter22/);
    pools.get('rotating')!.pick('a.example', new Set());
    expect(await registry.metrics()).toContain('gleaner_proxy_requests_total{pool="rotating",proxy="http://10.0.0.1:3128"} 1');
  });
});
