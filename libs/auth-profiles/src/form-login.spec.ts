import { AddressGuard, Fetcher } from '@app/fetch';
import { LOGIN_PASSWORD, LOGIN_USER, startLoginSite, type LoginSite } from '../../../test/fixtures/login-site/login-site';
import { DEFAULT_LOGGED_OUT_STATUSES, type LoggedInCheck } from './auth-profile.types';
import { formLogin, keepCookie, LoginFailed, type LoginHttp } from './form-login';
import { isLoginTarget, loggedOutReason } from './logged-in-check';

const loopback = async () => [{ address: '127.0.0.1', family: 4 as const }];
const check: LoggedInCheck = {
  logged_in_selector: null,
  logged_out_selector: null,
  logged_out_path: null,
  session_cookie: 'sid',
  logged_out_statuses: DEFAULT_LOGGED_OUT_STATUSES,
};

describe('formLogin against a real form login (CSRF token, session cookie)', () => {
  let site: LoginSite;
  let fetcher: Fetcher;
  let http: LoginHttp;
  const recipe = (over: Record<string, unknown> = {}) => ({
    type: 'form' as const,
    url: site.url('members.test', '/login'),
    username_field: 'username',
    password_field: 'password',
    csrf_field: 'csrf_token',
    form_selector: null,
    ...over,
  });

  beforeAll(async () => {
    site = await startLoginSite();
    fetcher = new Fetcher({ guard: new AddressGuard({ resolver: loopback, allowCidrs: ['127.0.0.0/8'] }), dynamic: false });
    http = (url, options) => fetcher.fetchRaw(url, options);
  });
  afterAll(async () => {
    await fetcher.close();
    await site.close();
  });

  it('reads the form, posts its hidden CSRF token with the credentials, and keeps the session cookie of the profile host', async () => {
    const before = site.stats.logins;
    const state = await formLogin(
      { hosts: ['members.test'], login: recipe(), check, credentials: { username: LOGIN_USER, password: LOGIN_PASSWORD } },
      http,
    );
    expect(site.stats.logins).toBe(before + 1);
    expect(state.cookies).toEqual({ sid: site.sessions.at(-1) });
    // The csrf cookie the site expired after the login is gone; the post carried it and the token.
    const post = site.requests.filter((r) => r.method === 'POST').at(-1)!;
    expect(post.cookie).toMatch(/^csrf=[0-9a-f]+$/);
  });

  it('wrong credentials: the site shows the form again, the login fails saying so, naming no credential', async () => {
    const attempt = formLogin(
      { hosts: ['members.test'], login: recipe(), check, credentials: { username: LOGIN_USER, password: 'wrong-password-xyz' } },
      http,
    );
    await expect(attempt).rejects.toThrow(LoginFailed);
    const error = (await attempt.catch((e: Error) => e)) as Error;
    expect(error.message).toMatch(/login page again .*wrong credentials/);
    expect(error.message).not.toMatch(/wrong-password-xyz|member-user/);
  });

  it('a CSRF field the form lacks, a form that is not there, a form posting elsewhere: failed before any credential is sent', async () => {
    const posts = () => site.requests.filter((r) => r.method === 'POST').length;
    const before = posts();
    const credentials = { username: LOGIN_USER, password: LOGIN_PASSWORD };
    await expect(formLogin({ hosts: ['members.test'], login: recipe({ csrf_field: 'token' }), check, credentials }, http)).rejects.toThrow(
      /no hidden field token \(the CSRF token\)/,
    );
    await expect(
      formLogin({ hosts: ['members.test'], login: recipe({ form_selector: 'form#nope' }), check, credentials }, http),
    ).rejects.toThrow(/has no login form matching form#nope/);
    // The login page of another host than the profile's: its redirect or form would leave them.
    await expect(
      formLogin({ hosts: ['members.test'], login: recipe({ url: site.url('outside.test', '/') }), check, credentials }, http),
    ).rejects.toThrow(/no login form/);
    expect(posts()).toBe(before);
  });

  it("a page fetch sends the session to the profile's hosts only, under the caller's own cookie of the same name", async () => {
    const session = { hosts: ['members.test'], cookies: { sid: 'session-1', theme: 'dark' } };
    const scoped = { headers: {}, cookies: { theme: 'light' } };
    const seen = site.requests.length;
    await fetcher.fetchRaw(site.url('members.test', '/members'), { session, scoped });
    await fetcher.fetchRaw(site.url('outside.test', '/'), { session });
    const member = site.requests.slice(seen).find((r) => r.host === 'members.test');
    const outside = site.requests.slice(seen).find((r) => r.host === 'outside.test');
    expect(member).toMatchObject({ host: 'members.test', cookie: 'sid=session-1; theme=light' });
    expect(outside).toMatchObject({ host: 'outside.test', cookie: undefined });
  });

  it('every login request goes through the address guard: a forbidden address fails the login with nothing sent', async () => {
    const guarded = new Fetcher({ guard: new AddressGuard({ resolver: loopback }), dynamic: false });
    const seen = site.requests.length;
    try {
      await expect(
        formLogin(
          { hosts: ['members.test'], login: recipe(), check, credentials: { username: LOGIN_USER, password: LOGIN_PASSWORD } },
          (url, options) => guarded.fetchRaw(url, options),
        ),
      ).rejects.toThrow(/the login request to .* failed/);
      expect(site.requests.length).toBe(seen);
    } finally {
      await guarded.close();
    }
  });
});

describe('the logged-out judge', () => {
  const judge = {
    hosts: ['members.test'],
    login: { url: 'http://members.test:8080/login' },
    check: { ...check, logged_in_selector: 'a[href="/logout"]', logged_out_path: '/account/' },
  };

  it('a redirect to the login page or the logged-out path, on a profile host only', () => {
    expect(isLoginTarget(judge, 'http://members.test:8080/login?next=/x')).toBe(true);
    expect(isLoginTarget(judge, 'http://members.test/account/signin')).toBe(true);
    expect(isLoginTarget(judge, 'http://other.test:8080/login')).toBe(false);
    expect(isLoginTarget(judge, 'http://members.test:8080/members')).toBe(false);
  });

  it('a logged-out status, a page without the logged-in marker; other hosts are never judged', () => {
    expect(loggedOutReason(judge, { url: 'http://members.test/api', status: 401 })).toBe('the site answered HTTP 401');
    expect(loggedOutReason(judge, { url: 'http://members.test/x', status: 200, html: '<p>hi</p>' })).toMatch(
      /lacks the logged-in selector/,
    );
    expect(loggedOutReason(judge, { url: 'http://members.test/x', status: 200, html: '<a href="/logout">out</a>' })).toBeNull();
    expect(
      loggedOutReason(judge, { url: 'http://members.test/x.json', status: 200, contentType: 'application/json', html: '{}' }),
    ).toBeNull();
    expect(loggedOutReason(judge, { url: 'http://other.test/x', status: 403, html: '' })).toBeNull();
  });

  it('keepCookie keeps a Set-Cookie pair and drops one its site expired', () => {
    const jar: Record<string, string> = {};
    keepCookie(jar, 'sid=abc; Path=/; HttpOnly');
    keepCookie(jar, 'csrf=1; Path=/');
    keepCookie(jar, 'csrf=; Path=/; Max-Age=0');
    keepCookie(jar, 'old=1; Expires=Thu, 01 Jan 1970 00:00:00 GMT');
    expect(jar).toEqual({ sid: 'abc' });
  });
});
