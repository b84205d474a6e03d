import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { QUEUE_MESSAGES, StoreQueueAdapter } from '@app/queue';
import {
  MongoDocumentStore,
  SqliteDocumentStore,
  type Collection,
  type CollectionSpec,
  type Doc,
  type DocumentStore,
  type Filter,
} from '@app/storage';
import { describeWith, serverUrl, uniqueDbName } from '../harness/require-server';
import { queueContract, waitFor } from './queue.contract';

/**
 * The store as the adapter sees it, reporting each claim query that found nothing for `queue`. The
 * claim's last query looks for an expired lease (status 'active'); when it comes back empty, the
 * consumer goes to sleep right after, in the same chain of promise reactions.
 */
function watchingEmptyClaims(store: DocumentStore, queue: string, onEmptyClaim: () => void): DocumentStore {
  const watch = <T extends Doc>(col: Collection<T>): Collection<T> =>
    new Proxy(col, {
      get(target, prop) {
        const value = Reflect.get(target, prop, target) as unknown;
        if (typeof value !== 'function') return value;
        if (prop !== 'findOneAndUpdate') return value.bind(target);
        return async (filter: Filter, ...rest: unknown[]) => {
          const found = (await value.call(target, filter, ...rest)) as unknown;
          if (!found && filter.queue === queue && filter.status === 'active') onEmptyClaim();
          return found;
        };
      },
    });
  return {
    kind: store.kind,
    collection: async <T extends Doc>(spec: CollectionSpec) => watch(await store.collection<T>(spec)),
    ping: () => store.ping(),
    close: () => store.close(),
  };
}

describe('QueueContract: StoreQueueAdapter on SQLite', () => {
  let dir: string;
  let file: string;
  const stores: DocumentStore[] = [];

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'gleaner-queue-'));
    file = join(dir, 'queue.db');
  });
  afterAll(async () => {
    await Promise.all(stores.map((s) => s.close()));
    rmSync(dir, { recursive: true, force: true });
  });

  queueContract(() => ({
    // Each adapter gets its own connection to the file, like a separate process would.
    create: async (options) => {
      const store = SqliteDocumentStore.open({ file });
      stores.push(store);
      return new StoreQueueAdapter({ store, leaseMs: 1000, pollIntervalMs: 50, abortGraceMs: 2000, retryDelay: options?.retryDelay });
    },
    childEnv: () => ({ QUEUE_FIXTURE_KIND: 'sqlite', QUEUE_FIXTURE_SQLITE_FILE: file, QUEUE_FIXTURE_STALLED_MS: '1000' }),
  }));

  it('wakes an in-process consumer at once instead of waiting for the next poll', async () => {
    const store = SqliteDocumentStore.open({ file });
    stores.push(store);
    let emptyClaims = 0;
    let sawEmptyClaim!: () => void;
    const idle = new Promise<void>((resolve) => (sawEmptyClaim = resolve));
    const watched = watchingEmptyClaims(store, 'wake', () => {
      emptyClaims += 1;
      sawEmptyClaim();
    });
    // The next poll is ten minutes away, far beyond the test timeout: only the wake-up can deliver.
    const queue = new StoreQueueAdapter({ store: watched, pollIntervalMs: 600_000 });
    try {
      let delivered = 0;
      await queue.process('wake', 1, async () => {
        delivered += 1;
      });
      // The consumer found nothing and went to sleep (one event-loop turn after its empty claim).
      await idle;
      await new Promise<void>((resolve) => setImmediate(resolve));
      expect(emptyClaims).toBe(1);
      await queue.enqueue('wake', 'ping', {});
      await waitFor(() => delivered === 1, 30_000, 'the woken consumer to deliver');
    } finally {
      await queue.close();
    }
  });

  it('stores messages in queue_messages with the failure kept for inspection', async () => {
    const store = SqliteDocumentStore.open({ file });
    stores.push(store);
    const queue = new StoreQueueAdapter({ store, pollIntervalMs: 20 });
    try {
      await queue.enqueue('inspect', 'job', { a: 1 }, { jobId: 'inspect-1', attempts: 1 });
      await queue.process('inspect', 1, async () => {
        throw new Error('broken for good');
      });
      const col = await store.collection(QUEUE_MESSAGES);
      await waitFor(async () => (await col.findOne({ _id: 'inspect-1' }))?.status === 'failed', 30_000, 'the message to fail');
      const doc = await col.findOne({ _id: 'inspect-1' });
      expect(doc).toMatchObject({
        queue: 'inspect',
        status: 'failed',
        attempt: 1,
        last_error: { name: 'Error', message: 'broken for good' },
      });
    } finally {
      await queue.close();
    }
  });
});

describeWith(['mongodb'], 'QueueContract: StoreQueueAdapter on MongoDB', () => {
  const dbName = uniqueDbName('gleaner_queue');
  const stores: DocumentStore[] = [];

  afterAll(async () => {
    await Promise.all(stores.map((s) => s.close()));
  });

  queueContract(() => ({
    create: async (options) => {
      const store = await MongoDocumentStore.connect(serverUrl('mongodb')!, { dbName });
      stores.push(store);
      return new StoreQueueAdapter({ store, leaseMs: 1000, pollIntervalMs: 50, abortGraceMs: 2000, retryDelay: options?.retryDelay });
    },
    childEnv: () => ({
      QUEUE_FIXTURE_KIND: 'mongodb',
      QUEUE_FIXTURE_MONGODB_URI: serverUrl('mongodb')!,
      QUEUE_FIXTURE_MONGODB_DB: dbName,
      QUEUE_FIXTURE_STALLED_MS: '1000',
    }),
  }));
});
