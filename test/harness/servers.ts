/**
 * Starts the real servers the integration and e2e tests need, on free 127.0.0.1 ports:
 * redis-server (Debian package) and the MongoDB-wire test server (test/servers/mongo-wire).
 * Used by jest's global setup and by the benchmark scripts.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdirSync, rmSync } from 'node:fs';
import { createServer, connect } from 'node:net';
import { join } from 'node:path';

export interface StartedServer {
  url: string;
  pid: number;
  stop(): Promise<void>;
}

const ROOT = join(__dirname, '..', '..');

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

export function which(binary: string): string | null {
  const result = spawnSync('sh', ['-c', `command -v ${binary}`], { encoding: 'utf8' });
  return result.status === 0 ? result.stdout.trim() : null;
}

async function waitForPort(port: number, child: ChildProcess, timeoutMs: number, name: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`${name} exited with code ${child.exitCode} before listening`);
    const ok = await new Promise<boolean>((resolve) => {
      const socket = connect(port, '127.0.0.1');
      socket.once('connect', () => {
        socket.destroy();
        resolve(true);
      });
      socket.once('error', () => resolve(false));
    });
    if (ok) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`${name} did not listen on 127.0.0.1:${port} within ${timeoutMs} ms`);
}

function stopper(child: ChildProcess): () => Promise<void> {
  return () =>
    new Promise<void>((resolve) => {
      if (child.exitCode !== null || child.signalCode !== null) return resolve();
      child.once('exit', () => resolve());
      child.kill('SIGKILL');
    });
}

/**
 * A redis-server on a free port, or on `port` (a restart of a server a test stopped, on the same address).
 * With `aofDir`, it keeps an append-only file there, written before each reply (as the stack's Redis keeps
 * one): a restart on the same directory finds every acknowledged write.
 */
export async function startRedis(options: { port?: number; aofDir?: string } = {}): Promise<StartedServer> {
  const binary = which('redis-server');
  if (!binary) throw new Error('redis-server not found (apt-get install -y redis-server)');
  const port = options.port ?? (await freePort());
  const persistence = options.aofDir ? ['--appendonly', 'yes', '--appendfsync', 'always', '--dir', options.aofDir] : ['--appendonly', 'no'];
  const child = spawn(binary, ['--port', String(port), '--bind', '127.0.0.1', '--save', '', ...persistence, '--protected-mode', 'yes'], {
    stdio: 'ignore',
    detached: false,
  });
  await waitForPort(port, child, 10_000, 'redis-server');
  return { url: `redis://127.0.0.1:${port}`, pid: child.pid!, stop: stopper(child) };
}

export function mongoWireDir(): string {
  return join(ROOT, 'test', 'servers', 'mongo-wire');
}

/** Builds the MongoDB-wire test server when its sources changed (Maven + javac; the jars come from Maven Central). */
export function buildMongoWire(): void {
  const dir = mongoWireDir();
  if (!which('java') || !which('mvn') || !which('javac')) {
    throw new Error('java, javac and mvn are needed to build the MongoDB-wire test server');
  }
  const result = spawnSync('bash', [join(dir, 'build.sh')], { encoding: 'utf8', stdio: 'pipe' });
  if (result.status !== 0) throw new Error(`building the MongoDB-wire test server failed:\n${result.stderr}${result.stdout}`);
}

export interface MongoWireOptions {
  /** Listen on this port (a restart of a server a test killed, on the same address); a free one otherwise. */
  port?: number;
  /**
   * Keep the data in this file (mongo-java-server's H2 backend; every acknowledged write survives a kill -9
   * and a restart on the same file). Without it the data lives in memory and dies with the process.
   */
  dataFile?: string;
}

/**
 * Where the suites' store keeps its data: in memory unless GLEANER_TEST_MONGO_STORE=file (then in a file
 * under .test-servers/). Memory is the default because it is faster (test/servers/mongo-wire/README.md).
 */
export function testMongoWireOptions(): MongoWireOptions {
  const mode = process.env.GLEANER_TEST_MONGO_STORE ?? 'memory';
  if (mode === 'memory') return {};
  if (mode !== 'file') throw new Error(`GLEANER_TEST_MONGO_STORE must be memory or file, not ${mode}`);
  const dir = join(ROOT, '.test-servers');
  mkdirSync(dir, { recursive: true });
  const dataFile = join(dir, `mongo-wire-${process.pid}.mv.db`);
  rmSync(dataFile, { force: true });
  return { dataFile };
}

export async function startMongoWire(options: MongoWireOptions = {}): Promise<StartedServer> {
  buildMongoWire();
  const dir = mongoWireDir();
  const port = options.port ?? (await freePort());
  mkdirSync(join(ROOT, '.test-servers'), { recursive: true });
  const args = ['-Xmx512m', '-cp', `${join(dir, 'out')}:${join(dir, 'out', 'lib', '*')}`, 'MongoWireServer', String(port)];
  if (options.dataFile) args.push(options.dataFile);
  const child = spawn('java', args, { stdio: 'ignore' });
  await waitForPort(port, child, 30_000, 'mongo-wire');
  return { url: `mongodb://127.0.0.1:${port}`, pid: child.pid!, stop: stopper(child) };
}
