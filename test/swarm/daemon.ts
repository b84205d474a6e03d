/**
 * The swarm test's own Docker daemon: Debian's docker.io, on its own socket, data root, exec root and
 * pidfile (never the machine's default daemon, nor anyone else's), made a one-node swarm; and its
 * teardown (stack, swarm, daemon), which runs also when a step failed. The data root is kept between runs:
 * it is the image and build cache.
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, openSync, readFileSync } from 'node:fs';
import { docker, mustDocker } from './docker-cli';

export const SOCKET = '/run/gleaner-docker.sock';
export const DATA_ROOT = '/var/lib/gleaner-docker';
export const EXEC_ROOT = '/run/gleaner-docker';
export const PIDFILE = '/run/gleaner-docker.pid';

const log = (message: string) => console.log(`[swarm] ${message}`);

/** Installs docker.io and debootstrap with apt-get when they are missing (root on Debian). */
export function ensurePackages(): void {
  const need = [
    ['/usr/sbin/dockerd', 'docker.io'],
    ['/usr/bin/docker', 'docker.io'],
    ['/usr/sbin/debootstrap', 'debootstrap'],
  ]
    .filter(([path]) => !existsSync(path))
    .map(([, pkg]) => pkg);
  if (need.length === 0) return;
  const packages = [...new Set(need)];
  log(`installing ${packages.join(' ')} (apt-get)`);
  // Another engineer's apt-get may hold dpkg's lock: wait for it (up to 10 min) instead of failing.
  const run = (args: string[]) =>
    spawnSync('apt-get', ['-o', 'DPkg::Lock::Timeout=600', ...args], {
      stdio: 'inherit',
      env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
    });
  if (run(['update', '-qq']).status !== 0 || run(['install', '-y', '-qq', ...packages]).status !== 0) {
    throw new Error(`apt-get install ${packages.join(' ')} failed (the swarm test needs root on Debian)`);
  }
}

function pidOf(): number | null {
  if (!existsSync(PIDFILE)) return null;
  const pid = Number(readFileSync(PIDFILE, 'utf8').trim());
  if (!pid) return null;
  try {
    process.kill(pid, 0);
    // The pidfile's process must be our dockerd (a stale pidfile may name a reused pid).
    const cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
    return cmdline.includes('dockerd') && cmdline.includes(SOCKET) ? pid : null;
  } catch {
    return null;
  }
}

async function waitUntil(what: string, probe: () => Promise<boolean> | boolean, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await probe()) return;
    await new Promise((r) => setTimeout(r, 500));
  }
  throw new Error(`${what} within ${timeoutMs / 1000} s`);
}

/** Starts the test's dockerd (stopping a leftover one of an earlier run first), then a one-node swarm. */
export async function startDaemon(logFile: string): Promise<void> {
  process.env.DOCKER_HOST = `unix://${SOCKET}`;
  if (pidOf()) {
    log('a dockerd of an earlier run is still up: stopping it first');
    await stopDaemon();
  }
  mkdirSync(DATA_ROOT, { recursive: true });
  mkdirSync(EXEC_ROOT, { recursive: true });
  const out = openSync(logFile, 'a');
  const child = spawn(
    '/usr/sbin/dockerd',
    ['--host', `unix://${SOCKET}`, '--data-root', DATA_ROOT, '--exec-root', EXEC_ROOT, '--pidfile', PIDFILE],
    { detached: true, stdio: ['ignore', out, out] },
  );
  child.unref();
  log(`dockerd started (pid ${child.pid}, socket ${SOCKET}, log ${logFile})`);
  await waitUntil('dockerd answers', async () => (await docker(['version', '--format', '{{.Server.Version}}'])).code === 0, 120_000);
  const state = (await mustDocker(['info', '--format', '{{.Swarm.LocalNodeState}}'])).trim();
  if (state !== 'inactive') await mustDocker(['swarm', 'leave', '--force']);
  await mustDocker(['swarm', 'init', '--advertise-addr', '127.0.0.1']);
  await removeVolumes('gleaner');
  const node = (await mustDocker(['node', 'ls', '--format', '{{.Hostname}}'])).trim().split('\n')[0];
  // docker/stack.yaml pins the data services to the node labelled gleaner.data=true.
  await mustDocker(['node', 'update', '--label-add', 'gleaner.data=true', node]);
  log(`one-node swarm on ${node}, labelled gleaner.data=true`);
}

/** Removes the stack (and waits for its tasks to go), leaves the swarm, stops the daemon. Never throws. */
export async function teardown(stack: string): Promise<void> {
  if (!pidOf()) return;
  try {
    await docker(['stack', 'rm', stack]);
    await waitUntil(
      'stack removed',
      async () => (await docker(['ps', '-q', '--filter', `label=com.docker.stack.namespace=${stack}`])).stdout.trim() === '',
      120_000,
    ).catch(() => log('stack tasks still up after 120 s'));
    await removeVolumes(stack);
    await docker(['swarm', 'leave', '--force']);
  } catch (error) {
    log(`teardown: ${String(error)}`);
  }
  await stopDaemon();
}

/** The stack's volumes and the test's own (embedded data, backups): every run starts from empty stores. */
export async function removeVolumes(stack: string): Promise<void> {
  const listed = (await docker(['volume', 'ls', '-q', '--filter', `label=com.docker.stack.namespace=${stack}`])).stdout
    .split('\n')
    .filter(Boolean);
  const volumes = [...listed, 'gleaner-data', 'gleaner-backups'];
  await waitUntil('volumes removed', async () => (await docker(['volume', 'rm', '-f', ...volumes])).code === 0, 60_000).catch(() =>
    log(`volumes not removed: ${volumes.join(' ')}`),
  );
}

async function stopDaemon(): Promise<void> {
  const pid = pidOf();
  if (!pid) return;
  process.kill(pid, 'SIGTERM');
  try {
    await waitUntil('dockerd stops', () => pidOf() === null, 60_000);
  } catch {
    log('dockerd did not stop in 60 s: SIGKILL');
    process.kill(pid, 'SIGKILL');
  }
  log('dockerd stopped');
}
