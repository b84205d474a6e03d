/**
 * The MongoDB-wire test server's unique indexes also serve queries that name more fields than their own
 * (test/servers/mongo-wire/src/NarrowingIndex.java): the index finds the candidates, the rest of the filter
 * must still decide. These are the query shapes a crawl sends per page (`{_id, status}`, `{_id: {$in}, done}`,
 * the ticket index with more fields), in memory and on a file, before and after the file is reopened.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MongoClient, type Collection } from 'mongodb';
import { startMongoWire, type StartedServer } from '../harness/servers';

jest.setTimeout(120_000);

type Entry = { _id: string; job_id: string; ticket: number; status: string; done: boolean };

const entries: Entry[] = Array.from({ length: 40 }, (_, i) => ({
  _id: `e${i}`,
  job_id: i < 20 ? 'job-a' : 'job-b',
  ticket: i % 20,
  status: i % 2 === 0 ? 'pending' : 'completed',
  done: i % 4 === 0,
}));

async function expectNarrowedQueriesFilter(collection: Collection<Entry>): Promise<void> {
  const ids = async (filter: object) => (await collection.find(filter, { sort: { _id: 1 } }).toArray()).map((e) => e._id);
  // The _id index plus another field: the document found by _id must still match the rest.
  expect(await ids({ _id: 'e2', status: 'pending' })).toEqual(['e2']);
  expect(await ids({ _id: 'e3', status: 'pending' })).toEqual([]);
  expect(await ids({ _id: { $in: ['e0', 'e1', 'e2', 'e4', 'e5'] }, done: true })).toEqual(['e0', 'e4']);
  // The compound unique index plus other fields, an operator among them.
  expect(await ids({ job_id: 'job-b', ticket: 4, status: 'pending' })).toEqual(['e24']);
  expect(await ids({ job_id: 'job-b', ticket: 5, status: 'pending' })).toEqual([]);
  expect(await ids({ job_id: 'job-a', ticket: 8, done: { $ne: false } })).toEqual(['e8']);
  // Updates and deletes go through the same lookup.
  expect(await collection.findOneAndUpdate({ _id: 'e3', status: 'pending' }, { $set: { status: 'running' } })).toBeNull();
  expect((await collection.findOneAndUpdate({ _id: 'e6', status: 'pending' }, { $set: { status: 'running' } }))?._id).toBe('e6');
  expect((await collection.updateMany({ _id: { $in: ['e6', 'e7'] }, status: 'running' }, { $set: { status: 'done' } })).modifiedCount).toBe(
    1,
  );
  expect((await collection.deleteOne({ _id: 'e9', status: 'pending' })).deletedCount).toBe(0);
  expect(await collection.countDocuments({ _id: 'e9', status: 'completed' })).toBe(1);
  // The unique index still refuses a duplicate key.
  await expect(collection.insertOne({ _id: 'dup', job_id: 'job-a', ticket: 1, status: 'pending', done: false })).rejects.toThrow(
    /duplicate key/i,
  );
}

describe.each([
  ['in memory', false],
  ['on a file', true],
])('MongoDB-wire test server %s: unique indexes narrow queries that name more fields', (_mode, onFile) => {
  let dir: string;
  let server: StartedServer;
  const file = () => join(dir, 'narrowing.mv.db');

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'gleaner-mongo-wire-narrowing-'));
    server = await startMongoWire(onFile ? { dataFile: file() } : {});
  });
  afterAll(async () => {
    await server?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('finds, updates, counts and deletes by the index and the rest of the filter', async () => {
    const client = await new MongoClient(server.url, { serverSelectionTimeoutMS: 10_000 }).connect();
    try {
      const collection = client.db('narrowing').collection<Entry>('entries');
      await collection.createIndex({ job_id: 1, ticket: 1 }, { unique: true });
      await collection.insertMany(entries);
      await expectNarrowedQueriesFilter(collection);
    } finally {
      await client.close();
    }
    if (!onFile) return;
    // Reopened from the file, the indexes are opened again (by H2Backend's constructor) and narrow as before.
    await server.stop();
    server = await startMongoWire({ dataFile: file() });
    const reopened = await new MongoClient(server.url, { serverSelectionTimeoutMS: 10_000 }).connect();
    try {
      const collection = reopened.db('narrowing').collection<Entry>('entries');
      expect(await collection.countDocuments({})).toBe(entries.length);
      expect((await collection.find({ _id: 'e6', status: 'done' }).toArray()).map((e) => e._id)).toEqual(['e6']);
      expect(await collection.find({ job_id: 'job-b', ticket: 4, status: 'completed' }).toArray()).toEqual([]);
      await expect(collection.insertOne({ _id: 'dup', job_id: 'job-b', ticket: 2, status: 'pending', done: false })).rejects.toThrow(
        /duplicate key/i,
      );
    } finally {
      await reopened.close();
    }
  });
});
