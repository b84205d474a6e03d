import { Redis } from 'ioredis';
import { MemoryPoliteness, RedisPoliteness } from '@app/politeness';
import { describeWith, serverUrl } from '../harness/require-server';
import { politenessContract } from './politeness.contract';

const backoff = { baseMs: 200, maxMs: 600 };
const settings = { backoffBaseMs: backoff.baseMs, backoffMaxMs: backoff.maxMs };
/**
 * Redis' clock cannot be moved: a burst must reach it within one pause in real time, so its pauses are
 * long enough for a busy machine (a 200 ms pause once ended between two calls of one burst at a load of 23).
 */
const redisBackoff = { baseMs: 1500, maxMs: 4000 };
const redisSettings = { backoffBaseMs: redisBackoff.baseMs, backoffMaxMs: redisBackoff.maxMs };

describe('PolitenessContract: MemoryPoliteness', () => {
  // The in-process adapter takes its clock as a parameter: the test moves it instead of waiting.
  let offset = 0;
  const clock = () => Date.now() + offset;
  politenessContract(() => ({
    create: async () => {
      offset = 0;
      return new MemoryPoliteness(settings, clock);
    },
    // Embedded mode has one process: every caller shares the one adapter.
    peer: async (of) => of,
    passTime: async (ms) => {
      offset += ms;
    },
    backoff,
  }));
});

describeWith(['redis'], 'PolitenessContract: RedisPoliteness', () => {
  const keyPrefix = `gleaner-test-pol-${process.pid}-${Date.now().toString(36)}`;
  politenessContract(() => ({
    create: async () => new RedisPoliteness({ redisUrl: serverUrl('redis')!, keyPrefix, settings: redisSettings }),
    peer: async () => new RedisPoliteness({ redisUrl: serverUrl('redis')!, keyPrefix, settings: redisSettings }),
    // The scripts read Redis' own clock, which the test cannot move: a real wait for the time asked.
    // A busy machine only makes it longer; the tests assert outcomes afterwards, never durations.
    passTime: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
    backoff: redisBackoff,
  }));
});

/**
 * What a page's slot costs Redis (docs/capacity.md): one hash per host, and a granted slot that is released
 * without spacing is two scripts touching that key with HGETALL + HSET (+ one PEXPIRE the first time) and
 * HMGET + HDEL. Seen with MONITOR, filtered by this test's own host key (other suites share the server).
 */
describeWith(['redis'], 'RedisPoliteness: one hash per host, few commands per slot', () => {
  const keyPrefix = `gleaner-test-polcost-${process.pid}-${Date.now().toString(36)}`;
  const open: Array<{ close(): Promise<void> }> = [];
  afterAll(async () => {
    await Promise.all(open.map((c) => c.close()));
  });

  it('keeps a host in one key with an expiry, and a slot costs a handful of commands on it', async () => {
    const url = serverUrl('redis')!;
    const port = new RedisPoliteness({ redisUrl: url, keyPrefix, settings: redisSettings });
    const redis = new Redis(url);
    open.push(port, { close: async () => void redis.disconnect() });
    const host = `cost-${Date.now().toString(36)}.example`;
    const key = port.keyOf(host);
    const seen: string[] = [];
    const monitor = await redis.monitor();
    open.push({ close: async () => void monitor.disconnect() });
    monitor.on('monitor', (_time: string, args: string[]) => {
      if (args.includes(key) && !/^eval/i.test(args[0])) seen.push(args[0].toLowerCase());
    });
    // MONITOR starts asynchronously: a marker command on the key proves it sees ours before counting.
    const probe = new Redis(url);
    open.push({ close: async () => void probe.disconnect() });
    while (!seen.includes('exists')) {
      await probe.exists(key);
      await new Promise((r) => setTimeout(r, 20));
    }
    seen.length = 0;

    const policy = { intervalMs: 0, maxInFlight: 4, leaseMs: 10_000 };
    for (let i = 0; i < 3; i++) {
      const slot = await port.acquire(host, policy);
      if (!slot.granted) throw new Error('the host should be free');
      await port.release(host, slot.token, { answered: true });
    }
    await probe.exists(key); // MONITOR shows commands in order: once this one is seen, all of the slots' are
    while (seen.at(-1) !== 'exists') await new Promise((r) => setTimeout(r, 20));
    seen.pop();
    expect(seen).toEqual([
      'hgetall',
      'hset',
      'pexpire',
      'hmget',
      'hdel',
      'hgetall',
      'hset',
      'hmget',
      'hdel',
      'hgetall',
      'hset',
      'hmget',
      'hdel',
    ]);
    expect(await probe.keys(`${keyPrefix}:*`)).toEqual([key]);
    expect(await probe.pttl(key)).toBeGreaterThan(23 * 60 * 60 * 1000);
  });
});
