import * as net from 'node:net';
import type { AddressInfo } from 'node:net';
import { Server as ProxyChainServer } from 'proxy-chain';
import { AddressGuard, Fetcher, parseProxyPools, ProxyPools } from '@app/fetch';
import { startFixtureSite, type FixtureSite } from '../fixtures/site';
import { ALLOWED_TEST_HOSTS, CHROMIUM, describeWithChromium, parseQuotes, testResolver } from './fetch-helpers';

/*
 * Browser fetches through a proxy pool: the pool's proxy (proxy-chain on loopback, with credentials) is chained
 * behind the guard proxy, so the browser's connections are vetted first and tunnelled to the vetted address.
 */
describeWithChromium('proxy pools inside the browser', () => {
  const PASSWORD = 'pw-secret-browser';
  let site: FixtureSite;
  let fetcher: Fetcher;
  let pools: ProxyPools;
  const asked: Array<{ username: string; hostname: string; port: number }> = [];
  const proxy = new ProxyChainServer({
    port: 0,
    host: '127.0.0.1',
    prepareRequestFunction: ({ username, password, hostname, port }) => {
      asked.push({ username, hostname, port });
      return { requestAuthentication: password !== PASSWORD };
    },
  });
  let deadPort = 0;
  const failed: string[] = [];

  beforeAll(async () => {
    site = await startFixtureSite();
    await proxy.listen();
    const dead = net.createServer();
    await new Promise<void>((resolve) => dead.listen(0, '127.0.0.1', resolve));
    deadPort = (dead.address() as AddressInfo).port;
    await new Promise((resolve) => dead.close(resolve));
    pools = new ProxyPools(
      parseProxyPools(
        JSON.stringify({ browse: [`http://dead:${PASSWORD}@127.0.0.1:${deadPort}`, `http://live:${PASSWORD}@127.0.0.1:${proxy.port}`] }),
      ),
      { start: () => {}, request: () => {}, failure: (_pool, label) => failed.push(label), rested: () => {} },
    );
    fetcher = new Fetcher({
      guard: new AddressGuard({ resolver: testResolver, allowHosts: ALLOWED_TEST_HOSTS }),
      dynamic: { pool: { executablePath: CHROMIUM, maxBrowsers: 1 }, timeoutMs: 15_000, settleMs: 2_000, challengeWaitMs: 1_000 },
    });
  });
  afterAll(async () => {
    await fetcher.close();
    await proxy.close(true);
    await site.close();
  });

  it('renders through the pool: the proxy is asked for the vetted address with its credentials, a dead proxy is skipped', async () => {
    const pool = pools.get('browse')!;
    const res = await fetcher.fetch(`http://public.test:${site.port}/page/1/`, { mode: 'dynamic', proxy: pool });
    expect(parseQuotes(res.html)).toHaveLength(10);
    expect(asked.length).toBeGreaterThan(0);
    expect(new Set(asked.map((a) => `${a.username} ${a.hostname}:${a.port}`))).toEqual(new Set([`live 127.0.0.1:${site.port}`]));
    // The site saw its name, not the address.
    expect(site.requests.filter((r) => r.path === '/page/1/').map((r) => r.host)).toContain(`public.test:${site.port}`);
    expect(failed).toContain(`http://127.0.0.1:${deadPort}`);
    expect(failed).not.toContain(`http://127.0.0.1:${proxy.port}`);
  });

  it('sends nothing the guard refuses to the proxy', async () => {
    asked.length = 0;
    const res = await fetcher.fetch(`http://public.test:${site.port}/private-links`, { mode: 'dynamic', proxy: pools.get('browse') });
    expect(res.status).toBe(200);
    expect(res.blockedRequests).toEqual(expect.arrayContaining(['http://10.0.0.1/x.js']));
    expect(asked.every((a) => a.hostname === '127.0.0.1' && a.port === site.port)).toBe(true);
  });

  it("renders a session's pages through its one proxy (the session's key), with the pools of two replicas; pages without it rotate", async () => {
    // One proxy server, three proxies of the pool told apart by their usernames (a gateway with one username per exit).
    const config = JSON.stringify({ exits: ['a', 'b', 'c'].map((user) => `http://${user}:${PASSWORD}@127.0.0.1:${proxy.port}`) });
    const replicas = [new ProxyPools(parseProxyPools(config)), new ProxyPools(parseProxyPools(config))];
    const session = { hosts: ['public.test'], cookies: { sid: 'browser-session' }, proxyKey: 'auth-profile:p-browser:1' };
    asked.length = 0;
    for (const [n, pools] of replicas.entries()) {
      for (const page of [1, 2]) {
        const res = await fetcher.fetch(`http://public.test:${site.port}/page/${page}/`, {
          mode: 'dynamic',
          proxy: pools.get('exits'),
          session,
        });
        expect(parseQuotes(res.html)).toHaveLength(10);
      }
      expect({ replica: n, exits: new Set(asked.map((a) => a.username)).size }).toEqual({ replica: n, exits: 1 });
    }
    expect(new Set(asked.map((a) => a.username)).size).toBe(1);
    asked.length = 0;
    for (const page of [3, 4, 5])
      await fetcher.fetch(`http://public.test:${site.port}/page/${page}/`, { mode: 'dynamic', proxy: replicas[0].get('exits') });
    expect(new Set(asked.map((a) => a.username)).size).toBeGreaterThan(1);
  });
});
