import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SqliteDocumentStore } from '@app/storage';
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

  it('uses the expression index for indexed equality and the primary key for _id', async () => {
    const s = SqliteDocumentStore.open({ file: join(dir, 'g.db') });
    await s.collection({
      name: 'jobs',
      indexes: [{ fields: { status: 1, createdAt: -1 } }],
    });
    const plan = (sql: string) =>
      (
        s.db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all('x') as Array<{
          detail: string;
        }>
      )
        .map((r) => r.detail)
        .join('\n');
    expect(plan(`SELECT doc FROM "c_jobs" WHERE (json_extract(doc,'$.status') = ? AND json_type(doc,'$.status') = 'text')`)).toMatch(
      /USING INDEX/,
    );
    expect(plan(`SELECT doc FROM "c_jobs" WHERE (id = ? AND 'text' = 'text') LIMIT 1`)).toMatch(/PRIMARY KEY|autoindex/);
    await s.close();
  });

  it('rejects invalid collection names', async () => {
    const s = SqliteDocumentStore.open({ file: join(dir, 'g.db') });
    await expect(s.collection({ name: 'bad"; DROP TABLE x; --', indexes: [] })).rejects.toThrow();
    await s.close();
  });
});
