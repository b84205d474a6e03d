import { StoreUnavailableError } from '@app/core';

/** The driver's errors for a server it cannot reach, or one that is stepping down or shutting down. */
const OUTAGE_NAMES = new Set([
  'MongoServerSelectionError',
  'MongooseServerSelectionError',
  'MongoNetworkError',
  'MongoNetworkTimeoutError',
  'MongoNotConnectedError',
  'MongoPoolClearedError',
  'MongoServerClosedError',
]);
/** ShutdownInProgress, PrimarySteppedDown, NotWritablePrimary, InterruptedAtShutdown, InterruptedDueToReplStateChange, NotPrimaryNoSecondaryOk, NotPrimaryOrSecondary. */
const OUTAGE_CODES = new Set([91, 189, 10107, 11600, 11602, 13435, 13436]);

/**
 * A MongoDB outage becomes StoreUnavailableError (the API's 503, the queue's wait without an attempt);
 * anything else passes as it is. For every user of a MongoDB connection: the document store and the
 * archive's GridFS blobs (docs/operations.md "The store goes down").
 */
export function asStoreOutage(error: unknown): unknown {
  return isMongoOutage(error) ? new StoreUnavailableError(error) : error;
}

export function isMongoOutage(error: unknown): boolean {
  type Failure = { name?: string; code?: unknown; cause?: unknown; writeErrors?: unknown[]; errorResponse?: Record<string, unknown> };
  for (let e = error as Failure | null, depth = 0; e && depth < 4; depth++) {
    const code = e.code ?? e.errorResponse?.code;
    if (OUTAGE_NAMES.has(e.name ?? '') || (typeof code === 'number' && OUTAGE_CODES.has(code))) return true;
    // A bulk write (mongoose's insertMany) that failed on its connection, not on a document: it carries the
    // network error's fields (the socket's error code, `beforeHandshake`) instead of write errors. The
    // driver's own runtime errors borrow such codes too (GridFS: a file not found is `ENOENT`): never an outage.
    const networkFields =
      typeof code === 'string' ? /^E[A-Z]+$/.test(code) : e.errorResponse !== undefined && 'beforeHandshake' in e.errorResponse;
    if (networkFields && e.name !== 'MongoRuntimeError' && !(e.writeErrors && e.writeErrors.length > 0)) return true;
    e = e.cause as Failure | null;
  }
  return false;
}
