import { BullQueueAdapter } from '@app/queue';
import { describeWith, serverUrl } from '../harness/require-server';
import { LosingRelay } from './losing-relay';

describeWith(['redis'], 'BullQueueAdapter: a blocking read whose reply never comes', () => {
  const prefix = `gleaner-test-blocking-${process.pid}-${Date.now().toString(36)}`;
  let relay: LosingRelay;
  let adapter: BullQueueAdapter;

  beforeEach(async () => {
    relay = await LosingRelay.start(Number(new URL(serverUrl('redis')!).port));
  });

  afterEach(async () => {
    await adapter?.close();
    await relay.close();
  });

  it('drops the dead blocking connection, reads again on a new one, and takes the next job', async () => {
    const db = new URL(serverUrl('redis')!).pathname;
    adapter = new BullQueueAdapter({ redisUrl: `redis://127.0.0.1:${relay.port}${db}`, prefix, blockingSocketTimeoutMs: 1500 });
    let took!: (n: number) => void;
    const taken = new Promise<number>((resolve) => (took = resolve));
    await adapter.process<{ n: number }>('wedge', 1, async (message) => took(message.payload.n));
    await relay.blockingReadSeen();
    const before = relay.blockingConnections;

    // The reply to the read now waiting on the server never arrives; only the socket timeout ends that wait.
    await relay.swallowBlockingReplies();
    await adapter.enqueue('wedge', 'job', { n: 7 });

    expect(await taken).toBe(7);
    expect(relay.blockingConnections).toBeGreaterThan(before);
  });
});
