export { hostnameOf, POLITENESS, type HostRequestPolicy, type PolitenessPort } from './politeness.port';
export { MemoryPoliteness } from './memory-politeness';
export { RedisPoliteness } from './redis-politeness';
export { RedisHostModeMemory } from './redis-host-mode-memory';
export { whenHostFree, withHostSlot, type SlotOptions } from './host-slot';
export { crawlHostPolicy } from './crawl-host-policy';
