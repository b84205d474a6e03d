import type { EnqueueOptions, MessageHandler, QueueCounts, QueuePort } from './queue.port';

/**
 * One port over several adapters: the named queues go to their own adapter, every other queue to the
 * default one. The embedded deployment sends its crawl page tasks to an in-process queue this way
 * (docs/crawl.md "Embedded page tasks") and keeps every other queue in the store.
 */
export class RoutedQueueAdapter implements QueuePort {
  readonly kind: QueuePort['kind'];

  constructor(
    private readonly fallback: QueuePort,
    private readonly routes: Readonly<Record<string, QueuePort>>,
  ) {
    this.kind = fallback.kind;
  }

  private of(queue: string): QueuePort {
    return Object.hasOwn(this.routes, queue) ? this.routes[queue] : this.fallback;
  }

  enqueue<P>(queue: string, name: string, payload: P, options?: EnqueueOptions): Promise<string> {
    return this.of(queue).enqueue(queue, name, payload, options);
  }

  process<P>(queue: string, concurrency: number, handler: MessageHandler<P>): Promise<void> {
    return this.of(queue).process(queue, concurrency, handler);
  }

  counts(queue: string): Promise<QueueCounts> {
    return this.of(queue).counts(queue);
  }

  async stop(graceMs?: number): Promise<void> {
    await Promise.all(this.adapters().map((q) => q.stop(graceMs)));
  }

  async close(): Promise<void> {
    await Promise.all(this.adapters().map((q) => q.close()));
  }

  private adapters(): QueuePort[] {
    return [...new Set([this.fallback, ...Object.values(this.routes)])];
  }
}
