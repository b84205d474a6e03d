export * from './politeness.port';
export * from './memory-politeness';
export * from './redis-politeness';
export * from './redis-host-mode-memory';
export * from './host-slot';
