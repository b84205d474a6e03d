/**
 * The admin key of a first start (issue 40, item 1; README "Quick start", docs/operations-deploy.md "The admin
 * key"): the built apps as child processes. A generated key is made only once the embedded service listens
 * (a start that fails on a busy port must not spend it), printed once, never again; every start says how to
 * make another one; a cluster API role never prints one, and `gleaner users create --admin` makes it.
 */
import { spawnSync } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import { join } from 'node:path';
import { describeWith, serverUrl, uniqueDbName } from '../harness/require-server';
import { freePort } from '../harness/servers';
import { http, tempDir } from './helpers';
import { API_MAIN, ProcessStartError, ROOT, assertBuilt, startProcess, type AppProcess } from './processes';

jest.setTimeout(180_000);

const CLI = join(ROOT, 'dist', 'apps', 'cli', 'src', 'main.js');
const LIVE_KEY = /glk_[0-9A-Za-z]{40}/;
const LIVE_KEYS = /glk_[0-9A-Za-z]{40}/g;
const HINT = 'npx gleaner users create --name NAME --admin';

const cli = (args: string[], env: Record<string, string>) =>
  spawnSync(process.execPath, [CLI, ...args], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', ...env },
    encoding: 'utf8',
    timeout: 90_000,
  });

/** Something else on the port: an HTTP server answering 503, so the start's health check keeps polling until the app exits. */
async function occupy(port: number): Promise<Server> {
  const server = createServer((_req, res) => res.writeHead(503).end());
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  return server;
}

/** The API's own lines (what an operator reads), without the JSON log. */
function plainLines(output: string): string {
  return output
    .split('\n')
    .filter((line) => !line.startsWith('{'))
    .join('\n');
}

describe('the admin key of an embedded first start', () => {
  const dataDir = tempDir('gleaner-first-start-');
  let port: number;
  let app: AppProcess | undefined;
  const env = () => ({ DATA_DIR: dataDir, GLEANER_BROWSER_ENABLED: 'false' });

  beforeAll(async () => {
    assertBuilt();
    port = await freePort();
  });
  afterEach(async () => {
    await app?.stop();
    app = undefined;
  });

  it('makes no key when the port is busy, so none is lost', async () => {
    const blocker = await occupy(port);
    let failure: unknown;
    try {
      await startProcess('busy-port', API_MAIN, [], env(), 'PORT', { port });
    } catch (error) {
      failure = error;
    } finally {
      await new Promise((resolve) => blocker.close(resolve));
    }
    expect(failure).toBeInstanceOf(ProcessStartError);
    const output = (failure as Error).message;
    expect(output).toContain('EADDRINUSE');
    expect(output).not.toMatch(LIVE_KEY);
    expect(output).not.toContain('bootstrap admin user and key created');
  });

  let key: string;
  it('makes the key at the next start, once it listens, prints it once with how to make another, and the key works', async () => {
    app = await startProcess('first-start', API_MAIN, [], env(), 'PORT', { port });
    // The note follows the listening line: wait for it rather than for a time.
    await waitForOutput(app, HINT);
    const printed = plainLines(app.output()).match(LIVE_KEYS) ?? [];
    expect(new Set(printed).size).toBe(1);
    key = printed[0] ?? '';
    expect(app.output()).toContain('Lost it? Make another admin key');
    // Never in the JSON log: only the key's prefix is logged.
    expect(
      app
        .output()
        .split('\n')
        .filter((line) => line.startsWith('{') && LIVE_KEY.test(line)),
    ).toEqual([]);
    expect((await http(app.url, 'GET', '/api/v1/users', { key })).status).toBe(200);
  });

  it('never prints a key again at a later start, and says how to make another one', async () => {
    app = await startProcess('restart', API_MAIN, [], env(), 'PORT', { port });
    await waitForOutput(app, HINT);
    expect(app.output()).not.toMatch(LIVE_KEY);
    expect(app.output()).toContain('Admin API key: shown once, at the first start');
    expect((await http(app.url, 'GET', '/api/v1/jobs', { key })).status).toBe(200);
  });

  it('makes another admin key with gleaner users create --admin, as the note says', async () => {
    const made = cli(['users', 'create', '--name', 'ops', '--admin'], env());
    expect([made.status, made.stderr]).toEqual([0, '']);
    const created = JSON.parse(made.stdout) as { is_admin: boolean; key: { key: string } };
    expect(created.is_admin).toBe(true);
    app = await startProcess('after-cli', API_MAIN, [], env(), 'PORT', { port });
    expect((await http(app.url, 'GET', '/api/v1/users', { key: created.key.key })).status).toBe(200);
  });
});

describeWith(['redis', 'mongodb'], 'the admin key of a cluster API role', () => {
  let env: Record<string, string>;
  let api: AppProcess | undefined;

  beforeAll(() => {
    assertBuilt();
    const redisDb = 3;
    spawnSync('redis-cli', ['-u', `${serverUrl('redis')}/${redisDb}`, 'flushdb']);
    env = {
      MONGODB_URI: `${serverUrl('mongodb')}/${uniqueDbName('gleaner_first_start')}`,
      REDIS_URL: `${serverUrl('redis')}/${redisDb}`,
      GLEANER_SECRET: 'first-start-secret-0123456789abcdef',
    };
  });
  afterEach(async () => {
    await api?.stop();
    api = undefined;
  });

  it('never makes or prints a key (its output goes to shared logs); says how to make one', async () => {
    api = await startProcess('api-role', API_MAIN, ['--role=api'], env, 'PORT');
    await waitForOutput(api, 'No API key exists yet');
    expect(api.output()).not.toMatch(LIVE_KEY);
    expect(api.output()).toContain(HINT);
    expect(api.output()).not.toContain('bootstrap admin user and key created');
  });

  it('takes the admin key gleaner users create --admin makes with the same settings, and prints none at the next start', async () => {
    const made = cli(['users', 'create', '--name', 'admin', '--admin'], env);
    expect([made.status, made.stderr]).toEqual([0, '']);
    const key = (JSON.parse(made.stdout) as { key: { key: string } }).key.key;
    api = await startProcess('api-role-again', API_MAIN, ['--role=api'], env, 'PORT');
    await waitForOutput(api, HINT);
    expect(api.output()).not.toMatch(LIVE_KEY);
    expect((await http(api.url, 'GET', '/api/v1/users', { key })).status).toBe(200);
  });
});

/**
 * Waits until the process has written `text` (its note follows the listening line); fails when it exits first,
 * or when a minute passes without it (a hang guard on a busy machine, not a measurement).
 */
async function waitForOutput(proc: AppProcess, text: string): Promise<void> {
  let exited = false;
  void proc.exited.then(() => (exited = true));
  const deadline = Date.now() + 60_000;
  while (!proc.output().includes(text)) {
    if (exited || Date.now() > deadline)
      throw new Error(`${proc.name} ${exited ? 'exited' : 'went on'} without writing "${text}"; its output:\n${proc.output()}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
