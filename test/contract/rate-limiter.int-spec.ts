import { MemoryRateLimiter, RedisRateLimiter } from '@app/events';
import { Redis } from 'ioredis';
import { describeWith, serverUrl } from '../harness/require-server';
import { rateLimiterContract } from './rate-limiter.contract';

describe('RateLimiterContract: MemoryRateLimiter', () => {
  rateLimiterContract(() => ({
    create: async () => new MemoryRateLimiter(),
    // Embedded mode has one process: every caller shares the one limiter.
    peer: async (of) => of,
  }));
});

describeWith(['redis'], 'RateLimiterContract: RedisRateLimiter', () => {
  const keyPrefix = `gleaner-test-rl-${process.pid}-${Date.now().toString(36)}`;
  rateLimiterContract(() => ({
    create: async () => new RedisRateLimiter({ redisUrl: serverUrl('redis')!, keyPrefix }),
    peer: async () => new RedisRateLimiter({ redisUrl: serverUrl('redis')!, keyPrefix }),
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
