import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { DuplicateKeyError } from '@app/core';
import { SqliteDocumentStore, type Doc, type Filter } from '@app/storage';
import { columnValue, IndexedColumns } from '../../libs/storage/src/sqlite/indexed-columns';
import { translateFilter, translateSort } from '../../libs/storage/src/sqlite/sqlite-filter';
import { storageContract } from './storage.contract';

const dirs = new Map<SqliteDocumentStore, string>();

storageContract(
  'sqlite',
  async () => {
    const dir = mkdtempSync(join(tmpdir(), 'gleaner-storage-'));
    // A nested, not-yet-existing directory: open() must create it.
    const store = SqliteDocumentStore.open({
      file: join(dir, 'nested', 'gleaner.db'),
    });
    dirs.set(store, dir);
    return store;
  },
  async (store) => {
    await store.close();
    const dir = dirs.get(store as SqliteDocumentStore);
    if (dir) rmSync(dir, { recursive: true, force: true });
  },
);

describe('SqliteDocumentStore specifics', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'gleaner-storage-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('persists across reopen, with WAL and synchronous=FULL', async () => {
    const file = join(dir, 'g.db');
    const a = SqliteDocumentStore.open({ file });
    expect(a.kind).toBe('sqlite');
    expect((a.db.prepare('PRAGMA journal_mode').get() as { journal_mode: string }).journal_mode).toBe('wal');
    expect((a.db.prepare('PRAGMA synchronous').get() as { synchronous: number }).synchronous).toBe(2);
    const c = await a.collection({
      name: 'things',
      indexes: [{ fields: { k: 1 }, unique: true }],
    });
    await c.insertOne({ _id: 'x', k: 'v', n: { deep: [1, 2] } });
    await a.close();
    await expect(a.ping()).rejects.toThrow();

    const b = SqliteDocumentStore.open({ file });
    const c2 = await b.collection({
      name: 'things',
      indexes: [{ fields: { k: 1 }, unique: true }],
    });
    expect(await c2.findOne({ _id: 'x' })).toEqual({
      _id: 'x',
      k: 'v',
      n: { deep: [1, 2] },
    });
    await b.close();
  });

  it("reads indexed fields from their columns' indexes and _id from the primary key", async () => {
    const s = SqliteDocumentStore.open({ file: join(dir, 'g.db') });
    const jobs = await s.collection({ name: 'jobs', indexes: [{ fields: { status: 1, createdAt: -1 } }] });
    const plan = (filter: Filter, sort?: Record<string, 1 | -1>) => {
      const where = translateFilter(filter, new IndexedColumns(['status', 'createdAt']).byPath);
      const order = sort ? ` ORDER BY ${translateSort(sort, new IndexedColumns(['status', 'createdAt']).byPath)}` : '';
      return (
        s.db.prepare(`EXPLAIN QUERY PLAN SELECT doc FROM "c_jobs" WHERE ${where.sql}${order}`).all(...where.params) as Array<{
          detail: string;
        }>
      )
        .map((r) => r.detail)
        .join('\n');
    };
    expect(plan({ status: 'queued' })).toMatch(/USING INDEX cx_jobs_status_a_createdAt_d/);
    expect(plan({ status: { $in: ['a', 'b'] } }, { status: 1, createdAt: -1 })).toMatch(/USING INDEX cx_jobs_status_a_createdAt_d/);
    expect(plan({ status: 'queued', createdAt: { $lt: '2026' } })).toMatch(
      /USING INDEX cx_jobs_status_a_createdAt_d \(x_status=\? AND x_createdAt<\?\)/,
    );
    expect(plan({ _id: 'x' })).toMatch(/PRIMARY KEY|autoindex/);
    // No index reads the document text: writes that change no indexed field touch no index.
    const indexSql = s.db
      .prepare(`SELECT sql FROM sqlite_master WHERE type = 'index' AND tbl_name = 'c_jobs' AND sql IS NOT NULL`)
      .all() as Array<{ sql: string }>;
    expect(indexSql.length).toBeGreaterThan(0);
    for (const { sql } of indexSql) expect(sql).not.toMatch(/doc/);
    await jobs.insertOne({ _id: 'j', status: 'queued', createdAt: '2026-01-01' });
    expect((await jobs.find({ status: 'queued' })).map((d) => d._id)).toEqual(['j']);
    await s.close();
  });

  it('moves a store written before indexed columns onto them, and drops the document expression indexes', async () => {
    const file = join(dir, 'old.db');
    const old = new DatabaseSync(file);
    old.exec('CREATE TABLE "c_things" (id TEXT PRIMARY KEY, doc TEXT NOT NULL)');
    old.exec(`CREATE INDEX "ix_things_k_a" ON "c_things" (json_extract(doc,'$.k') ASC)`);
    old.exec(`CREATE UNIQUE INDEX "ux_things_u_a" ON "c_things" (IFNULL(doc -> '$.u', 'null'))`);
    const docs = [
      { _id: 's', k: 'text', u: 1 },
      { _id: 'n', k: 2.5, u: 2 },
      { _id: 'i', k: 7, u: 3 },
      { _id: 't', k: true, u: 4 },
      { _id: 'f', k: false, u: 5 },
      { _id: 'o', k: { a: [1, 'x'] }, u: 6 },
      { _id: 'a', k: [1, 2], u: 7 },
      { _id: 'z', k: null, u: 8 },
      { _id: 'm', u: 9 },
      { _id: 'q', k: '{"a":[1,"x"]}', u: 10 },
    ];
    const insert = old.prepare('INSERT INTO "c_things" (id, doc) VALUES (?, ?)');
    for (const d of docs) insert.run(d._id, JSON.stringify(d));
    old.close();

    const s = SqliteDocumentStore.open({ file });
    const c = await s.collection<Doc & Record<string, unknown>>({
      name: 'things',
      indexes: [{ fields: { k: 1 } }, { fields: { u: 1 }, unique: true }],
    });
    const indexes = (
      s.db.prepare(`SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'c_things' AND sql IS NOT NULL`).all() as Array<{
        name: string;
      }>
    )
      .map((r) => r.name)
      .sort();
    expect(indexes).toEqual(['cu_things_u_a', 'cx_things_k_a', 'cx_things_u_a']);
    // The backfilled column holds exactly what a write of the same document would have put there.
    const rows = s.db.prepare('SELECT id, x_k FROM "c_things"').all() as Array<{ id: string; x_k: unknown }>;
    for (const row of rows) {
      const doc = docs.find((d) => d._id === row.id)!;
      expect({ id: row.id, k: row.x_k }).toEqual({ id: row.id, k: columnValue(doc, 'k') });
    }
    const q = async (filter: Filter) => (await c.find(filter)).map((d) => d._id).sort();
    expect(await q({ k: 'text' })).toEqual(['s']);
    expect(await q({ k: 7 })).toEqual(['i']);
    expect(await q({ k: true })).toEqual(['t']);
    expect(await q({ k: false })).toEqual(['f']);
    expect(await q({ k: null })).toEqual(['m', 'z']);
    expect(await q({ k: '{"a":[1,"x"]}' })).toEqual(['q']);
    expect(await q({ k: { $gt: 2 } })).toEqual(['i', 'n']);
    await expect(c.insertOne({ _id: 'dup', u: 3 })).rejects.toBeInstanceOf(DuplicateKeyError);
    await c.insertOne({ _id: 'new', k: 'text', u: '3' });
    expect(await q({ k: 'text' })).toEqual(['new', 's']);
    await s.close();
  });

  it('rejects invalid collection names', async () => {
    const s = SqliteDocumentStore.open({ file: join(dir, 'g.db') });
    await expect(s.collection({ name: 'bad"; DROP TABLE x; --', indexes: [] })).rejects.toThrow();
    await s.close();
  });
});
