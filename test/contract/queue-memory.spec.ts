import { MemoryQueueAdapter, MemoryQueueBroker, RoutedQueueAdapter } from '@app/queue';
import { queueContract, waitFor } from './queue.contract';

describe('QueueContract: MemoryQueueAdapter (in-process; the embedded crawl page tasks)', () => {
  // Adapters on one broker are the consumers of one process sharing its queues.
  const broker = new MemoryQueueBroker();
  queueContract(
    () => ({
      create: async (options) => new MemoryQueueAdapter({ broker, abortGraceMs: 2000, retryDelay: options?.retryDelay }),
      childEnv: () => null,
    }),
    { crossProcess: false },
  );

  it('keeps at most 1,000 failed messages (the oldest go first)', async () => {
    const q = new MemoryQueueAdapter();
    try {
      let runs = 0;
      await q.process('failing', 4, async () => {
        runs += 1;
        throw new Error('no');
      });
      for (let i = 0; i < 1005; i++) await q.enqueue('failing', 't', { i }, { jobId: `f${i}`, attempts: 1 });
      await waitFor(async () => (await q.counts('failing')).failed + runs >= 1005 && runs === 1005, 30_000, 'every message to fail');
      expect(await q.counts('failing')).toEqual({ waiting: 0, active: 0, delayed: 0, failed: 1000 });
      // The dropped ones may be enqueued again; a kept one starts over as well.
      await q.enqueue('failing', 't', {}, { jobId: 'f0' });
      await waitFor(() => runs === 1006, 30_000, 'the restarted message');
    } finally {
      await q.close();
    }
  });
});

describe('RoutedQueueAdapter', () => {
  it('sends the named queues to their adapter and every other queue to the default one', async () => {
    const fallback = new MemoryQueueAdapter();
    const pages = new MemoryQueueAdapter();
    const routed = new RoutedQueueAdapter(fallback, { 'crawl-pages': pages });
    try {
      await routed.enqueue('crawl-pages', 'page', {}, { delayMs: 60_000 });
      await routed.enqueue('jobs', 'run', {}, { delayMs: 60_000 });
      await routed.enqueue('jobs', 'run', {}, { delayMs: 60_000 });
      expect((await pages.counts('crawl-pages')).delayed).toBe(1);
      expect((await fallback.counts('crawl-pages')).delayed).toBe(0);
      expect((await fallback.counts('jobs')).delayed).toBe(2);
      expect((await routed.counts('jobs')).delayed).toBe(2);
      expect(routed.kind).toBe(fallback.kind);
    } finally {
      await routed.close();
    }
    // close() reached both adapters.
    await expect(pages.process('crawl-pages', 1, async () => undefined)).rejects.toThrow('stopped');
    await expect(fallback.process('jobs', 1, async () => undefined)).rejects.toThrow('stopped');
  });
});
