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
