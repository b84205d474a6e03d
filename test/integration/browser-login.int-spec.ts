/**
 * Browser-step logins of auth profiles (docs/auth-profiles.md "Browser logins") with a real Chromium against the
 * login fixture's JavaScript-only login: the steps log in and keep the cookie and the local storage; wrong
 * credentials, a step whose element never comes and a page that tries to send what was typed to another host
 * fail cleanly, naming the step and never a credential; the other host never sees a request.
 */
import { AddressGuard, Fetcher } from '@app/fetch';
import { browserLogin, LoginFailed, type BrowserLoginRecipe, type LoginBrowser } from '@app/auth-profiles';
import { DEFAULT_LOGGED_OUT_STATUSES, type LoggedInCheck } from '../../libs/auth-profiles/src/auth-profile.types';
import { LOGIN_PASSWORD, LOGIN_USER, startLoginSite, type LoginSite } from '../fixtures/login-site/login-site';
import { CHROMIUM, describeWithChromium } from './fetch-helpers';

jest.setTimeout(120_000);

const loopback = async () => [{ address: '127.0.0.1', family: 4 as const }];
const check: LoggedInCheck = {
  logged_in_selector: 'a[href="/logout"]',
  logged_out_selector: null,
  logged_out_path: null,
  session_cookie: 'sid',
  logged_out_statuses: DEFAULT_LOGGED_OUT_STATUSES,
};
const credentials = { username: LOGIN_USER, password: LOGIN_PASSWORD };

describeWithChromium('browser logins with Chromium', () => {
  let site: LoginSite;
  let fetcher: Fetcher;
  let browser: LoginBrowser;
  const hosts = ['members.test'];
  const recipe = (path = '/js-login', over: Partial<BrowserLoginRecipe> = {}): BrowserLoginRecipe => ({
    type: 'browser',
    url: site.url('members.test', path),
    steps: [
      { action: 'wait_for', selector: '#user' },
      { action: 'fill', selector: '#user', credential: 'username' },
      { action: 'fill', selector: '#pass', credential: 'password' },
      { action: 'click', selector: '#go' },
      { action: 'wait_for', url_path: '/members' },
    ],
    ...over,
  });
  const failure = async (work: Promise<unknown>): Promise<Error> => {
    try {
      await work;
    } catch (error) {
      return error as Error;
    }
    throw new Error('expected the login to fail');
  };
  const secret = new RegExp(`${LOGIN_USER}|${LOGIN_PASSWORD}`);

  beforeAll(async () => {
    site = await startLoginSite();
    fetcher = new Fetcher({
      guard: new AddressGuard({ resolver: loopback, allowCidrs: ['127.0.0.0/8'] }),
      dynamic: { pool: { executablePath: CHROMIUM, maxBrowsers: 1 }, timeoutMs: 20_000 },
    });
    browser = (input) => fetcher.browserScript({ ...input, timeoutMs: 20_000 });
  });
  afterAll(async () => {
    await fetcher?.close();
    await site?.close();
  });

  it('runs the steps of a JavaScript-only login and keeps the session cookie and the local storage, which a browser fetch then carries', async () => {
    const logins = site.stats.logins;
    const session = await browserLogin({ hosts, login: recipe(), check, credentials }, browser);
    expect(site.stats.logins).toBe(logins + 1);
    expect(site.sessions).toContain(session.cookies.sid);
    expect(site.sessions).toContain(session.local_storage?.token);
    // The session serves a static page (its cookie) and a page whose script reads the local storage.
    const member = await fetcher.fetch(site.url('members.test', '/members/p/2'), {
      mode: 'static',
      session: { hosts, cookies: session.cookies },
    });
    expect(member.html).toContain('Name: Member page 2');
    const app = await fetcher.fetch(site.url('members.test', '/app'), {
      mode: 'dynamic',
      waitFor: { selector: '#ready' },
      session: { hosts, cookies: session.cookies, localStorage: session.local_storage },
    });
    expect(app.html).toContain('Name: Token member');
    const without = await fetcher.fetch(site.url('members.test', '/app'), { mode: 'dynamic', waitFor: { selector: '#ready' } });
    expect(without.html).toContain('Logged out');
  });

  it('wrong credentials leave the page on the login page: a failed login naming no credential', async () => {
    const failed = site.stats.failedLogins;
    const error = await failure(
      browserLogin({ hosts, login: recipe(), check, credentials: { username: LOGIN_USER, password: 'not-the-password-3b8e' } }, browser),
    );
    expect(error).toBeInstanceOf(LoginFailed);
    expect(site.stats.failedLogins).toBe(failed + 1);
    // The last step waits for /members, which never comes: the step is named, nothing typed is.
    expect(error.message).toMatch(/step 5 \(wait_for path \/members\)/);
    expect(error.message).not.toMatch(secret);
    expect(error.message).not.toContain('not-the-password-3b8e');
  });

  it('a step whose element never comes fails at that step, without the value it would have typed', async () => {
    const login = recipe('/js-login', {
      steps: [
        { action: 'fill', selector: '#user', credential: 'username' },
        { action: 'fill', selector: '#no-such-field', credential: 'password' },
      ],
    });
    const error = await failure(
      browserLogin({ hosts, login, check, credentials }, (input) => fetcher.browserScript({ ...input, timeoutMs: 3_000 })),
    );
    expect(error.message).toMatch(/step 2 \(fill #no-such-field\): not done within the login's deadline/);
    expect(error.message).not.toMatch(secret);
  });

  it("a page whose script sends what was typed to another host: that host sees nothing (the login's browser reaches the profile's hosts only)", async () => {
    const before = site.requests.length;
    const session = await browserLogin({ hosts, login: recipe('/js-login-leak'), check, credentials }, browser);
    expect(session.cookies.sid).toBeDefined();
    const seen = site.requests.slice(before);
    expect(seen.some((r) => r.path === '/api/login')).toBe(true);
    expect(seen.filter((r) => r.host !== 'members.test')).toEqual([]);
  });

  it('a step that navigates to another host fails the login there, naming the host only', async () => {
    const login = recipe('/js-login', {
      steps: [
        { action: 'fill', selector: '#user', credential: 'username' },
        { action: 'fill', selector: '#pass', credential: 'password' },
        { action: 'goto', url: `${site.url('outside.test', '/')}?p=${LOGIN_PASSWORD}` },
      ],
    });
    const before = site.requests.length;
    const error = await failure(browserLogin({ hosts, login, check, credentials }, browser));
    expect(error.message).toMatch(/step 3 \(goto .*\): the page went to outside\.test, which is not one of the profile's hosts/);
    expect(site.requests.slice(before).filter((r) => r.host !== 'members.test')).toEqual([]);
  });
});
