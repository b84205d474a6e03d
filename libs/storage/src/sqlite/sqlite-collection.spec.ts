import { SqliteDocumentStore } from './sqlite-document-store';
import { limitClause } from './sqlite-collection';

describe('limitClause', () => {
  it('writes the row count into the SQL and binds only the offset', () => {
    expect(limitClause(200, 0)).toBe(' LIMIT 200');
    expect(limitClause(2.7, 0)).toBe(' LIMIT 2');
    expect(limitClause(3, 5)).toBe(' LIMIT 3 OFFSET ?');
  });

  it('writes no limit for none, and LIMIT -1 where an offset needs one', () => {
    expect(limitClause(Infinity, 0)).toBe('');
    expect(limitClause(1e21, 0)).toBe('');
    expect(limitClause(0.5, 0)).toBe('');
    expect(limitClause(Infinity, 4)).toBe(' LIMIT -1 OFFSET ?');
  });
});

describe('SqliteCollection limits and offsets', () => {
  let store: SqliteDocumentStore;
  let statements: string[];

  beforeEach(() => {
    store = SqliteDocumentStore.open({ file: ':memory:' });
    statements = [];
    const stmt = store.stmt.bind(store);
    jest.spyOn(store, 'stmt').mockImplementation((sql: string) => (statements.push(sql), stmt(sql)));
  });
  afterEach(() => store.close());

  async function seeded(count: number) {
    const c = await store.collection<{ _id: string; i: number; g: string }>({ name: 'items', indexes: [{ fields: { g: 1, i: 1 } }] });
    for (let i = 0; i < count; i++) await c.insertOne({ _id: `d${String(i).padStart(2, '0')}`, i, g: 'a' });
    statements.length = 0;
    return c;
  }

  const reads = () => statements.filter((sql) => sql.startsWith('SELECT') && sql.includes('"c_items"'));

  it('find answers limit and skip with the limit in the SQL and one statement for every offset', async () => {
    const c = await seeded(9);
    expect((await c.find({ g: 'a' }, { sort: { i: 1 }, limit: 3 })).map((d) => d.i)).toEqual([0, 1, 2]);
    expect((await c.find({ g: 'a' }, { sort: { i: 1 }, limit: 3, skip: 4 })).map((d) => d.i)).toEqual([4, 5, 6]);
    expect((await c.find({ g: 'a' }, { sort: { i: 1 }, limit: 3, skip: 7 })).map((d) => d.i)).toEqual([7, 8]);
    expect((await c.find({ g: 'a' }, { sort: { i: 1 }, skip: 8 })).map((d) => d.i)).toEqual([8]);
    expect((await c.find({ g: 'a' }, { sort: { i: 1 }, limit: 1e21 })).length).toBe(9);
    expect(reads().every((sql) => !sql.includes('LIMIT ?'))).toBe(true);
    expect(new Set(reads().filter((sql) => sql.includes('LIMIT 3'))).size).toBe(2); // without and with an offset
  });

  it('iterate reads batches under a literal limit, honouring skip and limit across batches', async () => {
    const c = await seeded(10);
    const seen: number[] = [];
    for await (const d of c.iterate({ g: 'a' }, { sort: { i: 1 }, skip: 1, limit: 7, batchSize: 3 })) seen.push(d.i);
    expect(seen).toEqual([1, 2, 3, 4, 5, 6, 7]);
    expect(reads().length).toBeGreaterThanOrEqual(3);
    expect(reads().every((sql) => !sql.includes('LIMIT ?') && /LIMIT \d+/.test(sql))).toBe(true);
  });
});

describe('SqliteCollection reads for big collections', () => {
  let store: SqliteDocumentStore;

  beforeEach(() => {
    store = SqliteDocumentStore.open({ file: ':memory:' });
  });
  afterEach(() => store.close());

  it('iterate on an ascending indexed key seeks each batch in the index (no sort, no walk from the start)', async () => {
    const c = await store.collection<{ _id: string; j: string; s: number | null }>({ name: 'e', indexes: [{ fields: { j: 1, s: 1 } }] });
    // Ties and nulls across batch boundaries: the order is (s, rowid), nulls first.
    const docs = [null, null, 1, 1, 1, 2, 3, 3, null].map((s, i) => ({ _id: `d${i}`, j: 'a', s }));
    await c.insertMany([...docs, { _id: 'other', j: 'b', s: 1 }]);
    const statements: string[] = [];
    const stmt = store.stmt.bind(store);
    jest.spyOn(store, 'stmt').mockImplementation((sql: string) => (statements.push(sql), stmt(sql)));
    const seen: string[] = [];
    for await (const d of c.iterate({ j: 'a' }, { sort: { s: 1 }, batchSize: 2 })) seen.push(d._id);
    expect(seen).toEqual(['d0', 'd1', 'd8', 'd2', 'd3', 'd4', 'd5', 'd6', 'd7']);
    // A later batch's statement (after a non-null key), as SQLite plans it.
    const next = statements.find((sql) => sql.includes('rowid > ?') && sql.includes('>= ?'))!;
    const params = (next.match(/\?/g) ?? []).map((_, i) => (i === 0 ? 'a' : 1));
    const plan = store.db.prepare(`EXPLAIN QUERY PLAN ${next}`).all(...params) as Array<{ detail: string }>;
    const detail = plan.map((p) => p.detail).join(' | ');
    expect(detail).toContain('x_s>?');
    expect(detail).not.toContain('TEMP B-TREE');
  });

  it('a projection reads indexed fields from their columns as the document holds them, and omits missing and null ones', async () => {
    const c = await store.collection<Record<string, unknown> & { _id: string }>({
      name: 'p',
      indexes: [{ fields: { b: 1 } }, { fields: { o: 1 } }, { fields: { n: 1 } }, { fields: { t: 1 } }, { fields: { z: 1 } }],
    });
    const doc = { _id: 'x', b: false, o: { k: [1, 'two'] }, n: 2 ** 60, t: 'text', z: null, free: { deep: true }, f: 1.5 };
    await c.insertOne(doc);
    const [projected] = await c.find({ _id: 'x' }, { fields: ['b', 'o', 'n', 't', 'z', 'free', 'f', 'missing', '_id'] });
    expect(projected).toEqual({ _id: 'x', b: false, o: { k: [1, 'two'] }, n: 2 ** 60, t: 'text', free: { deep: true }, f: 1.5 });
    expect(Object.keys(projected)).toEqual(['_id', 'b', 'o', 'n', 't', 'free', 'f']);
    const streamed: unknown[] = [];
    for await (const d of c.iterate({ b: false }, { fields: ['n', 'b'] })) streamed.push(d);
    expect(streamed).toEqual([{ _id: 'x', n: 2 ** 60, b: false }]);
  });
});
