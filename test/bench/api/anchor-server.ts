/**
 * The anchor of `npm run bench:api`: a bare Fastify server doing the minimum work of the measured routes on
 * the very data the app stored, in the app's own store (the SQLite file of the embedded app, or the
 * MongoDB-wire server of the cluster): bearer → SHA-256 → key lookup (cached after the first, as the app's
 * verified-key cache does) → one stored JSON document.
 *
 * - `GET /api/v1/jobs/:id`: one read of the caller's job document, sent as JSON.
 * - `GET /api/v1/jobs/:id/results`: one query of the job's result documents, sent as a JSON array.
 * - `POST /api/v1/extract`: the JSON body parsed, one job document inserted (the intake up to the queue).
 *
 * Run as a child process: ANCHOR_PORT, ANCHOR_STORE (`sqlite:<file>` or a `mongodb://…/<db>` URI).
 */
import { createHash, randomUUID } from 'node:crypto';
import { DatabaseSync } from 'node:sqlite';
import Fastify, { type FastifyReply, type FastifyRequest } from 'fastify';
import { MongoClient } from 'mongodb';

type Doc = Record<string, unknown> & { _id: string };

interface AnchorStore {
  keyByHash(hash: string): Promise<Doc | null>;
  job(id: string, userId: string): Promise<Doc | null>;
  results(jobId: string, userId: string): Promise<Doc[]>;
  insertJob(doc: Doc): Promise<void>;
}

function sqliteStore(file: string): AnchorStore {
  const db = new DatabaseSync(file);
  db.exec('PRAGMA busy_timeout=5000');
  db.exec('CREATE TABLE IF NOT EXISTS "c_anchor_jobs" (id TEXT PRIMARY KEY, doc TEXT NOT NULL)');
  const key = db.prepare(`SELECT doc FROM "c_api_keys" WHERE json_extract(doc,'$.key_hash') = ?`);
  const job = db.prepare(`SELECT doc FROM "c_jobs" WHERE id = ? AND json_extract(doc,'$.user_id') = ?`);
  const results = db.prepare(
    `SELECT doc FROM "c_job_results" WHERE json_extract(doc,'$.job_id') = ? AND json_extract(doc,'$.user_id') = ? ORDER BY json_extract(doc,'$.seq')`,
  );
  const insert = db.prepare('INSERT INTO "c_anchor_jobs" (id, doc) VALUES (?, ?)');
  const one = (row: unknown) => (row ? (JSON.parse((row as { doc: string }).doc) as Doc) : null);
  return {
    keyByHash: async (hash) => one(key.get(hash)),
    job: async (id, userId) => one(job.get(id, userId)),
    results: async (jobId, userId) => results.all(jobId, userId).map((row) => one(row)!),
    insertJob: async (doc) => void insert.run(doc._id, JSON.stringify(doc)),
  };
}

async function mongoStore(uri: string): Promise<AnchorStore> {
  const client = await new MongoClient(uri).connect();
  const db = client.db();
  const keys = db.collection<Doc>('api_keys');
  const jobs = db.collection<Doc>('jobs');
  const results = db.collection<Doc>('job_results');
  const anchorJobs = db.collection<Doc>('anchor_jobs');
  return {
    keyByHash: (hash) => keys.findOne({ key_hash: hash }),
    job: (id, userId) => jobs.findOne({ _id: id, user_id: userId }),
    results: (jobId, userId) => results.find({ job_id: jobId, user_id: userId }).sort({ seq: 1 }).toArray(),
    insertJob: async (doc) => void (await anchorJobs.insertOne(doc)),
  };
}

async function main(): Promise<void> {
  const spec = process.env.ANCHOR_STORE ?? '';
  const store = spec.startsWith('sqlite:') ? sqliteStore(spec.slice('sqlite:'.length)) : await mongoStore(spec);
  const verified = new Map<string, Doc>();
  const server = Fastify();

  async function authenticate(request: FastifyRequest, reply: FastifyReply): Promise<Doc | null> {
    const match = /^Bearer\s+(\S+)$/i.exec(request.headers.authorization ?? '');
    const hash = match ? createHash('sha256').update(match[1], 'utf8').digest('hex') : '';
    let key = verified.get(hash) ?? null;
    if (!key && hash) {
      key = await store.keyByHash(hash);
      if (key) verified.set(hash, key);
    }
    if (!key) void reply.code(401).send({ title: 'Unauthorized' });
    return key;
  }

  server.get<{ Params: { id: string } }>('/api/v1/jobs/:id', async (request, reply) => {
    const key = await authenticate(request, reply);
    if (!key) return reply;
    const job = await store.job(request.params.id, String(key.user_id));
    return job ?? reply.code(404).send({ title: 'Not Found' });
  });

  server.get<{ Params: { id: string } }>('/api/v1/jobs/:id/results', async (request, reply) => {
    const key = await authenticate(request, reply);
    if (!key) return reply;
    return store.results(request.params.id, String(key.user_id));
  });

  server.post('/api/v1/extract', async (request, reply) => {
    const key = await authenticate(request, reply);
    if (!key) return reply;
    const body = request.body as { url?: unknown };
    const doc: Doc = {
      _id: randomUUID(),
      user_id: key.user_id,
      type: 'extract',
      status: 'pending',
      input: body,
      url: body?.url,
      created_at: new Date().toISOString(),
    };
    await store.insertJob(doc);
    return { job_id: doc._id, status: 'pending' };
  });

  server.get('/health', async () => ({ status: 'ok' }));
  await server.listen({ port: Number(process.env.ANCHOR_PORT), host: '127.0.0.1' });
  // A normal exit on SIGTERM, so that --cpu-prof (BENCH_CPU_PROF) writes its profile.
  process.once('SIGTERM', () => void server.close().then(() => process.exit(0)));
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
