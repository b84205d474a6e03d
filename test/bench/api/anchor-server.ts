/**
 * The anchor of `npm run bench:api`: a bare Fastify server doing the minimum work of the measured routes on
 * the very data the app stored, in the app's own store (anchor-store.ts): bearer → SHA-256 → key lookup
 * (cached after the first, as the app's verified-key cache does), then
 *
 * - `GET /api/v1/jobs/:id`: one read of the caller's job document, sent as JSON.
 * - `GET /api/v1/jobs/:id/results`: one query of the job's result documents, sent as a JSON array.
 * - `POST /api/v1/extract`: a synchronous extract, the bare way: the job document inserted (pending, with
 *   the request as its input); the work (anchor-extract.ts: the page fetched over HTTP and stripped to text,
 *   one chat completion with the `openai` SDK, its JSON parsed) done in-process (ANCHOR_STORE sqlite:, the
 *   embedded app's shape) or, with ANCHOR_REDIS, by a second process (anchor-worker.ts) that gets the job id
 *   through a Redis list, reads the job, does the work, inserts the result document, writes the job's final
 *   state in one update and pushes the answer back on a reply list; the server answers with the data.
 *   In-process, the server inserts the result and updates the job itself.
 *
 * Run as a child process: ANCHOR_PORT, ANCHOR_STORE (`sqlite:<file>` or a `mongodb://…/<db>` URI), ANCHOR_REDIS.
 */
import { createHash, randomUUID } from 'node:crypto';
import Fastify, { type FastifyReply, type FastifyRequest } from 'fastify';
import { Redis } from 'ioredis';
import { anchorExtract, type AnchorExtractInput } from './anchor-extract';
import { finishAnchorJob, JOBS_LIST, REPLIES_LIST, type AnchorReply } from './anchor-worker';
import { openStore, type Doc } from './anchor-store';

/** The cluster's hand-off: LPUSH of the job id, one BLPOP loop on the reply list settles the waiting requests. */
function remoteRunner(url: string): { run(jobId: string): Promise<AnchorReply>; close(): void } {
  const commands = new Redis(url);
  const replies = new Redis(url);
  const waiting = new Map<string, (reply: AnchorReply) => void>();
  let open = true;
  void (async () => {
    while (open) {
      const popped = await replies.blpop(REPLIES_LIST, 0).catch(() => null);
      if (!popped) continue;
      const reply = JSON.parse(popped[1]) as AnchorReply;
      waiting.get(reply.job_id)?.(reply);
      waiting.delete(reply.job_id);
    }
  })();
  return {
    run: (jobId) =>
      new Promise((resolve, reject) => {
        waiting.set(jobId, resolve);
        commands.lpush(JOBS_LIST, jobId).catch(reject);
      }),
    close: () => {
      open = false;
      replies.disconnect();
      commands.disconnect();
    },
  };
}

async function main(): Promise<void> {
  const store = await openStore(process.env.ANCHOR_STORE ?? '');
  const remote = process.env.ANCHOR_REDIS ? remoteRunner(process.env.ANCHOR_REDIS) : null;
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
    const input = request.body as AnchorExtractInput;
    const job: Doc = {
      _id: randomUUID(),
      user_id: key.user_id,
      type: 'extract',
      status: 'pending',
      input,
      url: input.url,
      created_at: new Date().toISOString(),
    };
    await store.insertJob(job);
    let answer: AnchorReply;
    if (remote) {
      answer = await remote.run(job._id);
    } else {
      const started = new Date().toISOString();
      answer = await finishAnchorJob(store, job, await anchorExtract(input), started);
    }
    if (answer.error) return reply.code(502).send({ title: 'Bad Gateway', detail: answer.error });
    return { job_id: job._id, url: input.url, data: answer.data, usage: answer.usage };
  });

  server.get('/health', async () => ({ status: 'ok' }));
  await server.listen({ port: Number(process.env.ANCHOR_PORT), host: '127.0.0.1' });
  // A normal exit on SIGTERM, so that --cpu-prof (BENCH_CPU_PROF) writes its profile.
  process.once(
    'SIGTERM',
    () =>
      void server.close().then(async () => {
        remote?.close();
        await store.close();
        process.exit(0);
      }),
  );
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
