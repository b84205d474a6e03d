import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import { PassThrough } from 'node:stream';
import { SignalHub } from '../follow/signals';
import { runCli } from '../program';
import { CliUsageError } from '../errors';
import { createProfileBody, updateProfileBody } from './auth-profiles-command';

/** `gleaner auth-profiles create|update` against a stand-in service that records each request's method, path and body. */
describe('gleaner auth-profiles: logout patterns', () => {
  const seen: Array<{ method: string; path: string; body: any }> = [];
  let server: http.Server;
  let url: string;

  beforeAll(async () => {
    server = http.createServer((req, res) => {
      let text = '';
      req.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
      req.on('end', () => {
        const body = text ? JSON.parse(text) : null;
        seen.push({ method: req.method ?? '', path: req.url ?? '', body });
        res.writeHead(req.method === 'POST' ? 201 : 200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ id: 'ap_1', ...body }));
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));
  beforeEach(() => (seen.length = 0));

  async function gleaner(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
    const stdout = new PassThrough();
    const stderr = new PassThrough();
    let out = '';
    let err = '';
    stdout.on('data', (d: Buffer) => (out += d.toString('utf8')));
    stderr.on('data', (d: Buffer) => (err += d.toString('utf8')));
    const env = { GLEANER_URL: url, GLEANER_API_KEY: `glk_${'a'.repeat(40)}`, GLEANER_LOGIN_PASSWORD: 'pw-from-env', NO_COLOR: '1' };
    const code = await runCli(args, { stdin: new PassThrough(), stdout, stderr }, env, new SignalHub());
    return { code, stdout: out, stderr: err };
  }

  it('create sends every --logout-pattern as logout_patterns, the password from the environment', async () => {
    const run = await gleaner([
      'auth-profiles',
      'create',
      '--name',
      'Members',
      '--host',
      'members.example',
      '--login-url',
      'https://members.example/login',
      '--username',
      'alice',
      '--logout-pattern',
      '^/account/end-session',
      '--logout-pattern',
      '(?i)/bye$',
    ]);
    expect([run.code, run.stderr]).toEqual([0, '']);
    expect(seen).toEqual([
      {
        method: 'POST',
        path: '/api/v1/auth-profiles',
        body: expect.objectContaining({
          hosts: ['members.example'],
          login: expect.objectContaining({ username: 'alice', password: 'pw-from-env' }),
          logout_patterns: ['^/account/end-session', '(?i)/bye$'],
        }),
      },
    ]);
    // Without the option the field is left out (the service's default, no patterns).
    await gleaner([
      'auth-profiles',
      'create',
      '--name',
      'M',
      '--host',
      'm.example',
      '--login-url',
      'https://m.example/l',
      '--username',
      'a',
    ]);
    expect(seen[1].body).not.toHaveProperty('logout_patterns');
  });

  it('update sends only what is given: patterns replace or clear the stored ones, --no-ttl a null lifetime', async () => {
    expect((await gleaner(['auth-profiles', 'update', 'ap_1', '--logout-pattern', '^/bye', '--logout-pattern', '^/end'])).code).toBe(0);
    expect((await gleaner(['auth-profiles', 'update', 'ap_1', '--clear-logout-patterns', '--no-ttl'])).code).toBe(0);
    const named = await gleaner(['auth-profiles', 'update', 'ap_1', '--name', 'New', '--ttl', '60']);
    expect([named.code, named.stdout]).toEqual([0, 'Auth profile ap_1 updated.\n']);
    expect(seen).toEqual([
      { method: 'PUT', path: '/api/v1/auth-profiles/ap_1', body: { logout_patterns: ['^/bye', '^/end'] } },
      { method: 'PUT', path: '/api/v1/auth-profiles/ap_1', body: { logout_patterns: [], session_ttl_seconds: null } },
      { method: 'PUT', path: '/api/v1/auth-profiles/ap_1', body: { name: 'New', session_ttl_seconds: 60 } },
    ]);
  });

  it('update refuses nothing to change and contradicting options (exit 2), sending nothing', async () => {
    for (const args of [[], ['--logout-pattern', 'x', '--clear-logout-patterns']]) {
      const run = await gleaner(['auth-profiles', 'update', 'ap_1', ...args]);
      expect(run.code).toBe(2);
      expect(run.stderr).toMatch(/nothing to update|not both/);
    }
    expect(seen).toEqual([]);
  });

  it('builds the bodies without a service too', () => {
    expect(
      createProfileBody(
        { name: 'n', host: ['h.example'], loginUrl: 'https://h.example/l', username: 'u', passwordEnv: 'X', logoutPattern: ['^/x'] },
        'p',
      ),
    ).toMatchObject({ logout_patterns: ['^/x'] });
    expect(() => updateProfileBody({})).toThrow(CliUsageError);
  });
});
