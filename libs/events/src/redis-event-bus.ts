import { Redis } from 'ioredis';
import { quitRedis } from '@app/core';
import type { BusHandler, EventBusPort } from './event-bus.port';

export interface RedisEventBusOptions {
  redisUrl: string;
  /** Prepended to every channel name (default 'gleaner:bus:'). */
  channelPrefix?: string;
  onError?: (error: Error) => void;
}

/**
 * Cluster-mode bus on Redis pub/sub: one publishing and one subscribing connection per process.
 * ioredis re-subscribes every channel after a reconnect (autoResubscribe), so subscriptions
 * survive a Redis restart; messages published meanwhile are lost, which the port allows.
 */
export class RedisEventBus implements EventBusPort {
  readonly kind = 'redis' as const;
  private readonly publisher: Redis;
  private readonly subscriber: Redis;
  private readonly handlers = new Map<string, Set<BusHandler>>();
  /** Per channel, the pending SUBSCRIBE, so that a second subscriber also waits for Redis' confirmation. */
  private readonly subscribed = new Map<string, Promise<unknown>>();
  private readonly prefix: string;
  private closing?: Promise<void>;

  constructor(private readonly options: RedisEventBusOptions) {
    this.prefix = options.channelPrefix ?? 'gleaner:bus:';
    this.publisher = new Redis(options.redisUrl, { lazyConnect: false });
    this.subscriber = new Redis(options.redisUrl, { autoResubscribe: true, maxRetriesPerRequest: null });
    const onError = (error: Error) => this.options.onError?.(error);
    this.publisher.on('error', onError);
    this.subscriber.on('error', onError);
    this.subscriber.on('message', (channel: string, raw: string) => this.dispatch(channel, raw));
  }

  async publish(channel: string, message: unknown): Promise<void> {
    await this.publisher.publish(this.prefix + channel, JSON.stringify(message ?? null));
  }

  async subscribe(channel: string, handler: BusHandler): Promise<() => Promise<void>> {
    let set = this.handlers.get(channel);
    if (!set) {
      set = new Set();
      this.handlers.set(channel, set);
    }
    set.add(handler);
    let ready = this.subscribed.get(channel);
    if (!ready) {
      ready = this.subscriber.subscribe(this.prefix + channel);
      this.subscribed.set(channel, ready);
    }
    // Resolves once Redis confirmed: a publish after this call returns is received.
    await ready;
    let done = false;
    return async () => {
      if (done) return;
      done = true;
      const current = this.handlers.get(channel);
      if (!current) return;
      current.delete(handler);
      if (current.size === 0) {
        this.handlers.delete(channel);
        this.subscribed.delete(channel);
        if (this.subscriber.status !== 'end') await this.subscriber.unsubscribe(this.prefix + channel);
      }
    };
  }

  close(): Promise<void> {
    this.closing ??= (async () => {
      this.handlers.clear();
      await Promise.all([quitRedis(this.publisher), quitRedis(this.subscriber)]);
    })();
    return this.closing;
  }

  private dispatch(fullChannel: string, raw: string): void {
    if (!fullChannel.startsWith(this.prefix)) return;
    const set = this.handlers.get(fullChannel.slice(this.prefix.length));
    if (!set) return;
    let message: unknown;
    try {
      message = JSON.parse(raw);
    } catch {
      return; // not ours
    }
    for (const handler of [...set]) {
      try {
        handler(message);
      } catch {
        // handlers own their errors
      }
    }
  }
}
