/**
 * The event bus port: fire-and-forget fan-out to every process (Redis pub/sub in cluster mode,
 * an in-process emitter in embedded mode). Nothing durable travels only on the bus: job events are
 * persisted first and the bus only says "something new happened", so a lost message costs latency,
 * never data.
 */
export type BusHandler = (message: unknown) => void;

export interface EventBusPort {
  readonly kind: 'redis' | 'local';
  publish(channel: string, message: unknown): Promise<void>;
  /** Returns an unsubscribe function. Handlers are called in publish order per channel. */
  subscribe(channel: string, handler: BusHandler): Promise<() => Promise<void>>;
  close(): Promise<void>;
}

export const EVENT_BUS = Symbol('EVENT_BUS');

/**
 * Rate limiter port (fixed or sliding window per key): Redis-backed in cluster mode so that every
 * API replica and crawler shares the same counters; in memory in embedded mode.
 */
export interface RateLimitDecision {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Milliseconds until the window resets. */
  resetMs: number;
}

export interface RateLimiterPort {
  consume(key: string, limit: number, windowMs: number): Promise<RateLimitDecision>;
  close(): Promise<void>;
}

export const RATE_LIMITER = Symbol('RATE_LIMITER');
