/**
 * Auth profiles end to end (docs/auth-profiles.md): the resource, a page fetched with the profile's session
 * (the first login, re-logins after the site ends a session, one retry per page), a crawl of 200 member pages
 * across two session expiries (exactly two re-logins), a crawl that leaves the host sending no cookie there,
 * wrong credentials failing cleanly and the profile then failing at once, and the credentials and session
 * never in an answer, a log or the store in the clear. Run on both deployments by auth-profiles.e2e-spec.ts.
 */
import { createHmac } from 'node:crypto';
import { DOCUMENT_STORE, type DocumentStore } from '@app/storage';
import type { WebhookReceiver } from '../fixtures/webhook-receiver';
import type { ModelServer } from '../fixtures/model-server';
import { LOGIN_PASSWORD, LOGIN_USER, type LoginSite } from '../fixtures/login-site/login-site';
import type { RunningApp } from './embedded-app';
import { http, waitFor } from './helpers';

export interface AuthProfilesEnv {
  app: RunningApp;
  site: LoginSite;
  models: ModelServer;
  receiver: WebhookReceiver;
  /** Whether the app renders pages (a browser login can run). */
  browser?: boolean;
}

export function authProfilesSuite(getEnv: () => AuthProfilesEnv): void {
  let env: AuthProfilesEnv;
  let key: string;
  const call = (method: string, path: string, opts: Parameters<typeof http>[3] = {}) =>
    http(env.app.baseUrl, method, path, { key, ...opts });
  const members = (path: string) => env.site.url('members.test', path);
  const profileBody = (over: Record<string, unknown> = {}) => ({
    name: 'Members',
    hosts: ['members.test'],
    login: { type: 'form', url: members('/login'), csrf_field: 'csrf_token', username: LOGIN_USER, password: LOGIN_PASSWORD },
    check: { session_cookie: 'sid', logged_in_selector: 'a[href="/logout"]' },
    ...over,
  });
  const createProfile = async (over: Record<string, unknown> = {}) => {
    const res = await call('POST', '/api/v1/auth-profiles', { body: profileBody(over) });
    expect(res.status).toBe(201);
    return res.body.id as string;
  };
  const scrape = (url: string, profile: string) =>
    call('POST', '/api/v1/scrape', { body: { url, formats: ['markdown'], fetch_mode: 'static', auth_profile: profile } });
  /** Every value that must never be shown: the credentials and every session the site handed out. */
  const secrets = () => new RegExp([LOGIN_USER, LOGIN_PASSWORD, ...env.site.sessions].join('|'));

  beforeAll(async () => {
    env = getEnv();
    key = (await http(env.app.baseUrl, 'POST', '/api/v1/users', { key: env.app.adminKey, body: { name: `auth-${Date.now()}` } })).body.key
      .key;
  });
  beforeEach(() =>
    env.site.set({
      sessionRequests: Infinity,
      sessionMs: Infinity,
      pages: 5,
      endSessionLink: false,
      accountLinks: false,
      logoutRedirectLink: false,
    }),
  );

  it('saves a profile with its credentials masked, keeps them on an update that sends the mask, and refuses a login URL off its hosts', async () => {
    const created = await call('POST', '/api/v1/auth-profiles', { body: profileBody() });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      name: 'Members',
      hosts: ['members.test'],
      login: {
        type: 'form',
        url: members('/login'),
        username_field: 'username',
        password_field: 'password',
        csrf_field: 'csrf_token',
        username: '••••',
        password: '••••',
      },
      check: { session_cookie: 'sid', logged_out_statuses: [401, 403] },
      logout_patterns: [],
      session_ttl_seconds: null,
      session: { state: 'none', logged_in_at: null, logins: 0, failures: 0, last_error: null },
    });
    const id = created.body.id;
    const updated = await call('PUT', `/api/v1/auth-profiles/${id}`, {
      body: { name: 'Renamed', login: { ...profileBody().login, username: '••••', password: '••••' } },
    });
    expect(updated.status).toBe(200);
    expect(updated.body.name).toBe('Renamed');
    expect((await scrape(members('/members/p/1'), id)).body.data.markdown).toContain('Name: Member page 1');
    expect((await call('GET', '/api/v1/auth-profiles')).body.auth_profiles.map((p: any) => p.id)).toContain(id);

    const off = await call('POST', '/api/v1/auth-profiles', {
      body: profileBody({ login: { ...profileBody().login, url: env.site.url('outside.test', '/login') } }),
    });
    expect(off.status).toBe(422);
    expect(off.body.errors).toEqual([
      expect.objectContaining({ location: 'body.login.url', message: expect.stringContaining("must be one of the profile's hosts") }),
    ]);
    const masked = await call('POST', '/api/v1/auth-profiles', {
      body: profileBody({ login: { ...profileBody().login, password: '••••' } }),
    });
    expect(masked.status).toBe(422);
    expect(masked.body.errors[0].location).toBe('body.login.password');
    // A credential a 422 refuses is never echoed.
    const long = `${LOGIN_USER}${'x'.repeat(600)}`;
    const tooLong = await call('POST', '/api/v1/auth-profiles', {
      body: profileBody({ login: { ...profileBody().login, username: long, password: long } }),
    });
    expect(tooLong.status).toBe(422);
    expect(tooLong.body.errors.map((e: { location: string }) => e.location).sort()).toEqual(['body.login.password', 'body.login.username']);
    expect(tooLong.text).not.toContain(LOGIN_USER);
    const badHost = await call('POST', '/api/v1/auth-profiles', { body: profileBody({ hosts: ['Members.test:80'] }) });
    expect(badHost.status).toBe(422);
    expect(badHost.body.errors[0]).toMatchObject({ location: 'body.hosts', message: expect.stringContaining('host name in lower case') });

    // Another tenant sees nothing of it, and cannot name it.
    const other = (
      await http(env.app.baseUrl, 'POST', '/api/v1/users', { key: env.app.adminKey, body: { name: `auth-other-${Date.now()}` } })
    ).body.key.key;
    expect((await http(env.app.baseUrl, 'GET', `/api/v1/auth-profiles/${id}`, { key: other })).status).toBe(404);
    const foreign = await http(env.app.baseUrl, 'POST', '/api/v1/scrape', {
      key: other,
      body: { url: members('/members'), auth_profile: id },
    });
    expect(foreign.status).toBe(422);
    expect(foreign.body.errors).toEqual([expect.objectContaining({ location: 'body.auth_profile', message: 'no such auth profile' })]);

    expect((await call('DELETE', `/api/v1/auth-profiles/${id}`)).status).toBe(200);
    expect((await call('GET', `/api/v1/auth-profiles/${id}`)).status).toBe(404);
  });

  it('logs in once for many pages, and once more (with one retry of the page) when the site ends the session', async () => {
    const id = await createProfile();
    const before = env.site.stats.logins;
    for (const n of [1, 2, 3])
      expect((await scrape(members(`/members/p/${n}`), id)).body.data.markdown).toContain(`Name: Member page ${n}`);
    expect(env.site.stats.logins).toBe(before + 1);

    // The site ends the session: the next page is redirected to the login, logs in again, and is fetched again.
    env.site.endSessions();
    const json = await scrape(members('/members/p/4'), id);
    expect(json.status).toBe(200);
    expect(json.body.data.markdown).toContain('Name: Member page 4');
    expect(env.site.stats.logins).toBe(before + 2);
    const view = (await call('GET', `/api/v1/auth-profiles/${id}`)).body;
    expect(view.session).toMatchObject({ state: 'active', logins: 2, failures: 0 });

    // A 401 is logged out too (an API endpoint that does not redirect).
    env.site.endSessions();
    const api = await scrape(members('/api/me'), id);
    expect(api.status).toBe(200);
    expect(api.body.data.markdown).toContain('Member');
    expect(env.site.stats.logins).toBe(before + 3);
  });

  it('a page that stays logged out after a fresh login fails auth_failed: one re-login, never a loop', async () => {
    const id = await createProfile();
    expect((await scrape(members('/members'), id)).status).toBe(200);
    const before = env.site.stats.logins;
    // A member page that answers 403 to a fresh session too.
    const res = await scrape(members('/members/staff'), id);
    expect(res.status).toBe(502);
    expect(res.body).toMatchObject({ error_category: 'auth_failed' });
    expect(res.body.detail).toMatch(/still logged out after a fresh login/);
    expect(env.site.stats.logins).toBe(before + 1);
  });

  it('wrong credentials fail cleanly; after three failed logins the profile is failing and its pages fail without a login', async () => {
    const id = await createProfile({ login: { ...profileBody().login, password: 'not-the-password-55' } });
    for (let i = 0; i < 3; i++) {
      const res = await scrape(members('/members/p/1'), id);
      expect(res.status).toBe(502);
      expect(res.body.error_category).toBe('auth_failed');
      expect(res.body.detail).toMatch(/could not log in: the site answered the login with its login page again/);
      expect(res.text).not.toMatch(/not-the-password-55/);
    }
    const failed = env.site.stats.failedLogins;
    const res = await scrape(members('/members/p/1'), id);
    expect(res.body.detail).toMatch(/is failing: its last 3 logins failed/);
    expect(env.site.stats.failedLogins).toBe(failed);
    expect((await call('GET', `/api/v1/auth-profiles/${id}`)).body.session).toMatchObject({ state: 'failing', failures: 3, logins: 0 });

    // Fixing the login makes it usable again.
    const fixed = await call('PUT', `/api/v1/auth-profiles/${id}`, { body: { login: profileBody().login } });
    expect(fixed.body.session).toMatchObject({ state: 'none', failures: 0 });
    expect((await scrape(members('/members/p/1'), id)).status).toBe(200);
  });

  it('the login failure that makes a profile failing sends auth_profile.failing, signed, to the webhook of the job whose page met it', async () => {
    const id = await createProfile({ name: 'Failing members', login: { ...profileBody().login, password: 'not-the-password-77' } });
    for (let i = 0; i < 2; i++) expect((await scrape(members('/members/p/1'), id)).body.error_category).toBe('auth_failed');
    const secret = 'auth-failing-hook-secret';
    const res = await call('POST', '/api/v1/crawl', {
      body: {
        url: members('/members/p/1'),
        formats: ['markdown'],
        options: { max_depth: 0, max_pages: 1, fetch_mode: 'static', auth_profile: id },
        webhook: { url: `${env.receiver.url}/ok`, secret, events: ['auth_profile.failing', 'job.failed', 'job.completed'] },
      },
    });
    expect(res.status).toBe(202);
    const jobId = res.body.job_id;
    const hook = await waitFor(async () =>
      env.receiver.ok('/ok').find((r) => r.json?.job_id === jobId && r.json.type === 'auth_profile.failing'),
    );
    expect(hook.json.data).toEqual({
      auth_profile: { id, name: 'Failing members' },
      state: 'failing',
      failures: 3,
      reason: expect.stringContaining('the site answered the login with its login page again'),
    });
    const signed = `${hook.headers['webhook-id']}.${hook.headers['webhook-timestamp']}.${hook.body}`;
    expect(String(hook.headers['webhook-signature'])).toBe(`v1,${createHmac('sha256', secret).update(signed).digest('base64')}`);
    expect(hook.body).not.toMatch(/not-the-password-77/);
    expect(hook.body).not.toMatch(secrets());
    // Once: a page of a failing profile fails at once, with no login and no second event.
    expect((await scrape(members('/members/p/2'), id)).body.detail).toMatch(/is failing/);
    await waitFor(async () => {
      const found = (await call('GET', `/api/v1/jobs/${jobId}`)).body;
      return ['completed', 'failed'].includes(found.status) ? found : null;
    });
    expect(
      env.receiver.requests.filter(
        (r) => r.json?.type === 'auth_profile.failing' && (r.json.data?.auth_profile as { id?: string } | undefined)?.id === id,
      ),
    ).toHaveLength(1);
  });

  it('refuses a browser login whose steps break their rules, each at its field', async () => {
    const browserLogin = (steps: unknown, over: Record<string, unknown> = {}) =>
      call('POST', '/api/v1/auth-profiles', {
        body: profileBody({
          login: { type: 'browser', url: members('/js-login'), username: LOGIN_USER, password: LOGIN_PASSWORD, steps, ...over },
        }),
      });
    const fillPassword = { action: 'fill', selector: '#pass', credential: 'password' };
    const locations = async (res: Promise<Awaited<ReturnType<typeof call>>>) => {
      const answer = await res;
      expect(answer.status).toBe(422);
      expect(answer.text).not.toMatch(secrets());
      return answer.body.errors.map((e: { location: string }) => e.location).sort();
    };
    expect(await locations(browserLogin(undefined))).toEqual(['body.login.steps']);
    expect(await locations(browserLogin([{ action: 'click', selector: '#go' }]))).toEqual(['body.login.steps']);
    expect(
      await locations(
        browserLogin([
          fillPassword,
          { action: 'goto', url: env.site.url('outside.test', '/') },
          { action: 'fill', selector: '#user' },
          { action: 'fill', selector: '#user', credential: 'username', text: 'x' },
          { action: 'click', selector: '#go', url_path: '/x' },
          { action: 'wait_for' },
        ]),
      ),
    ).toEqual([
      'body.login.steps[1].url',
      'body.login.steps[2].credential',
      'body.login.steps[3].text',
      'body.login.steps[4].url_path',
      'body.login.steps[5].selector',
    ]);
    expect(await locations(browserLogin([fillPassword, { action: 'type', selector: '#x' }, { action: 'click', selector: 'a[' }]))).toEqual([
      'body.login.steps[1].action',
      'body.login.steps[2].selector',
    ]);
    expect(await locations(browserLogin([fillPassword], { csrf_field: 'csrf_token' }))).toEqual(['body.login.csrf_field']);
    expect(
      await locations(
        call('POST', '/api/v1/auth-profiles', { body: profileBody({ login: { ...profileBody().login, steps: [fillPassword] } }) }),
      ),
    ).toEqual(['body.login.steps']);
    // A browser login in a process without a browser fails cleanly, naming why.
    const created = await browserLogin([fillPassword]);
    if (created.status === 201 && !env.browser) {
      const res = await scrape(members('/members/p/1'), created.body.id);
      expect(res.body).toMatchObject({ error_category: 'auth_failed' });
      expect(res.body.detail).toMatch(/browser rendering is disabled on this server/);
    }
    expect(created.status).toBe(201);
    expect(created.body.login).toEqual({
      type: 'browser',
      url: members('/js-login'),
      steps: [fillPassword],
      username: '••••',
      password: '••••',
    });
  });

  it('POST /map reads its seed page logged in with auth_profile (and a stranger cannot name the profile)', async () => {
    const id = await createProfile();
    const map = (body: Record<string, unknown>, key2 = key) =>
      http(env.app.baseUrl, 'POST', '/api/v1/map', { key: key2, body: { url: members('/members'), use_sitemap: false, ...body } });
    const loggedIn = await map({ auth_profile: id });
    expect([loggedIn.status, loggedIn.status === 200 ? null : loggedIn.text]).toEqual([200, null]);
    const urls = loggedIn.body.urls.map((u: { url: string }) => u.url);
    for (const n of [1, 2, 3, 4, 5]) expect(urls).toContain(members(`/members/p/${n}`));
    // Without the profile the seed is the login page: no member page in the map.
    const anonymous = await map({});
    expect(anonymous.status).toBe(200);
    expect(anonymous.body.urls.map((u: { url: string }) => u.url).filter((u: string) => u.includes('/members/p/'))).toEqual([]);
    // After the site ended the session, the map logs in again (one re-login) and reads the seed.
    const before = env.site.stats.logins;
    env.site.endSessions();
    expect((await map({ auth_profile: id })).body.urls.length).toBeGreaterThanOrEqual(5);
    expect(env.site.stats.logins).toBe(before + 1);
    const other = (
      await http(env.app.baseUrl, 'POST', '/api/v1/users', { key: env.app.adminKey, body: { name: `auth-map-${Date.now()}` } })
    ).body.key.key;
    const foreign = await map({ auth_profile: id }, other);
    expect(foreign.status).toBe(422);
    expect(foreign.body.errors).toEqual([expect.objectContaining({ location: 'body.auth_profile', message: 'no such auth profile' })]);
    expect(loggedIn.text + anonymous.text + foreign.text).not.toMatch(secrets());
  });

  it('POST /analyze reads its page logged in with auth_profile', async () => {
    const id = await createProfile();
    const llm = { provider: 'openai', model: 'gpt-4o-mini', api_key: 'sk-auth-profiles', base_url: env.models.openaiBaseUrl };
    const before = env.site.requests.length;
    const res = await call('POST', '/api/v1/analyze', {
      body: { url: members('/members'), fetch_mode: 'static', auth_profile: id, llm_config: llm },
    });
    expect([res.status, res.status === 200 ? null : res.text]).toEqual([200, null]);
    const seed = env.site.requests.slice(before).filter((r) => r.path === '/members');
    // Every read of /members is logged in (the login's own post lands there too, then the analysis reads it): no redirect to the login.
    expect(seed.length).toBeGreaterThan(0);
    expect(seed.map((r) => [r.status, /sid=/.test(r.cookie ?? '')])).toEqual(seed.map(() => [200, true]));
    expect(res.text).not.toMatch(secrets());
  });

  it("POST /analyze at depth 1 never reads a logout link of the profile among its linked pages (the crawl's rule)", async () => {
    // /members links to /account/logout, /account/orders and /account/profile: the follow pattern of the most links,
    // /account/logout among its samples; the member pages' own pattern has fewer links.
    env.site.set({ accountLinks: true, pages: 2 });
    const id = await createProfile();
    const llm = { provider: 'openai', model: 'gpt-4o-mini', api_key: 'sk-auth-profiles', base_url: env.models.openaiBaseUrl };
    const before = env.site.stats.logins;
    const since = env.site.requests.length;
    const res = await call('POST', '/api/v1/analyze', {
      body: { url: members('/members'), fetch_mode: 'static', depth: 1, auth_profile: id, llm_config: llm },
    });
    expect([res.status, res.status === 200 ? null : res.text]).toEqual([200, null]);
    const pattern = res.body.follow_patterns.find((p: { sample_urls: string[] }) => p.sample_urls.includes(members('/account/logout')));
    expect(pattern).toBeDefined();
    const linked: Array<{ url: string; page_type: string | null }> = res.body.linked_pages;
    expect(linked.map((p) => p.url).sort()).toEqual([members('/account/orders'), members('/account/profile')]);
    expect(linked.every((p) => p.page_type !== null)).toBe(true);
    const requested = env.site.requests.slice(since);
    expect(requested.filter((r) => r.path.endsWith('/logout'))).toEqual([]);
    expect(
      requested
        .filter((r) => r.path.startsWith('/account/'))
        .map((r) => [r.path, r.status, /sid=sid-/.test(r.cookie ?? '')])
        .sort(),
    ).toEqual([
      ['/account/orders', 200, true],
      ['/account/profile', 200, true],
    ]);
    expect(env.site.stats.logins - before).toBe(1);
  });

  it('a redirect onto a logout URL is not followed: a crawl page skips it (logout_link), a scrape fails naming it; one login', async () => {
    env.site.set({ logoutRedirectLink: true });
    const id = await createProfile();
    const before = env.site.stats.logins;
    const since = env.site.requests.length;
    const res = await call('POST', '/api/v1/crawl', {
      body: {
        url: members('/members'),
        formats: ['markdown'],
        options: { max_depth: 1, max_pages: 20, fetch_mode: 'static', auth_profile: id },
      },
    });
    expect([res.status, res.status === 202 ? null : res.text]).toEqual([202, null]);
    const job = await waitFor(async () => {
      const found = (await call('GET', `/api/v1/jobs/${res.body.job_id}`)).body;
      return ['completed', 'failed', 'cancelled'].includes(found.status) ? found : null;
    }, 120_000);
    expect([job.status, job.failed_count]).toEqual(['completed', 0]);
    const requested = env.site.requests.slice(since);
    expect(requested.filter((r) => r.path === '/logout')).toEqual([]);
    expect(requested.filter((r) => r.path === '/members/leave').map((r) => r.status)).toEqual([302]);
    expect(requested.filter((r) => r.path.startsWith('/members/p/')).map((r) => r.status)).toEqual([200, 200, 200, 200, 200]);
    expect(env.site.stats.logins - before).toBe(1);
    const map = (await call('GET', `/api/v1/jobs/${res.body.job_id}/crawl-map`)).body;
    expect(map.entries.find((e: { url: string }) => e.url === members('/members/leave'))).toMatchObject({
      status: 'skipped',
      error_category: 'logout_link',
    });

    const scraped = await scrape(members('/members/leave'), id);
    expect(scraped.status).toBe(502);
    expect(scraped.body).toMatchObject({ error_category: 'fetch_error' });
    expect(scraped.body.detail).toMatch(/Redirected to .*\/logout, not followed: a logout link of the auth profile's site/);
    expect(env.site.requests.slice(since).filter((r) => r.path === '/logout')).toEqual([]);
    expect(env.site.stats.logins - before).toBe(1);
  });

  it('POST /extract with auth_profile extracts the logged-in page (without it, the login page it is sent to)', async () => {
    const id = await createProfile();
    const llm = { provider: 'openai', model: 'gpt-4o-mini', api_key: 'sk-auth-profiles', base_url: env.models.openaiBaseUrl };
    const extract = (over: Record<string, unknown>) =>
      call('POST', '/api/v1/extract', {
        body: { url: members('/members/p/3'), schema: { title: 'string' }, llm_config: llm, fetch_mode: 'static', ...over },
      });
    // Without the profile the member page sends the request to the login form: its title is not the member page's.
    const anonymous = await extract({});
    expect([anonymous.status, anonymous.status === 200 ? null : anonymous.text]).toEqual([200, null]);
    expect(anonymous.body.data.title).not.toBe('Member page 3');

    const logins = env.site.stats.logins;
    const since = env.site.requests.length;
    const res = await extract({ auth_profile: id });
    expect([res.status, res.status === 200 ? null : res.text]).toEqual([200, null]);
    expect(res.body.data).toEqual({ title: 'Member page 3' });
    expect(env.site.stats.logins - logins).toBe(1);
    const page = env.site.requests.slice(since).filter((r) => r.path === '/members/p/3');
    expect(page.map((r) => [r.status, /sid=sid-/.test(r.cookie ?? '')])).toEqual([[200, true]]);
    expect(res.text).not.toMatch(secrets());
  });

  it('a crawl of 200 member pages across two session expiries logs in again exactly twice; the host it leaves gets no cookie', async () => {
    env.site.set({ pages: 200, sessionRequests: 80 });
    const id = await createProfile();
    const before = env.site.stats.logins;
    const since = env.site.requests.length;
    const res = await call('POST', '/api/v1/crawl', {
      body: {
        url: members('/members'),
        formats: ['markdown'],
        options: { max_depth: 1, max_pages: 300, same_domain_only: false, fetch_mode: 'static', concurrency: 8, auth_profile: id },
      },
    });
    expect([res.status, res.status === 202 ? null : res.text]).toEqual([202, null]);
    const job = await waitFor(async () => {
      const found = (await call('GET', `/api/v1/jobs/${res.body.job_id}`)).body;
      return ['completed', 'failed', 'cancelled'].includes(found.status) ? found : null;
    }, 240_000);
    expect(job.status).toBe('completed');
    const items: Array<{ url: string; data: { markdown: string } }> = (await call('GET', `/api/v1/jobs/${res.body.job_id}/results`)).body;
    const memberItems = items.filter((i) => i.url.includes('/members/p/'));
    expect(memberItems).toHaveLength(200);
    for (const item of memberItems) expect(item.data.markdown).toMatch(/Name: Member page \d+/);
    // 201 member pages at 80 a session: the first login and exactly two re-logins.
    expect(env.site.stats.logins - before).toBe(3);
    expect((await call('GET', `/api/v1/auth-profiles/${id}`)).body.session.logins).toBe(3);
    const outside = env.site.requests.slice(since).filter((r) => r.host === 'outside.test');
    expect(outside.length).toBeGreaterThan(0);
    expect(outside.every((r) => r.cookie === undefined)).toBe(true);
    expect(items.find((i) => i.url.includes('outside.test'))?.data.markdown).toContain('Name: Outside');
  });

  it("a crawl with the profile never follows a logout link (the logout words, and the profile's logout_patterns): one login, every page logged in", async () => {
    env.site.set({ endSessionLink: true });
    const bad = await call('POST', '/api/v1/auth-profiles', { body: profileBody({ logout_patterns: ['(a'] }) });
    expect([bad.status, bad.body.errors?.[0]?.location]).toEqual([422, expect.stringMatching(/^body\.logout_patterns/)]);
    const id = await createProfile({ logout_patterns: ['^/account/end-session'] });
    const before = env.site.stats.logins;
    const since = env.site.requests.length;
    const res = await call('POST', '/api/v1/crawl', {
      body: {
        url: members('/members'),
        formats: ['markdown'],
        options: { max_depth: 1, max_pages: 20, fetch_mode: 'static', auth_profile: id },
      },
    });
    expect([res.status, res.status === 202 ? null : res.text]).toEqual([202, null]);
    const job = await waitFor(async () => {
      const found = (await call('GET', `/api/v1/jobs/${res.body.job_id}`)).body;
      return ['completed', 'failed', 'cancelled'].includes(found.status) ? found : null;
    }, 120_000);
    expect([job.status, job.failed_count]).toEqual(['completed', 0]);
    const requested = env.site.requests.slice(since);
    expect(requested.filter((r) => r.path === '/logout' || r.path === '/account/end-session')).toEqual([]);
    expect(requested.filter((r) => r.path.startsWith('/members/p/')).map((r) => r.status)).toEqual([200, 200, 200, 200, 200]);
    expect(env.site.stats.logins - before).toBe(1);
    const items: Array<{ url: string; data: { markdown: string } | null }> = (await call('GET', `/api/v1/jobs/${res.body.job_id}/results`))
      .body;
    expect(items.filter((i) => /Name: Member page \d/.test(i.data?.markdown ?? ''))).toHaveLength(5);
    const map = (await call('GET', `/api/v1/jobs/${res.body.job_id}/crawl-map`)).body;
    const entry = (path: string) => map.entries.find((e: { url: string }) => new URL(e.url).pathname === path);
    expect(entry('/logout')).toMatchObject({ status: 'skipped', error_category: 'logout_link' });
    expect(entry('/account/end-session')).toMatchObject({ status: 'skipped', error_category: 'logout_link' });
    expect(map.skipped_by_reason.logout_link).toBe(2);
  });

  it('a saved site names the profile: its crawl is logged in, cookies combine session < site < request; a batch takes auth_profile', async () => {
    const id = await createProfile();
    const site = await call('POST', '/api/v1/sites', {
      body: {
        url: members('/members'),
        crawl_options: { auth_profile: id, cookies: { theme: 'site-theme', lang: 'site-lang' }, max_depth: 1, fetch_mode: 'static' },
      },
    });
    expect([site.status, site.body.crawl_options?.auth_profile]).toEqual([201, id]);
    const finished = (jobId: string) =>
      waitFor(async () => {
        const found = (await call('GET', `/api/v1/jobs/${jobId}`)).body;
        return ['completed', 'failed', 'cancelled'].includes(found.status) ? found : null;
      }, 120_000);
    const cookiesOf = (header: string | undefined) =>
      (header ?? '').split(/;\s*/).map((pair) => [pair.slice(0, pair.indexOf('=')), pair.slice(pair.indexOf('=') + 1)]);

    const since = env.site.requests.length;
    const crawl = await call('POST', '/api/v1/crawl', {
      body: { site_id: site.body.id, formats: ['markdown'], options: { cookies: { theme: 'request-theme' } } },
    });
    expect([crawl.status, crawl.status === 202 ? null : crawl.text]).toEqual([202, null]);
    const crawled = await finished(crawl.body.job_id);
    // The members page's Log out link is not followed (a logout link, docs/auth-profiles.md "Logout links").
    expect([crawled.status, crawled.failed_count]).toEqual(['completed', 0]);
    expect(env.site.requests.slice(since).filter((r) => r.path === '/logout')).toEqual([]);
    const items: Array<{ url: string; data: { markdown: string } | null }> = (
      await call('GET', `/api/v1/jobs/${crawl.body.job_id}/results`)
    ).body;
    expect(items.filter((i) => /Name: Member page \d/.test(i.data?.markdown ?? ''))).toHaveLength(5);
    const pages = env.site.requests.slice(since).filter((r) => r.host === 'members.test' && r.path.startsWith('/members/p/'));
    expect(pages).toHaveLength(5);
    for (const page of pages) {
      const cookies = cookiesOf(page.cookie);
      // Each name once: the session's sid, the site's lang, and the request's theme over the site's.
      expect(cookies.map(([name]) => name).sort()).toEqual(['lang', 'sid', 'theme']);
      expect(Object.fromEntries(cookies)).toEqual({ sid: expect.stringMatching(/^sid-/), lang: 'site-lang', theme: 'request-theme' });
      expect(env.site.sessions).toContain(Object.fromEntries(cookies).sid);
    }

    const batchSince = env.site.requests.length;
    const llm = { provider: 'openai', model: 'gpt-4o-mini', api_key: 'sk-auth-profiles', base_url: env.models.openaiBaseUrl };
    const batch = await call('POST', '/api/v1/batch/extract', {
      body: {
        urls: [members('/members/p/1'), members('/members/p/2')],
        schema: { name: 'string' },
        llm_config: llm,
        options: { auth_profile: id, fetch_mode: 'static' },
      },
    });
    expect([batch.status, batch.status === 202 ? null : batch.text]).toEqual([202, null]);
    expect(await finished(batch.body.job_id)).toMatchObject({ status: 'completed', failed_count: 0 });
    const read = env.site.requests.slice(batchSince).filter((r) => r.path.startsWith('/members/p/'));
    expect(read.map((r) => [r.path, r.status, /sid=sid-/.test(r.cookie ?? '')]).sort()).toEqual([
      ['/members/p/1', 200, true],
      ['/members/p/2', 200, true],
    ]);
  });

  it("a monitor run after the session's lifetime (the site's, in seconds) logs in again by itself", async () => {
    // The site ends a session 3 s after its login; the profile renews one older than 2 s before its next page.
    env.site.set({ sessionMs: 3000 });
    const id = await createProfile({ session_ttl_seconds: 2 });
    const llm = { provider: 'openai', model: 'gpt-4o-mini', api_key: 'sk-auth-profiles', base_url: env.models.openaiBaseUrl };
    const created = await call('POST', '/api/v1/monitors', {
      body: {
        name: 'members',
        urls: [members('/members/p/1')],
        schema: { name: 'string' },
        schedule: { every: '1h' },
        llm_config: llm,
        paused: true,
        options: { auth_profile: id, fetch_mode: 'static' },
      },
    });
    expect(created.status).toBe(201);
    const monitorId = created.body.id;
    const run = async () => {
      const since = env.site.requests.length;
      const started = await call('POST', `/api/v1/monitors/${monitorId}/run`);
      expect(started.status).toBe(202);
      const done = await waitFor(async () => {
        const runs = (await call('GET', `/api/v1/monitors/${monitorId}/runs?limit=100`)).body.runs as Array<Record<string, any>>;
        const found = runs.find((r) => r.id === started.body.run.id);
        return found && ['completed', 'failed'].includes(found.status) ? found : undefined;
      }, 120_000);
      const page = env.site.requests.slice(since).filter((r) => r.path === '/members/p/1');
      return { status: done.status, page: page.map((r) => [r.status, /sid=sid-/.test(r.cookie ?? '')]) };
    };
    /** Until the site itself has ended every session it handed out (its lifetime passed by its own clock). */
    const sessionsEnded = () => waitFor(async () => env.site.liveSessions() === 0 || undefined, 30_000);
    const before = env.site.stats.logins;
    expect(await run()).toEqual({ status: 'completed', page: [[200, true]] });
    expect(env.site.stats.logins).toBe(before + 1);

    // Past the site's lifetime, and so past the profile's: the monitor logs in before its page (kind expired), and the
    // page is read logged in at once (no redirect to the login).
    await sessionsEnded();
    expect(await run()).toEqual({ status: 'completed', page: [[200, true]] });
    expect(env.site.stats.logins).toBe(before + 2);

    // Without a lifetime of its own, the profile learns it from the page: redirected to the login, one re-login, the page again.
    expect((await call('PUT', `/api/v1/auth-profiles/${id}`, { body: { session_ttl_seconds: null } })).status).toBe(200);
    await sessionsEnded();
    expect(await run()).toEqual({
      status: 'completed',
      page: [
        [302, true],
        [200, true],
      ],
    });
    expect(env.site.stats.logins).toBe(before + 3);
    expect((await call('GET', `/api/v1/auth-profiles/${id}`)).body.session).toMatchObject({ state: 'active', logins: 3, failures: 0 });
  });

  it('the credentials and sessions are ciphertext in the store and never in an answer or a log', async () => {
    const id = await createProfile();
    await scrape(members('/members/p/2'), id);
    const store = env.app.app.get<symbol, DocumentStore>(DOCUMENT_STORE);
    const profiles = await store.collection({ name: 'auth_profiles', indexes: [] });
    const record = await profiles.findOne({ _id: id });
    expect(record?.session_sealed).toEqual(expect.any(String));
    expect(JSON.stringify(record)).not.toMatch(secrets());
    expect((await call('GET', '/api/v1/auth-profiles')).text).not.toMatch(secrets());
    expect(env.app.logs.text).toContain('auth profile logged in');
    expect(env.app.logs.text).not.toMatch(secrets());
  });
}
