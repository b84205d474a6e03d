import { Redis } from 'ioredis';
import { RedisListQueueAdapter } from '@app/queue';
import { messageText } from '../../libs/queue/src/redis-list/redis-list-queue.adapter';
import { describeWith, serverUrl } from '../harness/require-server';
import { LosingRelay } from './losing-relay';
import { waitFor } from './queue.contract';

/**
 * Takes that move a message into a consumer's list without the consumer ever receiving it (docs/crawl.md "Page
 * tasks in a cluster"). A frozen crawler (SIGSTOP, a paused VM) shows both: while it is frozen, the take it left
 * blocked on the server can still move a message into its list after the upkeep found it dead; when it wakes, its
 * socket timeout fires before the answer waiting in its socket is read, so the answer is lost. Either message
 * would otherwise stay in that list, never run, its task id still queued, so the owner's re-send was a no-op.
 */
describeWith(['redis'], 'RedisListQueueAdapter: takes whose message never reached the consumer', () => {
  const prefix = `gleaner-test-lq-lost-${process.pid}-${Date.now().toString(36)}`;
  const open: Array<{ close(): Promise<void> }> = [];
  let redis: Redis;

  beforeAll(() => {
    redis = new Redis(serverUrl('redis')!);
  });
  afterAll(() => redis.quit());
  afterEach(async () => {
    await Promise.all(open.splice(0).map((o) => o.close()));
  });

  const body = (id: string, n: number) => ({ id, name: 'page', payload: { n }, made: 0, max: 3, backoff: { delayMs: 100 } });

  it('gives back a message a take moved into its list when the answer was lost, and runs it', async () => {
    const relay = await LosingRelay.start(Number(new URL(serverUrl('redis')!).port));
    open.push(relay);
    const db = new URL(serverUrl('redis')!).pathname;
    const adapter = new RedisListQueueAdapter({
      redisUrl: `redis://127.0.0.1:${relay.port}${db}`,
      prefix,
      stalledAfterMs: 60_000, // the consumer never looks dead here: only the reclaim can give the message back
      blockingSocketTimeoutMs: 6000, // past the take's own wait on the server (5 s)
    });
    open.push(adapter);
    const delivered: number[] = [];
    await adapter.process<{ n: number }>('lost-answer', 1, async (message) => void delivered.push(message.payload.n));
    await relay.blockingReadSeen();
    const [consumer] = await redis.smembers(`${prefix}:lost-answer:consumers`);
    const active = `${prefix}:lost-answer:active:${consumer}`;

    // The server moves the message into the consumer's list; the answer never reaches it.
    const cut = relay.swallowBlockingReplies();
    await adapter.enqueue('lost-answer', 'page', { n: 7 }, { jobId: 'seven' });
    await waitFor(async () => (await redis.llen(active)) === 1, 30_000, 'the message in the consumer list');
    await cut; // the socket timeout dropped the connection

    await waitFor(() => delivered.length > 0, 60_000, 'the message to run');
    expect(delivered).toEqual([7]);
    await waitFor(async () => (await redis.llen(active)) === 0, 30_000, 'the consumer list to be empty');
    expect(await adapter.counts('lost-answer')).toEqual({ waiting: 0, active: 0, delayed: 0, failed: 0 });
  }, 180_000);

  it('keeps a dead consumer in sight for a grace, so a message its blocked take moved late is given back', async () => {
    const queue = 'late-take';
    const base = `${prefix}:${queue}`;
    // A consumer that is dead (no alive key) but whose take may still be blocked on the server.
    await redis.sadd(`${base}:consumers`, 'frozen');
    const adapter = new RedisListQueueAdapter({ redisUrl: serverUrl('redis')!, prefix, stalledAfterMs: 1000, stalledCheckMs: 100 });
    open.push(adapter);
    const delivered: Array<{ n: number; attempt: number }> = [];
    await adapter.process<{ n: number }>(
      queue,
      1,
      async (message) => void delivered.push({ n: message.payload.n, attempt: message.attempt }),
    );
    await waitFor(async () => (await redis.hget(`${base}:dead`, 'frozen')) !== null, 30_000, 'the upkeep to find it dead');

    // Its take moves a message into its list only now.
    await redis.hset(`${base}:ids`, 'late', 'q');
    await redis.lpush(`${base}:active:frozen`, messageText(body('late', 9)));

    await waitFor(() => delivered.length > 0, 30_000, 'the message to run');
    expect(delivered).toEqual([{ n: 9, attempt: 1 }]);
    // Past the grace it leaves the set (and its entry in the dead hash goes too).
    await waitFor(async () => (await redis.sismember(`${base}:consumers`, 'frozen')) === 0, 60_000, 'the dead consumer to leave the set');
    expect(await redis.hget(`${base}:dead`, 'frozen')).toBeNull();
    await waitFor(async () => (await redis.hlen(`${base}:ids`)) === 0, 30_000, 'the task id to be settled');
  }, 180_000);
});
