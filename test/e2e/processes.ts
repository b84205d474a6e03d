import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { freePort } from '../harness/servers';
import { TEST_API_MAIN, TEST_CRAWLER_MAIN } from '../test-app/build';
import { waitFor } from './helpers';

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

/** Runs a built app (`dist/`) as a real child process with its own environment. */
export async function startProcess(
  name: string,
  main: string,
  args: string[],
  env: Record<string, string>,
  portVar: 'PORT' | 'CRAWLER_PORT',
): Promise<AppProcess> {
  const port = await freePort();
  const chunks: string[] = [];
  const child = spawn(process.execPath, [main, ...args], {
    env: { PATH: process.env.PATH ?? '', HOST: '127.0.0.1', LOG_LEVEL: 'info', ...env, [portVar]: String(port) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout.on('data', (d: Buffer) => chunks.push(d.toString()));
  child.stderr.on('data', (d: Buffer) => chunks.push(d.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
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
  try {
    await waitFor(
      async () => {
        if (child.exitCode !== null || child.signalCode !== null) {
          throw new Error(`${name} exited (${child.exitCode ?? child.signalCode}):\n${proc.output()}`);
        }
        const res = await fetch(`${url}/health`).catch(() => null);
        return res?.status === 200;
      },
      // Generous: a start-up on a machine busy with other work can take tens of seconds.
      90_000,
      100,
    );
  } catch (error) {
    child.kill('SIGKILL');
    throw new ProcessStartError(name, `${name} did not become healthy: ${(error as Error).message}\n${proc.output()}`);
  }
  return proc;
}
