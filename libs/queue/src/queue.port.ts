/**
 * The queue port: durable, at-least-once work queues. Cluster adapter: Bull on Redis. Embedded
 * adapter: a queue persisted in the document store (leases instead of Bull's locks), so queued and
 * in-flight work survives a restart of the single process.
 *
 * Semantics both adapters guarantee (the contract suite in test/contract proves them):
 * - at-least-once: a message is handed to a handler until a handler returns without throwing, or it
 *   failed `attempts` times, or a handler threw a PermanentError;
 * - retries wait `backoff.delayMs * 2^(attempt-1)` (capped at backoff.maxDelayMs);
 * - a message whose worker died (no lease/lock renewal for `stalledAfterMs`) is handed to another worker;
 * - a handler that fails with a store outage (StoreUnavailableError, also as a `cause`) gets the message
 *   back after OUTAGE_RETRY_MS without using up an attempt, as often as the outage lasts;
 * - `enqueue` with a `jobId` that is already waiting or active is a no-op (deterministic ids dedupe).
 */
export interface QueueMessage<P = unknown> {
  /** Message id (the jobId when one was given). */
  id: string;
  queue: string;
  /** Job name inside the queue (e.g. 'run-job'). */
  name: string;
  payload: P;
  /** 1 for the first delivery. */
  attempt: number;
  maxAttempts: number;
}

export interface EnqueueOptions {
  jobId?: string;
  delayMs?: number;
  /** Total deliveries allowed (default 3). */
  attempts?: number;
  backoff?: { delayMs: number; maxDelayMs?: number };
}

export type MessageHandler<P = unknown> = (message: QueueMessage<P>, signal: AbortSignal) => Promise<void>;

export interface QueueCounts {
  waiting: number;
  active: number;
  delayed: number;
  failed: number;
}

export interface QueuePort {
  readonly kind: 'bull' | 'store' | 'redis';
  enqueue<P>(queue: string, name: string, payload: P, options?: EnqueueOptions): Promise<string>;
  /**
   * Starts consuming `queue` with at most `concurrency` handlers at once. The signal passed to the
   * handler aborts when the worker shuts down (the handler should hand the work back by throwing
   * a HandBackError, or finish quickly).
   */
  process<P>(queue: string, concurrency: number, handler: MessageHandler<P>): Promise<void>;
  counts(queue: string): Promise<QueueCounts>;
  /** Stops taking new work, waits up to `graceMs` for in-flight handlers, then releases the rest. */
  stop(graceMs?: number): Promise<void>;
  close(): Promise<void>;
}

/** Thrown by a handler for a failure that must not be retried. */
export class PermanentError extends Error {
  constructor(
    message: string,
    readonly causeValue?: unknown,
  ) {
    super(message);
    this.name = 'PermanentError';
  }
}

/** Thrown by a handler that is shutting down: the message goes back to the queue without using up an attempt. */
export class HandBackError extends Error {
  constructor() {
    super('handed back on shutdown');
    this.name = 'HandBackError';
  }
}

export const QUEUE = Symbol('QUEUE');

/**
 * The crawl page tasks' queue. Named here because the platform routes it: in the embedded deployment
 * it is in-process (MemoryQueueAdapter), as the crawl actor re-sends the task of every entry it finds
 * running after a restart; in a cluster it is a Bull queue like the others.
 */
export const CRAWL_PAGES_QUEUE = 'crawl-pages';
