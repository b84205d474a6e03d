import type { JobRecord, JobsService } from '@app/jobs';

/** What a job type's handler gets: the running job, an abort signal (cancel or shutdown), and the job service. */
export interface JobContext {
  job: JobRecord;
  signal: AbortSignal;
  jobs: JobsService;
  attempt: number;
}

export interface JobHandler {
  readonly type: string;
  /** Runs the job to its end. Throw an AppError to fail it; return to complete it. */
  run(context: JobContext): Promise<void>;
}

export const JOB_HANDLERS = Symbol('JOB_HANDLERS');
