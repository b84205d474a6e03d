import { RedisListQueueAdapter } from '@app/queue';
import { describeWith, serverUrl } from '../harness/require-server';
import { queueContract } from './queue.contract';

describeWith(['redis'], 'QueueContract: RedisListQueueAdapter', () => {
  // One key prefix per file run: suites sharing the Redis server never see each other's messages.
  const prefix = `gleaner-test-lq-${process.pid}-${Date.now().toString(36)}`;
  queueContract(() => ({
    create: async (options) =>
      new RedisListQueueAdapter({
        redisUrl: serverUrl('redis')!,
        prefix,
        stalledAfterMs: 1000,
        stalledCheckMs: 500,
        abortGraceMs: 2000,
        retryDelay: options?.retryDelay,
      }),
    childEnv: () => ({
      QUEUE_FIXTURE_KIND: 'redis-list',
      QUEUE_FIXTURE_REDIS_URL: serverUrl('redis')!,
      QUEUE_FIXTURE_PREFIX: prefix,
      QUEUE_FIXTURE_STALLED_MS: '1000',
    }),
  }));
});
