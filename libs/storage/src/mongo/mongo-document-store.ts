/**
 * Cluster adapter: MongoDB (or a wire-compatible server) through mongoose. Each store owns a
 * dedicated connection so several can coexist in one process. Only plain CRUD, findAndModify and
 * createIndexes are used — no transactions, change streams, TTL indexes or $lookup — so that
 * FerretDB and mongo-java-server work too.
 */
import type { Collection as DriverCollection, Document as DriverDocument } from 'mongodb';
import mongoose, { Schema, type Connection, type Model } from 'mongoose';
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
  UpsertEntry,
  UpsertManyResult,
} from '../document-store.port';
import { asStoreOutage } from './mongo-outage';
import { validateFilter, validateSort, validateUpdate } from '../filter-validation';
import { InvalidFilterError } from '../sqlite/sqlite-filter';

const COLLECTION_RE = /^[A-Za-z_][A-Za-z0-9_]*$/;

export interface MongoDocumentStoreOptions {
  dbName?: string;
  serverSelectionTimeoutMS?: number;
}

export class MongoDocumentStore implements DocumentStore {
  readonly kind = 'mongodb' as const;
  private readonly collections = new Map<string, Promise<MongoCollection<Doc>>>();

  private constructor(private readonly conn: Connection) {}

  static async connect(uri: string, options: MongoDocumentStoreOptions = {}): Promise<MongoDocumentStore> {
    return new MongoDocumentStore(await openMongoConnection(uri, options));
  }

  collection<T extends Doc = Doc>(spec: CollectionSpec): Promise<Collection<T>> {
    let pending = this.collections.get(spec.name);
    if (!pending) {
      pending = outage(() => this.createCollection(spec));
      this.collections.set(spec.name, pending);
      pending.catch(() => this.collections.delete(spec.name));
    }
    return pending as unknown as Promise<Collection<T>>;
  }

  private async createCollection(spec: CollectionSpec): Promise<MongoCollection<Doc>> {
    if (!COLLECTION_RE.test(spec.name)) throw new InvalidFilterError(`invalid collection name: ${spec.name}`);
    const schema = new Schema(
      { _id: String },
      {
        strict: false,
        strictQuery: false,
        versionKey: false,
        _id: false,
        autoIndex: false,
        // No `id` virtual: documents may have a field of their own named `id`.
        id: false,
        minimize: false,
      },
    );
    for (const index of spec.indexes) {
      validateSort(index.fields);
      // A multikey field needs nothing of its own: MongoDB indexes an array's elements (IndexSpec.multikey).
      if (index.multikey !== undefined && (!(index.multikey in index.fields) || index.unique || index.multikey === '_id')) {
        throw new InvalidFilterError(`multikey field ${index.multikey} must be one of its index's fields, in an index that is not unique`);
      }
      schema.index(index.fields, { unique: index.unique === true });
    }
    const model = this.conn.model<Record<string, unknown>>(spec.name, schema, spec.name);
    await model.createCollection().catch((error: { code?: number; codeName?: string }) => {
      // 48 NamespaceExists: another process (or an earlier run) created it first.
      if (error?.code !== 48 && error?.codeName !== 'NamespaceExists') throw error;
    });
    await model.createIndexes();
    const db = this.conn.db;
    if (!db) throw new Error('MongoDB connection is not open');
    return new MongoCollection<Doc>(spec.name, model, db.collection(spec.name));
  }

  async ping(): Promise<void> {
    const db = this.conn.db;
    if (!db) throw new Error('MongoDB connection is not open');
    await outage(() => db.command({ ping: 1 }));
  }

  async close(): Promise<void> {
    this.collections.clear();
    await this.conn.close();
  }
}

type AnyModel = Model<Record<string, unknown>>;

function isDuplicate(error: unknown): boolean {
  const e = error as {
    code?: number;
    writeErrors?: Array<{ code?: number; err?: { code?: number } }>;
  };
  if (e?.code === 11000 || e?.code === 11001) return true;
  return (e?.writeErrors ?? []).some((w) => w?.code === 11000 || w?.err?.code === 11000);
}

/**
 * The point operations of every request (insertOne, findOne, find, findOneAndUpdate, deleteOne) go to the
 * driver's collection directly: mongoose's query layer (casting against a schema that has none, hooks,
 * query objects) was ~9 % of a crawler's CPU in an extract (bench:api profile). The schema is `strict: false`
 * with no fields but `_id: String`, so mongoose changed nothing on the way; the rest (indexes, counts,
 * iteration, bulk writes) still goes through the model.
 */
class MongoCollection<T extends Doc> implements Collection<T> {
  constructor(
    readonly name: string,
    private readonly model: AnyModel,
    private readonly native: DriverCollection<DriverDocument>,
  ) {}

  async insertOne(doc: T): Promise<void> {
    assertDoc(doc);
    // Copied: the driver mutates what it inserts.
    await this.guard(() => this.native.insertOne({ ...doc } as DriverDocument));
  }

  async insertMany(docs: readonly T[]): Promise<InsertManyResult> {
    if (docs.length === 0) return { inserted: 0, duplicates: [] };
    docs.forEach(assertDoc);
    try {
      await outage(() =>
        this.model.collection.insertMany(
          docs.map((d) => ({ ...d }) as never),
          { ordered: false },
        ),
      );
      return { inserted: docs.length, duplicates: [] };
    } catch (error) {
      const e = error as { writeErrors?: unknown; insertedCount?: number; result?: { insertedCount?: number } };
      const writeErrors = (Array.isArray(e.writeErrors) ? e.writeErrors : e.writeErrors ? [e.writeErrors] : []) as Array<{
        code?: number;
        index?: number;
        err?: { code?: number; index?: number };
      }>;
      if (writeErrors.length === 0) throw error;
      const duplicates: string[] = [];
      for (const w of writeErrors) {
        const code = w.code ?? w.err?.code;
        if (code !== 11000 && code !== 11001) throw error;
        const index = w.index ?? w.err?.index;
        if (typeof index === 'number' && docs[index]) duplicates.push(docs[index]._id);
      }
      return { inserted: docs.length - duplicates.length, duplicates };
    }
  }

  async findOne(filter: Filter, options?: { sort?: SortSpec }): Promise<T | null> {
    validateFilter(filter);
    validateSort(options?.sort);
    return (await outage(() => this.native.findOne(filter, options?.sort ? { sort: options.sort } : {}))) as T | null;
  }

  async find(filter: Filter, options?: FindOptions): Promise<T[]> {
    validateFilter(filter);
    validateSort(options?.sort);
    const docs = (await outage(() => this.native.find(filter, findOptions(options)).toArray())) as unknown as T[];
    return options?.fields ? docs.map((d) => dropNulls(d) as T) : docs;
  }

  async *iterate(filter: Filter, options?: FindOptions & { batchSize?: number }): AsyncIterable<T> {
    const batchSize = Math.max(1, Math.floor(options?.batchSize ?? 500));
    const cursor = this.query(filter, options).lean().batchSize(batchSize).cursor();
    try {
      for await (const doc of cursor) yield (options?.fields ? dropNulls(doc) : doc) as unknown as T;
    } catch (error) {
      throw asStoreOutage(error);
    } finally {
      await cursor.close().catch(() => undefined);
    }
  }

  async count(filter: Filter): Promise<number> {
    validateFilter(filter);
    return outage(() => this.model.countDocuments(filter).exec());
  }

  async findOneAndUpdate(filter: Filter, update: Update, options?: FindOneAndUpdateOptions): Promise<T | null> {
    validateFilter(filter);
    validateUpdate(update);
    validateSort(options?.sort);
    const mongoUpdate = toMongoUpdate(update);
    if (options?.upsert && !hasIdEquality(filter) && update.$setOnInsert?._id === undefined) {
      // Without this the server would invent an ObjectId; the port promises string ids.
      mongoUpdate.$setOnInsert = {
        ...(mongoUpdate.$setOnInsert ?? {}),
        _id: newId(),
      };
    }
    return this.guard(
      async () =>
        (await this.native.findOneAndUpdate(filter, mongoUpdate, {
          upsert: options?.upsert === true,
          returnDocument: options?.returnDocument ?? 'after',
          ...(options?.sort ? { sort: options.sort } : {}),
        })) as T | null,
    );
  }

  async upsertMany(entries: readonly UpsertEntry[]): Promise<UpsertManyResult> {
    if (entries.length === 0) return { inserted: [], matched: 0 };
    for (const entry of entries) {
      if (typeof entry._id !== 'string' || entry._id === '') throw new InvalidFilterError('upsertMany needs a string _id per entry');
      validateUpdate(entry.update);
    }
    // Updates only: the driver sends a run of one kind of operation as one command.
    const result = await this.guard(() =>
      this.native.bulkWrite(
        entries.map((entry) => ({
          // eslint-disable-next-line @typescript-eslint/no-unnecessary-type-assertion -- tsc needs it: the driver types _id as an ObjectId
          updateOne: { filter: { _id: entry._id } as DriverDocument, update: toMongoUpdate(entry.update), upsert: entry.upsert !== false },
        })),
        { ordered: true },
      ),
    );
    const inserted = entries.map(() => false);
    for (const index of Object.keys(result.upsertedIds ?? {})) inserted[Number(index)] = true;
    return { inserted, matched: result.matchedCount };
  }

  async updateMany(filter: Filter, update: Update): Promise<number> {
    validateFilter(filter);
    validateUpdate(update);
    const result = await this.guard(() => this.model.updateMany(filter, toMongoUpdate(update)).exec());
    return result.modifiedCount;
  }

  async updateEach(ops: ReadonlyArray<{ filter: Filter; update: Update }>): Promise<number> {
    if (ops.length === 0) return 0;
    for (const op of ops) {
      validateFilter(op.filter);
      validateUpdate(op.update);
    }
    const result = await this.guard(() =>
      this.native.bulkWrite(
        ops.map((op) => ({ updateOne: { filter: op.filter, update: toMongoUpdate(op.update) } })),
        { ordered: false },
      ),
    );
    return result.matchedCount;
  }

  async replaceOne(doc: T): Promise<void> {
    assertDoc(doc);
    await this.guard(() => this.model.replaceOne({ _id: doc._id }, { ...doc }, { upsert: true }).exec());
  }

  async deleteOne(filter: Filter): Promise<boolean> {
    validateFilter(filter);
    const result = await outage(() => this.native.deleteOne(filter));
    return result.deletedCount > 0;
  }

  async deleteMany(filter: Filter): Promise<number> {
    validateFilter(filter);
    const result = await outage(() => this.model.deleteMany(filter).exec());
    return result.deletedCount;
  }

  private query(filter: Filter, options?: FindOptions) {
    validateFilter(filter);
    validateSort(options?.sort);
    let q = this.model.find(filter);
    if (options?.fields) q = q.select(projectionOf(options.fields));
    if (options?.sort) q = q.sort(options.sort);
    if (options?.skip && options.skip > 0) q = q.skip(Math.floor(options.skip));
    if (options?.limit && options.limit > 0) q = q.limit(Math.floor(options.limit));
    return q;
  }

  private async guard<R>(fn: () => Promise<R>): Promise<R> {
    try {
      return await fn();
    } catch (error) {
      if (isDuplicate(error)) {
        const match = /index: (\S+)/.exec((error as Error).message ?? '');
        throw new DuplicateKeyError(this.name, match?.[1]);
      }
      throw asStoreOutage(error);
    }
  }
}

async function outage<R>(fn: () => Promise<R>): Promise<R> {
  try {
    return await fn();
  } catch (error) {
    throw asStoreOutage(error);
  }
}

/** The projection of `fields` (names checked: a projection is no place for operators or paths). */
function projectionOf(fields: readonly string[]): Record<string, 1> {
  for (const f of fields) if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(f)) throw new InvalidFilterError(`invalid projection field: ${f}`);
  return Object.fromEntries(fields.map((f) => [f, 1]));
}

/** FindOptions as the driver takes them. */
function findOptions(options?: FindOptions): Record<string, unknown> {
  return {
    ...(options?.fields ? { projection: projectionOf(options.fields) } : {}),
    ...(options?.sort ? { sort: options.sort } : {}),
    ...(options?.skip && options.skip > 0 ? { skip: Math.floor(options.skip) } : {}),
    ...(options?.limit && options.limit > 0 ? { limit: Math.floor(options.limit) } : {}),
  };
}

/** Projections return absent, never null, for missing or null fields (the port's rule for both adapters). */
function dropNulls(doc: object): object {
  const out = doc as Record<string, unknown>;
  for (const key of Object.keys(out)) if (out[key] === null) delete out[key];
  return out;
}

function assertDoc(doc: Doc): void {
  if (typeof doc?._id !== 'string' || doc._id === '') throw new InvalidFilterError('document needs a string _id');
}

function hasIdEquality(filter: Filter): boolean {
  const c = filter._id;
  return typeof c === 'string' || (c !== null && typeof c === 'object' && typeof c.$eq === 'string');
}

/** Drops empty operator objects, which MongoDB rejects. */
function toMongoUpdate(update: Update): Record<string, Record<string, unknown>> {
  const out: Record<string, Record<string, unknown>> = {};
  for (const [op, fields] of Object.entries(update)) {
    if (fields && Object.keys(fields).length > 0) out[op] = { ...fields };
  }
  return out;
}

/**
 * A connected mongoose connection as every MongoDB adapter opens it (the document store, the archive's
 * GridFS): fail fast instead of queueing forever while the server is down (/ready must see it), no
 * automatic index or collection creation; a failed connect leaves nothing open.
 */
export async function openMongoConnection(
  uri: string,
  options: { dbName?: string; serverSelectionTimeoutMS?: number } = {},
): Promise<Connection> {
  const conn = mongoose.createConnection(uri, {
    dbName: options.dbName,
    serverSelectionTimeoutMS: options.serverSelectionTimeoutMS ?? 10_000,
    bufferCommands: false,
    autoIndex: false,
    autoCreate: false,
  });
  try {
    await conn.asPromise();
  } catch (error) {
    await conn.close().catch(() => undefined);
    throw error;
  }
  return conn;
}
