export * from './queue.port';
export { backoffDelayMs, OUTAGE_RETRY_MS, type RetryDelay } from './queue-helpers';
export { BullQueueAdapter, type BullQueueAdapterOptions } from './bull/bull-queue.adapter';
export { StoreQueueAdapter, QUEUE_MESSAGES, type StoreQueueAdapterOptions, type QueueMessageDoc } from './store/store-queue.adapter';
export { MemoryQueueAdapter, MemoryQueueBroker, type MemoryQueueAdapterOptions } from './memory/memory-queue.adapter';
export { RoutedQueueAdapter } from './routed-queue';
