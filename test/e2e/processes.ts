import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { freePort } from '../harness/servers';
import { TEST_API_MAIN, TEST_CRAWLER_MAIN } from '../test-app/build';

export const ROOT = join(__dirname, '..', '..');
/** The production entry points, as built. */
export const API_MAIN = join(ROOT, 'dist', 'apps', 'api', 'src', 'main.js');
export const CRAWLER_MAIN = join(ROOT, 'dist', 'apps', 'crawler', 'src', 'main.js');
/** The same built apps with the test app's extensions (test jobs, content crash hooks): test/test-app. */
export { TEST_API_MAIN, TEST_CRAWLER_MAIN };

export function assertBuilt(): void {
  if (!existsSync(API_MAIN) || !existsSync(CRAWLER_MAIN)) throw new Error('dist/ is missing: run `npm run build` (npm test does it first)');
  if (!existsSync(TEST_API_MAIN) || !existsSync(TEST_CRAWLER_MAIN))
    throw new Error('the test app is missing: the jest global setup builds it');
}

/** A process that died or hung before it answered /health. */
export class ProcessStartError extends Error {
  constructor(
    readonly processName: string,
    message: string,
  ) {
    super(message);
    this.name = 'ProcessStartError';
  }
}

export interface AppProcess {
  name: string;
  child: ChildProcess;
  port: number;
  url: string;
  output: () => string;
  exited: Promise<number | null>;
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

/**
 * How long a start may take before it is given up. A start is about 5 s of CPU on a quiet machine (loading
 * and compiling the app's modules is most of it); beside a chaos soak and another shard on two cores, a process
 * gets a small share of a core and the start can take a minute or more.
 */
const READY_TIMEOUT_MS = 150_000;
/**
 * Node's compile cache (V8 code for every module, keyed by the module's content) for every app process the
 * suites start: the same built app starts dozens of times, and from the second start on it skips most of the
 * compiling (about a sixth of a start's CPU). Inside the repository's own scratch directory (gitignored).
 */
const COMPILE_CACHE = join(ROOT, '.test-servers', 'compile-cache');
/** How much of a failed start's output its error carries: the cause is at the end. */
const OUTPUT_TAIL_LINES = 60;

/**
 * Runs a built app (`dist/`) as a real child process with its own environment, and waits until it answers
 * /health. A child that exits first fails the start at once (its exit code or signal and the tail of its
 * output), instead of the wait running out. `options.port`: a port the caller chose (to start a process
 * again at the same address); a free one otherwise.
 */
export async function startProcess(
  name: string,
  main: string,
  args: string[],
  env: Record<string, string>,
  portVar: 'PORT' | 'CRAWLER_PORT',
  options: { port?: number } = {},
): Promise<AppProcess> {
  const port = options.port ?? (await freePort());
  const chunks: string[] = [];
  const child = spawn(process.execPath, [main, ...args], {
    env: {
      PATH: process.env.PATH ?? '',
      HOST: '127.0.0.1',
      LOG_LEVEL: 'info',
      NODE_COMPILE_CACHE: COMPILE_CACHE,
      ...env,
      [portVar]: String(port),
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout.on('data', (d: Buffer) => chunks.push(d.toString()));
  child.stderr.on('data', (d: Buffer) => chunks.push(d.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  // 'close' comes after the exit and the end of both output streams: the output is whole by then.
  const closed = new Promise<string>((resolve) => {
    child.once('close', (code, signal) => resolve(code !== null ? `exit code ${code}` : `signal ${signal}`));
    child.once('error', (error) => resolve(`spawn error: ${error.message}`));
  });
  const url = `http://127.0.0.1:${port}`;
  const proc: AppProcess = {
    name,
    child,
    port,
    url,
    output: () => chunks.join(''),
    exited,
    async stop(signal: NodeJS.Signals = 'SIGTERM') {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      return exited;
    },
  };
  let gone: string | null = null;
  const died = closed.then((how) => {
    gone = how;
  });
  const healthy = async (): Promise<boolean> => {
    const deadline = Date.now() + READY_TIMEOUT_MS;
    while (gone === null && Date.now() < deadline) {
      const res = await fetch(`${url}/health`).catch(() => null);
      if (res?.status === 200) return true;
      await Promise.race([died, new Promise((resolve) => setTimeout(resolve, 100))]);
    }
    return false;
  };
  if (await healthy()) return proc;
  if (gone === null) {
    child.kill('SIGKILL');
    throw new ProcessStartError(
      name,
      `${name} did not become healthy within ${READY_TIMEOUT_MS} ms; its output ends:\n${outputTail(proc.output())}`,
    );
  }
  throw new ProcessStartError(name, `${name} exited before it answered /health (${gone}); its output ends:\n${outputTail(proc.output())}`);
}

/** The last lines of a process's output (all of it when short). */
export function outputTail(output: string, lines = OUTPUT_TAIL_LINES): string {
  const all = output.trimEnd().split('\n');
  return all.length <= lines ? all.join('\n') : [`… (${all.length - lines} earlier lines)`, ...all.slice(-lines)].join('\n');
}
