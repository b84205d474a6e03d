/**
 * The DocumentStore contract: every adapter must pass exactly this suite, which is what lets
 * repositories be written once against the port.
 */
import { DuplicateKeyError } from '@app/core';
import type { Collection, CollectionSpec, Doc, DocumentStore } from '@app/storage';

type Item = Doc & Record<string, unknown>;

let seq = 0;
function spec(indexes: CollectionSpec['indexes'] = []): CollectionSpec {
  seq += 1;
  return { name: `t${seq}_${Math.random().toString(36).slice(2, 7)}`, indexes };
}

const ids = (docs: Array<{ _id: string }>) => docs.map((d) => d._id);
const sortedIds = (docs: Array<{ _id: string }>) => ids(docs).sort();

/**
 * `exactPostImages: false` for a test server whose findOneAndUpdate applies concurrent updates
 * atomically but may read the returned document after a later update landed (the MongoDB-wire
 * stand-in; real MongoDB returns each update's own post-image). The code never trusts a returned
 * counter to be unique (see the seq retries in the jobs and results repositories).
 */
export function storageContract(
  name: string,
  makeStore: () => Promise<DocumentStore>,
  dispose: (s: DocumentStore) => Promise<void>,
  server: { exactPostImages: boolean } = { exactPostImages: true },
): void {
  describe(`DocumentStore contract: ${name}`, () => {
    let store: DocumentStore;

    beforeAll(async () => {
      store = await makeStore();
    });
    afterAll(async () => {
      await dispose(store);
    });

    async function seeded(docs: Item[], indexes: CollectionSpec['indexes'] = []): Promise<Collection<Item>> {
      const c = await store.collection<Item>(spec(indexes));
      for (const d of docs) await c.insertOne(d);
      return c;
    }

    it('round-trips fields named like driver internals (id, __v)', async () => {
      const c = await seeded([]);
      await c.insertOne({ _id: 'u1:hook', id: 'hook', __v: 3, n: 1 });
      await c.replaceOne({ _id: 'u1:other', id: 'other', n: 2 });
      const all = (await c.find({}, { sort: { n: 1 } })) as unknown as Array<Record<string, unknown>>;
      expect(all.map((d) => d.id)).toEqual(['hook', 'other']);
      expect(all[0].__v).toBe(3);
      expect(((await c.findOne({ id: 'other' })) as unknown as Record<string, unknown> | null)?._id).toBe('u1:other');
    });

    it('pings', async () => {
      await expect(store.ping()).resolves.toBeUndefined();
    });

    describe('insert and read', () => {
      it('round-trips nested objects, arrays, booleans, numbers, unicode and empty values', async () => {
        const doc: Item = {
          _id: 'a',
          s: 'héllo wörld — 日本語 🚀 "quotes" \\ \n',
          i: 42,
          neg: -7,
          f: 3.25,
          big: 2 ** 40,
          t: true,
          fl: false,
          nul: null,
          nested: { a: { b: [1, 'two', { three: 3 }] }, empty: {} },
          arr: [true, false, null, 1.5],
          emptyArr: [],
          ts: '2024-05-01T12:00:00.000Z',
        };
        const c = await seeded([doc]);
        expect(await c.findOne({ _id: 'a' })).toEqual(doc);
        expect(await c.find({})).toEqual([doc]);
      });

      it('findOne returns null when nothing matches', async () => {
        const c = await seeded([{ _id: 'a', x: 1 }]);
        expect(await c.findOne({ _id: 'zz' })).toBeNull();
        expect(await c.findOne({ x: 2 })).toBeNull();
      });

      it("findOne by _id and owner matches only when every field is equal (a read of one's own document)", async () => {
        const c = await seeded([
          { _id: 'a', user_id: 'u1', kind: 'job' },
          { _id: 'c', user_id: 7, kind: 'job' },
        ]);
        expect(await c.findOne({ _id: 'a', user_id: 'u1' })).toEqual({ _id: 'a', user_id: 'u1', kind: 'job' });
        expect(await c.findOne({ _id: 'a', user_id: 'u1', kind: 'job' })).toEqual({ _id: 'a', user_id: 'u1', kind: 'job' });
        expect(await c.findOne({ _id: 'a', user_id: 'u2' })).toBeNull();
        expect(await c.findOne({ _id: 'a', user_id: 'u1', kind: 'page' })).toBeNull();
        expect(await c.findOne({ _id: 'a', owner: 'u1' })).toBeNull();
        expect(await c.findOne({ _id: 'zz', user_id: 'u1' })).toBeNull();
        expect(await c.findOne({ _id: 'c', user_id: '7' })).toBeNull();
      });

      it('rejects an _id clash with DuplicateKeyError', async () => {
        const c = await seeded([{ _id: 'a', x: 1 }]);
        await expect(c.insertOne({ _id: 'a', x: 2 })).rejects.toBeInstanceOf(DuplicateKeyError);
        expect(await c.findOne({ _id: 'a' })).toEqual({ _id: 'a', x: 1 });
        expect(await c.count({})).toBe(1);
      });

      it('returned documents are plain, detached objects', async () => {
        const c = await seeded([{ _id: 'a', o: { k: 1 } }]);
        const got = (await c.findOne({ _id: 'a' }))!;
        expect(Object.keys(got).sort()).toEqual(['_id', 'o']);
        expect(typeof got._id).toBe('string');
        (got.o as { k: number }).k = 99;
        expect(await c.findOne({ _id: 'a' })).toEqual({
          _id: 'a',
          o: { k: 1 },
        });
        expect(JSON.parse(JSON.stringify(got))).toEqual(got);
      });
    });

    // Each query runs on plain fields and on indexed ones (the SQLite adapter keeps indexed fields in
    // typed columns and must answer exactly as from the document).
    const FILTER_INDEXES: CollectionSpec['indexes'] = [
      { fields: { name: 1 } },
      { fields: { n: 1, flag: 1 } },
      { fields: { tag: 1 } },
      { fields: { meta: 1 } },
      { fields: { 'meta.depth': 1, 'meta.kind': -1 } },
    ];
    describe.each([
      ['plain fields', [] as CollectionSpec['indexes']],
      ['indexed fields', FILTER_INDEXES],
    ])('filters on %s', (_label, indexes) => {
      let c: Collection<Item>;
      beforeAll(async () => {
        c = await seeded(
          [
            {
              _id: '1',
              name: 'alpha',
              n: 1,
              flag: true,
              tag: 'x',
              meta: { depth: 1, kind: 'k1' },
            },
            {
              _id: '2',
              name: 'beta',
              n: 2,
              flag: false,
              tag: null,
              meta: { depth: 2, kind: 'k2' },
            },
            { _id: '3', name: 'gamma', n: 3, flag: true, meta: { depth: 3 } },
            { _id: '4', name: 'delta', n: 10, tag: 'y' },
            {
              _id: '5',
              name: 'Épsilon',
              n: 2.5,
              flag: false,
              tag: 'x',
              meta: null,
            },
          ],
          indexes,
        );
      });

      const q = async (filter: Parameters<Collection<Item>['find']>[0]) => sortedIds(await c.find(filter));

      it('empty filter matches everything', async () => {
        expect(await q({})).toEqual(['1', '2', '3', '4', '5']);
      });
      it('scalar equality on strings, numbers, booleans', async () => {
        expect(await q({ name: 'beta' })).toEqual(['2']);
        expect(await q({ n: 2 })).toEqual(['2']);
        expect(await q({ n: 2.5 })).toEqual(['5']);
        expect(await q({ flag: true })).toEqual(['1', '3']);
        expect(await q({ flag: false })).toEqual(['2', '5']);
      });
      it('numbers never equal booleans or strings', async () => {
        expect(await q({ flag: 1 })).toEqual([]);
        expect(await q({ flag: 0 })).toEqual([]);
        expect(await q({ n: '1' })).toEqual([]);
        expect(await q({ n: true })).toEqual([]);
      });
      it('null matches missing or null', async () => {
        expect(await q({ tag: null })).toEqual(['2', '3']);
        expect(await q({ tag: { $eq: null } })).toEqual(['2', '3']);
        expect(await q({ flag: null })).toEqual(['4']);
        expect(await q({ 'meta.kind': null })).toEqual(['3', '4', '5']);
      });
      it('$ne includes missing fields; $ne null means present and not null', async () => {
        expect(await q({ tag: { $ne: 'x' } })).toEqual(['2', '3', '4']);
        expect(await q({ tag: { $ne: null } })).toEqual(['1', '4', '5']);
        expect(await q({ flag: { $ne: true } })).toEqual(['2', '4', '5']);
      });
      it('$in / $nin including null, booleans and empty arrays', async () => {
        expect(await q({ name: { $in: ['alpha', 'gamma', 'nope'] } })).toEqual(['1', '3']);
        expect(await q({ name: { $in: ['alpha'] } })).toEqual(['1']);
        expect(await q({ n: { $in: [1, 10] } })).toEqual(['1', '4']);
        expect(await q({ tag: { $in: ['y', null] } })).toEqual(['2', '3', '4']);
        expect(await q({ flag: { $in: [false] } })).toEqual(['2', '5']);
        expect(await q({ name: { $in: [] } })).toEqual([]);
        expect(await q({ name: { $nin: [] } })).toEqual(['1', '2', '3', '4', '5']);
        expect(await q({ tag: { $nin: ['x'] } })).toEqual(['2', '3', '4']);
        expect(await q({ tag: { $nin: ['x', null] } })).toEqual(['4']);
        expect(await q({ _id: { $in: ['2', '4', '9'] } })).toEqual(['2', '4']);
        expect(await q({ _id: { $nin: ['2', '4'] } })).toEqual(['1', '3', '5']);
      });
      it('range operators on numbers and strings (type-bracketed)', async () => {
        expect(await q({ n: { $lt: 2.5 } })).toEqual(['1', '2']);
        expect(await q({ n: { $lte: 2.5 } })).toEqual(['1', '2', '5']);
        expect(await q({ n: { $gt: 2.5 } })).toEqual(['3', '4']);
        expect(await q({ n: { $gte: 3, $lt: 10 } })).toEqual(['3']);
        expect(await q({ name: { $gte: 'beta', $lt: 'delta' } })).toEqual(['2']);
        // Binary (code point) order: 'É' sorts after all ASCII letters.
        expect(await q({ name: { $gt: 'zzz' } })).toEqual(['5']);
        expect(await q({ n: { $gt: 'a' } })).toEqual([]);
        expect(await q({ name: { $gt: 0 } })).toEqual([]);
        expect(await q({ tag: { $lt: 'z' } })).toEqual(['1', '4', '5']);
        expect(await q({ _id: { $gt: '3' } })).toEqual(['4', '5']);
      });
      it('$exists', async () => {
        expect(await q({ tag: { $exists: true } })).toEqual(['1', '2', '4', '5']);
        expect(await q({ tag: { $exists: false } })).toEqual(['3']);
        expect(await q({ meta: { $exists: true } })).toEqual(['1', '2', '3', '5']);
        expect(await q({ 'meta.kind': { $exists: true } })).toEqual(['1', '2']);
      });
      it('dotted paths', async () => {
        expect(await q({ 'meta.depth': 2 })).toEqual(['2']);
        expect(await q({ 'meta.depth': { $gte: 2 } })).toEqual(['2', '3']);
        expect(await q({ 'meta.kind': { $in: ['k1', 'k2'] } })).toEqual(['1', '2']);
      });
      it('implicit AND across fields', async () => {
        expect(await q({ flag: true, n: { $gt: 1 } })).toEqual(['3']);
        expect(await q({ tag: 'x', flag: false, name: 'Épsilon' })).toEqual(['5']);
      });
      it('count honours filters', async () => {
        expect(await c.count({})).toBe(5);
        expect(await c.count({ flag: true })).toBe(2);
        expect(await c.count({ name: { $in: [] } })).toBe(0);
      });
      it('rejects hostile field names and operators', async () => {
        await expect(c.find({ "a') OR 1=1 --": 1 })).rejects.toThrow();
        await expect(c.find({ $where: 'true' })).rejects.toThrow();
        await expect(c.find({ n: { $regex: '.*' } } as never)).rejects.toThrow();
        await expect(c.find({ n: { $gt: { $foo: 1 } } } as never)).rejects.toThrow();
      });
    });

    describe.each([
      ['plain fields', [] as CollectionSpec['indexes']],
      ['indexed fields', [{ fields: { g: 1, s: -1 } }, { fields: { ts: 1 } }] as CollectionSpec['indexes']],
    ])('sort, skip, limit on %s', (_label, indexes) => {
      let c: Collection<Item>;
      beforeAll(async () => {
        c = await seeded(
          [
            { _id: 'a', g: 2, s: 'b', ts: '2024-01-03T00:00:00.000Z' },
            { _id: 'b', g: 1, s: 'c', ts: '2024-01-01T00:00:00.000Z' },
            { _id: 'c', g: 2, s: 'a', ts: '2024-01-02T00:00:00.000Z' },
            { _id: 'd', g: 1, s: 'a' },
            { _id: 'e', g: 3, s: 'z', ts: '2023-12-31T23:59:59.999Z' },
          ],
          indexes,
        );
      });

      it('sorts ascending and descending', async () => {
        expect(ids(await c.find({}, { sort: { s: 1, _id: 1 } }))).toEqual(['c', 'd', 'a', 'b', 'e']);
        expect(ids(await c.find({}, { sort: { _id: -1 } }))).toEqual(['e', 'd', 'c', 'b', 'a']);
      });
      it('sorts on multiple fields with mixed directions', async () => {
        expect(ids(await c.find({}, { sort: { g: 1, s: -1 } }))).toEqual(['b', 'd', 'a', 'c', 'e']);
        expect(ids(await c.find({}, { sort: { g: -1, s: 1 } }))).toEqual(['e', 'c', 'a', 'd', 'b']);
      });
      it('missing values sort first ascending and last descending', async () => {
        expect(ids(await c.find({}, { sort: { ts: 1 } }))).toEqual(['d', 'e', 'b', 'c', 'a']);
        expect(ids(await c.find({}, { sort: { ts: -1 } }))).toEqual(['a', 'c', 'b', 'e', 'd']);
      });
      it('skip and limit', async () => {
        expect(ids(await c.find({}, { sort: { _id: 1 }, skip: 1, limit: 2 }))).toEqual(['b', 'c']);
        expect(ids(await c.find({}, { sort: { _id: 1 }, limit: 3 }))).toEqual(['a', 'b', 'c']);
        expect(ids(await c.find({}, { sort: { _id: 1 }, skip: 4 }))).toEqual(['e']);
        expect(ids(await c.find({}, { sort: { _id: 1 }, skip: 10 }))).toEqual([]);
        expect(ids(await c.find({ g: 2 }, { sort: { s: 1 }, limit: 1 }))).toEqual(['c']);
      });
      it('findOne honours sort', async () => {
        expect((await c.findOne({ g: 1 }, { sort: { s: -1 } }))!._id).toBe('b');
        expect((await c.findOne({}, { sort: { ts: -1 } }))!._id).toBe('a');
      });
    });

    describe('iterate', () => {
      it('streams 2,000 documents in sort order across batches', async () => {
        const c = await store.collection<Item>(spec([{ fields: { k: 1 } }]));
        const n = 2000;
        const order = Array.from({ length: n }, (_, i) => i).sort(() => Math.random() - 0.5);
        for (const i of order) {
          await c.insertOne({
            _id: `id${String(i).padStart(5, '0')}`,
            k: Math.floor(i / 7),
            i,
            odd: i % 2 === 1,
          });
        }
        const seen: number[] = [];
        for await (const d of c.iterate({}, { sort: { k: 1, i: 1 }, batchSize: 97 })) seen.push(d.i as number);
        expect(seen).toEqual(Array.from({ length: n }, (_, i) => i));

        const desc: number[] = [];
        for await (const d of c.iterate({ odd: true }, { sort: { k: -1, i: -1 }, batchSize: 50 })) desc.push(d.i as number);
        expect(desc).toEqual(Array.from({ length: n }, (_, i) => n - 1 - i).filter((i) => i % 2 === 1));

        const unsorted: string[] = [];
        for await (const d of c.iterate({}, { batchSize: 300 })) unsorted.push(d._id);
        expect(unsorted).toHaveLength(n);
        expect(new Set(unsorted).size).toBe(n);

        const window: number[] = [];
        for await (const d of c.iterate({}, { sort: { i: 1 }, skip: 10, limit: 25, batchSize: 7 })) {
          window.push(d.i as number);
        }
        expect(window).toEqual(Array.from({ length: 25 }, (_, i) => i + 10));
      });

      it.each([
        ['plain', [] as CollectionSpec['indexes']],
        ['indexed', [{ fields: { g: 1 } }] as CollectionSpec['indexes']],
      ])('keeps order when %s sort keys have many ties and missing values', async (_label, indexes) => {
        const docs: Item[] = Array.from({ length: 60 }, (_, i) => ({
          _id: `d${String(i).padStart(3, '0')}`,
          ...(i % 4 === 0 ? {} : { g: i % 3 }),
        }));
        const c = await seeded(docs, indexes);
        const asc: string[] = [];
        for await (const d of c.iterate({}, { sort: { g: 1, _id: 1 }, batchSize: 4 })) asc.push(d._id);
        expect(asc).toEqual(ids(await c.find({}, { sort: { g: 1, _id: 1 } })));
        const desc: string[] = [];
        for await (const d of c.iterate({}, { sort: { g: -1, _id: -1 }, batchSize: 5 })) desc.push(d._id);
        expect(desc).toEqual(ids(await c.find({}, { sort: { g: -1, _id: -1 } })));
        expect(new Set(desc).size).toBe(60);
      });

      it('can stop early', async () => {
        const c = await seeded(Array.from({ length: 30 }, (_, i) => ({ _id: `x${i}`, i })));
        let n = 0;
        for await (const _ of c.iterate({}, { batchSize: 4 })) {
          if (++n === 5) break;
        }
        expect(n).toBe(5);
        expect(await c.count({})).toBe(30);
      });
    });

    describe('unique indexes', () => {
      const uniq = [{ fields: { email: 1 as const }, unique: true }];
      const compound = [...uniq, { fields: { org: 1 as const, slug: -1 as const }, unique: true }];

      it('insertOne violating a unique index throws DuplicateKeyError', async () => {
        const c = await seeded([{ _id: 'a', email: 'a@x', org: 'o', slug: 's' }], compound);
        await expect(c.insertOne({ _id: 'b', email: 'a@x' })).rejects.toBeInstanceOf(DuplicateKeyError);
        await expect(c.insertOne({ _id: 'c', email: 'c@x', org: 'o', slug: 's' })).rejects.toBeInstanceOf(DuplicateKeyError);
        await c.insertOne({ _id: 'd', email: 'd@x', org: 'o', slug: 't' });
        await c.insertOne({ _id: 'e', email: 'e@x', org: 'p', slug: 's' });
        expect(await c.count({})).toBe(3);
      });

      it('replaceOne inserts, replaces whole documents, and throws DuplicateKeyError on a clash', async () => {
        const c = await seeded([{ _id: 'a', email: 'a@x', keep: 1 }], uniq);
        await c.replaceOne({ _id: 'a', email: 'a2@x' });
        expect(await c.findOne({ _id: 'a' })).toEqual({
          _id: 'a',
          email: 'a2@x',
        });
        await c.replaceOne({ _id: 'b', email: 'b@x' });
        expect(await c.findOne({ _id: 'b' })).toEqual({
          _id: 'b',
          email: 'b@x',
        });
        await expect(c.replaceOne({ _id: 'b', email: 'a2@x' })).rejects.toBeInstanceOf(DuplicateKeyError);
        await expect(c.replaceOne({ _id: 'c', email: 'a2@x' })).rejects.toBeInstanceOf(DuplicateKeyError);
        expect(await c.findOne({ _id: 'b' })).toEqual({
          _id: 'b',
          email: 'b@x',
        });
        expect(await c.count({})).toBe(2);
      });

      it('findOneAndUpdate (update or upsert) throws DuplicateKeyError on a clash', async () => {
        const c = await seeded(
          [
            { _id: 'a', email: 'a@x' },
            { _id: 'b', email: 'b@x' },
          ],
          uniq,
        );
        await expect(c.findOneAndUpdate({ _id: 'b' }, { $set: { email: 'a@x' } })).rejects.toBeInstanceOf(DuplicateKeyError);
        await expect(c.findOneAndUpdate({ _id: 'new' }, { $set: { email: 'a@x' } }, { upsert: true })).rejects.toBeInstanceOf(
          DuplicateKeyError,
        );
        await expect(c.findOneAndUpdate({ email: 'zz' }, { $set: { email: 'b@x' } }, { upsert: true })).rejects.toBeInstanceOf(
          DuplicateKeyError,
        );
        await expect(c.updateMany({ _id: 'b' }, { $set: { email: 'a@x' } })).rejects.toBeInstanceOf(DuplicateKeyError);
        expect(await c.findOne({ _id: 'b' })).toEqual({
          _id: 'b',
          email: 'b@x',
        });
        expect(await c.count({})).toBe(2);
      });

      it('missing or null unique fields collide with each other, as in MongoDB', async () => {
        const c = await seeded([{ _id: 'a', email: 'a@x' }], compound);
        // 'a' has neither org nor slug: another document without them clashes on (org, slug)...
        await expect(c.insertOne({ _id: 'b', email: 'b@x' })).rejects.toBeInstanceOf(DuplicateKeyError);
        await expect(c.insertOne({ _id: 'b', email: 'b@x', org: null, slug: null })).rejects.toBeInstanceOf(DuplicateKeyError);
        // ...but a partial key is a different key.
        await c.insertOne({ _id: 'c', email: 'c@x', org: 'o' });
        await expect(c.insertOne({ _id: 'd', email: 'd@x', org: 'o', slug: null })).rejects.toBeInstanceOf(DuplicateKeyError);
        const single = await seeded([{ _id: 'a' }], uniq);
        await expect(single.insertOne({ _id: 'b' })).rejects.toBeInstanceOf(DuplicateKeyError);
        await expect(single.insertOne({ _id: 'b', email: null })).rejects.toBeInstanceOf(DuplicateKeyError);
        expect(await single.count({})).toBe(1);
      });

      it('unique keys of different types do not collide', async () => {
        const c = await seeded([{ _id: 'a', email: 1 }], uniq);
        await c.insertOne({ _id: 'b', email: true });
        await c.insertOne({ _id: 'c', email: '1' });
        await expect(c.insertOne({ _id: 'd', email: 1 })).rejects.toBeInstanceOf(DuplicateKeyError);
        expect(await c.count({})).toBe(3);
      });

      it('non-unique indexes accept duplicates and missing values', async () => {
        const d = await seeded([{ _id: 'a', other: 1 }, { _id: 'b', other: 1 }, { _id: 'c' }], [{ fields: { other: 1 } }]);
        expect(await d.count({ other: 1 })).toBe(2);
        expect(await d.count({})).toBe(3);
      });

      it('collection() is idempotent and keeps enforcing indexes', async () => {
        const s = spec(uniq);
        const c1 = await store.collection<Item>(s);
        await c1.insertOne({ _id: 'a', email: 'a@x' });
        const c2 = await store.collection<Item>(s);
        const c3 = await store.collection<Item>({
          ...s,
          indexes: [...s.indexes],
        });
        expect(c2.name).toBe(s.name);
        expect(await c3.findOne({ _id: 'a' })).toEqual({
          _id: 'a',
          email: 'a@x',
        });
        await expect(c2.insertOne({ _id: 'b', email: 'a@x' })).rejects.toBeInstanceOf(DuplicateKeyError);
      });
    });

    describe('findOneAndUpdate', () => {
      it('returns the document after (default) or before the update', async () => {
        const c = await seeded([{ _id: 'a', n: 1, s: 'x' }]);
        expect(await c.findOneAndUpdate({ _id: 'a' }, { $inc: { n: 1 } })).toEqual({ _id: 'a', n: 2, s: 'x' });
        expect(await c.findOneAndUpdate({ _id: 'a' }, { $inc: { n: 1 } }, { returnDocument: 'after' })).toEqual({
          _id: 'a',
          n: 3,
          s: 'x',
        });
        expect(await c.findOneAndUpdate({ _id: 'a' }, { $set: { s: 'y' } }, { returnDocument: 'before' })).toEqual({
          _id: 'a',
          n: 3,
          s: 'x',
        });
        expect(await c.findOne({ _id: 'a' })).toEqual({
          _id: 'a',
          n: 3,
          s: 'y',
        });
      });

      it('returns null when nothing matches and does not insert without upsert', async () => {
        const c = await seeded([{ _id: 'a', n: 1 }]);
        expect(await c.findOneAndUpdate({ _id: 'b' }, { $set: { n: 5 } })).toBeNull();
        expect(await c.findOneAndUpdate({ _id: 'a', n: 2 }, { $set: { n: 5 } })).toBeNull();
        expect(await c.count({})).toBe(1);
      });

      it('applies $set (nested, dotted), $unset and $inc (dotted, missing field)', async () => {
        const c = await seeded([{ _id: 'a', n: 1, o: { x: 1, y: 2 }, gone: true, arr: [1] }]);
        const after = await c.findOneAndUpdate(
          { _id: 'a' },
          {
            $set: {
              'o.x': 10,
              'p.q.r': 'deep',
              arr: [1, { two: 2 }],
              obj: { k: [true] },
            },
            $unset: { gone: true, 'o.y': true, nothere: true },
            $inc: { n: 5, 'o.count': 2, fresh: 1.5 },
          },
        );
        const expected = {
          _id: 'a',
          n: 6,
          o: { x: 10, count: 2 },
          p: { q: { r: 'deep' } },
          arr: [1, { two: 2 }],
          obj: { k: [true] },
          fresh: 1.5,
        };
        expect(after).toEqual(expected);
        expect(await c.findOne({ _id: 'a' })).toEqual(expected);
        await c.findOneAndUpdate({ _id: 'a' }, { $inc: { n: -10 } });
        expect((await c.findOne({ _id: 'a' }))!.n).toBe(-4);
      });

      it('keeps indexed fields queryable through every kind of write', async () => {
        const c = await seeded(
          [
            { _id: 'a', status: 'queued', n: 1, flag: true, o: { k: 'x' } },
            { _id: 'b', status: 'queued', n: 2 },
          ],
          [{ fields: { status: 1, n: 1 } }, { fields: { flag: 1 } }, { fields: { 'o.k': 1 } }],
        );
        const q = async (filter: Parameters<Collection<Item>['find']>[0]) => sortedIds(await c.find(filter));
        await c.findOneAndUpdate({ _id: 'a' }, { $set: { status: 'done', 'o.k': 'y' }, $inc: { n: 10 }, $unset: { flag: true } });
        expect(await q({ status: 'done' })).toEqual(['a']);
        expect(await q({ status: 'queued' })).toEqual(['b']);
        expect(await q({ n: { $gt: 5 } })).toEqual(['a']);
        expect(await q({ flag: true })).toEqual([]);
        expect(await q({ flag: null })).toEqual(['a', 'b']);
        expect(await q({ 'o.k': 'y' })).toEqual(['a']);
        expect(await q({ 'o.k': 'x' })).toEqual([]);
        // A write that changes only unindexed fields leaves the indexed ones as they were.
        await c.findOneAndUpdate({ _id: 'b' }, { $set: { note: 'n' } });
        expect(await q({ status: 'queued', n: 2 })).toEqual(['b']);
        expect(await c.updateMany({ status: { $in: ['queued', 'done'] } }, { $set: { flag: false }, $inc: { n: 1 } })).toBe(2);
        expect(await q({ flag: false })).toEqual(['a', 'b']);
        expect(await q({ n: { $in: [12, 3] } })).toEqual(['a', 'b']);
        await c.replaceOne({ _id: 'a', status: 'queued', o: { k: 7 } });
        expect(await q({ status: 'queued' })).toEqual(['a', 'b']);
        expect(await q({ n: null })).toEqual(['a']);
        expect(await q({ 'o.k': 7 })).toEqual(['a']);
        expect(await q({ 'o.k': '7' })).toEqual([]);
        await c.findOneAndUpdate({ _id: 'c' }, { $set: { status: 'new', flag: true } }, { upsert: true });
        expect(await q({ status: 'new', flag: true })).toEqual(['c']);
        expect(await c.deleteMany({ flag: false })).toBe(1);
        expect(await c.deleteOne({ status: 'new' })).toBe(true);
        expect(await q({})).toEqual(['a']);
      });

      it('picks the first match in sort order', async () => {
        const c = await seeded([
          { _id: 'a', status: 'queued', p: 2 },
          { _id: 'b', status: 'queued', p: 5 },
          { _id: 'c', status: 'running', p: 9 },
        ]);
        const claimed = await c.findOneAndUpdate({ status: 'queued' }, { $set: { status: 'running' } }, { sort: { p: -1 } });
        expect(claimed!._id).toBe('b');
        const next = await c.findOneAndUpdate({ status: 'queued' }, { $set: { status: 'running' } }, { sort: { p: -1 } });
        expect(next!._id).toBe('a');
        expect(await c.findOneAndUpdate({ status: 'queued' }, { $set: { status: 'running' } })).toBeNull();
      });

      it('works as compare-and-set on a status', async () => {
        const c = await seeded([{ _id: 'j', status: 'queued' }]);
        const cas = (from: string[], to: string) => c.findOneAndUpdate({ _id: 'j', status: { $in: from } }, { $set: { status: to } });
        expect((await cas(['queued'], 'running'))!.status).toBe('running');
        expect(await cas(['queued'], 'running')).toBeNull();
        expect((await cas(['running', 'queued'], 'done'))!.status).toBe('done');
        expect(await cas(['running', 'queued'], 'cancelled')).toBeNull();
        expect((await c.findOne({ _id: 'j' }))!.status).toBe('done');
      });

      it('is atomic: of 50 concurrent conditional increments exactly 10 succeed', async () => {
        const c = await seeded([{ _id: 'ctr', n: 0 }]);
        const results = await Promise.all(
          Array.from({ length: 50 }, () => c.findOneAndUpdate({ _id: 'ctr', n: { $lt: 10 } }, { $inc: { n: 1 } })),
        );
        const ok = results.filter((r) => r !== null);
        expect(ok).toHaveLength(10);
        if (server.exactPostImages) expect(new Set(ok.map((r) => r.n)).size).toBe(10);
        expect((await c.findOne({ _id: 'ctr' }))!.n).toBe(10);
      });

      it('only one of many concurrent claimers wins each job', async () => {
        const c = await seeded(
          Array.from({ length: 5 }, (_, i) => ({
            _id: `job${i}`,
            status: 'queued',
          })),
        );
        const results = await Promise.all(
          Array.from({ length: 20 }, (_, w) => c.findOneAndUpdate({ status: 'queued' }, { $set: { status: 'running', worker: w } })),
        );
        const won = results.filter((r) => r !== null);
        expect(won).toHaveLength(5);
        expect(new Set(won.map((r) => r._id)).size).toBe(5);
      });
    });

    describe('upsert', () => {
      it('builds the new document from the filter equalities, $setOnInsert, $set and $inc', async () => {
        const c = await seeded([]);
        const doc = await c.findOneAndUpdate(
          {
            _id: 'u1',
            kind: 'k',
            'meta.src': 'api',
            n: { $gt: 5 },
            flag: true,
          },
          {
            $set: { s: 'x' },
            $setOnInsert: { createdAt: '2024-01-01T00:00:00.000Z' },
            $inc: { hits: 1 },
          },
          { upsert: true },
        );
        const expected = {
          _id: 'u1',
          kind: 'k',
          meta: { src: 'api' },
          flag: true,
          s: 'x',
          createdAt: '2024-01-01T00:00:00.000Z',
          hits: 1,
        };
        expect(doc).toEqual(expected);
        expect(await c.findOne({ _id: 'u1' })).toEqual(expected);
      });

      it('applies $setOnInsert only when inserting', async () => {
        const c = await seeded([]);
        const up = (v: string) =>
          c.findOneAndUpdate(
            { _id: 'k' },
            {
              $set: { last: v },
              $setOnInsert: { first: v },
              $inc: { count: 1 },
            },
            { upsert: true },
          );
        await up('one');
        const second = await up('two');
        expect(second).toEqual({
          _id: 'k',
          first: 'one',
          last: 'two',
          count: 2,
        });
      });

      it('generates a string _id when the filter has none, and returns null for before', async () => {
        const c = await seeded([], [{ fields: { key: 1 }, unique: true }]);
        const before = await c.findOneAndUpdate({ key: 'abc' }, { $set: { v: 1 } }, { upsert: true, returnDocument: 'before' });
        expect(before).toBeNull();
        const doc = (await c.findOne({ key: 'abc' }))!;
        expect(typeof doc._id).toBe('string');
        expect(doc._id.length).toBeGreaterThan(0);
        expect(doc).toEqual({ _id: doc._id, key: 'abc', v: 1 });
        // A second upsert with the same key updates the same document.
        const again = await c.findOneAndUpdate({ key: 'abc' }, { $inc: { v: 1 } }, { upsert: true });
        expect(again).toEqual({ _id: doc._id, key: 'abc', v: 2 });
        expect(await c.count({})).toBe(1);
      });

      it('uses $eq conditions but not other operators as seed', async () => {
        const c = await seeded([]);
        const doc = await c.findOneAndUpdate(
          {
            _id: { $eq: 'z' },
            a: { $eq: 'b' },
            t: { $in: ['x', 'y'] },
            missing: { $exists: false },
          },
          { $set: { done: false } },
          { upsert: true },
        );
        expect(doc).toEqual({ _id: 'z', a: 'b', done: false });
      });
    });

    describe('upsertMany', () => {
      it('inserts the missing documents and updates the existing ones, in order, saying which it inserted', async () => {
        const c = await seeded([{ _id: 'a', first: 'old', n: 1 }], [{ fields: { first: 1 } }]);
        const result = await c.upsertMany([
          { _id: 'a', update: { $set: { last: 'x' }, $setOnInsert: { first: 'new' }, $inc: { n: 1 } } },
          { _id: 'b', update: { $setOnInsert: { first: 'new', nested: { k: [1, 2] } } } },
          { _id: 'b', update: { $set: { last: 'y' }, $setOnInsert: { first: 'never' } } },
          { _id: 'gone', update: { $set: { last: 'z' } }, upsert: false },
          { _id: 'a', update: { $set: { again: true } }, upsert: false },
        ]);
        expect(result).toEqual({ inserted: [false, true, false, false, false], matched: 3 });
        expect(await c.findOne({ _id: 'gone' })).toBeNull();
        expect((await c.findOne({ _id: 'a' }))?.again).toBe(true);
        await c.updateMany({ _id: 'a' }, { $unset: { again: true } });
        expect(await c.findOne({ _id: 'a' })).toEqual({ _id: 'a', first: 'old', n: 2, last: 'x' });
        expect(await c.findOne({ _id: 'b' })).toEqual({ _id: 'b', first: 'new', nested: { k: [1, 2] }, last: 'y' });
        // Indexed fields written by either path stay queryable.
        expect(sortedIds(await c.find({ first: 'new' }))).toEqual(['b']);
        expect(sortedIds(await c.find({ first: 'old' }))).toEqual(['a']);
        expect(await c.upsertMany([])).toEqual({ inserted: [], matched: 0 });
      });

      it('throws DuplicateKeyError when a unique index refuses an entry', async () => {
        const c = await seeded([{ _id: 'a', key: 'k1' }], [{ fields: { key: 1 }, unique: true }]);
        await expect(
          c.upsertMany([
            { _id: 'b', update: { $setOnInsert: { key: 'k2' } } },
            { _id: 'c', update: { $setOnInsert: { key: 'k1' } } },
          ]),
        ).rejects.toBeInstanceOf(DuplicateKeyError);
        expect(await c.findOne({ _id: 'c' })).toBeNull();
        expect(await c.findOne({ _id: 'a' })).toEqual({ _id: 'a', key: 'k1' });
      });

      it('refuses an entry without a string _id or with an unknown operator', async () => {
        const c = await seeded([]);
        await expect(c.upsertMany([{ _id: '', update: { $set: { v: 1 } } }])).rejects.toThrow(/_id/);
        await expect(c.upsertMany([{ _id: 'x', update: { $push: { v: 1 } } as never }])).rejects.toThrow(/operator/);
        expect(await c.count({})).toBe(0);
      });
    });

    describe('updateMany', () => {
      it('updates every match and returns the number of modified documents', async () => {
        const c = await seeded([
          { _id: 'a', g: 1, v: 0 },
          { _id: 'b', g: 1, v: 0 },
          { _id: 'c', g: 2, v: 0 },
        ]);
        expect(await c.updateMany({ g: 1 }, { $set: { v: 7 }, $inc: { n: 1 } })).toBe(2);
        expect(await c.find({}, { sort: { _id: 1 } })).toEqual([
          { _id: 'a', g: 1, v: 7, n: 1 },
          { _id: 'b', g: 1, v: 7, n: 1 },
          { _id: 'c', g: 2, v: 0 },
        ]);
        expect(await c.updateMany({ g: 3 }, { $set: { v: 1 } })).toBe(0);
        expect(await c.updateMany({}, { $unset: { n: true } })).toBe(2);
        expect(await c.count({ n: { $exists: true } })).toBe(0);
        // Setting a field to its current value modifies nothing.
        expect(await c.updateMany({ _id: 'c' }, { $set: { v: 0 } })).toBe(0);
      });
    });

    describe('updateEach', () => {
      it('applies each op to the first match of its own filter and counts the ops that matched', async () => {
        const c = await seeded([
          { _id: 'a', g: 1, v: 0, status: 'running' },
          { _id: 'b', g: 1, v: 0, status: 'running' },
          { _id: 'c', g: 2, v: 0, status: 'done' },
        ]);
        const matched = await c.updateEach([
          { filter: { _id: 'a', status: 'running' }, update: { $set: { status: 'done', v: 1 }, $inc: { n: 2 } } },
          // Fenced out: matches nothing, changes nothing, the others still apply.
          { filter: { _id: 'c', status: 'running' }, update: { $set: { v: 9 } } },
          { filter: { _id: 'b' }, update: { $set: { status: 'pending' }, $unset: { g: true } } },
          // Matches, with nothing to change: still counted as matched (MongoDB's matchedCount).
          { filter: { _id: 'a' }, update: { $set: { v: 1 } } },
        ]);
        expect(matched).toBe(3);
        expect(await c.find({}, { sort: { _id: 1 } })).toEqual([
          { _id: 'a', g: 1, v: 1, status: 'done', n: 2 },
          { _id: 'b', v: 0, status: 'pending' },
          { _id: 'c', g: 2, v: 0, status: 'done' },
        ]);
        expect(await c.updateEach([])).toBe(0);
      });

      it('keeps indexed fields queryable after the update', async () => {
        const c = await seeded(
          [
            { _id: 'a', status: 'running', n: 1 },
            { _id: 'b', status: 'running', n: 2 },
          ],
          [{ fields: { status: 1, n: 1 } }],
        );
        await c.updateEach([
          { filter: { _id: 'a' }, update: { $set: { status: 'done' } } },
          { filter: { _id: 'b' }, update: { $inc: { n: 5 } } },
        ]);
        expect((await c.find({ status: 'done' })).map((d) => d._id)).toEqual(['a']);
        expect((await c.find({ status: 'running', n: 7 })).map((d) => d._id)).toEqual(['b']);
      });
    });

    describe('delete', () => {
      it('deleteOne removes one matching document', async () => {
        const c = await seeded([
          { _id: 'a', g: 1 },
          { _id: 'b', g: 1 },
          { _id: 'c', g: 2 },
        ]);
        expect(await c.deleteOne({ g: 1 })).toBe(true);
        expect(await c.count({ g: 1 })).toBe(1);
        expect(await c.deleteOne({ _id: 'zz' })).toBe(false);
        expect(await c.deleteOne({ _id: 'c' })).toBe(true);
        expect(await c.findOne({ _id: 'c' })).toBeNull();
      });

      it('deleteMany removes every match and returns the count', async () => {
        const c = await seeded(
          Array.from({ length: 10 }, (_, i) => ({
            _id: `d${i}`,
            even: i % 2 === 0,
          })),
        );
        expect(await c.deleteMany({ even: true })).toBe(5);
        expect(await c.deleteMany({ even: true })).toBe(0);
        expect(await c.count({})).toBe(5);
        expect(await c.deleteMany({})).toBe(5);
        expect(await c.find({})).toEqual([]);
      });

      it('a deleted _id can be inserted again', async () => {
        const c = await seeded([{ _id: 'a', email: 'a@x' }], [{ fields: { email: 1 }, unique: true }]);
        await c.deleteOne({ _id: 'a' });
        await c.insertOne({ _id: 'a', email: 'a@x' });
        expect(await c.count({})).toBe(1);
      });
    });

    describe('insertMany', () => {
      it('inserts every document, skipping and reporting _id and unique-index clashes without failing the rest', async () => {
        const c = await seeded([{ _id: 'x0', k: 'k0' }], [{ fields: { k: 1 }, unique: true }]);
        const result = await c.insertMany([
          { _id: 'x1', k: 'k1' },
          { _id: 'x0', k: 'other' }, // _id clash
          { _id: 'x2', k: 'k0' }, // unique-index clash
          { _id: 'x3', k: 'k3' },
          { _id: 'x4', k: 'k3' }, // clash inside the batch itself
        ]);
        expect(result.inserted).toBe(2);
        expect([...result.duplicates].sort()).toEqual(['x0', 'x2', 'x4']);
        expect(sortedIds(await c.find({}))).toEqual(['x0', 'x1', 'x3']);
        expect((await c.findOne({ _id: 'x0' }))?.k).toBe('k0');
      });

      it('accepts an empty batch and large batches', async () => {
        const c = await seeded([]);
        expect(await c.insertMany([])).toEqual({ inserted: 0, duplicates: [] });
        const docs = Array.from({ length: 1500 }, (_, i) => ({ _id: `b${String(i).padStart(5, '0')}`, i }));
        expect(await c.insertMany(docs)).toEqual({ inserted: 1500, duplicates: [] });
        expect(await c.count({})).toBe(1500);
      });
    });

    describe('projection (fields)', () => {
      it('returns _id and the named fields only, with missing or null fields absent', async () => {
        const c = await seeded([
          { _id: 'p1', a: 1, b: { deep: [1, 2] }, c: 'big', n: null },
          { _id: 'p2', a: 2, c: 'big' },
        ]);
        const found = await c.find({}, { sort: { a: 1 }, fields: ['a', 'b', 'n'] });
        expect(found).toEqual([
          { _id: 'p1', a: 1, b: { deep: [1, 2] } },
          { _id: 'p2', a: 2 },
        ]);
        const streamed: unknown[] = [];
        for await (const d of c.iterate({ a: { $gte: 1 } }, { sort: { a: -1 }, fields: ['c'], batchSize: 1 })) streamed.push(d);
        expect(streamed).toEqual([
          { _id: 'p2', c: 'big' },
          { _id: 'p1', c: 'big' },
        ]);
      });

      it('rejects hostile projection fields', async () => {
        const c = await seeded([{ _id: 'h1', a: 1 }]);
        await expect(c.find({}, { fields: ['$where'] })).rejects.toThrow();
        await expect(c.find({}, { fields: ["a') || ('"] })).rejects.toThrow();
      });
    });

    describe('multikey indexes (an array field whose elements a filter matches)', () => {
      const multikey: CollectionSpec['indexes'] = [
        { fields: { tags: 1 }, multikey: 'tags' },
        { fields: { g: 1, tags: 1 }, multikey: 'tags' },
      ];

      it('equality and $in match any element, after every kind of write', async () => {
        const c = await seeded(
          [
            { _id: 'a', g: 'x', tags: ['red', 'blue', 7] },
            { _id: 'b', g: 'x', tags: ['green', 'red', 'red'] },
            { _id: 'c', g: 'y', tags: [] },
            { _id: 'd', g: 'y', tags: 'blue' },
            { _id: 'e', g: 'y' },
          ],
          multikey,
        );
        expect(sortedIds(await c.find({ tags: 'red' }))).toEqual(['a', 'b']);
        expect(sortedIds(await c.find({ tags: { $in: ['blue', 'green'] } }))).toEqual(['a', 'b', 'd']);
        expect(sortedIds(await c.find({ tags: { $in: ['7'] } }))).toEqual([]);
        expect(sortedIds(await c.find({ tags: 7 }))).toEqual(['a']);
        expect(sortedIds(await c.find({ tags: { $in: [] } }))).toEqual([]);
        expect(sortedIds(await c.find({ g: 'x', tags: { $in: ['blue', 'nope'] } }))).toEqual(['a']);
        expect(await c.count({ tags: { $eq: 'red' } })).toBe(2);
        expect(await c.findOne({ _id: 'b', tags: 'green' })).toMatchObject({ _id: 'b' });
        expect(await c.findOne({ _id: 'b', tags: 'blue' })).toBeNull();
        // A document stores its array as it was given, duplicates included.
        expect((await c.findOne({ _id: 'b' }))!.tags).toEqual(['green', 'red', 'red']);

        await c.insertMany([{ _id: 'f', tags: ['red'] }]);
        await c.findOneAndUpdate({ _id: 'a' }, { $set: { tags: ['blue'] } });
        await c.updateMany({ _id: 'b' }, { $set: { n: 1 } }); // the array untouched
        await c.upsertMany([{ _id: 'g', update: { $set: { tags: ['red', 'pink'] } } }]);
        await c.updateEach([{ filter: { _id: 'd' }, update: { $set: { tags: ['pink'] } } }]);
        await c.replaceOne({ _id: 'c', tags: ['red'] });
        expect(sortedIds(await c.find({ tags: 'red' }))).toEqual(['b', 'c', 'f', 'g']);
        expect(sortedIds(await c.find({ tags: 'pink' }))).toEqual(['d', 'g']);
        expect(await c.deleteOne({ _id: 'd', tags: 'pink' })).toBe(true);
        expect(await c.deleteMany({ g: 'x' })).toBe(2);
        expect(sortedIds(await c.find({ tags: { $in: ['red', 'pink', 'blue'] } }))).toEqual(['c', 'f', 'g']);
      });

      it('finds the documents of an element among many', async () => {
        const c = await store.collection<Item>(spec(multikey));
        await c.insertMany(Array.from({ length: 300 }, (_, i) => ({ _id: `d${i}`, tags: [`t${i}`, `t${i + 1}`, `all`] })));
        expect(sortedIds(await c.find({ tags: { $in: ['t10', 't200'] } }))).toEqual(['d10', 'd199', 'd200', 'd9']);
        expect(await c.count({ tags: 'all' })).toBe(300);
      });
    });

    describe('isolation between collections', () => {
      it('collections do not share documents', async () => {
        const a = await seeded([{ _id: 'same', from: 'a' }]);
        const b = await seeded([{ _id: 'same', from: 'b' }]);
        expect((await a.findOne({ _id: 'same' }))!.from).toBe('a');
        expect((await b.findOne({ _id: 'same' }))!.from).toBe('b');
      });
    });
  });
}
