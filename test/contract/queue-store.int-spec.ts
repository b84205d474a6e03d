import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { QUEUE_MESSAGES, StoreQueueAdapter } from '@app/queue';
import { MongoDocumentStore, SqliteDocumentStore, type DocumentStore } from '@app/storage';
import { describeWith, serverUrl, uniqueDbName } from '../harness/require-server';
import { queueContract } from './queue.contract';

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
    create: async () => {
      const store = SqliteDocumentStore.open({ file });
      stores.push(store);
      return new StoreQueueAdapter({ store, leaseMs: 1000, pollIntervalMs: 50, abortGraceMs: 2000 });
    },
    childEnv: () => ({ QUEUE_FIXTURE_KIND: 'sqlite', QUEUE_FIXTURE_SQLITE_FILE: file, QUEUE_FIXTURE_STALLED_MS: '1000' }),
  }));

  it('wakes an in-process consumer at once instead of waiting for the next poll', async () => {
    const store = SqliteDocumentStore.open({ file });
    stores.push(store);
    const queue = new StoreQueueAdapter({ store, pollIntervalMs: 10_000 });
    try {
      let deliveredAt = 0;
      await queue.process('wake', 1, async () => {
        deliveredAt = Date.now();
      });
      await new Promise((r) => setTimeout(r, 100)); // the consumer is asleep now
      const enqueuedAt = Date.now();
      await queue.enqueue('wake', 'ping', {});
      while (deliveredAt === 0 && Date.now() - enqueuedAt < 3000) await new Promise((r) => setTimeout(r, 5));
      expect(deliveredAt - enqueuedAt).toBeLessThan(200);
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
      let doc = await col.findOne({ _id: 'inspect-1' });
      const deadline = Date.now() + 3000;
      while (doc?.status !== 'failed' && Date.now() < deadline) {
        await new Promise((r) => setTimeout(r, 20));
        doc = await col.findOne({ _id: 'inspect-1' });
      }
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
    create: async () => {
      const store = await MongoDocumentStore.connect(serverUrl('mongodb')!, { dbName });
      stores.push(store);
      return new StoreQueueAdapter({ store, leaseMs: 1000, pollIntervalMs: 50, abortGraceMs: 2000 });
    },
    childEnv: () => ({
      QUEUE_FIXTURE_KIND: 'mongodb',
      QUEUE_FIXTURE_MONGODB_URI: serverUrl('mongodb')!,
      QUEUE_FIXTURE_MONGODB_DB: dbName,
      QUEUE_FIXTURE_STALLED_MS: '1000',
    }),
  }));
});
