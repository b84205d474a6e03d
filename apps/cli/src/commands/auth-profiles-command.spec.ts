import { CliStandIn } from '../../../../test/support/cli-stand-in';
import { CliUsageError } from '../errors';
import { createProfileBody, updateProfileBody } from './auth-profiles-command';

/** `gleaner auth-profiles create|update` against a stand-in service that records each request's method, path and body. */
describe('gleaner auth-profiles: logout patterns', () => {
  const service = new CliStandIn(({ body }) => ({ id: 'ap_1', ...body }));
  const { seen } = service;
  const gleaner = (args: string[]) => service.gleaner(args, { GLEANER_LOGIN_PASSWORD: 'pw-from-env' });

  beforeAll(() => service.start());
  afterAll(() => service.stop());
  beforeEach(() => service.clear());

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
