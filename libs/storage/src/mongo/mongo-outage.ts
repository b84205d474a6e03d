import { StoreFailedError, StoreUnavailableError } from '@app/core';

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

/** InternalError, UnknownError: the server failed the command by itself. */
const SERVER_FAILURE_CODES = new Set([1, 8]);
/** Labels the server puts on an error a retry of the same command may not meet. */
const TRANSIENT_LABELS = ['RetryableWriteError', 'TransientTransactionError'];

/**
 * A MongoDB outage becomes StoreUnavailableError (the API's 503, the queue's wait without an attempt), a
 * command the server failed by itself StoreFailedError (the API's 503 too; the queue uses an attempt);
 * anything else passes as it is. For every user of a MongoDB connection: the document store and the
 * archive's GridFS blobs (docs/operations.md "The store goes down").
 */
export function asStoreOutage(error: unknown): unknown {
  if (isMongoOutage(error)) return new StoreUnavailableError(error);
  return isMongoServerFailure(error) ? new StoreFailedError(error) : error;
}

/**
 * The server's own failure of one command, not the command's fault: MongoDB's InternalError (1) or UnknownError (8),
 * an error labelled retryable or transient, or the MongoDB-wire test server's answer when its backend throws (no code,
 * "Unknown error: …", as its H2 file backend's "Chunk … not found" under load). A duplicate key, a bad query or a
 * validation failure carries a code of its own and is none of these.
 */
export function isMongoServerFailure(error: unknown): boolean {
  const e = error as { name?: string; code?: unknown; message?: unknown; errorLabels?: unknown; errorLabelSet?: unknown } | null;
  if (!e || e.name !== 'MongoServerError') return false;
  if (typeof e.code === 'number') {
    if (SERVER_FAILURE_CODES.has(e.code)) return true;
  } else if (typeof e.message === 'string' && e.message.startsWith('Unknown error')) return true;
  const labels = e.errorLabelSet instanceof Set ? [...(e.errorLabelSet as Set<string>)] : Array.isArray(e.errorLabels) ? e.errorLabels : [];
  return labels.some((label) => TRANSIENT_LABELS.includes(String(label)));
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
