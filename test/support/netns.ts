import { spawn } from 'node:child_process';
import { join } from 'node:path';

const ROOT = join(__dirname, '..', '..');

/** The addresses of the veth end a namespace gets with `veth: true`; its default routes lead to gateways that do not exist. */
export const VETH = { ipv4: '10.203.0.2', ipv6: 'fd7a:5ea1::2' } as const;

export interface NamespaceRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * Runs a TypeScript file (with tsx, from the repository root) in a network namespace of its own, as the CI
 * fuzzing does (.ci/fuzz.sh): `unshare -n` (root), loopback up. With `veth`, also a veth pair whose one end
 * has VETH's addresses and carries the default routes (IPv4 and IPv6) to gateways that do not exist: software
 * that looks at the host's interfaces (a browser gathering ICE candidates) finds them as on a real host, and
 * nothing sent there reaches anything. The namespace ends with the process; nothing leaves the machine.
 */
export function runInNetworkNamespace(
  script: string,
  args: string[],
  options: { veth?: boolean; env?: NodeJS.ProcessEnv; timeoutMs?: number } = {},
): Promise<NamespaceRun> {
  const setup = ['ip link set lo up'];
  if (options.veth) {
    setup.push(
      'ip link add gleaner0 type veth peer name gleaner1',
      `ip addr add ${VETH.ipv4}/24 dev gleaner0`,
      `ip -6 addr add ${VETH.ipv6}/64 dev gleaner0 nodad`,
      'ip link set gleaner0 up',
      'ip link set gleaner1 up',
      'ip route add default via 10.203.0.1',
      'ip -6 route add default via fd7a:5ea1::1 dev gleaner0',
    );
  }
  const command = `${setup.join(' && ')} && exec "$@"`;
  const child = spawn('unshare', ['-n', '--', 'sh', '-c', command, 'netns', process.execPath, '--import', 'tsx', script, ...args], {
    cwd: ROOT,
    env: { ...process.env, ...options.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`${script} did not finish in its network namespace in time; stderr: ${stderr.slice(-2000)}`));
    }, options.timeoutMs ?? 120_000);
    child.once('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.once('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}
