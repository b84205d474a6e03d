/**
 * Embedded adapter: one SQLite file through Node's built-in node:sqlite. Every call is synchronous
 * underneath, so each operation (including read-modify-write) is atomic within this process, and
 * `BEGIN IMMEDIATE` makes it atomic against other processes sharing the file as well.
 */
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { DatabaseSync, type StatementSync } from 'node:sqlite';
import type { Collection, CollectionSpec, Doc, DocumentStore } from '../document-store.port';
import { GroupCommit } from './group-commit';
import { backfillExpression, IndexedColumns } from './indexed-columns';
import { multikeySql, sideTableName } from './multikey';
import { SqliteCollection } from './sqlite-collection';
import { fieldExpr, InvalidFilterError } from './sqlite-filter';

const COLLECTION_RE = /^[A-Za-z_][A-Za-z0-9_]*$/;
const STATEMENT_CACHE_MAX = 512;
const WAL_AUTOCHECKPOINT_PAGES = 10_000;

export interface SqliteDocumentStoreOptions {
  file: string;
  /** How long a writer waits for another process's lock before failing (ms). */
  busyTimeoutMs?: number;
  /** `full` (default): durable across power loss; `normal`: durable across process crashes only, much faster writes. */
  synchronous?: 'full' | 'normal';
}

export class SqliteDocumentStore implements DocumentStore {
  readonly kind = 'sqlite' as const;
  private readonly statements = new Map<string, StatementSync>();
  private readonly collections = new Map<string, SqliteCollection<Doc>>();
  private closed = false;

  private readonly groups: GroupCommit;

  private constructor(readonly db: DatabaseSync) {
    // Prepared once (the statement cache): exec() would parse the SQL again on every call.
    this.groups = new GroupCommit({ run: (sql) => void this.stmt(sql).run(), inTransaction: () => db.isTransaction });
  }

  static open(options: SqliteDocumentStoreOptions): SqliteDocumentStore {
    if (options.file !== ':memory:') mkdirSync(dirname(options.file), { recursive: true });
    const db = new DatabaseSync(options.file);
    const busy = Math.max(0, Math.floor(options.busyTimeoutMs ?? 5000));
    // busy_timeout first: switching to WAL itself needs a lock when another process holds the file.
    db.exec(`PRAGMA busy_timeout=${busy}`);
    db.exec('PRAGMA journal_mode=WAL');
    // WAL + FULL fsyncs the log on every commit: an acknowledged write survives power loss and kill -9.
    // WAL + NORMAL fsyncs at checkpoints only: an acknowledged write survives kill -9 of the process
    // (the OS holds it), but the last commits may be lost if the machine loses power.
    db.exec(`PRAGMA synchronous=${options.synchronous === 'normal' ? 'NORMAL' : 'FULL'}`);
    // Checkpoint the log every ~40 MB instead of SQLite's ~4 MB: a crawl commits some 15 small
    // transactions per page, and fewer, larger checkpoints make each commit markedly cheaper.
    db.exec(`PRAGMA wal_autocheckpoint=${WAL_AUTOCHECKPOINT_PAGES}`);
    db.exec('PRAGMA foreign_keys=OFF');
    return new SqliteDocumentStore(db);
  }

  /** A cached prepared statement: preparing costs far more than running a point lookup. */
  stmt(sql: string): StatementSync {
    let s = this.statements.get(sql);
    if (!s) {
      if (this.statements.size >= STATEMENT_CACHE_MAX) this.statements.clear();
      s = this.db.prepare(sql);
      this.statements.set(sql, s);
    }
    return s;
  }

  /** Runs a write in the current group commit; resolves once it is committed (group-commit.ts). */
  write<R>(fn: () => R): Promise<R> {
    this.assertOpen();
    return this.groups.write(fn);
  }

  /** Runs `fn`'s statements all or none, inside a write. */
  atomic<R>(fn: () => R): R {
    return this.groups.atomic(fn);
  }

  /** A read's value, handed over once the writes it may have seen are committed. */
  settled<R>(value: R): R | Promise<R> {
    return this.groups.settled(value);
  }

  async collection<T extends Doc = Doc>(spec: CollectionSpec): Promise<Collection<T>> {
    this.assertOpen();
    const existing = this.collections.get(spec.name);
    if (existing) return existing as unknown as Collection<T>;
    if (!COLLECTION_RE.test(spec.name)) throw new InvalidFilterError(`invalid collection name: ${spec.name}`);
    const table = `"c_${spec.name}"`;
    const arrays = new Map<string, string>();
    for (const index of spec.indexes) {
      if (Object.keys(index.fields).length === 0) throw new InvalidFilterError('index needs at least one field');
      if (index.multikey === undefined) continue;
      if (!(index.multikey in index.fields) || index.unique || index.multikey === '_id') {
        throw new InvalidFilterError(`multikey field ${index.multikey} must be one of its index's fields, in an index that is not unique`);
      }
      arrays.set(index.multikey, sideTableName(spec.name, index.multikey));
    }
    // A multikey field's elements are in its side table (multikey.ts), never a column.
    const columns = new IndexedColumns(spec.indexes.flatMap((index) => Object.keys(index.fields)).filter((f) => !arrays.has(f)));
    await this.write(() => {
      this.db.exec(`CREATE TABLE IF NOT EXISTS ${table} (id TEXT PRIMARY KEY, doc TEXT NOT NULL)`);
      this.addColumns(table, columns);
      for (const path of arrays.keys()) {
        const fresh = !this.db.prepare(`SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?`).get(arrays.get(path)!.slice(1, -1));
        for (const sql of multikeySql(table, spec.name, path, fresh)) this.db.exec(sql);
      }
      for (const index of spec.indexes) {
        const fields = Object.entries(index.fields).filter(([f]) => !arrays.has(f));
        if (fields.length === 0) continue;
        const suffix = `${spec.name}_${fields.map(([f, d]) => `${f.replace(/\./g, '__')}_${d === -1 ? 'd' : 'a'}`).join('_')}`;
        // The query index: exactly the columns the filter translator reads.
        const keys = fields.map(([f, dir]) => `${fieldExpr(f, columns.byPath).value} ${dir === -1 ? 'DESC' : 'ASC'}`);
        this.db.exec(`CREATE INDEX IF NOT EXISTS "cx_${suffix}" ON ${table} (${keys.join(', ')})`);
        if (index.unique) {
          // Missing and null collide (the JSON text `null`, which no other value's column holds), as in
          // MongoDB; true, 1 and '1' stay distinct (the columns keep JSON types apart).
          const unique = fields.map(([f]) => (f === '_id' ? 'id' : `IFNULL(${columns.byPath.get(f)}, x'6e756c6c')`));
          this.db.exec(`CREATE UNIQUE INDEX IF NOT EXISTS "cu_${suffix}" ON ${table} (${unique.join(', ')})`);
        }
      }
    });
    const raced = this.collections.get(spec.name); // opened by another call while this one waited for its commit
    if (raced) return raced as unknown as Collection<T>;
    const collection = new SqliteCollection<Doc>(this, spec.name, table, columns, arrays);
    this.collections.set(spec.name, collection);
    return collection as unknown as Collection<T>;
  }

  /**
   * Adds the columns of indexed fields a table does not have yet, filled from the stored documents, and
   * drops the expression indexes over the document that stores before the columns kept (docs/architecture.md).
   */
  private addColumns(table: string, columns: IndexedColumns): void {
    const name = table.slice(1, -1);
    const present = new Set((this.db.prepare(`PRAGMA table_info(${table})`).all() as Array<{ name: string }>).map((c) => c.name));
    for (const path of columns.paths) {
      const column = columns.byPath.get(path)!;
      if (present.has(column.slice(1, -1))) continue;
      this.db.exec(`ALTER TABLE ${table} ADD COLUMN ${column}`);
      this.db.exec(`UPDATE ${table} SET ${column} = ${backfillExpression(path)}`);
    }
    const legacy = this.db
      .prepare(`SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = ? AND substr(name, 1, 3) IN ('ix_', 'ux_')`)
      .all(name) as Array<{ name: string }>;
    for (const index of legacy) this.db.exec(`DROP INDEX "${index.name}"`);
  }

  async ping(): Promise<void> {
    this.assertOpen();
    this.stmt('SELECT 1').get();
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.groups.flush();
    this.closed = true;
    this.statements.clear();
    this.collections.clear();
    this.db.close();
  }

  assertOpen(): void {
    if (this.closed) throw new Error('SqliteDocumentStore is closed');
  }
}
