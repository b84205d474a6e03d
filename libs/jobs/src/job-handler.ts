import type { JobRecord } from './job.types';
import type { JobsService } from './jobs.service';

/** What a job type's handler gets: the running job, an abort signal (cancel or shutdown), and the job service. */
export interface JobContext {
  job: JobRecord;
  signal: AbortSignal;
  jobs: JobsService;
  attempt: number;
  /** Request-only secrets from the queue message (e.g. `llm_api_key`), opened for this run. */
  secrets: Record<string, string>;
}

export interface JobHandler {
  readonly type: string;
  /** Runs the job to its end. Throw an AppError to fail it; return to complete it. */
  run(context: JobContext): Promise<void>;
}

export const JOB_HANDLERS = Symbol('JOB_HANDLERS');
