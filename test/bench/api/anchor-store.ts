/**
 * The bench:api anchor's store access, on the app's own store (the embedded app's SQLite file, or the
 * cluster's MongoDB-wire server): the app's key, job and result documents are read as they are; what the
 * anchor writes goes to its own tables/collections (`anchor_jobs`, `anchor_results`).
 */
import { DatabaseSync } from 'node:sqlite';
import { MongoClient } from 'mongodb';

export type Doc = Record<string, unknown> & { _id: string };

export interface AnchorStore {
  keyByHash(hash: string): Promise<Doc | null>;
  job(id: string, userId: string): Promise<Doc | null>;
  results(jobId: string, userId: string): Promise<Doc[]>;
  insertJob(doc: Doc): Promise<void>;
  /** One of the anchor's own jobs (the cluster's worker reads the job it was handed). */
  anchorJob(id: string): Promise<Doc | null>;
  /** The job's final state in one write (status, counters, timestamps). */
  updateJob(id: string, set: Record<string, unknown>): Promise<void>;
  insertResult(doc: Doc): Promise<void>;
  close(): Promise<void>;
}

export function sqliteStore(file: string): AnchorStore {
  const db = new DatabaseSync(file);
  db.exec('PRAGMA busy_timeout=5000');
  // WAL without an fsync per commit. node:sqlite is synchronous: with the app's default (synchronous=FULL, which
  // the app pays once per turn of its event loop, group commit) each of the anchor's three autocommitted writes
  // per extract would hold its whole process for an fsync, and the anchor would measure the disk (measured:
  // 49-61 req/s at 3 ms CPU per request, p99 3.5-5 s), not the work.
  db.exec('PRAGMA synchronous=NORMAL');
  db.exec('CREATE TABLE IF NOT EXISTS "c_anchor_jobs" (id TEXT PRIMARY KEY, doc TEXT NOT NULL)');
  db.exec('CREATE TABLE IF NOT EXISTS "c_anchor_results" (id TEXT PRIMARY KEY, doc TEXT NOT NULL)');
  const key = db.prepare(`SELECT doc FROM "c_api_keys" WHERE json_extract(doc,'$.key_hash') = ?`);
  const job = db.prepare(`SELECT doc FROM "c_jobs" WHERE id = ? AND json_extract(doc,'$.user_id') = ?`);
  const results = db.prepare(
    `SELECT doc FROM "c_job_results" WHERE json_extract(doc,'$.job_id') = ? AND json_extract(doc,'$.user_id') = ? ORDER BY json_extract(doc,'$.seq')`,
  );
  const insert = db.prepare('INSERT INTO "c_anchor_jobs" (id, doc) VALUES (?, ?)');
  const anchorJob = db.prepare('SELECT doc FROM "c_anchor_jobs" WHERE id = ?');
  const update = db.prepare('UPDATE "c_anchor_jobs" SET doc = json_patch(doc, ?) WHERE id = ?');
  const insertResult = db.prepare('INSERT INTO "c_anchor_results" (id, doc) VALUES (?, ?)');
  const one = (row: unknown) => (row ? (JSON.parse((row as { doc: string }).doc) as Doc) : null);
  return {
    keyByHash: async (hash) => one(key.get(hash)),
    job: async (id, userId) => one(job.get(id, userId)),
    results: async (jobId, userId) => results.all(jobId, userId).map((row) => one(row)!),
    insertJob: async (doc) => void insert.run(doc._id, JSON.stringify(doc)),
    anchorJob: async (id) => one(anchorJob.get(id)),
    updateJob: async (id, set) => void update.run(JSON.stringify(set), id),
    insertResult: async (doc) => void insertResult.run(doc._id, JSON.stringify(doc)),
    close: async () => db.close(),
  };
}

export async function mongoStore(uri: string): Promise<AnchorStore> {
  const client = await new MongoClient(uri).connect();
  const db = client.db();
  const keys = db.collection<Doc>('api_keys');
  const jobs = db.collection<Doc>('jobs');
  const results = db.collection<Doc>('job_results');
  const anchorJobs = db.collection<Doc>('anchor_jobs');
  const anchorResults = db.collection<Doc>('anchor_results');
  return {
    keyByHash: (hash) => keys.findOne({ key_hash: hash }),
    job: (id, userId) => jobs.findOne({ _id: id, user_id: userId }),
    results: (jobId, userId) => results.find({ job_id: jobId, user_id: userId }).sort({ seq: 1 }).toArray(),
    insertJob: async (doc) => void (await anchorJobs.insertOne(doc)),
    anchorJob: (id) => anchorJobs.findOne({ _id: id }),
    updateJob: async (id, set) => void (await anchorJobs.updateOne({ _id: id }, { $set: set })),
    insertResult: async (doc) => void (await anchorResults.insertOne(doc)),
    close: () => client.close(),
  };
}

export function openStore(spec: string): Promise<AnchorStore> {
  return spec.startsWith('sqlite:') ? Promise.resolve(sqliteStore(spec.slice('sqlite:'.length))) : mongoStore(spec);
}
