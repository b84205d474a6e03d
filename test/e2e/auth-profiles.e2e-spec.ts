import { Server as ProxyChainServer } from 'proxy-chain';
import { describeWith, serverUrl, uniqueDbName } from '../harness/require-server';
import { startLoginSite, type LoginSite } from '../fixtures/login-site/login-site';
import { startModelServer, type ModelServer } from '../fixtures/model-server';
import { startWebhookReceiver, type WebhookReceiver } from '../fixtures/webhook-receiver';
import { startEmbedded, type RunningApp } from './embedded-app';
import { authProfilesSuite } from './auth-profiles.suite';
import { http, waitFor } from './helpers';
import { LOGIN_PASSWORD, LOGIN_USER } from '../fixtures/login-site/login-site';

jest.setTimeout(300_000);

let site: LoginSite;
let models: ModelServer;
let receiver: WebhookReceiver;
/** The cluster's proxy pool: one proxy server, three exits told apart by username; its log is every tunnel it opened. */
const EXITS = ['exit-a', 'exit-b', 'exit-c'];
const tunnels: Array<{ exit: string; target: string }> = [];
const proxy = new ProxyChainServer({
  port: 0,
  host: '127.0.0.1',
  prepareRequestFunction: ({ username, hostname, port }) => {
    tunnels.push({ exit: username, target: `${hostname}:${port}` });
    return {};
  },
});

function env(): Record<string, string> {
  return {
    GLEANER_ALLOW_NETWORKS: '127.0.0.0/8',
    GLEANER_RESOLVE: site.resolve,
    GLEANER_BROWSER_ENABLED: 'false',
    GLEANER_RATE_LIMIT_PER_MINUTE: '1000000',
    GLEANER_EXTRACT_WAIT_MS: '60000',
  };
}

beforeAll(async () => {
  site = await startLoginSite();
  models = await startModelServer();
  receiver = await startWebhookReceiver();
  await proxy.listen();
});
afterAll(async () => {
  await proxy.close(true);
  await site?.close();
  await models?.close();
  await receiver?.close();
});

describe('auth profiles, embedded deployment', () => {
  let app: RunningApp;
  beforeAll(async () => {
    app = await startEmbedded(env());
  });
  afterAll(async () => app?.close());
  authProfilesSuite(() => ({ app, site, models, receiver }));
});

describeWith(['mongodb', 'redis'], 'auth profiles, cluster deployment', () => {
  const db = uniqueDbName('gleaner_auth_profiles');
  const cluster = (bootstrap: string) => ({
    ...env(),
    MONGODB_URI: `${serverUrl('mongodb')}/${db}`,
    REDIS_URL: `${serverUrl('redis')}/3`,
    GLEANER_SECRET: 'auth-profiles-test-secret-0123456789abcd',
    GLEANER_BOOTSTRAP_KEY: bootstrap,
    GLEANER_PROXY_POOLS: JSON.stringify({ exits: EXITS.map((exit) => `http://${exit}:pw@127.0.0.1:${proxy.port}`) }),
  });
  let app: RunningApp;
  let second: RunningApp;
  beforeAll(async () => {
    app = await startEmbedded(cluster('glk_' + 'A'.repeat(40)));
    // A second replica on the same store and Redis: its own process state, the same sessions.
    second = await startEmbedded(cluster('glk_' + 'A'.repeat(40)));
  });
  afterAll(async () => {
    await second?.close();
    await app?.close();
  });
  authProfilesSuite(() => ({ app, site, models, receiver }));

  it('two replicas that need the same session at once share one login', async () => {
    const key = (await http(app.baseUrl, 'POST', '/api/v1/users', { key: app.adminKey, body: { name: `race-${Date.now()}` } })).body.key
      .key;
    const created = await http(app.baseUrl, 'POST', '/api/v1/auth-profiles', {
      key,
      body: {
        name: 'Race',
        hosts: ['members.test'],
        login: {
          type: 'form',
          url: site.url('members.test', '/login'),
          csrf_field: 'csrf_token',
          username: LOGIN_USER,
          password: LOGIN_PASSWORD,
        },
      },
    });
    const before = { logins: site.stats.logins, pages: site.stats.loginPages, requests: site.requests.length };
    // The first login's page is held until both replicas asked for the session: the second must wait for it, not log in too.
    site.holdLogin();
    const scrape = (replica: RunningApp, n: number) =>
      http(replica.baseUrl, 'POST', '/api/v1/scrape', {
        key,
        body: {
          url: site.url('members.test', `/members/p/${n}`),
          formats: ['markdown'],
          fetch_mode: 'static',
          auth_profile: created.body.id,
        },
      });
    const both = Promise.all([scrape(app, 1), scrape(second, 2)]);
    const deadline = Date.now() + 60_000;
    while (!site.requests.slice(before.requests).some((r) => r.path === '/login') && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 20));
    site.releaseLogin();
    const [one, two] = await both;
    expect([one.status, two.status]).toEqual([200, 200]);
    expect(one.body.data.markdown).toContain('Name: Member page 1');
    expect(two.body.data.markdown).toContain('Name: Member page 2');
    expect(site.stats.logins - before.logins).toBe(1);
    expect(site.stats.loginPages - before.pages).toBe(1);
  });

  it('with a proxy pool, a session leaves from one proxy on both replicas while it lives (its login too); the next login draws again', async () => {
    const key = (await http(app.baseUrl, 'POST', '/api/v1/users', { key: app.adminKey, body: { name: `sticky-${Date.now()}` } })).body.key
      .key;
    const created = await http(app.baseUrl, 'POST', '/api/v1/auth-profiles', {
      key,
      body: {
        name: 'Sticky',
        hosts: ['members.test'],
        login: {
          type: 'form',
          url: site.url('members.test', '/login'),
          csrf_field: 'csrf_token',
          username: LOGIN_USER,
          password: LOGIN_PASSWORD,
        },
        check: { session_cookie: 'sid', logged_in_selector: 'a[href="/logout"]' },
      },
    });
    expect(created.status).toBe(201);
    const scrape = (replica: RunningApp, url: string, withProfile = true) =>
      http(replica.baseUrl, 'POST', '/api/v1/scrape', {
        key,
        body: {
          url,
          formats: ['markdown'],
          fetch_mode: 'static',
          proxy: 'exits',
          ...(withProfile ? { auth_profile: created.body.id } : {}),
        },
      });
    const target = `127.0.0.1:${site.port}`;
    /** The exits the proxy opened tunnels to the site from since `from`. */
    const exitsSince = (from: number) =>
      new Set(
        tunnels
          .slice(from)
          .filter((t) => t.target === target)
          .map((t) => t.exit),
      );
    // Each answer of the site closes its connection: every request is a tunnel of its own in the proxy's log.
    site.set({ closeConnections: true, pages: 10 });
    try {
      const sessions: string[] = [];
      for (let round = 0; round < 3; round++) {
        const from = tunnels.length;
        const logins = site.stats.logins;
        // The first round logs in; each later one starts after the site ended the session (a re-login, on either replica).
        for (let n = 1; n <= 6; n++) {
          const res = await scrape(n % 2 ? app : second, site.url('members.test', `/members/p/${n}`));
          expect([res.status, res.body.data?.markdown]).toEqual([200, expect.stringContaining(`Name: Member page ${n}`)]);
        }
        expect(site.stats.logins - logins).toBe(1);
        // After the first round, the first tunnel is the ended session's (its page, sent to the login): its own exit.
        const start = round === 0 ? from : from + 1;
        if (round > 0) expect(tunnels[from].exit).toBe(sessions.at(-1));
        // The login's requests and the six pages, from both replicas: more than six tunnels, all through one exit.
        expect(tunnels.length - start).toBeGreaterThan(6);
        const exits = exitsSince(start);
        expect(exits.size).toBe(1);
        sessions.push([...exits][0]);
        site.endSessions();
      }
      expect(sessions.every((exit) => EXITS.includes(exit))).toBe(true);
      // Pages without the session rotate over the pool's exits.
      const from = tunnels.length;
      for (let n = 0; n < 6; n++) await scrape(n % 2 ? app : second, site.url('outside.test', `/free/${n}`), false);
      expect(new Set(tunnels.slice(from).map((t) => t.exit)).size).toBeGreaterThan(1);
    } finally {
      site.set({ closeConnections: false });
    }
  });
});

describe('auth profiles with a browser login, embedded deployment', () => {
  let app: RunningApp;
  beforeAll(async () => {
    app = await startEmbedded({ ...env(), GLEANER_BROWSER_ENABLED: 'true', GLEANER_BROWSER_MAX_BROWSERS: '1' });
  });
  afterAll(async () => app?.close());

  it('logs in once through the browser steps of a JavaScript-only login; static pages get its cookie, rendered pages its local storage', async () => {
    const key = (await http(app.baseUrl, 'POST', '/api/v1/users', { key: app.adminKey, body: { name: `browser-${Date.now()}` } })).body.key
      .key;
    const created = await http(app.baseUrl, 'POST', '/api/v1/auth-profiles', {
      key,
      body: {
        name: 'JS members',
        hosts: ['members.test'],
        login: {
          type: 'browser',
          url: site.url('members.test', '/js-login'),
          username: LOGIN_USER,
          password: LOGIN_PASSWORD,
          steps: [
            { action: 'fill', selector: '#user', credential: 'username' },
            { action: 'fill', selector: '#pass', credential: 'password' },
            { action: 'click', selector: '#go' },
            { action: 'wait_for', url_path: '/members' },
          ],
        },
        // No logged_in_selector: /app is a page of the host without the member's Log out link.
        check: { session_cookie: 'sid' },
      },
    });
    expect(created.status).toBe(201);
    const before = site.stats.logins;
    const scrape = (path: string, over: Record<string, unknown> = {}) =>
      http(app.baseUrl, 'POST', '/api/v1/scrape', {
        key,
        body: { url: site.url('members.test', path), formats: ['markdown'], fetch_mode: 'static', auth_profile: created.body.id, ...over },
      });
    const member = await scrape('/members/p/3');
    expect([member.status, member.body.data?.markdown ?? member.text]).toEqual([200, expect.stringContaining('Name: Member page 3')]);
    const rendered = await scrape('/app', { fetch_mode: 'dynamic', wait_for: { selector: '#ready' } });
    expect([rendered.status, rendered.status === 200 ? null : rendered.text]).toEqual([200, null]);
    expect(rendered.body.data.markdown).toContain('Name: Token member');
    expect(site.stats.logins).toBe(before + 1);
    expect((await http(app.baseUrl, 'GET', `/api/v1/auth-profiles/${created.body.id}`, { key })).body.session).toMatchObject({
      state: 'active',
      logins: 1,
    });
    expect(app.logs.text).toContain('auth profile logged in');
    expect(app.logs.text).not.toMatch(new RegExp([LOGIN_USER, LOGIN_PASSWORD, ...site.sessions].join('|')));
  });

  it('a rendered crawl page redirected onto a logout URL does not follow it (skipped logout_link): the browser judges each hop', async () => {
    const key = (await http(app.baseUrl, 'POST', '/api/v1/users', { key: app.adminKey, body: { name: `browser-leave-${Date.now()}` } }))
      .body.key.key;
    const created = await http(app.baseUrl, 'POST', '/api/v1/auth-profiles', {
      key,
      body: {
        name: 'Members',
        hosts: ['members.test'],
        login: {
          type: 'form',
          url: site.url('members.test', '/login'),
          csrf_field: 'csrf_token',
          username: LOGIN_USER,
          password: LOGIN_PASSWORD,
        },
        check: { session_cookie: 'sid', logged_in_selector: 'a[href="/logout"]' },
      },
    });
    expect(created.status).toBe(201);
    site.set({ logoutRedirectLink: true, pages: 2 });
    try {
      const before = site.stats.logins;
      const since = site.requests.length;
      const res = await http(app.baseUrl, 'POST', '/api/v1/crawl', {
        key,
        body: {
          url: site.url('members.test', '/members'),
          formats: ['markdown'],
          options: { max_depth: 1, max_pages: 10, fetch_mode: 'dynamic', auth_profile: created.body.id },
        },
      });
      expect([res.status, res.status === 202 ? null : res.text]).toEqual([202, null]);
      const job = await waitFor(async () => {
        const found = (await http(app.baseUrl, 'GET', `/api/v1/jobs/${res.body.job_id}`, { key })).body;
        return ['completed', 'failed', 'cancelled'].includes(found.status) ? found : null;
      }, 180_000);
      const map = (await http(app.baseUrl, 'GET', `/api/v1/jobs/${res.body.job_id}/crawl-map`, { key })).body;
      const failures = map.entries.filter((e: { status: string }) => e.status === 'failed');
      expect([job.status, job.failed_count, failures]).toEqual(['completed', 0, []]);
      const requested = site.requests.slice(since).filter((r) => r.host === 'members.test');
      expect(requested.filter((r) => r.path === '/logout')).toEqual([]);
      expect(requested.filter((r) => r.path === '/members/leave').map((r) => [r.status, /sid=sid-/.test(r.cookie ?? '')])).toEqual([
        [302, true],
      ]);
      expect(requested.filter((r) => r.path.startsWith('/members/p/')).map((r) => r.status)).toEqual([200, 200]);
      expect(site.stats.logins - before).toBe(1);
      expect(map.entries.find((e: { url: string }) => e.url === site.url('members.test', '/members/leave'))).toMatchObject({
        status: 'skipped',
        error_category: 'logout_link',
        final_url: site.url('members.test', '/logout'),
      });
    } finally {
      site.set({ logoutRedirectLink: false, pages: 5 });
    }
  });
});
