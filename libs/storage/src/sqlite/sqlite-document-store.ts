/**
 * Embedded adapter: one SQLite file through Node's built-in node:sqlite. Every call is synchronous
 * underneath, so each operation (including read-modify-write) is atomic within this process, and
 * `BEGIN IMMEDIATE` makes it atomic against other processes sharing the file as well.
 */
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { DatabaseSync, type StatementSync } from 'node:sqlite';
import { DuplicateKeyError, newId } from '@app/core';
import type {
  Collection,
  CollectionSpec,
  Doc,
  DocumentStore,
  Filter,
  FindOneAndUpdateOptions,
  FindOptions,
  InsertManyResult,
  SortSpec,
  Update,
} from '../document-store.port';
import { applyUpdate, upsertSeed, validateUpdate } from './apply-update';
import { fieldExpr, InvalidFilterError, translateFilter, translateSort, type SqlParam } from './sqlite-filter';

const COLLECTION_RE = /^[A-Za-z_][A-Za-z0-9_]*$/;
const STATEMENT_CACHE_MAX = 512;
const WAL_AUTOCHECKPOINT_PAGES = 10_000;
const SQLITE_CONSTRAINT_UNIQUE = 2067;
const SQLITE_CONSTRAINT_PRIMARYKEY = 1555;

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

  private constructor(readonly db: DatabaseSync) {}

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

  /** Runs `fn` inside BEGIN IMMEDIATE ... COMMIT, rolling back on any error. */
  transaction<R>(fn: () => R): R {
    // Prepared once (the statement cache): exec() would parse the SQL again on every call.
    this.stmt('BEGIN IMMEDIATE').run();
    try {
      const result = fn();
      this.stmt('COMMIT').run();
      return result;
    } catch (error) {
      if (this.db.isTransaction) this.db.exec('ROLLBACK');
      throw error;
    }
  }

  async collection<T extends Doc = Doc>(spec: CollectionSpec): Promise<Collection<T>> {
    this.assertOpen();
    const existing = this.collections.get(spec.name);
    if (existing) return existing as unknown as Collection<T>;
    if (!COLLECTION_RE.test(spec.name)) throw new InvalidFilterError(`invalid collection name: ${spec.name}`);
    const table = `"c_${spec.name}"`;
    this.transaction(() => {
      this.db.exec(`CREATE TABLE IF NOT EXISTS ${table} (id TEXT PRIMARY KEY, doc TEXT NOT NULL)`);
      for (const index of spec.indexes) {
        const fields = Object.entries(index.fields);
        if (fields.length === 0) throw new InvalidFilterError('index needs at least one field');
        const suffix = `${spec.name}_${fields.map(([f, d]) => `${f.replace(/\./g, '__')}_${d === -1 ? 'd' : 'a'}`).join('_')}`;
        // The query index: exactly the json_extract() expressions the filter translator emits.
        const columns = fields.map(([f, dir]) => `${fieldExpr(f).value} ${dir === -1 ? 'DESC' : 'ASC'}`);
        this.db.exec(`CREATE INDEX IF NOT EXISTS "ix_${suffix}" ON ${table} (${columns.join(', ')})`);
        if (index.unique) {
          // Enforcement on each value's canonical JSON text, with missing mapped to 'null': like MongoDB,
          // missing and null collide, and true/1/'1' stay distinct (json_extract would conflate true and 1).
          const keys = fields.map(([f]) => (f === '_id' ? 'id' : `IFNULL(doc -> '$.${f}', 'null')`));
          this.db.exec(`CREATE UNIQUE INDEX IF NOT EXISTS "ux_${suffix}" ON ${table} (${keys.join(', ')})`);
        }
      }
    });
    const collection = new SqliteCollection<Doc>(this, spec.name, table);
    this.collections.set(spec.name, collection);
    return collection as unknown as Collection<T>;
  }

  async ping(): Promise<void> {
    this.assertOpen();
    this.stmt('SELECT 1').get();
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.statements.clear();
    this.collections.clear();
    this.db.close();
  }

  assertOpen(): void {
    if (this.closed) throw new Error('SqliteDocumentStore is closed');
  }
}

type Row = { id: string; doc: string };

function parse<T>(row: unknown): T {
  return JSON.parse((row as Row).doc) as T;
}

function serialize(doc: Doc): string {
  if (typeof doc?._id !== 'string' || doc._id === '') throw new InvalidFilterError('document needs a string _id');
  return JSON.stringify(doc);
}

class SqliteCollection<T extends Doc> implements Collection<T> {
  private byId: StatementSync | undefined;

  constructor(
    private readonly store: SqliteDocumentStore,
    readonly name: string,
    private readonly table: string,
  ) {}

  async insertOne(doc: T): Promise<void> {
    const json = serialize(doc);
    this.write(() => this.store.stmt(`INSERT INTO ${this.table} (id, doc) VALUES (?, ?)`).run(doc._id, json));
  }

  async insertMany(docs: readonly T[]): Promise<InsertManyResult> {
    const rows = docs.map((doc) => [doc._id, serialize(doc)] as const);
    const duplicates: string[] = [];
    let inserted = 0;
    this.write(() =>
      this.store.transaction(() => {
        const insert = this.store.stmt(`INSERT INTO ${this.table} (id, doc) VALUES (?, ?)`);
        for (const [id, json] of rows) {
          try {
            insert.run(id, json);
            inserted++;
          } catch (error) {
            // A failed statement rolls back only itself; the transaction goes on with the next document.
            const code = (error as { errcode?: number }).errcode;
            if (code !== SQLITE_CONSTRAINT_UNIQUE && code !== SQLITE_CONSTRAINT_PRIMARYKEY) throw error;
            duplicates.push(id);
          }
        }
      }),
    );
    return { inserted, duplicates };
  }

  async findOne(filter: Filter, options?: { sort?: SortSpec }): Promise<T | null> {
    // Hot path (API reads by id): skip filter translation and the statement-cache lookup.
    const id = (filter as { _id?: unknown })._id;
    if (typeof id === 'string' && !options?.sort && onlyKey(filter, '_id')) {
      this.store.assertOpen();
      this.byId ??= this.store.stmt(`SELECT doc FROM ${this.table} WHERE id = ?`);
      const hit = this.byId.get(id);
      return hit ? parse<T>(hit) : null;
    }
    // Reads of one's own document (`{_id, user_id}`): the row by its key, the other equalities checked on it
    // (the SQL would extract each field from the document text once more).
    if (typeof id === 'string' && !options?.sort && plainStringEqualities(filter)) {
      this.store.assertOpen();
      this.byId ??= this.store.stmt(`SELECT doc FROM ${this.table} WHERE id = ?`);
      const hit = this.byId.get(id);
      if (!hit) return null;
      const doc = parse<T>(hit);
      for (const key in filter) if (key !== '_id' && doc[key] !== (filter as Record<string, unknown>)[key]) return null;
      return doc;
    }
    const row = this.select(filter, { sort: options?.sort, limit: 1 }, 'doc').get();
    return row ? parse<T>(row) : null;
  }

  async find(filter: Filter, options?: FindOptions): Promise<T[]> {
    return this.select(filter, options ?? {}, docColumn(options?.fields))
      .all()
      .map((row) => parseProjected<T>(row, options?.fields));
  }

  async *iterate(filter: Filter, options?: FindOptions & { batchSize?: number }): AsyncIterable<T> {
    const batchSize = Math.max(1, Math.floor(options?.batchSize ?? 500));
    let remaining = options?.limit && options.limit > 0 ? options.limit : Infinity;
    let skip = options?.skip && options.skip > 0 ? Math.floor(options.skip) : 0;
    const where = translateFilter(filter);
    const sort = Object.entries(options?.sort ?? {});
    const keys = sort.map(([field, dir]) => ({
      expr: fieldExpr(field).value,
      dir,
    }));
    const orderBy = [...keys.map((k) => `${k.expr} ${k.dir === -1 ? 'DESC' : 'ASC'}`), 'rowid ASC'].join(', ');
    const keyCols = keys.map((k, i) => `, ${k.expr} AS k${i}`).join('');
    let last: { rowid: number; values: unknown[] } | null = null;

    while (remaining > 0) {
      this.store.assertOpen();
      // Keyset pagination over (sort keys..., rowid): each batch is an index-friendly range query,
      // so neither memory nor per-batch cost grows with the collection.
      const after = last ? keysetAfter(keys, last) : { sql: '1', params: [] as SqlParam[] };
      const limit = Math.min(batchSize, remaining);
      const sql =
        `SELECT rowid AS r, ${docColumn(options?.fields)}${keyCols} FROM ${this.table} WHERE (${where.sql}) AND (${after.sql}) ` +
        `ORDER BY ${orderBy} LIMIT ? OFFSET ?`;
      const rows = this.store.stmt(sql).all(...where.params, ...after.params, BigInt(limit), BigInt(skip)) as Array<
        Record<string, unknown>
      >;
      skip = 0;
      for (const row of rows) yield parseProjected<T>(row, options?.fields);
      if (rows.length < limit) return;
      remaining -= rows.length;
      const tail = rows[rows.length - 1];
      last = {
        rowid: tail.r as number,
        values: keys.map((_, i) => tail[`k${i}`]),
      };
    }
  }

  async count(filter: Filter): Promise<number> {
    const where = translateFilter(filter);
    const row = this.store.stmt(`SELECT count(*) AS n FROM ${this.table} WHERE ${where.sql}`).get(...where.params);
    return Number((row as { n: number }).n);
  }

  async findOneAndUpdate(filter: Filter, update: Update, options?: FindOneAndUpdateOptions): Promise<T | null> {
    validateUpdate(update);
    const query = this.select(filter, { sort: options?.sort, limit: 1 }, 'id, doc');
    // A search (not a point update by _id, which nearly always hits) that may find nothing, with
    // nothing to insert: answer "no match" from a plain read without taking the write lock (a queue's
    // idle claims are mostly this). null is what the transaction would answer at that moment; a
    // match found here is read again under the lock below.
    if (!options?.upsert && !('_id' in filter) && query.get() === undefined) return null;
    const wantBefore = options?.returnDocument === 'before';
    return this.write(() =>
      this.store.transaction(() => {
        const row = query.get() as Row | undefined;
        if (row) {
          const before = JSON.parse(row.doc) as T;
          // The parsed document is ours: updated in place unless the caller wants it as it was.
          const after = applyUpdate(before, update, false, !wantBefore);
          const json = JSON.stringify(after);
          if (json !== row.doc) this.store.stmt(`UPDATE ${this.table} SET doc = ? WHERE id = ?`).run(json, row.id);
          return wantBefore ? before : after;
        }
        if (!options?.upsert) return null;
        const seed = upsertSeed(filter);
        const inserted = applyUpdate({ ...seed, _id: '' } as T, update, true);
        if (typeof inserted._id !== 'string' || inserted._id === '') {
          (inserted as Doc)._id = typeof seed._id === 'string' ? seed._id : newId();
        }
        this.store.stmt(`INSERT INTO ${this.table} (id, doc) VALUES (?, ?)`).run(inserted._id, serialize(reorderId(inserted)));
        return options?.returnDocument === 'before' ? null : reorderId(inserted);
      }),
    );
  }

  async updateMany(filter: Filter, update: Update): Promise<number> {
    validateUpdate(update);
    return this.write(() =>
      this.store.transaction(() => {
        const write = this.store.stmt(`UPDATE ${this.table} SET doc = ? WHERE id = ?`);
        let modified = 0;
        // Materialising the matching rows first keeps the UPDATEs from disturbing the running SELECT.
        const rows = this.select(filter, {}, 'id, doc').all() as Row[];
        for (const row of rows) {
          const json = JSON.stringify(applyUpdate(JSON.parse(row.doc) as T, update, false, true));
          if (json === row.doc) continue; // MongoDB counts only documents that actually changed
          write.run(json, row.id);
          modified++;
        }
        return modified;
      }),
    );
  }

  async replaceOne(doc: T): Promise<void> {
    const json = serialize(doc);
    this.write(() =>
      this.store
        .stmt(`INSERT INTO ${this.table} (id, doc) VALUES (?, ?) ON CONFLICT(id) DO UPDATE SET doc = excluded.doc`)
        .run(doc._id, json),
    );
  }

  async deleteOne(filter: Filter): Promise<boolean> {
    const where = translateFilter(filter);
    const result = this.write(() =>
      this.store
        .stmt(`DELETE FROM ${this.table} WHERE rowid = (SELECT rowid FROM ${this.table} WHERE ${where.sql} LIMIT 1)`)
        .run(...where.params),
    );
    return Number(result.changes) > 0;
  }

  async deleteMany(filter: Filter): Promise<number> {
    const where = translateFilter(filter);
    const result = this.write(() => this.store.stmt(`DELETE FROM ${this.table} WHERE ${where.sql}`).run(...where.params));
    return Number(result.changes);
  }

  private select(filter: Filter, options: FindOptions, columns: string): { get(): unknown; all(): unknown[] } {
    this.store.assertOpen();
    const where = translateFilter(filter);
    const orderBy = translateSort(options.sort);
    const params: Array<SqlParam | bigint> = where.params;
    let sql = `SELECT ${columns} FROM ${this.table} WHERE ${where.sql}`;
    if (orderBy) sql += ` ORDER BY ${orderBy}`;
    const limit = options.limit && options.limit > 0 ? Math.floor(options.limit) : -1;
    const skip = options.skip && options.skip > 0 ? Math.floor(options.skip) : 0;
    if (limit === 1 && skip === 0) sql += ' LIMIT 1';
    else if (limit !== -1 || skip > 0) {
      // BigInt binds as INTEGER; a bound JS number is a REAL, which makes SQLite's LIMIT noticeably slower.
      sql += ' LIMIT ? OFFSET ?';
      params.push(BigInt(limit), BigInt(skip));
    }
    const stmt = this.store.stmt(sql);
    return { get: () => stmt.get(...params), all: () => stmt.all(...params) };
  }

  /** Runs a write, translating unique-constraint failures into DuplicateKeyError. */
  private write<R>(fn: () => R): R {
    this.store.assertOpen();
    try {
      return fn();
    } catch (error) {
      const code = (error as { errcode?: number }).errcode;
      if (code === SQLITE_CONSTRAINT_UNIQUE || code === SQLITE_CONSTRAINT_PRIMARYKEY) {
        const match = /index '([^']+)'/.exec((error as Error).message);
        throw new DuplicateKeyError(this.name, match?.[1] ?? (code === SQLITE_CONSTRAINT_PRIMARYKEY ? '_id' : undefined));
      }
      throw error;
    }
  }
}

const FIELD_RE = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** The `doc` column, or with a projection a JSON object of `_id` and the named top-level fields only. */
function docColumn(fields: readonly string[] | undefined): string {
  if (!fields) return 'doc';
  const parts = ["'_id', id"];
  for (const field of fields) {
    if (!FIELD_RE.test(field)) throw new InvalidFilterError(`invalid projection field: ${field}`);
    if (field !== '_id') parts.push(`'${field}', doc -> '$.${field}'`);
  }
  return `json_object(${parts.join(', ')}) AS doc`;
}

function parseProjected<T>(row: unknown, fields: readonly string[] | undefined): T {
  const doc = JSON.parse((row as Row).doc) as Record<string, unknown>;
  if (fields) for (const key of Object.keys(doc)) if (doc[key] === null) delete doc[key];
  return doc as T;
}

/** A filter of top-level fields each equal to a string (the translator's string equality: no arrays, no paths). */
function plainStringEqualities(filter: Filter): boolean {
  for (const key in filter) {
    if (!PLAIN_FIELD.test(key) || typeof (filter as Record<string, unknown>)[key] !== 'string') return false;
  }
  return true;
}

const PLAIN_FIELD = /^[A-Za-z_][A-Za-z0-9_]*$/;

function onlyKey(obj: object, key: string): boolean {
  for (const k in obj) if (k !== key) return false;
  return true;
}

/** `_id` first, as MongoDB stores it, so both adapters return the same key order. */
function reorderId<T extends Doc>(doc: T): T {
  const { _id, ...rest } = doc;
  return { _id, ...rest } as T;
}

/**
 * Rows strictly after `last` in ORDER BY (k0, k1, ..., rowid) order, respecting per-key direction
 * and SQLite's NULLs-first ascending order.
 */
function keysetAfter(
  keys: Array<{ expr: string; dir: 1 | -1 }>,
  last: { rowid: number; values: unknown[] },
): { sql: string; params: SqlParam[] } {
  const params: SqlParam[] = [];
  const ors: string[] = [];
  const equalPrefix: string[] = [];
  const prefixParams: SqlParam[] = [];
  keys.forEach((k, i) => {
    const v = last.values[i] as SqlParam;
    let beyond: string;
    const beyondParams: SqlParam[] = [];
    if (k.dir === 1) {
      if (v === null) beyond = `${k.expr} IS NOT NULL`;
      else {
        beyond = `${k.expr} > ?`;
        beyondParams.push(v);
      }
    } else if (v === null) beyond = '0';
    else {
      beyond = `(${k.expr} < ? OR ${k.expr} IS NULL)`;
      beyondParams.push(v);
    }
    ors.push([...equalPrefix, beyond].join(' AND '));
    params.push(...prefixParams, ...beyondParams);
    equalPrefix.push(`${k.expr} IS ?`);
    prefixParams.push(v);
  });
  ors.push([...equalPrefix, 'rowid > ?'].join(' AND '));
  params.push(...prefixParams, last.rowid);
  return { sql: ors.map((s) => `(${s})`).join(' OR '), params };
}
