/**
 * The Docker client, on the swarm test's own daemon only: the host side passes `DOCKER_HOST` of its
 * socket (/run/gleaner-docker.sock, never the default one), the driver container has that socket mounted
 * as its default. Debian's client (`/usr/bin/docker`) unless `DOCKER_BIN` names another.
 */
import { spawn } from 'node:child_process';

export interface Ran {
  code: number;
  stdout: string;
  stderr: string;
  timedOut?: boolean;
}

export function dockerBin(): string {
  return process.env.DOCKER_BIN ?? '/usr/bin/docker';
}

/**
 * Runs `docker ARGS`; `input` goes to its stdin. Never throws for a non-zero exit: see `mustDocker`. With
 * `timeoutMs`, a command still running then is stopped (SIGTERM) and answers `timedOut` with what it wrote.
 */
export function docker(args: string[], options: { input?: string | Buffer; echo?: boolean; timeoutMs?: number } = {}): Promise<Ran> {
  return new Promise((resolve) => {
    const child = spawn(dockerBin(), args, { stdio: ['pipe', 'pipe', 'pipe'], env: { ...process.env, DOCKER_BUILDKIT: '1' } });
    let timedOut = false;
    const timer = options.timeoutMs
      ? setTimeout(() => {
          timedOut = true;
          child.kill('SIGTERM');
        }, options.timeoutMs)
      : undefined;
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on('data', (c: Buffer) => {
      out.push(c);
      if (options.echo) process.stdout.write(c);
    });
    child.stderr.on('data', (c: Buffer) => {
      err.push(c);
      if (options.echo) process.stderr.write(c);
    });
    child.on('error', (error) => resolve({ code: 127, stdout: '', stderr: String(error) }));
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code: code ?? 1, stdout: Buffer.concat(out).toString('utf8'), stderr: Buffer.concat(err).toString('utf8'), timedOut });
    });
    // A command that exits before reading its input closes the pipe: not an error of ours.
    child.stdin.on('error', () => undefined);
    child.stdin.end(options.input ?? '');
  });
}

/** `docker ARGS` that must succeed: its stdout, or an error with the command and its stderr. */
export async function mustDocker(args: string[], options: { input?: string | Buffer; echo?: boolean } = {}): Promise<string> {
  const ran = await docker(args, options);
  if (ran.code !== 0) throw new Error(`docker ${args.join(' ')} exited ${ran.code}: ${ran.stderr.trim().slice(-2000)}`);
  return ran.stdout;
}

/** The running containers of a stack service (`gleaner_crawler`), newest first. */
export async function containersOf(service: string): Promise<string[]> {
  const out = await mustDocker(['ps', '-q', '--filter', `label=com.docker.swarm.service.name=${service}`, '--filter', 'status=running']);
  return out.split('\n').filter(Boolean);
}

/** Replicas running / desired of a service, from `docker service ls`. */
export async function replicas(service: string): Promise<{ running: number; desired: number }> {
  const out = await mustDocker(['service', 'ls', '--filter', `name=${service}`, '--format', '{{.Name}} {{.Replicas}}']);
  const line = out.split('\n').find((l) => l.startsWith(`${service} `));
  const m = /(\d+)\/(\d+)/.exec(line ?? '');
  return { running: Number(m?.[1] ?? 0), desired: Number(m?.[2] ?? 0) };
}
