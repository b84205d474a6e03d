import Bull from 'bull';
import { Redis, type RedisOptions } from 'ioredis';
import { newId, quitRedis, redisDownProbe, withinRedisOutageWait } from '@app/core';
import {
  HandBackError,
  type EnqueueOptions,
  type MessageHandler,
  type QueueCounts,
  type QueueMessage,
  type QueuePort,
} from '../queue.port';
import {
  backoffDelayMs,
  DEFAULT_BACKOFF,
  messageRetry,
  isHandBack,
  isOutage,
  OUTAGE_RETRY_MS,
  isPermanent,
  runDelivery,
  toError,
  waitForHandlers,
  type Delivery,
  type RedisQueueOptions,
  type RetryDelay,
} from '../queue-helpers';

/**
 * A Bull worker that stops renewing its lock (stalledAfterMs, Bull's lockDuration) is considered dead. Locks are
 * renewed every quarter of it, so a worker tolerates three quarters of it without a renewal (a blocked event
 * loop, a Redis restart) before its work is taken over.
 */
export interface BullQueueAdapterOptions extends RedisQueueOptions {
  /** Completed/failed jobs kept for inspection (default 0 / 1000). */
  keepCompleted?: number;
  keepFailed?: number;
  /**
   * A blocking connection that has had a command unanswered this long is dropped and reconnected (default
   * BLOCKING_SOCKET_TIMEOUT_MS). Bull's blocking read waits at most DRAIN_DELAY_S on the server, so a read
   * unanswered well past that was lost on the way (see BLOCKING_SOCKET_TIMEOUT_MS).
   */
  blockingSocketTimeoutMs?: number;
}

const BACKOFF_TYPE = 'gleaner';
/**
 * Bull counts a stall for a message found active without a lock, and fails it past this many. A frozen process
 * (stopped, paused, starved) keeps its blocking reads open on the server, one per handler slot (Bull's slots share a
 * connection, so they wait there in line): each can move a message into the active list, where it sits unlocked
 * until the next stalled checks put it back. So one frozen process can cost a message up to its concurrency
 * (GLEANER_WORKER_CONCURRENCY, 8 by default) stalls that are no fault of the message; with 2, three of them failed
 * a crawl's message and its failover waited for the job watchdog (up to 45 s). A message whose worker really dies
 * each time still fails past this (the watchdog sends it again later).
 */
export const BULL_MAX_STALLED_COUNT = 10;
/** How long Bull's blocking read for the next job (BRPOPLPUSH) waits on the server before it returns empty. */
export const DRAIN_DELAY_S = 5;
/**
 * A blocking connection unanswered this long is dead and reconnected. Without it, a blocking read whose reply
 * was lost across a reconnection (an open ioredis defect with blocking commands) is awaited forever and the
 * worker takes no job again until the process restarts, while enqueues still succeed: a crawl's page tasks
 * then wait with nobody to run them. Ten seconds past the read's own limit leaves room for a busy event loop.
 */
export const BLOCKING_SOCKET_TIMEOUT_MS = DRAIN_DELAY_S * 1000 + 10_000;

/** Marks a handed-back delivery for the backoff strategy (re-queue at once, attempt not counted). */
class HandedBack extends Error {
  constructor() {
    super('handed back');
    this.name = 'HandedBack';
  }
}

/** Marks a delivery that met a store outage (re-queue after OUTAGE_RETRY_MS, attempt not counted). */
class WaitingOnStore extends Error {
  constructor() {
    super('waiting for the store');
    this.name = 'WaitingOnStore';
  }
}

interface QueueEntry {
  queue: Bull.Queue;
  bclients: Redis[];
  consuming: boolean;
}

/** Cluster queue: Bull on Redis. Bull's lock + stalled-job check gives the dead-worker rule. */
export class BullQueueAdapter implements QueuePort {
  readonly kind = 'bull' as const;
  private readonly queues = new Map<string, QueueEntry>();
  private readonly active = new Set<Delivery>();
  private readonly prefix: string;
  private readonly stalledAfterMs: number;
  private readonly stalledCheckMs: number;
  private readonly retryDelay: RetryDelay;
  private client?: Redis;
  /** Whether `client` (enqueues and counts go through it) is down; false until it exists. */
  private clientDown: () => boolean = () => false;
  private subscriber?: Redis;
  private stopping?: Promise<void>;
  private aborted = false;
  private closing?: Promise<void>;

  constructor(private readonly options: BullQueueAdapterOptions) {
    this.prefix = options.prefix ?? 'gleaner';
    this.stalledAfterMs = options.stalledAfterMs ?? 10_000;
    this.stalledCheckMs = options.stalledCheckMs ?? Math.max(100, Math.floor(this.stalledAfterMs / 5));
    this.retryDelay = options.retryDelay ?? backoffDelayMs;
  }

  enqueue<P>(queueName: string, name: string, payload: P, options: EnqueueOptions = {}): Promise<string> {
    return this.withinOutageWait(this.add(queueName, name, payload, options));
  }

  private async add<P>(queueName: string, name: string, payload: P, options: EnqueueOptions): Promise<string> {
    const { queue } = this.entry(queueName);
    const jobId = options.jobId ?? newId();
    if (options.jobId !== undefined) {
      // Bull dedupes against every kept job; only waiting/delayed/active ones should block a new run.
      const existing = await queue.getJob(jobId);
      if (existing) {
        const state = await existing.getState();
        if (state !== 'failed' && state !== 'completed') return jobId;
        await existing.remove().catch(() => undefined);
      }
    }
    const { attempts, backoff } = messageRetry(options);
    const job = await queue.add(name, payload, {
      jobId,
      delay: options.delayMs && options.delayMs > 0 ? options.delayMs : undefined,
      attempts,
      backoff: { type: BACKOFF_TYPE, options: backoff },
      removeOnComplete: this.options.keepCompleted ?? true,
      removeOnFail: this.options.keepFailed ?? 1000,
    });
    return String(job.id);
  }

  async process<P>(queueName: string, concurrency: number, handler: MessageHandler<P>): Promise<void> {
    if (this.stopping) throw new Error('queue adapter is stopped');
    if (!Number.isInteger(concurrency) || concurrency < 1) throw new Error('concurrency must be a positive integer');
    const entry = this.entry(queueName);
    if (entry.consuming) throw new Error(`already consuming queue ${queueName}`);
    entry.consuming = true;
    const { queue } = entry;
    // queue.process resolves only when the queue closes, so it must not be awaited here.
    queue
      .process('*', concurrency, (job: Bull.Job<P>) => this.run(queueName, job, handler))
      .catch((error: unknown) => {
        if (!this.stopping) this.options.onError?.(toError(error), queueName);
      });
    await queue.isReady();
  }

  async counts(queueName: string): Promise<QueueCounts> {
    const c = (await this.withinOutageWait(this.entry(queueName).queue.getJobCounts())) as Bull.JobCounts & { paused?: number };
    return { waiting: c.waiting + (c.paused ?? 0), active: c.active, delayed: c.delayed, failed: c.failed };
  }

  stop(graceMs = 10_000): Promise<void> {
    this.stopping ??= this.doStop(graceMs);
    return this.stopping;
  }

  close(): Promise<void> {
    this.closing ??= (async () => {
      await this.stop(0);
      await Promise.all([...this.queues.values()].map((e) => this.closeEntry(e, false)));
      this.queues.clear();
      await Promise.all([this.client, this.subscriber].map((c) => (c ? quitRedis(c) : Promise.resolve())));
    })();
    return this.closing;
  }

  private async doStop(graceMs: number): Promise<void> {
    const consumers = [...this.queues.entries()].filter(([, e]) => e.consuming);
    // Local pause: this process takes no new jobs; doNotWaitActive=true just breaks the blocking BRPOPLPUSH.
    await Promise.all(consumers.map(([, e]) => e.queue.pause(true, true).catch(() => undefined)));
    await this.waitActive(graceMs);
    this.aborted = true;
    for (const handler of this.active) handler.controller.abort(new HandBackError());
    const settled = await this.waitActive(this.options.abortGraceMs ?? 5000);
    // A handler that ignores its signal keeps its job locked until the lock expires; then it is stalled.
    await Promise.all(consumers.map(([, e]) => this.closeEntry(e, !settled)));
    for (const [name] of consumers) this.queues.delete(name);
  }

  private waitActive(ms: number): Promise<boolean> {
    return waitForHandlers(this.active, ms);
  }

  private async closeEntry(entry: QueueEntry, doNotWaitJobs: boolean): Promise<void> {
    await entry.queue.close(doNotWaitJobs).catch(() => undefined);
    // With a custom createClient Bull disconnects nothing itself.
    await Promise.all(entry.bclients.map((c) => quitRedis(c)));
  }

  private run<P>(queueName: string, job: Bull.Job<P>, handler: MessageHandler<P>): Promise<void> {
    const message: QueueMessage<P> = {
      id: String(job.id),
      queue: queueName,
      name: job.name,
      payload: job.data,
      attempt: job.attemptsMade + 1,
      maxAttempts: job.opts.attempts ?? 1,
    };
    return runDelivery(this.active, {
      message,
      handler,
      // A job fetched while stopping goes straight back.
      closing: this.aborted,
      // Bull's own lock extender stops for good after one failed renewal (e.g. during a Redis restart), and
      // the live job would then be taken over as stalled. This one keeps renewing until the handler ends;
      // it never re-creates a lock another worker holds (the renewal is conditional on this queue's token).
      keepAlive: () => setInterval(() => void job.extendLock(this.stalledAfterMs).catch(() => undefined), this.lockRenewMs()),
      settle: (failure, aborted) => {
        if (!failure) return;
        if (isPermanent(failure)) {
          void job.discard();
          throw failure;
        }
        if (isHandBack(failure) || aborted) {
          // Job.moveToFailed increments attemptsMade before deciding; undo that so the attempt is not used up,
          // and the backoff strategy returns 0 for HandedBack, which makes Bull re-queue it at once (retryJob).
          job.attemptsMade -= 1;
          throw new HandedBack();
        }
        if (isOutage(failure)) {
          job.attemptsMade -= 1;
          throw new WaitingOnStore();
        }
        throw failure;
      },
    });
  }

  /** While Redis is down, a request's enqueue or count fails within the store's wait (a 503), not after ioredis gives up. */
  private withinOutageWait<T>(work: Promise<T>): Promise<T> {
    return withinRedisOutageWait(work, () => this.clientDown());
  }

  private lockRenewMs(): number {
    return Math.max(50, Math.floor(this.stalledAfterMs / 4));
  }

  private entry(queueName: string): QueueEntry {
    let entry = this.queues.get(queueName);
    if (entry) return entry;
    if (this.closing) throw new Error('queue adapter is closed');
    const bclients: Redis[] = [];
    const queue = new Bull(queueName, {
      prefix: this.prefix,
      createClient: (type) => {
        if (type === 'client') {
          if (!this.client) {
            this.client = this.connect(false);
            this.clientDown = redisDownProbe(this.client);
          }
          return this.client;
        }
        if (type === 'subscriber') return (this.subscriber ??= this.connect(true));
        // The blocking client must be per queue (BRPOPLPUSH holds the connection).
        const bclient = this.connect(true, this.options.blockingSocketTimeoutMs ?? BLOCKING_SOCKET_TIMEOUT_MS);
        bclients.push(bclient);
        return bclient;
      },
      settings: {
        lockDuration: this.stalledAfterMs,
        lockRenewTime: this.lockRenewMs(),
        stalledInterval: this.stalledCheckMs,
        maxStalledCount: this.options.maxStalledCount ?? BULL_MAX_STALLED_COUNT,
        retryProcessDelay: 500,
        drainDelay: DRAIN_DELAY_S,
        backoffStrategies: {
          [BACKOFF_TYPE]: (attemptsMade: number, err: Error, options?: { delayMs: number; maxDelayMs?: number }) =>
            err instanceof HandedBack
              ? 0
              : err instanceof WaitingOnStore
                ? OUTAGE_RETRY_MS
                : this.retryDelay(attemptsMade, options ?? DEFAULT_BACKOFF),
        },
      },
    });
    queue.on('error', (error: Error) => {
      if (!this.stopping) this.options.onError?.(error, queueName);
    });
    entry = { queue, bclients, consuming: false };
    this.queues.set(queueName, entry);
    return entry;
  }

  /** `socketTimeoutMs`: only for the blocking connections (a subscriber waits for messages for as long as it likes). */
  private connect(blocking: boolean, socketTimeoutMs?: number): Redis {
    // Bull refuses subscriber/bclient connections with a ready check or a per-request retry limit.
    const options: RedisOptions = blocking ? { maxRetriesPerRequest: null, enableReadyCheck: false } : {};
    // ioredis destroys a socket that answers nothing this long while a command waits on it, reconnects and
    // sends the unanswered commands again: a lost blocking read is read again instead of awaited forever.
    if (socketTimeoutMs !== undefined) options.socketTimeout = socketTimeoutMs;
    const client = new Redis(this.options.redisUrl, options);
    client.on('error', () => undefined); // surfaced through the commands that fail
    // Every Bull queue adds its own listeners to the shared connections.
    client.setMaxListeners(0);
    return client;
  }
}
