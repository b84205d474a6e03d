export * from './bounded-label';
export * from './logger';
export * from './nest-logger';
export * from './metrics';
