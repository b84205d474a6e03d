/** What a client is told to wait before retrying a request that met a store outage. */
export const STORE_RETRY_AFTER_SECONDS = 5;

/**
 * The document store cannot be reached (a MongoDB restart, a failover, a network cut). Not the request's
 * nor the job's fault, and not a domain error either (deliberately not an AppError: code that turns domain
 * errors into job or page failures lets it pass as it is). The API answers it with a 503 problem and
 * Retry-After; queue work that meets it goes back to its queue without using up an attempt, as often as the
 * outage needs (docs/operations.md "The store goes down").
 */
export class StoreUnavailableError extends Error {
  readonly retryAfterSeconds = STORE_RETRY_AFTER_SECONDS;

  /** `extensions`: problem members for the client, e.g. the `job_id` of a job accepted before the outage. */
  constructor(
    cause?: unknown,
    readonly extensions?: Record<string, unknown>,
  ) {
    super('The data store is not reachable.', cause === undefined ? undefined : { cause });
    this.name = 'StoreUnavailableError';
  }

  /** The problem's detail for the client (never the driver's message: it names hosts). */
  get detail(): string {
    return this.extensions?.job_id
      ? 'The job was accepted and goes on, but the data store is not reachable to answer now; follow it at `status_url`.'
      : 'The data store is not reachable. Retry after `Retry-After` seconds.';
  }
}

/**
 * Whether `error`, or an error it wraps (`cause`), is a store outage. By name too, so the error survives a
 * second copy of the module and code that wraps errors with their cause.
 */
export function isStoreUnavailable(error: unknown): boolean {
  return storeOutageOf(error) !== null;
}

/** The StoreUnavailableError in `error`'s cause chain, or null. */
export function storeOutageOf(error: unknown): StoreUnavailableError | null {
  for (let e = error, depth = 0; e instanceof Error && depth < 8; e = e.cause, depth++) {
    if (e instanceof StoreUnavailableError || e.name === 'StoreUnavailableError') return e as StoreUnavailableError;
  }
  return null;
}
