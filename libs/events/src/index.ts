export * from './event-bus.port';
export { LocalEventBus } from './local-event-bus';
export { RedisEventBus, type RedisEventBusOptions } from './redis-event-bus';
export { RedisRateLimiter, MemoryRateLimiter, type RedisRateLimiterOptions } from './rate-limiter';
