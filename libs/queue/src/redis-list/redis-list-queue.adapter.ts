import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import { Redis, type RedisOptions } from 'ioredis';
import { newId, quitRedis, redisDownProbe, withinRedisOutageWait } from '@app/core';
import { type EnqueueOptions, type MessageHandler, type QueueCounts, type QueueMessage, type QueuePort } from '../queue.port';
import {
  backoffDelayMs,
  drainDeliveries,
  isHandBack,
  isOutage,
  isPermanent,
  messageRetry,
  OUTAGE_RETRY_MS,
  runDelivery,
  toError,
  type Delivery,
  type RedisQueueOptions,
  type RetryDelay,
} from '../queue-helpers';
import { COUNTS, ENQUEUE, RECLAIM, SETTLE, UPKEEP } from './redis-list-scripts';

export interface RedisListQueueAdapterOptions extends RedisQueueOptions {
  /**
   * A blocking connection that has had a command unanswered this long is dropped and reconnected (default
   * TAKE_WAIT_S + 10 s: the take waits TAKE_WAIT_S on the server, so an answer that late was lost on the way).
   */
  blockingSocketTimeoutMs?: number;
}

/** The blocking take waits this long on the server before it returns empty (and is asked again). */
export const TAKE_WAIT_S = 5;
/**
 * How long a dead consumer stays in the consumers set after the upkeep first found it dead: longer than a take it
 * left blocked on the server can last (TAKE_WAIT_S), so a message such a take moves into its list is given back.
 */
export const DEAD_CONSUMER_GRACE_MS = TAKE_WAIT_S * 1000 + 5000;

interface Body {
  id: string;
  name: string;
  payload: unknown;
  /** Attempts used up before this delivery. */
  made: number;
  max: number;
  backoff: { delayMs: number; maxDelayMs?: number };
}

type ScriptClient = Redis & {
  lqEnqueue(ids: string, wait: string, delayed: string, failed: string, id: string, text: string, delayMs: number): Promise<number>;
  lqSettle(
    active: string,
    ids: string,
    wait: string,
    delayed: string,
    failed: string,
    taken: string,
    id: string,
    verdict: 'done' | 'again' | 'failed',
    next: string,
    delayMs: number,
  ): Promise<number>;
  lqUpkeep(
    wait: string,
    delayed: string,
    consumers: string,
    ids: string,
    failed: string,
    base: string,
    maxStalls: number,
    own: string,
    graceMs: number,
  ): Promise<number[]>;
  lqReclaim(active: string, wait: string, ...running: string[]): Promise<number>;
  lqCounts(wait: string, delayed: string, failed: string, consumers: string, base: string): Promise<number[]>;
};

/** A message as stored: `<stalls>|<id length>|<id><JSON body>` (redis-list-scripts.ts). */
export function messageText(body: Body, stalls = 0): string {
  return `${stalls}|${body.id.length}|${body.id}${JSON.stringify(body)}`;
}

export function parseMessageText(text: string): { body: Body; stalls: number } {
  const match = /^(\d+)\|(\d+)\|/.exec(text);
  if (!match) throw new Error('not a queue message');
  const rest = text.slice(match[0].length + Number(match[2]));
  return { body: JSON.parse(rest) as Body, stalls: Number(match[1]) };
}

interface Consumer {
  queue: string;
  id: string;
  concurrency: number;
  handler: MessageHandler<unknown>;
  blocking: Redis;
  running: number;
  /** The texts of the messages this consumer is delivering now (a count each): what its active list should hold. */
  taken: Map<string, number>;
  /** Its blocking connection dropped: before the next take, messages of its list it never received go back. */
  reclaim: boolean;
  stopped: boolean;
  /** Wakes the take loop when a handler slot frees. */
  wake?: () => void;
  loop?: Promise<void>;
  timers: NodeJS.Timeout[];
}

/**
 * A lean Redis queue for the crawl's page tasks (docs/crawl.md "Page tasks"): a message is one list element,
 * so a page's hand-off costs Redis 7 commands (enqueue: a script with HSETNX + LPUSH; take: one BRPOPLPUSH into
 * the consumer's own active list; done: a script with LREM + HDEL), where Bull spends ~23 (job hash, lock, events,
 * per-job lock renewals). A waiting handler costs nothing: liveness is one key per consumer process, renewed every
 * quarter of stalledAfterMs, not a lock per message; a consumer whose key expired is dead and its messages go back
 * to the front of the queue (the upkeep every consumer runs). Same port contract as the other adapters.
 */
export class RedisListQueueAdapter implements QueuePort {
  readonly kind = 'redis' as const;
  private readonly prefix: string;
  private readonly stalledAfterMs: number;
  private readonly stalledCheckMs: number;
  private readonly retryDelay: RetryDelay;
  private readonly active = new Set<Delivery>();
  private readonly consumers = new Map<string, Consumer>();
  private readonly client: ScriptClient;
  private readonly clientDown: () => boolean;
  private aborted = false;
  private stopping?: Promise<void>;
  private closing?: Promise<void>;

  constructor(private readonly options: RedisListQueueAdapterOptions) {
    this.prefix = options.prefix ?? 'gleaner:lq';
    this.stalledAfterMs = options.stalledAfterMs ?? 10_000;
    this.stalledCheckMs = options.stalledCheckMs ?? Math.max(100, Math.floor(this.stalledAfterMs / 5));
    this.retryDelay = options.retryDelay ?? backoffDelayMs;
    const client = new Redis(options.redisUrl);
    client.on('error', () => undefined); // surfaced through the commands that fail
    client.defineCommand('lqEnqueue', { numberOfKeys: 4, lua: ENQUEUE });
    client.defineCommand('lqSettle', { numberOfKeys: 5, lua: SETTLE });
    client.defineCommand('lqUpkeep', { numberOfKeys: 5, lua: UPKEEP });
    client.defineCommand('lqCounts', { numberOfKeys: 4, lua: COUNTS });
    client.defineCommand('lqReclaim', { numberOfKeys: 2, lua: RECLAIM });
    this.client = client as ScriptClient;
    this.clientDown = redisDownProbe(client);
  }

  async enqueue<P>(queue: string, name: string, payload: P, options: EnqueueOptions = {}): Promise<string> {
    if (this.closing) throw new Error('queue adapter is closed');
    const id = options.jobId ?? newId();
    const { attempts, backoff } = messageRetry(options);
    const body: Body = { id, name, payload, made: 0, max: attempts, backoff };
    const k = this.keys(queue);
    const delay = options.delayMs && options.delayMs > 0 ? Math.round(options.delayMs) : 0;
    await withinRedisOutageWait(this.client.lqEnqueue(k.ids, k.wait, k.delayed, k.failed, id, messageText(body), delay), this.clientDown);
    return id;
  }

  async process<P>(queue: string, concurrency: number, handler: MessageHandler<P>): Promise<void> {
    if (this.stopping) throw new Error('queue adapter is stopped');
    if (!Number.isInteger(concurrency) || concurrency < 1) throw new Error('concurrency must be a positive integer');
    if (this.consumers.has(queue)) throw new Error(`already consuming queue ${queue}`);
    const blocking = this.connect(true);
    const consumer: Consumer = {
      queue,
      id: `${hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`,
      concurrency,
      handler: handler as MessageHandler<unknown>,
      blocking,
      running: 0,
      taken: new Map(),
      reclaim: false,
      stopped: false,
      timers: [],
    };
    // ioredis sends a take again on the new connection, but the answer of the one cut short may have been lost
    // after the server had moved its message into our list (a frozen process: its socket timeout fires on waking,
    // before the answer waiting in the socket is read). That message would stay ours, never run, while we live.
    blocking.on('close', () => (consumer.reclaim = true));
    this.consumers.set(queue, consumer);
    await this.heartbeat(consumer);
    consumer.timers.push(this.every(Math.max(50, Math.floor(this.stalledAfterMs / 4)), () => this.heartbeat(consumer)));
    consumer.timers.push(this.every(this.stalledCheckMs, () => this.upkeep(consumer, '')));
    consumer.loop = this.takeLoop(consumer);
  }

  async counts(queue: string): Promise<QueueCounts> {
    const k = this.keys(queue);
    const [waiting, active, delayed, failed] = (
      await withinRedisOutageWait(this.client.lqCounts(k.wait, k.delayed, k.failed, k.consumers, k.base), this.clientDown)
    ).map(Number);
    return { waiting, active, delayed, failed };
  }

  stop(graceMs = 10_000): Promise<void> {
    this.stopping ??= this.doStop(graceMs);
    return this.stopping;
  }

  close(): Promise<void> {
    this.closing ??= (async () => {
      await this.stop(0);
      await quitRedis(this.client);
    })();
    return this.closing;
  }

  private async doStop(graceMs: number): Promise<void> {
    const consumers = [...this.consumers.values()];
    // Take nothing more: the blocking take is cut (a message it had moved meanwhile is given back below).
    for (const c of consumers) {
      c.stopped = true;
      c.wake?.();
      c.blocking.disconnect();
    }
    await drainDeliveries(this.active, graceMs, this.options.abortGraceMs ?? 5000, () => {
      this.aborted = true;
    });
    await Promise.all(consumers.map((c) => (c.loop ?? Promise.resolve()).catch(() => undefined)));
    for (const c of consumers) {
      for (const timer of c.timers) clearInterval(timer);
      // Every handler settled: what is left in this consumer's active list (a take cut short) goes back as it was.
      // A handler that ignored its abort keeps its message; the alive key then expires and another consumer takes it.
      if (this.active.size === 0) await this.upkeep(c, c.id);
    }
  }

  /** Takes a message whenever a handler slot is free: one blocking BRPOPLPUSH per message (or per TAKE_WAIT_S idle). */
  private async takeLoop(c: Consumer): Promise<void> {
    const k = this.keys(c.queue);
    const mine = this.activeKey(c);
    while (!c.stopped) {
      if (c.running >= c.concurrency) {
        await new Promise<void>((resolve) => (c.wake = resolve));
        c.wake = undefined;
        continue;
      }
      let text: string | null;
      let reclaiming = false;
      try {
        if (c.reclaim) {
          // No take is in flight now: whatever the list holds beyond the deliveries running is a lost take's.
          reclaiming = true;
          c.reclaim = false;
          await this.client.lqReclaim(mine, k.wait, ...this.runningTexts(c));
          reclaiming = false;
        }
        text = await c.blocking.brpoplpush(k.wait, mine, TAKE_WAIT_S);
      } catch (error) {
        if (c.stopped) return;
        if (reclaiming) c.reclaim = true; // tried again before the next take
        this.options.onError?.(toError(error), c.queue);
        await new Promise((r) => setTimeout(r, 500).unref());
        continue;
      }
      if (text === null) continue;
      // Taken while stopping: left in the active list, which the final upkeep gives back as it was.
      if (c.stopped) continue;
      c.running += 1;
      c.taken.set(text, (c.taken.get(text) ?? 0) + 1);
      void this.deliver(c, text).finally(() => {
        const left = (c.taken.get(text) ?? 1) - 1;
        if (left > 0) c.taken.set(text, left);
        else c.taken.delete(text);
        c.running -= 1;
        c.wake?.();
      });
    }
  }

  /** The texts of the deliveries running, each as often as it runs. */
  private runningTexts(c: Consumer): string[] {
    const texts: string[] = [];
    for (const [text, count] of c.taken) for (let i = 0; i < count; i++) texts.push(text);
    return texts;
  }

  private async deliver(c: Consumer, text: string): Promise<void> {
    let parsed: { body: Body; stalls: number };
    try {
      parsed = parseMessageText(text);
    } catch (error) {
      // Not a message of this adapter: dropped from the active list, never delivered.
      await this.settle(c, text, '', 'done', '', 0);
      this.options.onError?.(toError(error), c.queue);
      return;
    }
    const { body, stalls } = parsed;
    const message: QueueMessage<unknown> = {
      id: body.id,
      queue: c.queue,
      name: body.name,
      payload: body.payload,
      attempt: body.made + 1,
      maxAttempts: body.max,
    };
    await runDelivery(this.active, {
      message,
      handler: c.handler,
      closing: this.aborted,
      settle: async (failure, aborted) => {
        if (!failure) return this.settle(c, text, body.id, 'done', '', 0);
        if (isHandBack(failure) || aborted) return this.settle(c, text, body.id, 'again', messageText(body, stalls), 0);
        if (isOutage(failure)) return this.settle(c, text, body.id, 'again', messageText(body, stalls), OUTAGE_RETRY_MS);
        const made = body.made + 1;
        const next = messageText({ ...body, made }, stalls);
        if (isPermanent(failure) || made >= body.max) return this.settle(c, text, body.id, 'failed', next, 0);
        return this.settle(c, text, body.id, 'again', next, Math.max(1, this.retryDelay(made, body.backoff)));
      },
    }).catch((error: unknown) => this.options.onError?.(toError(error), c.queue));
  }

  /**
   * Ends a delivery. A settle that fails (Redis down) is tried again until it succeeds or the adapter closes: the
   * message stays in this consumer's active list meanwhile, which no other consumer takes while this one lives.
   */
  private async settle(c: Consumer, taken: string, id: string, verdict: 'done' | 'again' | 'failed', next: string, delayMs: number) {
    const k = this.keys(c.queue);
    for (let wait = 100; ; wait = Math.min(wait * 2, 5000)) {
      try {
        await this.client.lqSettle(this.activeKey(c), k.ids, k.wait, k.delayed, k.failed, taken, id, verdict, next, delayMs);
        if (verdict === 'again' && delayMs > 0) this.soon(c, delayMs);
        return;
      } catch (error) {
        if (this.closing) return;
        this.options.onError?.(toError(error), c.queue);
        await new Promise((r) => setTimeout(r, wait).unref());
      }
    }
  }

  /** A delayed message of this consumer comes due: the upkeep moves it to the queue then, not at the next sweep. */
  private soon(c: Consumer, delayMs: number): void {
    setTimeout(() => void this.upkeep(c, ''), delayMs + 5).unref();
  }

  private async heartbeat(c: Consumer): Promise<void> {
    const k = this.keys(c.queue);
    await this.client
      .multi()
      .set(`${k.base}:alive:${c.id}`, '1', 'PX', this.stalledAfterMs)
      .sadd(k.consumers, c.id)
      // Alive again (a frozen process that woke up): no longer on its way out of the set.
      .hdel(`${k.base}:dead`, c.id)
      .exec()
      .catch((error: unknown) => this.options.onError?.(toError(error), c.queue));
  }

  private async upkeep(c: Consumer, own: string): Promise<void> {
    const k = this.keys(c.queue);
    await this.client
      .lqUpkeep(k.wait, k.delayed, k.consumers, k.ids, k.failed, k.base, this.options.maxStalledCount ?? 2, own, DEAD_CONSUMER_GRACE_MS)
      .catch((error: unknown) => this.options.onError?.(toError(error), c.queue));
  }

  private every(ms: number, fn: () => Promise<void>): NodeJS.Timeout {
    const timer = setInterval(() => void fn(), ms);
    timer.unref();
    return timer;
  }

  private keys(queue: string) {
    const base = `${this.prefix}:${queue}`;
    return {
      base,
      wait: `${base}:wait`,
      ids: `${base}:ids`,
      delayed: `${base}:delayed`,
      failed: `${base}:failed`,
      consumers: `${base}:consumers`,
    };
  }

  private activeKey(c: Consumer): string {
    return `${this.keys(c.queue).base}:active:${c.id}`;
  }

  private connect(blocking: boolean): Redis {
    const options: RedisOptions = blocking
      ? // A blocking read unanswered well past its own wait was lost on the way (a reconnection): the socket is
        // dropped and the read sent again (see BLOCKING_SOCKET_TIMEOUT_MS of the Bull adapter).
        {
          maxRetriesPerRequest: null,
          enableReadyCheck: false,
          socketTimeout: this.options.blockingSocketTimeoutMs ?? TAKE_WAIT_S * 1000 + 10_000,
        }
      : {};
    const client = new Redis(this.options.redisUrl, options);
    client.on('error', () => undefined);
    return client;
  }
}
