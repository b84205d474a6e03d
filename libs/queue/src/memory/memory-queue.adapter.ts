import { newId } from '@app/core';
import { type EnqueueOptions, type MessageHandler, type QueueCounts, type QueueMessage, type QueuePort } from '../queue.port';
import {
  backoffDelayMs,
  messageRetry,
  drainDeliveries,
  isHandBack,
  isOutage,
  isPermanent,
  OUTAGE_RETRY_MS,
  runDelivery,
  type Delivery,
  type RetryDelay,
} from '../queue-helpers';

export interface MemoryQueueAdapterOptions {
  /** Adapters created on one broker share its messages (consumers of one process). Default: a broker of its own. */
  broker?: MemoryQueueBroker;
  /** After aborting handlers on stop, how long to wait for them to hand back (default 5000). */
  abortGraceMs?: number;
  retryDelay?: RetryDelay;
}

interface Held {
  id: string;
  queue: string;
  name: string;
  payload: unknown;
  status: 'waiting' | 'active' | 'failed';
  runAt: number;
  attempt: number;
  maxAttempts: number;
  backoff: { delayMs: number; maxDelayMs?: number };
}

/** Failed messages kept for counts (the oldest go first): nothing in memory grows without bound. */
const FAILED_KEPT = 1000;

/** The messages of in-process queues, shared by the adapters created on it. */
export class MemoryQueueBroker {
  readonly messages = new Map<string, Held>();
  private readonly failed: string[] = [];
  private readonly listeners = new Map<string, Set<() => void>>();

  on(queue: string, poke: () => void): () => void {
    let set = this.listeners.get(queue);
    if (!set) this.listeners.set(queue, (set = new Set()));
    set.add(poke);
    return () => set.delete(poke);
  }

  markFailed(held: Held): void {
    held.status = 'failed';
    this.failed.push(held.id);
    while (this.failed.length > FAILED_KEPT) {
      const id = this.failed.shift()!;
      if (this.messages.get(id)?.status === 'failed') this.messages.delete(id);
    }
  }

  poke(queue: string): void {
    for (const poke of this.listeners.get(queue) ?? []) poke();
  }

  /** The next message of `queue` due now (earliest run time first), or when the next one comes due. */
  next(queue: string, now: number): { due: Held | null; nextAt: number | null } {
    let due: Held | null = null;
    let nextAt: number | null = null;
    for (const m of this.messages.values()) {
      if (m.queue !== queue || m.status !== 'waiting') continue;
      if (m.runAt <= now) {
        if (!due || m.runAt < due.runAt) due = m;
      } else if (nextAt === null || m.runAt < nextAt) nextAt = m.runAt;
    }
    return { due, nextAt };
  }
}

/**
 * An in-process queue: the port's semantics (at-least-once within the process, retries with backoff,
 * attempts, PermanentError, hand-back, deterministic ids dedupe, stop with a grace) without any
 * storage. Nothing survives the process, so it only carries work that something durable re-sends
 * after a restart: the embedded deployment's crawl page tasks, which the crawl actor re-sends for
 * every entry it finds running in the store (docs/crawl.md "Embedded page tasks").
 */
export class MemoryQueueAdapter implements QueuePort {
  readonly kind = 'store' as const;
  private readonly broker: MemoryQueueBroker;
  private readonly retryDelay: RetryDelay;
  private readonly consumers = new Map<string, Promise<void>>();
  private readonly active = new Set<Delivery>();
  private readonly stopSignal = new AbortController();
  private stopping?: Promise<void>;
  private aborted = false;

  constructor(private readonly options: MemoryQueueAdapterOptions = {}) {
    this.broker = options.broker ?? new MemoryQueueBroker();
    this.retryDelay = options.retryDelay ?? backoffDelayMs;
  }

  async enqueue<P>(queue: string, name: string, payload: P, options: EnqueueOptions = {}): Promise<string> {
    const id = options.jobId ?? newId();
    const existing = this.broker.messages.get(id);
    if (existing && existing.status !== 'failed') return id;
    const { attempts, backoff } = messageRetry(options);
    this.broker.messages.set(id, {
      id,
      queue,
      name,
      payload,
      status: 'waiting',
      runAt: Date.now() + Math.max(0, options.delayMs ?? 0),
      attempt: 0,
      maxAttempts: attempts,
      backoff,
    });
    this.broker.poke(queue);
    return id;
  }

  async process<P>(queue: string, concurrency: number, handler: MessageHandler<P>): Promise<void> {
    if (this.stopping) throw new Error('queue adapter is stopped');
    if (this.consumers.has(queue)) throw new Error(`already consuming queue ${queue}`);
    if (!Number.isInteger(concurrency) || concurrency < 1) throw new Error('concurrency must be a positive integer');
    this.consumers.set(queue, this.consume(queue, concurrency, handler as MessageHandler));
  }

  async counts(queue: string): Promise<QueueCounts> {
    const now = Date.now();
    const counts = { waiting: 0, active: 0, delayed: 0, failed: 0 };
    for (const m of this.broker.messages.values()) {
      if (m.queue !== queue) continue;
      if (m.status === 'waiting') counts[m.runAt <= now ? 'waiting' : 'delayed']++;
      else counts[m.status]++;
    }
    return counts;
  }

  stop(graceMs = 10_000): Promise<void> {
    this.stopping ??= this.doStop(graceMs);
    return this.stopping;
  }

  async close(): Promise<void> {
    await this.stop(0);
  }

  private async doStop(graceMs: number): Promise<void> {
    this.stopSignal.abort();
    await Promise.allSettled(this.consumers.values());
    await drainDeliveries(this.active, graceMs, this.options.abortGraceMs ?? 5000, () => (this.aborted = true));
  }

  private async consume(queue: string, concurrency: number, handler: MessageHandler): Promise<void> {
    const stop = this.stopSignal.signal;
    let running = 0;
    let wake: (() => void) | undefined;
    let poked = false;
    const off = this.broker.on(queue, () => {
      poked = true;
      wake?.();
    });
    try {
      while (!stop.aborted) {
        poked = false;
        const { due, nextAt } = this.broker.next(queue, Date.now());
        if (due && running < concurrency) {
          due.status = 'active';
          due.attempt += 1;
          running += 1;
          void this.deliver(due, handler).finally(() => {
            running -= 1;
            this.broker.poke(queue);
          });
          continue;
        }
        if (poked) continue;
        // Idle or full: sleep until an enqueue, a finished handler, the next due message or stop.
        await new Promise<void>((resolve) => {
          const timer = nextAt !== null && running < concurrency ? setTimeout(done, Math.max(1, nextAt - Date.now())) : undefined;
          stop.addEventListener('abort', done, { once: true });
          wake = done;
          function done() {
            clearTimeout(timer);
            stop.removeEventListener('abort', done);
            resolve();
          }
        });
        wake = undefined;
      }
    } finally {
      off();
    }
  }

  private deliver(held: Held, handler: MessageHandler): Promise<void> {
    const message: QueueMessage = {
      id: held.id,
      queue: held.queue,
      name: held.name,
      payload: held.payload,
      attempt: held.attempt,
      maxAttempts: held.maxAttempts,
    };
    return runDelivery(this.active, {
      message,
      handler,
      closing: this.aborted,
      settle: (failure, aborted) => this.settle(held, failure, aborted),
    });
  }

  private settle(held: Held, failure: Error | undefined, aborted: boolean): void {
    if (this.broker.messages.get(held.id) !== held) return;
    if (!failure) {
      this.broker.messages.delete(held.id);
      return;
    }
    if (isOutage(failure) && !aborted) {
      held.status = 'waiting';
      held.attempt -= 1;
      held.runAt = Date.now() + OUTAGE_RETRY_MS;
      this.broker.poke(held.queue);
      return;
    }
    if (isPermanent(failure) || (!isHandBack(failure) && !aborted && held.attempt >= held.maxAttempts)) {
      this.broker.markFailed(held);
      return;
    }
    held.status = 'waiting';
    if (isHandBack(failure) || aborted) {
      held.attempt -= 1;
      held.runAt = Date.now();
    } else {
      held.runAt = Date.now() + this.retryDelay(held.attempt, held.backoff);
    }
    this.broker.poke(held.queue);
  }
}
