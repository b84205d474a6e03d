/**
 * The cluster's second anchor process for `POST /extract` (see anchor-server.ts): BLPOP of a job id from
 * a Redis list, the job read from the store, the bare extract (anchor-extract.ts), the result inserted and
 * the job's final state written in one update, the answer LPUSHed on the reply list. Up to
 * ANCHOR_CONCURRENCY (64, the app's GLEANER_WORKER_CONCURRENCY in the bench) jobs at a time.
 *
 * Run as a child process: ANCHOR_STORE (a `mongodb://…/<db>` URI), ANCHOR_REDIS.
 */
import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { anchorExtract, type AnchorExtractInput } from './anchor-extract';
import { openStore, type AnchorStore, type Doc } from './anchor-store';

export const JOBS_LIST = 'anchor:jobs';
export const REPLIES_LIST = 'anchor:replies';

export interface AnchorReply {
  job_id: string;
  data?: unknown;
  usage?: { input_tokens: number; output_tokens: number };
  error?: string;
}

/** The result document and the job's final state (one update), after the extract's work. */
export async function finishAnchorJob(
  store: AnchorStore,
  job: Doc,
  out: Awaited<ReturnType<typeof anchorExtract>>,
  startedAt: string,
): Promise<AnchorReply> {
  await store.insertResult({
    _id: randomUUID(),
    job_id: job._id,
    user_id: job.user_id,
    seq: 0,
    url: (job.input as AnchorExtractInput).url,
    status: 'completed',
    data: out.data,
    created_at: new Date().toISOString(),
  });
  const usage = { input_tokens: out.inputTokens, output_tokens: out.outputTokens };
  await store.updateJob(job._id, {
    status: 'completed',
    started_at: startedAt,
    completed_at: new Date().toISOString(),
    page_count: 1,
    token_usage_input: usage.input_tokens,
    token_usage_output: usage.output_tokens,
  });
  return { job_id: job._id, data: out.data, usage };
}

async function work(store: AnchorStore, jobId: string): Promise<AnchorReply> {
  const startedAt = new Date().toISOString();
  try {
    const job = await store.anchorJob(jobId);
    if (!job) return { job_id: jobId, error: 'no such job' };
    return await finishAnchorJob(store, job, await anchorExtract(job.input as AnchorExtractInput), startedAt);
  } catch (error) {
    return { job_id: jobId, error: error instanceof Error ? error.message : String(error) };
  }
}

async function main(): Promise<void> {
  const store = await openStore(process.env.ANCHOR_STORE ?? '');
  const url = process.env.ANCHOR_REDIS ?? '';
  const jobs = new Redis(url);
  const replies = new Redis(url);
  const concurrency = Number(process.env.ANCHOR_CONCURRENCY ?? 64);
  let running = 0;
  let freed: (() => void) | null = null;
  let open = true;
  process.once('SIGTERM', () => {
    open = false;
    jobs.disconnect();
    replies.disconnect();
    void store.close().then(() => process.exit(0));
  });
  console.log('anchor worker ready');
  while (open) {
    if (running >= concurrency) await new Promise<void>((resolve) => (freed = resolve));
    const popped = await jobs.blpop(JOBS_LIST, 0).catch(() => null);
    if (!popped) continue;
    running++;
    void work(store, popped[1]).then(async (reply) => {
      await replies.lpush(REPLIES_LIST, JSON.stringify(reply));
      running--;
      freed?.();
      freed = null;
    });
  }
}

if (require.main === module) {
  main().catch((error: unknown) => {
    console.error(error);
    process.exit(1);
  });
}
