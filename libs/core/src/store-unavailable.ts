/** What a client is told to wait before retrying a request that met a store (or Redis) outage. */
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
 * Redis cannot be reached: the queues, job events, rate limits and politeness state are not there. Handled
 * as a store outage in every way (the 503 with Retry-After, queue work that waits without using up an
 * attempt), under its own name and detail (docs/operations.md "Redis goes down").
 */
export class QueueUnavailableError extends StoreUnavailableError {
  constructor(cause?: unknown, extensions?: Record<string, unknown>) {
    super(cause, extensions);
    this.message = 'The queue (Redis) is not reachable.';
    this.name = 'QueueUnavailableError';
  }

  override get detail(): string {
    return this.extensions?.job_id
      ? 'The job was accepted and goes on, but the queue is not reachable to answer now; follow it at `status_url`.'
      : 'The queue is not reachable. Retry after `Retry-After` seconds.';
  }
}

/**
 * The store answered one command with a failure of its own: neither the request's fault (a duplicate key, a bad
 * query) nor an outage (the server answers). MongoDB's InternalError and UnknownError, or the MongoDB-wire test
 * server's backend failing ("Unknown error: Chunk … not found" under load). The command did not take effect. The API
 * answers it as it answers an outage, 503 with Retry-After: the caller may retry, and an idempotency key makes that
 * safe. Queue work that meets it uses up an attempt, as any failure does (unlike an outage): a command that fails
 * every time must not be retried forever (docs/operations.md "The store goes down").
 */
export class StoreFailedError extends Error {
  readonly retryAfterSeconds = STORE_RETRY_AFTER_SECONDS;

  /** `extensions`: problem members for the client, e.g. the `job_id` of a job accepted before the failure. */
  constructor(
    cause?: unknown,
    readonly extensions?: Record<string, unknown>,
  ) {
    super('The data store failed a command.', cause === undefined ? undefined : { cause });
    this.name = 'StoreFailedError';
  }

  /** The problem's detail for the client (never the server's message). */
  get detail(): string {
    return this.extensions?.job_id
      ? 'The job was accepted and goes on, but the data store failed to answer now; follow it at `status_url`.'
      : 'The data store failed to carry out the request. Retry after `Retry-After` seconds.';
  }
}

/** The StoreFailedError in `error`'s cause chain (also by name, as storeOutageOf), or null. */
export function storeFailureOf(error: unknown): StoreFailedError | null {
  for (let e = error, depth = 0; e instanceof Error && depth < 8; e = e.cause, depth++) {
    if (e instanceof StoreFailedError || e.name === 'StoreFailedError') return e as StoreFailedError;
  }
  return null;
}

/**
 * `error`'s store outage or store failure again, with `extensions` added (the job a request had created before it,
 * so the 503 says the job exists), or null when `error` is neither.
 */
export function storeErrorWith(error: unknown, extensions: Record<string, unknown>): StoreUnavailableError | StoreFailedError | null {
  const outage = storeOutageOf(error);
  if (outage) {
    const merged = { ...outage.extensions, ...extensions };
    return outage instanceof QueueUnavailableError || outage.name === 'QueueUnavailableError'
      ? new QueueUnavailableError(error, merged)
      : new StoreUnavailableError(error, merged);
  }
  const failure = storeFailureOf(error);
  return failure ? new StoreFailedError(error, { ...failure.extensions, ...extensions }) : null;
}

const OUTAGE_NAMES = new Set(['StoreUnavailableError', 'QueueUnavailableError']);

/** ioredis's messages for a command that met no connection (its `CONNECTION_CLOSED_ERROR_MSG`, the offline-queue refusal, `commandTimeout`). */
const REDIS_CLOSED_MESSAGES = new Set([
  'Connection is closed.',
  "Stream isn't writeable and enableOfflineQueue options is false",
  'Command timed out',
]);

/** Replies of a Redis that is up but cannot serve yet: loading its AOF after a restart, a replica, a failover in progress. */
const REDIS_UNAVAILABLE_REPLY = /^(LOADING|READONLY|MASTERDOWN|CLUSTERDOWN|TRYAGAIN) /;

/**
 * Whether `error` is ioredis's (and so Bull's) report of a Redis that is down: recognised by the client's own
 * error names and messages, never by a socket's error code alone (a fetched page that refuses its connection
 * is no outage of ours).
 */
export function isRedisOutage(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  // The commands kept while ioredis reconnected, given up after `maxRetriesPerRequest` failed reconnections.
  if (error.name === 'MaxRetriesPerRequestError') return true;
  if (error.name === 'ReplyError') return REDIS_UNAVAILABLE_REPLY.test(error.message);
  return error.constructor === Error && REDIS_CLOSED_MESSAGES.has(error.message);
}

/**
 * Whether `error`, or an error it wraps (`cause`), is a store or Redis outage. By name too, so the error
 * survives a second copy of the module and code that wraps errors with their cause.
 */
export function isStoreUnavailable(error: unknown): boolean {
  return storeOutageOf(error) !== null;
}

/**
 * The outage in `error`'s cause chain, or null: the StoreUnavailableError (or QueueUnavailableError) an adapter
 * made, or an ioredis error of a connection that is down, as a QueueUnavailableError. The one place where a
 * Redis outage becomes one: whichever code it passed through, it reaches the API's error filter (a 503, never
 * a 500) and the queue's retry rule as an outage.
 */
export function storeOutageOf(error: unknown): StoreUnavailableError | null {
  for (let e = error, depth = 0; e instanceof Error && depth < 8; e = e.cause, depth++) {
    if (e instanceof StoreUnavailableError || OUTAGE_NAMES.has(e.name)) return e as StoreUnavailableError;
    if (isRedisOutage(e)) return new QueueUnavailableError(e);
  }
  return null;
}

/** How long a request waits for a Redis that is down before it is answered 503: as long as for the store. */
export const REDIS_OUTAGE_WAIT_MS = 5000;

/**
 * `work` (Redis commands), given up as a QueueUnavailableError once Redis has been down (`down()` true) for
 * `waitMs` while it waited. ioredis keeps a command through a reconnection and gives it up only after
 * `maxRetriesPerRequest` (20) failed reconnections, up to 40 s late in an outage: a request should learn of
 * the outage as soon as it would of the store's. A slow command on a live connection is never given up.
 */
export function withinRedisOutageWait<T>(work: Promise<T>, down: () => boolean, waitMs = REDIS_OUTAGE_WAIT_MS): Promise<T> {
  if (waitMs <= 0) return work;
  const tickMs = Math.min(500, waitMs);
  return new Promise<T>((resolve, reject) => {
    let downFor = 0;
    const timer = setInterval(() => {
      downFor = down() ? downFor + tickMs : 0;
      if (downFor < waitMs) return;
      clearInterval(timer);
      reject(new QueueUnavailableError(new Error(`Redis down for ${downFor} ms`)));
    }, tickMs);
    timer.unref?.();
    work.then(
      (value) => {
        clearInterval(timer);
        resolve(value);
      },
      (error: unknown) => {
        clearInterval(timer);
        reject(error);
      },
    );
  });
}

/** Closes an ioredis connection: QUIT, given half a second, then the socket is dropped (also when QUIT fails). */
export async function quitRedis(client: { status: string; quit(): Promise<unknown>; disconnect(): void }): Promise<void> {
  if (client.status === 'end') return;
  try {
    await Promise.race([client.quit(), new Promise((r) => setTimeout(r, 500).unref())]);
  } catch {
    // already closed
  }
  client.disconnect();
}

/**
 * Whether `client` (an ioredis connection) is down: it was connected once and is not now. A connection still
 * making its first connect is not down (a process just started, or a queue's connection opened on first use).
 */
export function redisDownProbe(client: { status: string; once(event: 'ready', listener: () => void): unknown }): () => boolean {
  let wasReady = client.status === 'ready';
  if (!wasReady) client.once('ready', () => (wasReady = true));
  return () => wasReady && client.status !== 'ready';
}
