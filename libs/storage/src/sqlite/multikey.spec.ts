import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sideTableName } from './multikey';
import { SqliteDocumentStore } from './sqlite-document-store';
import { translateFilter } from './sqlite-filter';

describe('multikey fields of the embedded store', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'gleaner-multikey-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('fills the side table from the documents stored before the field was indexed, and keeps it across reopening', async () => {
    const file = join(dir, 'store.db');
    let store = SqliteDocumentStore.open({ file });
    await (
      await store.collection({ name: 'things', indexes: [] })
    ).insertMany([
      { _id: 'a', tags: ['x', 'y'] },
      { _id: 'b', tags: ['y'] },
    ]);
    await store.close();
    store = SqliteDocumentStore.open({ file });
    const spec = { name: 'things', indexes: [{ fields: { tags: 1 as const }, multikey: 'tags' }] };
    const things = await store.collection(spec);
    expect((await things.find({ tags: 'y' })).map((d) => d._id).sort()).toEqual(['a', 'b']);
    await things.insertOne({ _id: 'c', tags: ['x'] });
    await store.close();
    store = SqliteDocumentStore.open({ file });
    const again = await store.collection(spec);
    expect((await again.find({ tags: 'x' })).map((d) => d._id).sort()).toEqual(['a', 'c']);
    await store.close();
  });

  it('reads a query on the field from the side table by its index, not by a scan of the collection', async () => {
    const store = SqliteDocumentStore.open({ file: join(dir, 'store.db') });
    await store.collection({ name: 'things', indexes: [{ fields: { tags: 1 }, multikey: 'tags' }] });
    const where = translateFilter({ tags: { $in: ['x', 'y'] } }, new Map(), new Map([['tags', sideTableName('things', 'tags')]]));
    const plan = store.db.prepare(`EXPLAIN QUERY PLAN SELECT doc FROM "c_things" WHERE ${where.sql}`).all(...where.params) as Array<{
      detail: string;
    }>;
    const details = plan.map((p) => p.detail).join('\n');
    expect(details).toMatch(/m_things__tags USING (COVERING )?INDEX mx_m_things__tags/);
    expect(details).not.toMatch(/SCAN c_things/);
    await store.close();
  });

  it('refuses what it cannot answer: other operators, sorts, booleans, a unique multikey index', async () => {
    const store = SqliteDocumentStore.open({ file: join(dir, 'store.db') });
    const things = await store.collection({ name: 'things', indexes: [{ fields: { tags: 1 }, multikey: 'tags' }] });
    await expect(things.find({ tags: { $gt: 'a' } })).rejects.toThrow(/only equality and \$in/);
    await expect(things.find({ tags: { $in: [true] } })).rejects.toThrow(/strings and numbers/);
    await expect(things.find({}, { sort: { tags: 1 } })).rejects.toThrow(/cannot be sorted/);
    await expect(store.collection({ name: 'other', indexes: [{ fields: { tags: 1 }, multikey: 'tags', unique: true }] })).rejects.toThrow(
      /not unique/,
    );
    await store.close();
  });
});
