/**
 * The storage port. Repositories (one per aggregate) are written once against this interface; the
 * embedded adapter (SQLite through node:sqlite, a file under DATA_DIR) and the cluster adapter
 * (MongoDB through mongoose) implement it. Documents are plain JSON objects with a string `_id`;
 * timestamps are stored as RFC 3339 strings so that both backends sort them the same way.
 *
 * The filter and update languages are the small subset of MongoDB's that Gleaner needs, and both
 * adapters implement exactly that subset (the contract suite in test/contract proves it).
 */
export type Doc = { _id: string } & Record<string, unknown>;

/** Scalar values allowed in filters. */
export type Scalar = string | number | boolean | null;

/**
 * A condition on one top-level field (dotted paths `a.b` are allowed too):
 * a scalar (equality; `null` matches a missing field or null), or operators.
 */
export type FieldCondition =
  | Scalar
  | {
      $eq?: Scalar;
      $ne?: Scalar;
      $in?: Scalar[];
      $nin?: Scalar[];
      $lt?: string | number;
      $lte?: string | number;
      $gt?: string | number;
      $gte?: string | number;
      $exists?: boolean;
    };

/** All conditions must hold (implicit AND). */
export type Filter = Record<string, FieldCondition>;

export type SortSpec = Record<string, 1 | -1>;

export interface FindOptions {
  sort?: SortSpec;
  limit?: number;
  skip?: number;
  /**
   * Projection: return only `_id` and these top-level fields. A field that is missing or null in the
   * stored document is absent from the result. Saves transfer and parsing on large documents.
   */
  fields?: readonly string[];
}

/** What insertMany did: how many documents were stored, and the `_id`s refused by a unique index or `_id` clash. */
export interface InsertManyResult {
  inserted: number;
  duplicates: string[];
}

/** Update operators. `$set` values may be any JSON value (objects, arrays). */
export interface Update {
  $set?: Record<string, unknown>;
  $unset?: Record<string, true>;
  $inc?: Record<string, number>;
  /** Applied only when an upsert inserts. */
  $setOnInsert?: Record<string, unknown>;
}

export interface FindOneAndUpdateOptions {
  upsert?: boolean;
  /** Which version to return; default 'after'. */
  returnDocument?: 'before' | 'after';
  sort?: SortSpec;
}

/** One entry of `upsertMany`: the document with this `_id` gets `update`, or is inserted from it (unless `upsert: false`). */
export interface UpsertEntry {
  _id: string;
  update: Update;
  /** false: update the document only if it exists (default true). */
  upsert?: boolean;
}

/** What `upsertMany` did: per entry whether it inserted its document, and how many entries found theirs. */
export interface UpsertManyResult {
  inserted: boolean[];
  matched: number;
}

export interface IndexSpec {
  /** Ordered index keys on top-level fields. */
  fields: Record<string, 1 | -1>;
  unique?: boolean;
  /**
   * The one field of `fields` that holds an array of strings or numbers (MongoDB's multikey index): a filter's equality or
   * `$in` on it matches a document when one of its elements matches. Only equality and `$in` are allowed on it, never a
   * sort, never with `unique`. MongoDB indexes the array as it is; the embedded store keeps its elements in a side table
   * that triggers maintain, so writing a document stays one statement (sqlite/multikey.ts).
   */
  multikey?: string;
}

export interface CollectionSpec {
  name: string;
  indexes: IndexSpec[];
}

export interface Collection<T extends Doc = Doc> {
  readonly name: string;
  /** Throws DuplicateKeyError (from @app/core) on a unique-index or _id clash. Durable when it resolves. */
  insertOne(doc: T): Promise<void>;
  /**
   * Inserts each document independently (unordered): a unique-index or `_id` clash skips that
   * document and is reported in `duplicates`; any other error rejects. Durable when it resolves.
   */
  insertMany(docs: readonly T[]): Promise<InsertManyResult>;
  findOne(filter: Filter, options?: { sort?: SortSpec }): Promise<T | null>;
  find(filter: Filter, options?: FindOptions): Promise<T[]>;
  /** Streams matching documents in batches, never holding the whole result in memory. */
  iterate(filter: Filter, options?: FindOptions & { batchSize?: number }): AsyncIterable<T>;
  count(filter: Filter): Promise<number>;
  /** Atomic read-modify-write of the first matching document. Returns null when nothing matched (and no upsert). */
  findOneAndUpdate(filter: Filter, update: Update, options?: FindOneAndUpdateOptions): Promise<T | null>;
  /**
   * Upserts several documents by `_id` in ONE request (MongoDB: one `update` command with a statement per
   * entry, applied in order; SQLite: one transaction). `inserted[i]`: entry i inserted its document (from its
   * `_id`, `$setOnInsert` and `$set`); `matched`: how many entries found their document (and applied
   * `$set`/`$inc`/`$unset` to it), so entries.length − inserted − matched entries with `upsert: false` found none.
   * Throws DuplicateKeyError when a unique index other than `_id` refuses an entry (which of the other
   * entries were applied is then not defined: MongoDB keeps those before it, SQLite none).
   */
  upsertMany(entries: readonly UpsertEntry[]): Promise<UpsertManyResult>;
  /** Returns the number of modified documents. */
  updateMany(filter: Filter, update: Update): Promise<number>;
  /**
   * Several single-document updates in one request (MongoDB's unordered `bulkWrite` of `updateOne`s; one
   * transaction on SQLite): each op updates the first document its filter matches, if any, independently of
   * the others. Returns how many ops matched a document. No upsert.
   */
  updateEach(ops: ReadonlyArray<{ filter: Filter; update: Update }>): Promise<number>;
  /** Replaces the whole document with this `_id` (insert if missing). Throws DuplicateKeyError on unique clash. */
  replaceOne(doc: T): Promise<void>;
  deleteOne(filter: Filter): Promise<boolean>;
  deleteMany(filter: Filter): Promise<number>;
}

export interface DocumentStore {
  readonly kind: 'sqlite' | 'mongodb';
  /** Returns the collection, creating it and its indexes on first use (idempotent). */
  collection<T extends Doc = Doc>(spec: CollectionSpec): Promise<Collection<T>>;
  /** Throws when the backend is unreachable (used by /ready). */
  ping(): Promise<void>;
  close(): Promise<void>;
}

export const DOCUMENT_STORE = Symbol('DOCUMENT_STORE');
