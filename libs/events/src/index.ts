export { EVENT_BUS, RATE_LIMITER, type EventBusPort, type RateLimiterPort } from './event-bus.port';
export { LocalEventBus } from './local-event-bus';
export { RedisEventBus } from './redis-event-bus';
export { MemoryRateLimiter, RedisRateLimiter } from './rate-limiter';
