import { AppError, StoreFailedError, StoreUnavailableError, storeErrorWith } from '@app/core';
import { Redis } from 'ioredis';
import { toProblem } from './problem';

/** The 503 problem of an outage, answered to a read of /api/v1/jobs/j1 in request r1. */
const unavailable = (detail: string) => ({
  status: 503,
  headers: { 'retry-after': '5' },
  body: { type: '/problems/service-unavailable', title: 'Service unavailable', status: 503, detail, instance: '/api/v1/jobs/j1#r1' },
});

describe('toProblem: store outages', () => {
  it('answers a store outage with a 503 problem and Retry-After, without the driver message', () => {
    const outage = new StoreUnavailableError(new Error('connect ECONNREFUSED 10.0.0.7:27017'));
    const problem = toProblem(outage, '/api/v1/jobs/j1', 'r1');
    expect(problem).toEqual(unavailable('The data store is not reachable. Retry after `Retry-After` seconds.'));
    expect(JSON.stringify(problem)).not.toContain('10.0.0.7');
  });

  it('finds the outage under errors that wrapped it, even an internal AppError, but not under another problem', () => {
    const wrapped = new Error('saving failed', { cause: new StoreUnavailableError() });
    expect(toProblem(wrapped, '/x', 'r').status).toBe(503);
    const internal = new AppError('internal-error', 'oops', { cause: new StoreUnavailableError() });
    expect(toProblem(internal, '/x', 'r').status).toBe(503);
    const upstream = new AppError('upstream-failure', 'the site failed', { category: 'fetch_error', cause: new StoreUnavailableError() });
    expect(toProblem(upstream, '/x', 'r').status).toBe(502);
  });

  it('carries the job of an accepted request', () => {
    const problem = toProblem(
      new StoreUnavailableError(undefined, { job_id: 'j9', status_url: '/api/v1/jobs/j9' }),
      '/api/v1/extract',
      'r',
    );
    expect(problem.status).toBe(503);
    expect(problem.body).toMatchObject({ job_id: 'j9', status_url: '/api/v1/jobs/j9', detail: expect.stringContaining('accepted') });
  });
});

describe('toProblem: a command the store failed (StoreFailedError)', () => {
  it('answers 503 with Retry-After, not 500, without the server message; with the job when one was accepted', () => {
    const failed = new StoreFailedError(new Error('Unknown error: Chunk 85072 not found'));
    const problem = toProblem(new Error('reading the job failed', { cause: failed }), '/api/v1/jobs/j1', 'r1');
    expect(problem).toEqual(unavailable('The data store failed to carry out the request. Retry after `Retry-After` seconds.'));
    expect(JSON.stringify(problem)).not.toContain('Chunk');
    const accepted = toProblem(storeErrorWith(failed, { job_id: 'j9', status_url: '/api/v1/jobs/j9' }), '/api/v1/extract', 'r');
    expect(accepted.status).toBe(503);
    expect(accepted.body).toMatchObject({ job_id: 'j9', status_url: '/api/v1/jobs/j9', detail: expect.stringContaining('accepted') });
  });

  it('storeErrorWith keeps the kind of store error and adds the job; other errors are not its business', () => {
    expect(storeErrorWith(new StoreUnavailableError(), { job_id: 'j' })).toBeInstanceOf(StoreUnavailableError);
    expect(storeErrorWith(new Error('x', { cause: new StoreFailedError() }), { job_id: 'j' })).toMatchObject({
      name: 'StoreFailedError',
      extensions: { job_id: 'j' },
    });
    expect(storeErrorWith(new Error('a bug'), { job_id: 'j' })).toBeNull();
  });
});

describe('toProblem: Redis outages', () => {
  it('answers what ioredis reports of a Redis that is down with the same 503 and Retry-After, never a 500', async () => {
    // Real errors of a real client on a port where nothing listens: the command is given up after one
    // reconnection, then the client stops reconnecting and every later command meets a closed connection.
    const client = new Redis('redis://127.0.0.1:1', { maxRetriesPerRequest: 1, retryStrategy: (times) => (times <= 2 ? 20 : null) });
    client.on('error', () => undefined);
    const givenUp = await client.get('k').then(
      () => null,
      (error: unknown) => error,
    );
    if (client.status !== 'end') await new Promise((resolve) => client.once('end', resolve));
    const closed = await client.get('k').then(
      () => null,
      (error: unknown) => error,
    );
    expect((givenUp as Error).name).toBe('MaxRetriesPerRequestError');
    expect((closed as Error).message).toBe('Connection is closed.');
    for (const error of [givenUp, closed, new Error('enqueue failed', { cause: givenUp })]) {
      expect(toProblem(error, '/api/v1/jobs/j1', 'r1')).toEqual(
        unavailable('The queue is not reachable. Retry after `Retry-After` seconds.'),
      );
    }
  });

  it('leaves a Redis error that is not an outage (a wrong command) a 500', () => {
    // ioredis's ReplyError (redis-errors): a server's error reply, by name.
    const reply = (message: string) => Object.assign(new Error(message), { name: 'ReplyError' });
    expect(toProblem(reply('WRONGTYPE Operation against a key holding the wrong kind of value'), '/x', 'r').status).toBe(500);
    expect(toProblem(reply('LOADING Redis is loading the dataset in memory'), '/x', 'r').status).toBe(503);
  });
});
