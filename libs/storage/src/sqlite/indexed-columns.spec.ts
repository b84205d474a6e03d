import { DatabaseSync } from 'node:sqlite';
import { backfillExpression, columnName, columnValue, IndexedColumns, sameColumnValue } from './indexed-columns';
import { InvalidFilterError, translateFilter } from './sqlite-filter';

const text = (v: unknown) => (v instanceof Uint8Array ? `blob:${Buffer.from(v).toString()}` : v);

describe('columnValue', () => {
  it.each([
    [{ f: 'x' }, 'x'],
    [{ f: 3 }, 3],
    [{ f: 2.5 }, 2.5],
    [{ f: null }, null],
    [{}, null],
    [{ f: true }, 'blob:true'],
    [{ f: false }, 'blob:false'],
    [{ f: { a: [1, 'b'] } }, 'blob:{"a":[1,"b"]}'],
    [{ f: [1, 2] }, 'blob:[1,2]'],
    [{ f: Number.NaN }, null],
    [{ f: new Date('2026-01-02T03:04:05.000Z') }, '2026-01-02T03:04:05.000Z'],
  ])('of %j is %j', (doc, expected) => {
    expect(text(columnValue(doc, 'f'))).toEqual(expected);
  });

  it('follows dotted paths through objects only, as SQLite JSON paths do', () => {
    expect(columnValue({ a: { b: { c: 'deep' } } }, 'a.b.c')).toBe('deep');
    expect(columnValue({ a: [{ b: 1 }] }, 'a.b')).toBeNull();
    expect(columnValue({ a: 'str' }, 'a.b')).toBeNull();
    expect(columnValue({ a: null }, 'a.b')).toBeNull();
  });

  it('equals what the backfill expression computes from the stored text', () => {
    const db = new DatabaseSync(':memory:');
    const docs = [
      { f: 'x' },
      { f: 7 },
      { f: 1.5 },
      { f: true },
      { f: false },
      { f: null },
      {},
      { f: { k: [true, null] } },
      { f: [] },
      { f: '[1]' },
    ];
    for (const doc of docs) {
      const row = db.prepare(`SELECT ${backfillExpression('f')} AS v FROM (SELECT ? AS doc)`).get(JSON.stringify(doc)) as { v: unknown };
      expect([doc, text(row.v)]).toEqual([doc, text(columnValue(doc, 'f'))]);
    }
    db.close();
  });
});

describe('IndexedColumns', () => {
  const columns = new IndexedColumns(['status', 'seq', '_id', 'status', 'meta.kind']);

  it('has one column per indexed field, never _id', () => {
    expect(columns.paths).toEqual(['status', 'seq', 'meta.kind']);
    expect(columns.byPath.get('meta.kind')).toBe('"x_meta__kind"');
  });

  it('names only the columns whose value changed', () => {
    const before = columns.values({ status: 'queued', seq: 1, meta: { kind: 'a' } });
    expect(columns.changed(before, columns.values({ status: 'done', seq: 1, meta: { kind: 'a' }, other: 2 }))).toEqual({
      columns: ['"x_status"'],
      values: ['done'],
    });
    expect(columns.changed(before, columns.values({ status: 'queued', seq: 1, meta: { kind: 'a' } })).columns).toEqual([]);
    expect(columns.changed(before, columns.values({ status: 'queued', seq: 1 }))).toEqual({ columns: ['"x_meta__kind"'], values: [null] });
  });

  it('compares blobs by content and never a blob with a string', () => {
    expect(sameColumnValue(columnValue({ f: true }, 'f'), columnValue({ f: true }, 'f'))).toBe(true);
    expect(sameColumnValue(columnValue({ f: true }, 'f'), columnValue({ f: false }, 'f'))).toBe(false);
    expect(sameColumnValue(columnValue({ f: true }, 'f'), 'true')).toBe(false);
    expect(sameColumnValue(1, 1)).toBe(true);
    expect(sameColumnValue(1, '1')).toBe(false);
  });

  it('refuses field names that are not plain paths', () => {
    expect(() => columnName('a"; DROP TABLE x; --')).toThrow(InvalidFilterError);
    expect(() => new IndexedColumns(['ok', 'a b'])).toThrow(InvalidFilterError);
  });
});

describe('filters on indexed columns', () => {
  const cols = new IndexedColumns(['f', 'n']).byPath;

  it('compare typed column values without reading the document', () => {
    expect(translateFilter({ f: true }, cols).sql).toBe(`"x_f" = x'74727565'`);
    expect(translateFilter({ f: 'a', n: 2 }, cols)).toEqual({ sql: '"x_f" = ? AND "x_n" = ?', params: ['a', 2] });
    expect(translateFilter({ f: { $in: ['a', 'b'] } }, cols).sql).toBe('"x_f" IN (SELECT value FROM json_each(?))');
    expect(translateFilter({ n: { $gt: 1 } }, cols).sql).toBe(`("x_n" > ? AND typeof("x_n") IN ('integer','real'))`);
  });

  it('keep reading the document for $exists (a column cannot tell null from missing) and for other fields', () => {
    expect(translateFilter({ f: { $exists: false } }, cols).sql).toBe(`json_type(doc,'$.f') IS NULL`);
    expect(translateFilter({ g: 'a' }, cols).sql).toBe(`json_extract(doc,'$.g') = ?`);
  });
});
