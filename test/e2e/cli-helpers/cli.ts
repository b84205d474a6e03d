/** Runs the built `gleaner` command (dist/apps/cli/src/main.js) as a child process, the way a person's shell would. */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { waitFor } from '../helpers';
import { ROOT } from '../processes';

export const CLI_MAIN = join(ROOT, 'dist', 'apps', 'cli', 'src', 'main.js');

export function assertCliBuilt(): void {
  if (!existsSync(CLI_MAIN)) throw new Error('dist/apps/cli/src/main.js is missing: run `npm run build` (npm test does it first)');
}

export interface CliResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/** A running CLI: its output so far, its stdin, and its end. */
export class CliProcess {
  private out = '';
  private err = '';
  readonly exited: Promise<CliResult>;

  constructor(readonly child: ChildProcessWithoutNullStreams) {
    child.stdout.setEncoding('utf8').on('data', (d: string) => (this.out += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (this.err += d));
    this.exited = new Promise((resolve, reject) => {
      child.on('error', reject);
      child.on('close', (code, signal) => resolve({ code, signal, stdout: this.out, stderr: this.err }));
    });
  }

  get stdout(): string {
    return this.out;
  }

  get stderr(): string {
    return this.err;
  }

  /** Waits until stderr matches (the CLI's notices, prompts and progress go there). */
  async waitForStderr(pattern: RegExp, timeoutMs = 90_000): Promise<void> {
    await waitFor(async () => pattern.test(this.err) || this.failIfExited(), timeoutMs, 50).catch((error: Error) => {
      throw new Error(`${error.message}\nwaiting for ${String(pattern)}; stderr so far:\n${this.err}\nstdout:\n${this.out}`);
    });
  }

  private failIfExited(): false {
    if (this.child.exitCode !== null || this.child.signalCode !== null) {
      throw new Error(`the CLI exited (${this.child.exitCode ?? this.child.signalCode})`);
    }
    return false;
  }

  write(text: string): void {
    this.child.stdin.write(text);
  }

  /** Ends the CLI if it is still running (test clean-up). */
  async stop(): Promise<void> {
    if (this.child.exitCode === null && this.child.signalCode === null) this.child.kill('SIGKILL');
    await this.exited.catch(() => undefined);
  }
}

export interface CliEnv {
  url?: string;
  key?: string;
  [name: string]: string | undefined;
}

/** Only what a user would set: PATH and the GLEANER_* variables given (nothing inherited from jest). */
function cliEnv(env: CliEnv): Record<string, string> {
  const out: Record<string, string> = { PATH: process.env.PATH ?? '', NO_COLOR: '1' };
  for (const [name, value] of Object.entries(env)) {
    if (value === undefined) continue;
    if (name === 'url') out.GLEANER_URL = value;
    else if (name === 'key') out.GLEANER_API_KEY = value;
    else out[name] = value;
  }
  return out;
}

export function startCli(args: string[], env: CliEnv = {}, options: { cwd?: string } = {}): CliProcess {
  const child = spawn(process.execPath, [CLI_MAIN, ...args], {
    cwd: options.cwd ?? ROOT,
    env: cliEnv(env),
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  return new CliProcess(child);
}

/** Runs the CLI to its end with `stdin` (closed afterwards); a generous deadline, never a timing assertion. */
export async function runCli(
  args: string[],
  env: CliEnv = {},
  options: { stdin?: string; cwd?: string; timeoutMs?: number } = {},
): Promise<CliResult> {
  const cli = startCli(args, env, options);
  cli.child.stdin.end(options.stdin ?? '');
  const timer = setTimeout(() => cli.child.kill('SIGKILL'), options.timeoutMs ?? 180_000);
  try {
    return await cli.exited;
  } finally {
    clearTimeout(timer);
  }
}

/** JSON lines of a text (blank lines ignored). */
export function jsonLines(text: string): any[] {
  return text
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as unknown);
}

/** What must never reach a user: a JavaScript stack trace. */
export const STACK_TRACE = /\n\s+at .+\(.+:\d+:\d+\)/;
