/**
 * The MongoDB-wire test server's file mode (mongo-java-server's H2 backend behind DurableH2Backend): the
 * chaos soak kills it with -9 and restarts it on the same file, so every write it acknowledged must be
 * there afterwards, unique indexes must still hold, and the DocumentStore contract must pass on it.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MongoClient } from 'mongodb';
import { StoreUnavailableError } from '@app/core';
import { toProblem } from '@app/http';
import { MongoDocumentStore } from '@app/storage';
import { startMongoWire, type StartedServer } from '../harness/servers';
import { storageContract } from './storage.contract';

jest.setTimeout(120_000);

function killed(server: StartedServer): Promise<void> {
  process.kill(server.pid, 'SIGKILL');
  return server.stop(); // resolves on the exit the kill caused
}

describe('MongoDB-wire test server on a file', () => {
  let dir: string;
  let server: StartedServer;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'gleaner-mongo-wire-'));
    server = await startMongoWire({ dataFile: join(dir, 'store.mv.db') });
  });
  afterAll(async () => {
    await server?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  storageContract(
    'mongodb (mongo-wire on a file)',
    () => MongoDocumentStore.connect(server.url, { dbName: 'contract', serverSelectionTimeoutMS: 5000 }),
    (store) => store.close(),
    { exactPostImages: false },
  );

  it('MongoDocumentStore: a dead store fails operations as StoreUnavailableError, and the same store works again after the restart', async () => {
    const file = join(dir, 'outage.mv.db');
    let outageServer = await startMongoWire({ dataFile: file });
    const port = Number(new URL(outageServer.url).port);
    // A short server selection keeps each refused operation short below; the first connect may need a few
    // of them on a busy machine (the server is up: it only has to be reached).
    const store = await connectWithin(5, () =>
      MongoDocumentStore.connect(outageServer.url, { dbName: 'outage', serverSelectionTimeoutMS: 1000 }),
    );
    try {
      const things = await store.collection<{ _id: string; n: number }>({ name: 'things', indexes: [] });
      await things.insertOne({ _id: 'a', n: 1 });
      await killed(outageServer);
      await expect(things.findOne({ _id: 'a' })).rejects.toBeInstanceOf(StoreUnavailableError);
      await expect(things.findOneAndUpdate({ _id: 'a' }, { $inc: { n: 1 } })).rejects.toBeInstanceOf(StoreUnavailableError);
      await expect(things.insertOne({ _id: 'b', n: 1 })).rejects.toBeInstanceOf(StoreUnavailableError);
      await expect(things.count({})).rejects.toBeInstanceOf(StoreUnavailableError);
      await expect(store.ping()).rejects.toBeInstanceOf(StoreUnavailableError);
      const error = await things.find({}).catch((e: unknown) => e);
      expect(toProblem(error, '/api/v1/jobs', 'req1')).toMatchObject({ status: 503, headers: { 'retry-after': '5' } });

      outageServer = await startMongoWire({ dataFile: file, port });
      // The driver finds the server again by itself; the first operations may still meet the outage.
      let found: { n: number } | null = null;
      for (let i = 0; i < 50 && !found; i++) found = await things.findOne({ _id: 'a' }).catch(() => null);
      expect(found).toMatchObject({ n: 1 });
      await things.insertOne({ _id: 'b', n: 2 });
      expect(await things.count({})).toBe(2);
    } finally {
      await store.close();
      await outageServer.stop();
    }
  });

  it('keeps every acknowledged write across kill -9 and restart, and its unique index', async () => {
    const file = join(dir, 'crash.mv.db');
    let crashServer = await startMongoWire({ dataFile: file });
    const port = Number(new URL(crashServer.url).port);
    const acknowledged: string[] = [];
    let increments = 0;
    let attemptedIncrements = 0;
    try {
      for (let round = 0; round < 3; round++) {
        const client = new MongoClient(crashServer.url, { serverSelectionTimeoutMS: 2000, retryWrites: false });
        const items = client.db('crash').collection<{ _id: string; key: string; round: number }>('items');
        const counters = client.db('crash').collection<{ _id: string; n: number }>('counters');
        await items.createIndex({ key: 1 }, { unique: true });
        // Writers run until the server dies under them; the kill comes once enough writes were acknowledged.
        let next = 0;
        let reached!: () => void;
        const enough = new Promise<void>((resolve) => (reached = resolve));
        const writer = async (): Promise<void> => {
          for (;;) {
            const id = `r${round}-${next++}`;
            try {
              await items.insertOne({ _id: id, key: id, round });
              acknowledged.push(id);
              attemptedIncrements++;
              await counters.updateOne({ _id: 'c' }, { $inc: { n: 1 } }, { upsert: true });
              increments++;
            } catch {
              return;
            }
            if (acknowledged.length >= (round + 1) * 150) reached();
          }
        };
        const writers = Array.from({ length: 8 }, writer);
        await enough;
        await killed(crashServer);
        await Promise.all(writers);
        await client.close(true).catch(() => undefined);

        crashServer = await startMongoWire({ dataFile: file, port });
        const check = new MongoClient(crashServer.url, { serverSelectionTimeoutMS: 5000 });
        try {
          const present = new Set(
            (
              await check
                .db('crash')
                .collection<{ _id: string }>('items')
                .find({}, { projection: { _id: 1 } })
                .toArray()
            ).map((d) => d._id),
          );
          expect(acknowledged.filter((id) => !present.has(id))).toEqual([]);
          const counter = await check.db('crash').collection<{ _id: string; n: number }>('counters').findOne({ _id: 'c' });
          expect(counter?.n).toBeGreaterThanOrEqual(increments);
          expect(counter?.n).toBeLessThanOrEqual(attemptedIncrements);
          await expect(
            check
              .db('crash')
              .collection<{ _id: string; key: string }>('items')
              .insertOne({ _id: `dup-${round}`, key: acknowledged[0] }),
          ).rejects.toMatchObject({ code: 11000 });
        } finally {
          await check.close();
        }
      }
    } finally {
      await crashServer.stop();
    }
  });
});

async function connectWithin<T>(attempts: number, connect: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await connect();
    } catch (error) {
      if (attempt >= attempts) throw error;
    }
  }
}
