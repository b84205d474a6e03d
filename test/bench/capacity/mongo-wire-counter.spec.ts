import { BSON, MongoClient } from 'mongodb';
import { describeWith, serverUrl, uniqueDbName } from '../../harness/require-server';
import {
  MessageSplitter,
  diffCounts,
  isBackground,
  parseOpMsg,
  replyDocs,
  requestFacts,
  startMongoWireCounter,
  type MongoWireCounter,
} from './mongo-wire-counter';

/** An OP_MSG: header, flags, a body section and optional document sequences. */
function opMsg(
  body: Record<string, unknown>,
  sequences: Record<string, Record<string, unknown>[]> = {},
  requestId = 7,
  responseTo = 0,
): Buffer {
  const parts: Buffer[] = [Buffer.from([0]), Buffer.from(BSON.serialize(body))];
  for (const [id, docs] of Object.entries(sequences)) {
    const payload = Buffer.concat([Buffer.from(`${id}\0`), ...docs.map((d) => Buffer.from(BSON.serialize(d)))]);
    const size = Buffer.alloc(4);
    size.writeInt32LE(payload.length + 4);
    parts.push(Buffer.from([1]), size, payload);
  }
  const sections = Buffer.concat(parts);
  const header = Buffer.alloc(20);
  header.writeInt32LE(20 + sections.length, 0);
  header.writeInt32LE(requestId, 4);
  header.writeInt32LE(responseTo, 8);
  header.writeInt32LE(2013, 12);
  header.writeUInt32LE(0, 16);
  return Buffer.concat([header, sections]);
}

describe('the MongoDB wire parsing of the capacity benchmark', () => {
  it('reads command, collection and documents written from a body with embedded arrays', () => {
    const { body, sequences } = parseOpMsg(opMsg({ insert: 'jobs', documents: [{ a: 1 }, { a: 2 }], $db: 'x' }));
    expect(requestFacts(body, sequences)).toEqual({ command: 'insert', collection: 'jobs', docsWritten: 2 });
  });

  it('counts documents sent as document sequences (kind 1 sections)', () => {
    const message = opMsg(
      { update: 'crawl_entries', $db: 'x' },
      {
        updates: [
          { q: {}, u: {} },
          { q: {}, u: {} },
          { q: {}, u: {} },
        ],
      },
    );
    const { body, sequences } = parseOpMsg(message);
    expect(requestFacts(body, sequences)).toEqual({ command: 'update', collection: 'crawl_entries', docsWritten: 3 });
  });

  it('names getMore by its collection field and counts findAndModify as one write', () => {
    expect(requestFacts({ getMore: BSON.Long.fromNumber(5), collection: 'job_results' })).toEqual({
      command: 'getMore',
      collection: 'job_results',
      docsWritten: 0,
    });
    expect(requestFacts({ findAndModify: 'jobs', query: {}, update: {} }).docsWritten).toBe(1);
    expect(requestFacts({ hello: 1 }).collection).toBeNull();
  });

  it('counts the documents a reply carries', () => {
    expect(replyDocs({ cursor: { firstBatch: [{}, {}], id: 0 }, ok: 1 })).toBe(2);
    expect(replyDocs({ cursor: { nextBatch: [{}], id: 0 }, ok: 1 })).toBe(1);
    expect(replyDocs({ value: { _id: 1 }, ok: 1 })).toBe(1);
    expect(replyDocs({ value: null, ok: 1 })).toBe(0);
    expect(replyDocs({ n: 1, ok: 1 })).toBe(0);
  });

  it('splits a stream into whole messages whatever the chunking', () => {
    const a = opMsg({ find: 'a' }, {}, 1);
    const b = opMsg({ insert: 'b', documents: [{ x: 'y'.repeat(300) }] }, {}, 2);
    const stream = Buffer.concat([a, b]);
    for (const cut of [1, 3, 17, a.length - 1, a.length, a.length + 5, stream.length - 1]) {
      const splitter = new MessageSplitter();
      const seen: Buffer[] = [];
      splitter.push(stream.subarray(0, cut), (m) => seen.push(Buffer.from(m)));
      splitter.push(stream.subarray(cut), (m) => seen.push(Buffer.from(m)));
      expect(seen.map((m) => m.readInt32LE(4))).toEqual([1, 2]);
      expect(Buffer.concat(seen).equals(stream)).toBe(true);
    }
  });

  it('refuses a length that cannot be a wire message', () => {
    const bad = Buffer.alloc(16);
    bad.writeInt32LE(3, 0);
    expect(() => new MessageSplitter().push(bad, () => undefined)).toThrow(/bad wire message length 3/);
  });

  it('tells driver housekeeping from work, and diffs counts per key', () => {
    expect(isBackground('hello')).toBe(true);
    expect(isBackground('ismaster')).toBe(true);
    expect(isBackground('find jobs')).toBe(false);
    const before = { 'find jobs': { n: 1, request_bytes: 10, reply_bytes: 20, docs_written: 0, docs_returned: 1 } };
    const after = {
      'find jobs': { n: 3, request_bytes: 30, reply_bytes: 60, docs_written: 0, docs_returned: 4 },
      'insert jobs': { n: 1, request_bytes: 100, reply_bytes: 45, docs_written: 2, docs_returned: 0 },
    };
    expect(diffCounts(after, before)).toEqual({
      'find jobs': { n: 2, request_bytes: 20, reply_bytes: 40, docs_written: 0, docs_returned: 3 },
      'insert jobs': after['insert jobs'],
    });
  });
});

describeWith(['mongodb'], 'the counting proxy in front of the MongoDB-wire server', () => {
  let counter: MongoWireCounter;
  let client: MongoClient;

  beforeAll(async () => {
    counter = await startMongoWireCounter(serverUrl('mongodb')!);
    client = await new MongoClient(`${counter.url}/${uniqueDbName('capacity')}`, { directConnection: true }).connect();
  });

  afterAll(async () => {
    await client?.close();
    await counter?.close();
  });

  it('counts what a real driver sends and receives through it', async () => {
    const collection = client.db().collection('pages');
    const before = counter.snapshot();
    await collection.insertMany([{ n: 1 }, { n: 2 }, { n: 3 }]);
    const found = await collection.find({}).toArray();
    await collection.findOneAndUpdate({ n: 2 }, { $set: { seen: true } });
    const counts = diffCounts(counter.snapshot(), before);

    expect(found).toHaveLength(3);
    expect(counts['insert pages']).toMatchObject({ n: 1, docs_written: 3 });
    expect(counts['insert pages'].request_bytes).toBeGreaterThan(3 * 16);
    expect(counts['find pages']).toMatchObject({ n: 1, docs_returned: 3 });
    expect(counts['find pages'].reply_bytes).toBeGreaterThan(0);
    expect(counts['findAndModify pages']).toMatchObject({ n: 1, docs_written: 1, docs_returned: 1 });
  });
});
