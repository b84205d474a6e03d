import { EventEmitter } from 'node:events';
import type { BusHandler, EventBusPort } from './event-bus.port';

/**
 * Embedded-mode bus: one process, so an emitter is enough. Delivery is asynchronous (a publisher
 * never runs subscriber code on its own stack) and in publish order, like Redis pub/sub.
 */
export class LocalEventBus implements EventBusPort {
  readonly kind = 'local' as const;
  private readonly emitter = new EventEmitter();
  private closed = false;

  constructor() {
    this.emitter.setMaxListeners(0);
  }

  async publish(channel: string, message: unknown): Promise<void> {
    if (this.closed) throw new Error('event bus is closed');
    // A JSON round trip gives subscribers what Redis would (a copy; Dates as strings; undefined as null).
    const copy = JSON.parse(JSON.stringify(message ?? null)) as unknown;
    // setImmediate callbacks run FIFO, so per-channel order is kept.
    setImmediate(() => {
      if (!this.closed) this.emitter.emit(channel, copy);
    });
  }

  async subscribe(channel: string, handler: BusHandler): Promise<() => Promise<void>> {
    if (this.closed) throw new Error('event bus is closed');
    // A throwing handler must not stop delivery to the others.
    const listener = (message: unknown) => {
      try {
        handler(message);
      } catch {
        // handlers own their errors
      }
    };
    this.emitter.on(channel, listener);
    return async () => {
      this.emitter.off(channel, listener);
    };
  }

  async close(): Promise<void> {
    this.closed = true;
    this.emitter.removeAllListeners();
  }
}
