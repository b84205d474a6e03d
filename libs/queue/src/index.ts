export * from './queue.port';
export { backoffDelayMs } from './queue-helpers';
export { BullQueueAdapter, type BullQueueAdapterOptions } from './bull/bull-queue.adapter';
export { StoreQueueAdapter, QUEUE_MESSAGES, type StoreQueueAdapterOptions, type QueueMessageDoc } from './store/store-queue.adapter';
