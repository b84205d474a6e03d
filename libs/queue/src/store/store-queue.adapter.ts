import { EventEmitter } from 'node:events';
import { AppError, DuplicateKeyError, newId } from '@app/core';
import type { Collection, CollectionSpec, Doc, DocumentStore } from '@app/storage';
import { type EnqueueOptions, type MessageHandler, type QueueCounts, type QueueMessage, type QueuePort } from '../queue.port';
import {
  backoffDelayMs,
  messageRetry,
  isHandBack,
  isOutage,
  OUTAGE_RETRY_MS,
  isPermanent,
  runDelivery,
  drainDeliveries,
  toError,
  type Delivery,
  type RetryDelay,
} from '../queue-helpers';

export interface StoreQueueAdapterOptions {
  store: DocumentStore;
  /** How often idle consumers look for work enqueued by other processes or coming due (default 250). */
  pollIntervalMs?: number;
  /** A claimed message whose lease is not renewed for this long is handed to another worker (default 30000). */
  leaseMs?: number;
  workerId?: string;
  /** After aborting handlers on stop, how long to wait for them to hand back (default 5000). */
  abortGraceMs?: number;
  /** Store errors that have no caller to reject (default: ignored; the loop retries). */
  onError?: (error: Error, queue: string) => void;
  /** The wait before a retry (default: the port rule, backoffDelayMs); tests wrap it to see the waits asked for. */
  retryDelay?: RetryDelay;
}

type Status = 'waiting' | 'active' | 'failed';

/** One row of `queue_messages`. Times are RFC 3339 strings like everywhere else in the store. */
export interface QueueMessageDoc extends Doc {
  queue: string;
  name: string;
  payload: unknown;
  status: Status;
  run_at: string;
  /** Deliveries started so far (incremented by the claim). */
  attempt: number;
  max_attempts: number;
  backoff_ms: number;
  backoff_max_ms: number | null;
  lease_until: string | null;
  /** Changes on every claim: every later write of the claimant is conditional on it. */
  lease_token: string | null;
  worker_id: string | null;
  last_error: unknown;
  created_at: string;
  updated_at: string;
}

export const QUEUE_MESSAGES: CollectionSpec = {
  name: 'queue_messages',
  indexes: [{ fields: { queue: 1, status: 1, run_at: 1 } }, { fields: { queue: 1, status: 1, lease_until: 1 } }],
};

// Consumers in this process sleep on this emitter so that an in-process enqueue wakes them at once.
const wakers = new WeakMap<DocumentStore, EventEmitter>();
function wakerFor(store: DocumentStore): EventEmitter {
  let emitter = wakers.get(store);
  if (!emitter) {
    emitter = new EventEmitter();
    emitter.setMaxListeners(0);
    wakers.set(store, emitter);
  }
  return emitter;
}

const iso = (ms: number) => new Date(ms).toISOString();

/**
 * Embedded queue persisted in the document store. A claim is an atomic findOneAndUpdate that takes a
 * lease; a lease that is not renewed (dead worker) makes the message claimable again.
 */
export class StoreQueueAdapter implements QueuePort {
  readonly kind = 'store' as const;
  private readonly store: DocumentStore;
  private readonly pollIntervalMs: number;
  private readonly leaseMs: number;
  private readonly workerId: string;
  private readonly retryDelay: RetryDelay;
  private readonly waker: EventEmitter;
  private collectionPromise?: Promise<Collection<QueueMessageDoc>>;
  private readonly consumers = new Map<string, Promise<void>>();
  private readonly active = new Set<Delivery>();
  private readonly stopSignal = new AbortController();
  private stopping?: Promise<void>;
  private aborted = false;

  constructor(private readonly options: StoreQueueAdapterOptions) {
    this.store = options.store;
    this.pollIntervalMs = options.pollIntervalMs ?? 250;
    this.leaseMs = options.leaseMs ?? 30_000;
    this.workerId = options.workerId ?? newId();
    this.retryDelay = options.retryDelay ?? backoffDelayMs;
    this.waker = wakerFor(this.store);
  }

  async enqueue<P>(queue: string, name: string, payload: P, options: EnqueueOptions = {}): Promise<string> {
    const col = await this.collection();
    const id = options.jobId ?? newId();
    const now = Date.now();
    const { attempts, backoff } = messageRetry(options);
    const fields = {
      queue,
      name,
      payload: payload as unknown,
      status: 'waiting' as const,
      run_at: iso(now + Math.max(0, options.delayMs ?? 0)),
      attempt: 0,
      max_attempts: attempts,
      backoff_ms: backoff.delayMs,
      backoff_max_ms: backoff.maxDelayMs ?? null,
      lease_until: null,
      lease_token: null,
      worker_id: null,
      last_error: null,
      created_at: iso(now),
      updated_at: iso(now),
    };
    try {
      await col.insertOne({ _id: id, ...fields });
    } catch (error) {
      if (!(error instanceof DuplicateKeyError)) throw error;
      // Waiting or active with this id: a no-op. A failed one (kept for inspection) starts over.
      const restarted = await col.findOneAndUpdate({ _id: id, status: 'failed' }, { $set: fields });
      if (!restarted) return id;
    }
    this.waker.emit(queue);
    return id;
  }

  async process<P>(queue: string, concurrency: number, handler: MessageHandler<P>): Promise<void> {
    if (this.stopping) throw new Error('queue adapter is stopped');
    if (this.consumers.has(queue)) throw new Error(`already consuming queue ${queue}`);
    if (!Number.isInteger(concurrency) || concurrency < 1) throw new Error('concurrency must be a positive integer');
    await this.collection();
    this.consumers.set(queue, this.consume(queue, concurrency, handler as MessageHandler));
  }

  async counts(queue: string): Promise<QueueCounts> {
    const col = await this.collection();
    const now = iso(Date.now());
    const [waiting, delayed, active, failed] = await Promise.all([
      col.count({ queue, status: 'waiting', run_at: { $lte: now } }),
      col.count({ queue, status: 'waiting', run_at: { $gt: now } }),
      col.count({ queue, status: 'active' }),
      col.count({ queue, status: 'failed' }),
    ]);
    return { waiting, active, delayed, failed };
  }

  stop(graceMs = 10_000): Promise<void> {
    this.stopping ??= this.doStop(graceMs);
    return this.stopping;
  }

  /** The store belongs to the caller and stays open. */
  async close(): Promise<void> {
    await this.stop(0);
  }

  private async doStop(graceMs: number): Promise<void> {
    this.stopSignal.abort();
    await Promise.allSettled(this.consumers.values());
    await drainDeliveries(this.active, graceMs, this.options.abortGraceMs ?? 5000, () => (this.aborted = true));
  }

  private collection(): Promise<Collection<QueueMessageDoc>> {
    this.collectionPromise ??= this.store.collection<QueueMessageDoc>(QUEUE_MESSAGES);
    return this.collectionPromise;
  }

  private async consume(queue: string, concurrency: number, handler: MessageHandler): Promise<void> {
    const stop = this.stopSignal.signal;
    let running = 0;
    let wake: (() => void) | undefined;
    // Set when poked while not asleep (e.g. mid-claim), so that the next sleep is skipped.
    let poked = false;
    const poke = () => {
      poked = true;
      wake?.();
    };
    this.waker.on(queue, poke);
    try {
      while (!stop.aborted) {
        if (running < concurrency) {
          poked = false;
          let doc: QueueMessageDoc | null = null;
          try {
            doc = await this.claim(queue);
          } catch (error) {
            this.options.onError?.(toError(error), queue);
          }
          if (doc && stop.aborted) {
            await this.release(doc, { handBack: true });
            break;
          }
          if (doc) {
            running += 1;
            void this.deliver(doc, handler).finally(() => {
              running -= 1;
              poke();
            });
            continue;
          }
        }
        if (poked && running < concurrency) {
          poked = false;
          continue;
        }
        // Idle or full: sleep until an enqueue, a finished handler, the poll interval or stop.
        await new Promise<void>((resolve) => {
          const timer = setTimeout(done, this.pollIntervalMs);
          stop.addEventListener('abort', done, { once: true });
          wake = done;
          function done() {
            clearTimeout(timer);
            stop.removeEventListener('abort', done);
            resolve();
          }
        });
        wake = undefined;
        poked = false;
      }
    } finally {
      this.waker.off(queue, poke);
    }
  }

  private async claim(queue: string): Promise<QueueMessageDoc | null> {
    const col = await this.collection();
    const now = Date.now();
    const update = {
      $set: {
        status: 'active',
        lease_until: iso(now + this.leaseMs),
        lease_token: newId(),
        worker_id: this.workerId,
        updated_at: iso(now),
      },
      $inc: { attempt: 1 },
    };
    const due =
      (await col.findOneAndUpdate({ queue, status: 'waiting', run_at: { $lte: iso(now) } }, update, {
        sort: { run_at: 1 },
      })) ??
      // The stalled-job rule: a lease that ran out belongs to a dead (or hung) worker.
      (await col.findOneAndUpdate({ queue, status: 'active', lease_until: { $lt: iso(now) } }, update, {
        sort: { lease_until: 1 },
      }));
    if (due && due.attempt > due.max_attempts) {
      // Its last allowed delivery died with its worker.
      await this.finish(due, { status: 'failed', error: new Error('worker died during the last attempt') });
      return this.claim(queue);
    }
    return due;
  }

  private deliver(doc: QueueMessageDoc, handler: MessageHandler): Promise<void> {
    const message: QueueMessage = {
      id: doc._id,
      queue: doc.queue,
      name: doc.name,
      payload: doc.payload,
      attempt: doc.attempt,
      maxAttempts: doc.max_attempts,
    };
    return runDelivery(this.active, {
      message,
      handler,
      closing: this.aborted,
      keepAlive: (controller) => setInterval(() => void this.renew(doc, controller), Math.max(50, Math.floor(this.leaseMs / 3))),
      settle: (failure, aborted) =>
        this.settle(doc, failure, aborted).catch((error: unknown) =>
          // The lease runs out and the message is delivered again: at-least-once still holds.
          this.options.onError?.(toError(error), doc.queue),
        ),
    });
  }

  private async settle(doc: QueueMessageDoc, failure: Error | undefined, aborted: boolean): Promise<void> {
    if (!failure) {
      const col = await this.collection();
      await col.deleteOne({ _id: doc._id, lease_token: doc.lease_token });
      return;
    }
    if (isPermanent(failure)) return this.finish(doc, { status: 'failed', error: failure });
    if (isHandBack(failure) || aborted) return this.release(doc, { handBack: true });
    if (isOutage(failure)) return this.release(doc, { handBack: true, delayMs: OUTAGE_RETRY_MS });
    if (doc.attempt >= doc.max_attempts) return this.finish(doc, { status: 'failed', error: failure });
    const delay = this.retryDelay(doc.attempt, { delayMs: doc.backoff_ms, maxDelayMs: doc.backoff_max_ms ?? undefined });
    return this.release(doc, { delayMs: delay, error: failure });
  }

  /** Back to waiting: after a backoff, or at once without using up the attempt (hand-back). */
  private async release(doc: QueueMessageDoc, how: { handBack?: boolean; delayMs?: number; error?: Error }): Promise<void> {
    const col = await this.collection();
    const now = Date.now();
    await col.findOneAndUpdate(
      { _id: doc._id, lease_token: doc.lease_token },
      {
        $set: {
          status: 'waiting',
          run_at: iso(now + (how.delayMs ?? 0)),
          lease_until: null,
          lease_token: null,
          worker_id: null,
          updated_at: iso(now),
          ...(how.error ? { last_error: serializeError(how.error) } : {}),
        },
        ...(how.handBack ? { $inc: { attempt: -1 } } : {}),
      },
    );
    this.waker.emit(doc.queue);
  }

  private async finish(doc: QueueMessageDoc, how: { status: 'failed'; error: Error }): Promise<void> {
    const col = await this.collection();
    await col.findOneAndUpdate(
      { _id: doc._id, lease_token: doc.lease_token },
      {
        $set: {
          status: how.status,
          lease_until: null,
          lease_token: null,
          worker_id: null,
          last_error: serializeError(how.error),
          updated_at: iso(Date.now()),
        },
      },
    );
  }

  private async renew(doc: QueueMessageDoc, controller: AbortController): Promise<void> {
    try {
      const col = await this.collection();
      const now = Date.now();
      const renewed = await col.findOneAndUpdate(
        { _id: doc._id, lease_token: doc.lease_token },
        { $set: { lease_until: iso(now + this.leaseMs), updated_at: iso(now) } },
      );
      // Someone else holds it now (we stalled past the lease): stop the duplicate work.
      if (!renewed) controller.abort(new Error('lease lost'));
    } catch (error) {
      this.options.onError?.(toError(error), doc.queue);
    }
  }
}

function serializeError(error: Error): unknown {
  if (error instanceof AppError) return error.toJSON();
  return { name: error.name, message: error.message };
}
