export { CRAWL_PAGES_QUEUE, HandBackError, PermanentError, QUEUE, type QueueMessage, type QueuePort } from './queue.port';
export { backoffDelayMs, messageBackoff, type RetryDelay } from './queue-helpers';
export { BullQueueAdapter } from './bull/bull-queue.adapter';
export { QUEUE_MESSAGES, StoreQueueAdapter } from './store/store-queue.adapter';
export { MemoryQueueAdapter, MemoryQueueBroker } from './memory/memory-queue.adapter';
export { RoutedQueueAdapter } from './routed-queue';
export { RedisListQueueAdapter } from './redis-list/redis-list-queue.adapter';
