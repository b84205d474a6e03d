import {
  isRedisOutage,
  isStoreUnavailable,
  QueueUnavailableError,
  redisDownProbe,
  storeOutageOf,
  StoreUnavailableError,
  withinRedisOutageWait,
} from './store-unavailable';
import { EventEmitter } from 'node:events';

/** An error as ioredis makes it: a class of its own (by name) or a plain Error with its message. */
const named = (name: string, message: string) => Object.assign(new Error(message), { name });

describe('isRedisOutage', () => {
  it("recognises ioredis's reports of a connection that is down, and Redis replies that it cannot serve yet", () => {
    expect(isRedisOutage(named('MaxRetriesPerRequestError', 'Reached the max retries per request limit (which is 20).'))).toBe(true);
    expect(isRedisOutage(new Error('Connection is closed.'))).toBe(true);
    expect(isRedisOutage(new Error("Stream isn't writeable and enableOfflineQueue options is false"))).toBe(true);
    expect(isRedisOutage(new Error('Command timed out'))).toBe(true);
    expect(isRedisOutage(named('ReplyError', 'LOADING Redis is loading the dataset in memory'))).toBe(true);
    expect(isRedisOutage(named('ReplyError', 'READONLY You cannot write against a read only replica.'))).toBe(true);
  });

  it('leaves alone what is not an outage: a wrong command, a socket error of anything else, a subclass with the same message', () => {
    expect(isRedisOutage(named('ReplyError', 'WRONGTYPE Operation against a key holding the wrong kind of value'))).toBe(false);
    expect(isRedisOutage(named('ReplyError', 'ERR unknown command'))).toBe(false);
    // A fetched page's refused connection is the page's failure, never an outage of ours.
    expect(isRedisOutage(Object.assign(new Error('connect ECONNREFUSED 10.0.0.9:80'), { code: 'ECONNREFUSED' }))).toBe(false);
    expect(isRedisOutage(new TypeError('Connection is closed.'))).toBe(false);
    expect(isRedisOutage('Connection is closed.')).toBe(false);
  });
});

describe('storeOutageOf', () => {
  it('makes a Redis outage a QueueUnavailableError, found under the errors that wrapped it', () => {
    const cause = named('MaxRetriesPerRequestError', 'Reached the max retries per request limit (which is 20).');
    const outage = storeOutageOf(new Error('enqueue failed', { cause }));
    expect(outage).toBeInstanceOf(QueueUnavailableError);
    expect(outage).toBeInstanceOf(StoreUnavailableError);
    expect(outage?.cause).toBe(cause);
    expect(outage?.retryAfterSeconds).toBe(5);
    expect(outage?.detail).toBe('The queue is not reachable. Retry after `Retry-After` seconds.');
    expect(isStoreUnavailable(cause)).toBe(true);
  });

  it('returns the outage an adapter made as it is, also by name (a second copy of the module)', () => {
    const store = new StoreUnavailableError();
    expect(storeOutageOf(store)).toBe(store);
    const copy = named('QueueUnavailableError', 'The queue (Redis) is not reachable.');
    expect(storeOutageOf(copy)).toBe(copy);
    expect(storeOutageOf(new Error('a bug'))).toBeNull();
  });
});

describe('withinRedisOutageWait', () => {
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());

  it('gives a command up as QueueUnavailableError once Redis has been down for the wait', async () => {
    let down = false;
    const never = new Promise<string>(() => undefined);
    const waited = withinRedisOutageWait(never, () => down, 5000);
    const settled = jest.fn();
    waited.then(settled, settled);
    await jest.advanceTimersByTimeAsync(20_000); // connected all along: a slow command is not given up
    expect(settled).not.toHaveBeenCalled();
    down = true;
    await jest.advanceTimersByTimeAsync(4500);
    expect(settled).not.toHaveBeenCalled();
    await jest.advanceTimersByTimeAsync(500);
    expect(settled).toHaveBeenCalledWith(expect.any(QueueUnavailableError));
  });

  it('starts counting again when Redis came back meanwhile, and passes answers and errors through', async () => {
    let down = true;
    let answer!: (value: string) => void;
    const waited = withinRedisOutageWait(new Promise<string>((resolve) => (answer = resolve)), () => down, 5000);
    await jest.advanceTimersByTimeAsync(4000);
    down = false;
    await jest.advanceTimersByTimeAsync(500);
    down = true;
    await jest.advanceTimersByTimeAsync(4000);
    answer('OK');
    await expect(waited).resolves.toBe('OK');
    const failure = new Error('WRONGTYPE');
    await expect(withinRedisOutageWait(Promise.reject(failure), () => true)).rejects.toBe(failure);
  });
});

describe('redisDownProbe', () => {
  it('is down only once the connection was ready and is not now (a first connect is not an outage)', () => {
    const client = Object.assign(new EventEmitter(), { status: 'connecting' });
    const down = redisDownProbe(client);
    expect(down()).toBe(false);
    client.status = 'ready';
    client.emit('ready');
    expect(down()).toBe(false);
    client.status = 'reconnecting';
    expect(down()).toBe(true);
    client.status = 'connecting';
    expect(down()).toBe(true);
    client.status = 'ready';
    expect(down()).toBe(false);
  });
});
