import type { ProgressSink } from './progress';
import type { RestAnswer, RestPort } from './rest-port';

const TERMINAL = new Set(['completed', 'failed', 'cancelled']);

export interface JobRecord {
  id: string;
  type?: string;
  status: string;
  page_count?: number;
  failed_count?: number;
  urls_queued?: number;
  [field: string]: unknown;
}

export function isTerminalStatus(status: unknown): boolean {
  return typeof status === 'string' && TERMINAL.has(status);
}

/** Pages done and pages known, for progress. */
export function jobProgress(job: JobRecord): { done: number; total?: number } {
  const done = (job.page_count ?? 0) + (job.failed_count ?? 0);
  const known = job.urls_queued ?? 0;
  return known > 0 ? { done, total: Math.max(known, done) } : { done };
}

export interface FollowOptions {
  timeoutMs: number;
  /** Between two reads of the job (each one counts against the key's rate limit like any request). */
  pollMs: number;
  signal?: AbortSignal;
}

/**
 * Follows a job through GET /jobs/{id} until it ends, the time is up or the call is cancelled,
 * reporting pages done of pages known. Resolves to the last answer (a refusal stops it at once).
 */
export async function followJob(rest: RestPort, jobId: string, sink: ProgressSink, options: FollowOptions): Promise<RestAnswer> {
  const deadline = Date.now() + options.timeoutMs;
  const path = `/api/v1/jobs/${encodeURIComponent(jobId)}`;
  for (;;) {
    const answer = await rest.call({ method: 'GET', path }, options.signal);
    if (answer.status !== 200) return answer;
    const job = answer.body as JobRecord;
    const { done, total } = jobProgress(job);
    await sink.report(done, total, `${job.status}: ${done}${total === undefined ? '' : ` of ${total}`} pages`);
    if (isTerminalStatus(job.status) || Date.now() >= deadline || options.signal?.aborted) return answer;
    await sleep(Math.min(options.pollMs, Math.max(0, deadline - Date.now())), options.signal);
  }
}

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    }
    signal?.addEventListener('abort', done, { once: true });
  });
}
