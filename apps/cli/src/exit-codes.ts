/**
 * Exit codes of the API commands (extract, crawl, jobs, results, crawl-map). The older local
 * commands (`convert`, `users`) keep their own: 64 for a usage error (see command.ts).
 */
export const EXIT = {
  /** The command did what was asked; a followed job completed. */
  ok: 0,
  /** A followed job failed or was cancelled, or the service refused the operation (404, 409, 5xx…). */
  failed: 1,
  /** Bad arguments or options, or a request the service rejected as invalid (400, 422). */
  usage: 2,
  /** The service cannot be reached (connection refused, DNS, timeout, 502/503) or refused the key (401, 403). */
  unreachable: 3,
  /** Ctrl-C: the user interrupted the command (detached from or cancelled the job). */
  interrupted: 130,
} as const;

export type ExitCode = (typeof EXIT)[keyof typeof EXIT];
