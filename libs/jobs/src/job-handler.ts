import type { JobRecord, JobType } from './job.types';
import type { JobsService, UsageCounters } from './jobs.service';

/** What a job leaves on its record besides its counters: its result facts (JobRecord<I, R>.extraction) and its model attempts. */
export type JobResultFields<R = unknown> = {
  extraction?: R;
  attempts?: unknown[];
};

/**
 * What a handler may leave for its job's completion: its last counters and its result (JobsService.recordUsage's),
 * written with the `completed` status in one write and announced in its status event. A job that ends otherwise
 * (cancelled, handed back) still gets them, on their own. `R` is the result its readers read (JobRecord<I, R>).
 */
export interface JobCompletion<R = unknown> {
  usage: UsageCounters;
  set?: JobResultFields<R>;
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

/** A job type's handler: `I`, its input as it parses it; `R`, the result it leaves for its answer (JobCompletion<R>). */
export interface JobHandler<I = unknown, R = unknown> {
  readonly type: JobType;
  /** Validates a stored input (throws on a malformed one: the job fails as `internal`, never runs half-typed). */
  parseInput(raw: unknown): I;
  /** Runs the job to its end. Throw an AppError to fail it; return to complete it (with its last counters, if any). */
  run(context: JobContext<I>): Promise<void | JobCompletion<R>>;
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
