import { BACKOFFS, backoffMs, isStoreUnavailable, type Backoff } from '@app/core';
import { PermanentError, HandBackError, type EnqueueOptions, type MessageHandler, type QueueMessage } from './queue.port';

/** How long a message whose handler met a store outage waits before its next delivery (the attempt is not used up). */
export const OUTAGE_RETRY_MS = 2000;

/** A handler failure that is the store's, not the message's: wait and deliver again, however long the outage lasts. */
export function isOutage(error: unknown): boolean {
  return isStoreUnavailable(error);
}

/** How long a message waits after failed delivery `attempt` (adapters take one as `retryDelay`; default backoffDelayMs). */
export type RetryDelay = (attempt: number, backoff: { delayMs: number; maxDelayMs?: number }) => number;

/** Port rule: `delayMs * 2^(attempt-1)`, capped at maxDelayMs (backoffMs). `attempt` is the delivery that just failed. */
export function backoffDelayMs(attempt: number, backoff: { delayMs: number; maxDelayMs?: number }): number {
  return backoffMs({ baseMs: backoff.delayMs, factor: 2, maxMs: backoff.maxDelayMs, jitter: 'none' }, attempt);
}

/** A row of BACKOFFS as a message's `backoff` option: the port doubles per attempt without jitter, so only such rows fit. */
export function messageBackoff(row: Backoff & { factor: 2; jitter: 'none' }): { delayMs: number; maxDelayMs?: number } {
  return row.maxMs === undefined ? { delayMs: row.baseMs } : { delayMs: row.baseMs, maxDelayMs: row.maxMs };
}

/** What the two Redis queue adapters (bull/, redis-list/) are configured with alike. */
export interface RedisQueueOptions {
  redisUrl: string;
  /** Redis key prefix (default 'gleaner' for Bull, 'gleaner:lq' for redis-list). */
  prefix?: string;
  /**
   * A consumer that has not shown it is alive this long is dead: its messages go to others (default 10000).
   * Bull's lockDuration, renewed every quarter of it; the redis-list consumer's alive key.
   */
  stalledAfterMs?: number;
  /** How often the check for dead consumers (and redis-list's due delayed messages) runs (default a fifth of stalledAfterMs). */
  stalledCheckMs?: number;
  /** How many times a message may be taken back from a dead consumer before it fails (default 2; Bull: BULL_MAX_STALLED_COUNT). */
  maxStalledCount?: number;
  /** After aborting handlers on stop, how long to wait for them to hand back (default 5000). */
  abortGraceMs?: number;
  /** Redis errors that have no caller to reject (default: ignored). */
  onError?: (error: Error, queue: string) => void;
  /** The wait before a retry (default: the port rule, backoffDelayMs); tests wrap it to see the waits asked for. */
  retryDelay?: RetryDelay;
}

/** A message's backoff when its enqueue options name none. */
export const DEFAULT_BACKOFF = messageBackoff(BACKOFFS.queueMessage);

/** The retry rule a message is enqueued with, in every adapter: its options' attempts (default 3) and backoff over DEFAULT_BACKOFF. */
export function messageRetry(options: Pick<EnqueueOptions, 'attempts' | 'backoff'>): {
  attempts: number;
  backoff: { delayMs: number; maxDelayMs?: number };
} {
  return { attempts: options.attempts ?? 3, backoff: { ...DEFAULT_BACKOFF, ...options.backoff } };
}

export function toError(value: unknown): Error {
  return value instanceof Error ? value : new Error(typeof value === 'string' ? value : JSON.stringify(value));
}

// By name too, so an error class from a second copy of the module (child bundles, tsx) still counts.
export function isPermanent(error: unknown): boolean {
  return error instanceof PermanentError || (error instanceof Error && error.name === 'PermanentError');
}

export function isHandBack(error: unknown): boolean {
  return error instanceof HandBackError || (error instanceof Error && error.name === 'HandBackError');
}

/** Resolves when all promises settle or after `ms`, whichever comes first. */
export async function settleWithin(promises: Promise<unknown>[], ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([
    Promise.allSettled(promises),
    new Promise<void>((resolve) => {
      timer = setTimeout(resolve, ms);
    }),
  ]);
  clearTimeout(timer);
}

/** Waits until every running handler of `active` settled, or `ms` passed; true when none is left. */
export async function waitForHandlers(active: ReadonlySet<{ done: Promise<unknown> }>, ms: number): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (active.size > 0) {
    const left = deadline - Date.now();
    if (left <= 0) return false;
    await settleWithin(
      [...active].map((a) => a.done),
      left,
    );
  }
  return true;
}

/** A running delivery, as an adapter tracks it: close() aborts `controller` and waits for `done`. */
export interface Delivery {
  controller: AbortController;
  done: Promise<void>;
  /** Keeps the delivery's lease alive while the handler runs (cleared when it ends, or by close() giving up). */
  keepAlive?: NodeJS.Timeout;
}

/**
 * One delivery, the same in every adapter: tracked in `active` until it is settled, handed back at once when the
 * adapter is already closing, the handler's failure (undefined on success) and whether the delivery was aborted
 * passed to `settle`. The keep-alive stops before `settle`; what `settle` throws, `runDelivery` throws.
 */
export async function runDelivery<P>(
  active: Set<Delivery>,
  delivery: {
    message: QueueMessage<P>;
    handler: MessageHandler<P>;
    closing: boolean;
    keepAlive?: (controller: AbortController) => NodeJS.Timeout;
    settle: (failure: Error | undefined, aborted: boolean) => void | Promise<void>;
  },
): Promise<void> {
  const controller = new AbortController();
  let finish!: () => void;
  const tracked: Delivery = { controller, done: new Promise<void>((r) => (finish = r)) };
  tracked.keepAlive = delivery.keepAlive?.(controller);
  active.add(tracked);
  try {
    let failure: Error | undefined;
    try {
      if (delivery.closing) throw new HandBackError();
      await delivery.handler(delivery.message, controller.signal);
    } catch (raw) {
      failure = toError(raw);
    }
    clearInterval(tracked.keepAlive);
    await delivery.settle(failure, controller.signal.aborted);
  } finally {
    clearInterval(tracked.keepAlive);
    active.delete(tracked);
    finish();
  }
}

/**
 * Stopping an adapter's deliveries: waits `graceMs` for them to finish, then marks the adapter aborting
 * (`onAbort`: deliveries fetched from then on are handed back), aborts the running ones (hand-back) and
 * waits `abortGraceMs`. Those still running after that stop their keep-alive: their leases run out and
 * another worker takes the messages over.
 */
export async function drainDeliveries(
  active: ReadonlySet<Delivery>,
  graceMs: number,
  abortGraceMs: number,
  onAbort: () => void,
): Promise<void> {
  await waitForHandlers(active, graceMs);
  onAbort();
  for (const delivery of active) delivery.controller.abort(new HandBackError());
  if (!(await waitForHandlers(active, abortGraceMs))) for (const delivery of active) clearInterval(delivery.keepAlive);
}
