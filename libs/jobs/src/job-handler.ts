import type { JobRecord, JobType } from './job.types';
import type { JobsService, UsageCounters } from './jobs.service';

/**
 * What a handler may leave for its job's completion: its last counters and facts (JobsService.recordUsage's),
 * written with the `completed` status in one write and announced in its status event. A job that ends otherwise
 * (cancelled, handed back) still gets them, on their own.
 */
export interface JobCompletion {
  usage: UsageCounters;
  set?: Record<string, unknown>;
}

/** What a job type's handler gets: the running job, its validated input, an abort signal (cancel or shutdown), and the job service. */
export interface JobContext<I = unknown> {
  job: JobRecord;
  /** The job's input as validated by the handler's `parseInput` (the store keeps it as untyped JSON). */
  input: I;
  signal: AbortSignal;
  jobs: JobsService;
  attempt: number;
  /**
   * This delivery moved the job from pending to running: no run of its handler came before, so nothing of
   * an earlier run (a stored result) needs looking for. Absent or false: a resumed job (or unknown).
   */
  startedNow?: boolean;
  /** Request-only secrets from the queue message (e.g. `llm_api_key`), opened for this run. */
  secrets: Record<string, string>;
  /** The sealed form of `secrets`, to pass on to further queue messages (crawl page work) without opening them again. */
  sealedSecrets?: string;
}

export interface JobHandler<I = unknown> {
  readonly type: JobType;
  /** Validates a stored input (throws on a malformed one: the job fails as `internal`, never runs half-typed). */
  parseInput(raw: unknown): I;
  /** Runs the job to its end. Throw an AppError to fail it; return to complete it (with its last counters, if any). */
  run(context: JobContext<I>): Promise<void | JobCompletion>;
  /** Called when a message arrives for a job that is already terminal (clean-up a dead owner left behind). */
  onTerminal?(job: JobRecord): Promise<void>;
}

/**
 * Thrown by a handler whose job is now run by another worker (its ownership lease was taken over):
 * the runner neither finishes nor retries the job.
 */
export class JobYieldedError extends Error {
  constructor(reason: string) {
    super(reason);
    this.name = 'JobYieldedError';
  }
}

export function isJobYielded(error: unknown): boolean {
  return error instanceof JobYieldedError || (error instanceof Error && error.name === 'JobYieldedError');
}

export const JOB_HANDLERS = Symbol('JOB_HANDLERS');
