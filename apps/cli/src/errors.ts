import { EXIT, type ExitCode } from './exit-codes';

/** A field error of a problem+json answer. */
export interface ProblemFieldError {
  location?: string;
  message?: string;
  value?: unknown;
}

/** RFC 9457 problem details as the service sends them (`errors[]` for validation problems). */
export interface Problem {
  type?: string;
  title?: string;
  status?: number;
  detail?: string;
  instance?: string;
  errors?: ProblemFieldError[];
  error_category?: string;
  job_id?: string;
  [key: string]: unknown;
}

/** Every error the CLI reports on purpose: a message for people and the exit code. */
export abstract class CliError extends Error {
  abstract readonly exitCode: ExitCode;
}

/** Bad arguments or options (exit 2). */
export class CliUsageError extends CliError {
  readonly exitCode = EXIT.usage;
  constructor(message: string) {
    super(message);
    this.name = 'CliUsageError';
  }
}

/** The service answered with an error status; `problem` is its problem+json body. */
export class ApiError extends CliError {
  readonly exitCode: ExitCode;
  constructor(
    readonly status: number,
    readonly problem: Problem,
    readonly method: string,
    readonly path: string,
  ) {
    super(problem.title ?? `HTTP ${status}`);
    this.name = 'ApiError';
    // A 502 naming a job is that job's page failing (the site, the model): the job failed, not the service.
    this.exitCode = status === 502 && typeof problem.job_id === 'string' ? EXIT.failed : exitCodeForStatus(status);
  }
}

/** The service could not be reached at all (exit 3). */
export class UnreachableError extends CliError {
  readonly exitCode = EXIT.unreachable;
  constructor(
    readonly baseUrl: string,
    readonly reason: string,
  ) {
    super(`cannot reach the Gleaner service at ${baseUrl}: ${reason}`);
    this.name = 'UnreachableError';
  }
}

/** Ctrl-C (exit 130). The message says what happened to the job, if any. */
export class InterruptedError extends CliError {
  readonly exitCode = EXIT.interrupted;
  constructor(message = 'interrupted') {
    super(message);
    this.name = 'InterruptedError';
  }
}

/** A local failure that is not the user's input (a file that cannot be written…) (exit 1). */
export class CliFailure extends CliError {
  readonly exitCode = EXIT.failed;
  constructor(message: string) {
    super(message);
    this.name = 'CliFailure';
  }
}

export function exitCodeForStatus(status: number): ExitCode {
  if (status === 401 || status === 403) return EXIT.unreachable;
  if (status === 502 || status === 503) return EXIT.unreachable;
  if (status === 400 || status === 422) return EXIT.usage;
  return EXIT.failed;
}

/** The human text of a problem: `Title (status): detail`, then one line per field error. */
export function describeProblem(problem: Problem, status: number): string[] {
  const title = problem.title ?? `HTTP ${status}`;
  const category = problem.error_category ? ` [${problem.error_category}]` : '';
  const lines = [`${title} (${status})${problem.detail ? `: ${problem.detail}` : ''}${category}`];
  for (const error of problem.errors ?? []) {
    const value = error.value === undefined ? '' : ` (value: ${truncate(JSON.stringify(error.value), 60)})`;
    lines.push(`  ${error.location ?? '?'}: ${error.message ?? 'invalid'}${value}`);
  }
  return lines;
}

function truncate(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}
