export { BoundedLabel } from './bounded-label';
export { createLogger, scrubSecrets, type AppLogger } from './logger';
export { PinoNestLogger } from './nest-logger';
export { LOGGER, Metrics, METRICS, type AuthFailureReason } from './metrics';
