import { StoreFailedError, StoreUnavailableError } from '@app/core';
import { asStoreOutage, isMongoOutage, isMongoServerFailure } from './mongo-outage';

/** An error shaped as the driver throws it (name, code, errorResponse, cause). */
function driverError(name: string, fields: Record<string, unknown> = {}): Error {
  const error = new Error(`${name} happened`);
  error.name = name;
  return Object.assign(error, fields);
}

describe('asStoreOutage: which MongoDB errors are an outage', () => {
  it.each([
    ['a server it cannot select', driverError('MongoServerSelectionError')],
    ['a dropped connection', driverError('MongoNetworkError')],
    ['a cleared pool', driverError('MongoPoolClearedError')],
    ['a primary stepping down (by code)', driverError('MongoServerError', { code: 189 })],
    ['a shutdown in the server answer', driverError('MongoServerError', { errorResponse: { code: 91 } })],
    ['a bulk write that failed on its socket', driverError('MongoBulkWriteError', { code: 'ECONNRESET', writeErrors: [] })],
    ['an outage as the cause of another error', new Error('wrapped', { cause: driverError('MongoNetworkTimeoutError') })],
  ])('%s becomes StoreUnavailableError, with the original as its cause', (_what, error) => {
    expect(isMongoOutage(error)).toBe(true);
    const mapped = asStoreOutage(error);
    expect(mapped).toBeInstanceOf(StoreUnavailableError);
    expect((mapped as Error).cause).toBe(error);
  });

  it.each([
    ['a duplicate key', driverError('MongoServerError', { code: 11000 })],
    ['a bulk write with a document error', driverError('MongoBulkWriteError', { code: 'EDUP', writeErrors: [{ code: 11000 }] })],
    ['a GridFS file not found (the driver gives it the code ENOENT)', driverError('MongoRuntimeError', { code: 'ENOENT' })],
    ['a plain error', new Error('boom')],
    ['not an error at all', 'boom'],
    ['a bad operator (BadValue)', driverError('MongoServerError', { code: 2 })],
    [
      'a server error without a code that is not the server failing',
      driverError('MongoServerError', { message: 'unknown top level operator' }),
    ],
  ])('%s passes unchanged', (_what, error) => {
    expect(isMongoOutage(error)).toBe(false);
    expect(isMongoServerFailure(error)).toBe(false);
    expect(asStoreOutage(error)).toBe(error);
  });

  it.each([
    ['an InternalError', driverError('MongoServerError', { code: 1 })],
    ['an UnknownError', driverError('MongoServerError', { code: 8 })],
    ['a write labelled retryable', driverError('MongoServerError', { code: 112, errorLabelSet: new Set(['RetryableWriteError']) })],
    [
      'the MongoDB-wire server failing in its backend',
      Object.assign(driverError('MongoServerError'), { message: 'Unknown error: Chunk 85072 not found' }),
    ],
  ])("%s is the store failing a command: StoreFailedError (the API's 503), not an outage", (_what, error) => {
    expect(isMongoOutage(error)).toBe(false);
    const mapped = asStoreOutage(error);
    expect(mapped).toBeInstanceOf(StoreFailedError);
    expect((mapped as Error).cause).toBe(error);
  });
});
