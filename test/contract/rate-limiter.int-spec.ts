import { MemoryRateLimiter, RedisRateLimiter } from '@app/events';
import { Redis } from 'ioredis';
import { describeWith, serverUrl } from '../harness/require-server';
import { rateLimiterContract } from './rate-limiter.contract';

/** Everything but Date stays real: promises, ticks and timers run as usual while the date is moved. */
const REAL_APIS = [
  'hrtime',
  'nextTick',
  'performance',
  'queueMicrotask',
  'requestAnimationFrame',
  'cancelAnimationFrame',
  'requestIdleCallback',
  'cancelIdleCallback',
  'setImmediate',
  'clearImmediate',
  'setInterval',
  'clearInterval',
  'setTimeout',
  'clearTimeout',
] as const;

describe('RateLimiterContract: MemoryRateLimiter', () => {
  rateLimiterContract(() => ({
    create: async () => new MemoryRateLimiter(),
    // Embedded mode has one process: every caller shares the one limiter.
    peer: async (of) => of,
    // The in-memory counters expire by Date.now(): move the date instead of waiting.
    passTime: async (ms) => {
      const now = Date.now();
      jest.useFakeTimers({ doNotFake: [...REAL_APIS], now });
      jest.setSystemTime(now + ms);
    },
    restoreTime: () => jest.useRealTimers(),
  }));
});

describeWith(['redis'], 'RateLimiterContract: RedisRateLimiter', () => {
  const keyPrefix = `gleaner-test-rl-${process.pid}-${Date.now().toString(36)}`;
  rateLimiterContract(() => ({
    create: async () => new RedisRateLimiter({ redisUrl: serverUrl('redis')!, keyPrefix }),
    peer: async () => new RedisRateLimiter({ redisUrl: serverUrl('redis')!, keyPrefix }),
    // Redis expires the counters on its own clock, which the test cannot move: this is a real wait,
    // for the time asked plus a margin. A busy machine can only make it longer, never the window
    // shorter, and the tests assert the outcome afterwards, never how long anything took.
    passTime: (ms) => new Promise((resolve) => setTimeout(resolve, ms + 250)),
  }));

  it('works on a caller-owned client and leaves it open on close()', async () => {
    const client = new Redis(serverUrl('redis')!);
    try {
      const limiter = new RedisRateLimiter({ client, keyPrefix });
      expect((await limiter.consume('owned', 2, 5000)).remaining).toBe(1);
      await limiter.close();
      expect(await client.ping()).toBe('PONG');
    } finally {
      await client.quit();
    }
  });
});
