import type { Readable, Writable } from 'node:stream';

/** Streams a command reads and writes (injectable for tests). */
export interface CliIo {
  stdin: Readable;
  stdout: Writable;
  stderr: Writable;
}

/** One `gleaner <name>` subcommand; `run` resolves to the process exit code. */
export interface CliCommand {
  name: string;
  summary: string;
  usage: string;
  run(args: string[], io: CliIo): Promise<number>;
}

/** Exit codes (sysexits-style): usage errors are 64. */
export const EXIT_OK = 0;
export const EXIT_FAILURE = 1;
export const EXIT_USAGE = 64;

export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UsageError';
  }
}
