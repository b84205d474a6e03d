import { DatabaseSync } from 'node:sqlite';
import { assertFieldName, InvalidFilterError, translateFilter, translateSort } from './sqlite-filter';
import { applyUpdate, upsertSeed, validateUpdate } from './apply-update';
import { validateFilter } from '../filter-validation';

describe('translateFilter', () => {
  it('binds values and never inlines them', () => {
    const hostile = "x' OR 1=1 --";
    const { sql, params } = translateFilter({
      name: hostile,
      n: { $gt: 3, $lte: 9 },
      _id: 'a',
    });
    expect(sql).not.toContain(hostile);
    expect(params).toEqual([hostile, 3, 9, 'a']);
    expect(sql).toContain("json_extract(doc,'$.name') = ?");
    expect(sql).toContain('id = ?');
  });

  it('empty filter is always true; empty $in is false and empty $nin true', () => {
    expect(translateFilter({}).sql).toBe('1');
    expect(translateFilter({ a: { $in: [] } }).sql).toBe('0');
    expect(translateFilter({ a: { $nin: [] } }).sql).toBe('NOT IFNULL(0, 0)');
  });

  it('keeps the SQL text independent of $in list length (statement cache friendly)', () => {
    const a = translateFilter({ s: { $in: ['a', 'b'] } });
    const b = translateFilter({ s: { $in: ['a', 'b', 'c', 'd'] } });
    expect(a.sql).toBe(b.sql);
    expect(b.params).toEqual([JSON.stringify(['a', 'b', 'c', 'd'])]);
  });

  it('booleans compare by JSON type, not as 1/0', () => {
    expect(translateFilter({ f: true }).sql).toBe("(json_extract(doc,'$.f') = 1 AND json_type(doc,'$.f') = 'true')");
    expect(translateFilter({ f: false }).params).toEqual([]);
  });

  it('dotted paths become JSON paths', () => {
    expect(translateFilter({ 'a.b_c.d1': 1 }).sql).toContain("'$.a.b_c.d1'");
  });

  it.each(["a') OR 1=1 --", 'a b', '1abc', '$where', 'a..b', 'a.', '.a', '', "a'", 'a"b', 'a[0]', 'a;DROP TABLE x', 'ä'])(
    'rejects hostile or invalid field name %j',
    (field) => {
      expect(() => translateFilter({ [field]: 1 })).toThrow(InvalidFilterError);
      expect(() => translateSort({ [field]: 1 })).toThrow(InvalidFilterError);
      expect(() => validateFilter({ [field]: 1 })).toThrow(InvalidFilterError);
      expect(() => assertFieldName(field)).toThrow(InvalidFilterError);
    },
  );

  it.each([
    [{ a: { $regex: 'x' } }],
    [{ a: { $where: 'x' } }],
    [{ a: { b: 1 } }],
    [{ a: [1, 2] }],
    [{ a: { $in: 'x' } }],
    [{ a: { $gt: true } }],
    [{ a: { $gt: null } }],
    [{ a: { $eq: { $gt: 1 } } }],
    [{ a: { $in: [{ $gt: 1 }] } }],
    [{ a: Number.NaN }],
  ])('rejects unsupported condition %j', (filter) => {
    expect(() => translateFilter(filter as never)).toThrow(InvalidFilterError);
    expect(() => validateFilter(filter as never)).toThrow(InvalidFilterError);
  });

  it('rejects invalid sort directions', () => {
    expect(() => translateSort({ a: 2 as never })).toThrow(InvalidFilterError);
    expect(translateSort({ a: 1, _id: -1 })).toBe("json_extract(doc,'$.a') ASC, id DESC");
  });

  it('produces SQL SQLite accepts, with MongoDB null/missing semantics', () => {
    const db = new DatabaseSync(':memory:');
    db.exec('CREATE TABLE t (id TEXT PRIMARY KEY, doc TEXT NOT NULL)');
    const ins = db.prepare('INSERT INTO t VALUES (?, ?)');
    ins.run('1', JSON.stringify({ _id: '1', a: null, b: 1 }));
    ins.run('2', JSON.stringify({ _id: '2', b: true }));
    ins.run('3', JSON.stringify({ _id: '3', a: 'x', b: '1' }));
    const q = (filter: Parameters<typeof translateFilter>[0]) => {
      const { sql, params } = translateFilter(filter);
      return (db.prepare(`SELECT id FROM t WHERE ${sql} ORDER BY id`).all(...params) as Array<{ id: string }>).map((r) => r.id);
    };
    expect(q({ a: null })).toEqual(['1', '2']);
    expect(q({ a: { $exists: true } })).toEqual(['1', '3']);
    expect(q({ a: { $ne: 'x' } })).toEqual(['1', '2']);
    expect(q({ b: 1 })).toEqual(['1']);
    expect(q({ b: true })).toEqual(['2']);
    expect(q({ b: '1' })).toEqual(['3']);
    expect(q({ b: { $in: [1, true] } })).toEqual(['1', '2']);
    expect(q({ b: { $gte: 1 } })).toEqual(['1']);
    db.close();
  });

  it('matches a string only to a string, also one spelled like the JSON text of an object, array or number', () => {
    const db = new DatabaseSync(':memory:');
    db.exec('CREATE TABLE t (id TEXT PRIMARY KEY, doc TEXT NOT NULL)');
    const ins = db.prepare('INSERT INTO t VALUES (?, ?)');
    ins.run('1', JSON.stringify({ _id: '1', c: { k: 1 } }));
    ins.run('2', JSON.stringify({ _id: '2', c: [1, 2] }));
    ins.run('3', JSON.stringify({ _id: '3', c: '{"k":1}' }));
    ins.run('4', JSON.stringify({ _id: '4', c: 12 }));
    ins.run('5', JSON.stringify({ _id: '5', c: '12' }));
    ins.run('6', JSON.stringify({ _id: '6', c: true }));
    const q = (filter: Parameters<typeof translateFilter>[0]) => {
      const { sql, params } = translateFilter(filter);
      return (db.prepare(`SELECT id FROM t WHERE ${sql} ORDER BY id`).all(...params) as Array<{ id: string }>).map((r) => r.id);
    };
    expect(q({ c: '{"k":1}' })).toEqual(['3']);
    expect(q({ c: '[1,2]' })).toEqual([]);
    expect(q({ c: '12' })).toEqual(['5']);
    expect(q({ c: '1' })).toEqual([]);
    expect(q({ c: { $ne: '12' } })).toEqual(['1', '2', '3', '4', '6']);
    db.close();
  });
});

describe('applyUpdate / upsertSeed', () => {
  it('applies operators without mutating the input', () => {
    const doc = { _id: 'a', n: 1, o: { x: 1 } };
    const out = applyUpdate(doc, { $set: { 'o.y': 2 }, $inc: { n: 2 }, $unset: { 'o.x': true } }, false);
    expect(out).toEqual({ _id: 'a', n: 3, o: { y: 2 } });
    expect(doc).toEqual({ _id: 'a', n: 1, o: { x: 1 } });
  });

  it('ignores $setOnInsert unless inserting', () => {
    expect(applyUpdate({ _id: 'a' }, { $setOnInsert: { c: 1 } }, false)).toEqual({ _id: 'a' });
    expect(applyUpdate({ _id: 'a' }, { $setOnInsert: { c: 1 } }, true)).toEqual({ _id: 'a', c: 1 });
  });

  it('validates updates', () => {
    expect(() => validateUpdate({ $rename: { a: 'b' } } as never)).toThrow(InvalidFilterError);
    expect(() => validateUpdate({ $set: { _id: 'x' } })).toThrow(InvalidFilterError);
    expect(() => validateUpdate({ $inc: { n: 'x' as never } })).toThrow(InvalidFilterError);
    expect(() => validateUpdate({ $set: { "a'b": 1 } })).toThrow(InvalidFilterError);
    expect(() => applyUpdate({ _id: 'a', s: 'str' }, { $inc: { s: 1 } }, false)).toThrow(InvalidFilterError);
  });

  it('seeds upserts from equality conditions only', () => {
    expect(
      upsertSeed({
        _id: 'a',
        'm.k': 'v',
        n: { $gt: 1 },
        e: { $eq: 2 },
        z: null,
      }),
    ).toEqual({
      _id: 'a',
      m: { k: 'v' },
      e: 2,
      z: null,
    });
  });
});
