export { ERROR_CATEGORIES, isErrorCategory, type ErrorCategory } from './error-category';
export { isProblemSlug, PROBLEMS, type ProblemSlug } from './problems';
export { AppError, DuplicateKeyError, Errors, isOwnFailure, type FieldError } from './app-error';
export { newId, nowIso, sleep } from './ids';
export { SECRET_SEALER, type SecretSealer } from './secret-sealer';
export { isSealedSecret, SecretBox, type SealedSecret } from './secret-box';
export { BACKOFFS, backoffMs, type Backoff } from './backoff';
export { GAP_WEIGHT, GapClock, LINGER_GAPS, lingerFor, type LingerBounds } from './gap-clock';
export { WriteBatch, type WriteBatchLimits } from './write-batch';
export { roundUsd } from './money';
export { Usage, type ModelRunUsage, type UsageCounterFields, type UsageRecordFields, type UsageWire } from './usage';
export {
  isRedisOutage,
  isStoreUnavailable,
  QueueUnavailableError,
  quitRedis,
  REDIS_OUTAGE_WAIT_MS,
  redisDownProbe,
  STORE_RETRY_AFTER_SECONDS,
  StoreFailedError,
  StoreUnavailableError,
  storeErrorWith,
  storeFailureOf,
  storeOutageOf,
  withinRedisOutageWait,
} from './store-unavailable';
export { TENANT_ERASERS, TENANT_ERASURE_PHASES, TenantErasers, type TenantEraser, type TenantErasurePhase } from './tenant-erasure';
export { WARNING_CODES, warning, warningsOf, type Warning, type WarningCode } from './warnings';
export { calendarDate, httpUrlOf, instantOf } from './text-values';
