import * as http from 'node:http';
import * as net from 'node:net';
import type { AddressInfo } from 'node:net';
import { Server as ProxyChainServer } from 'proxy-chain';
import { AddressGuard, type Resolver } from '../address-guard';
import { GuardedProxy } from '../guarded-proxy';
import { StaticFetcher } from '../static-fetcher';
import { ProxyPools } from './proxy-pool';
import { parseProxyPools } from './proxy-pools-config';

/*
 * An auth profile's session held to one proxy of a pool (docs/auth-profiles.md "Sessions", docs/proxies.md): two
 * fetchers, each with the pools of its own (two replicas), send one session's requests through real proxies on
 * loopback; each proxy logs the tunnels it opened, and those logs show where every request went.
 */

const names: Record<string, string> = { 'members.test': '127.0.0.1', 'outside.test': '127.0.0.1' };
const resolver: Resolver = async (host) => {
  const address = names[host];
  if (!address) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' });
  return [{ address, family: 4 }];
};

function listen(server: net.Server): Promise<number> {
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve((server.address() as AddressInfo).port)));
}

describe("a session's proxy: one proxy of the pool for one session, on every replica", () => {
  // Every answer closes its connection: each request opens a tunnel of its own, so the proxies' logs show every one.
  const site = http.createServer((req, res) => {
    res.writeHead(200, { 'content-type': 'text/html', connection: 'close' });
    res.end(`<html><body><p>host=${req.headers.host} path=${req.url} cookie=${req.headers.cookie ?? ''}</p></body></html>`);
  });
  /** Each proxy's own log: the tunnels it was asked for. */
  const logs: string[][] = [[], [], []];
  const proxies = logs.map(
    (log) =>
      new ProxyChainServer({
        port: 0,
        host: '127.0.0.1',
        prepareRequestFunction: ({ hostname, port }) => {
          log.push(`${hostname}:${port}`);
          return {};
        },
      }),
  );
  let sitePort = 0;
  let replicas: Array<{ fetcher: StaticFetcher; pools: ProxyPools }>;
  const guard = new AddressGuard({ resolver, allowCidrs: ['127.0.0.0/8'] });
  /** Which proxies (by position) logged a tunnel since the logs were last cleared. */
  const used = () => logs.flatMap((log, index) => (log.length > 0 ? [index] : []));
  const session = (version: number) => ({
    hosts: ['members.test'],
    cookies: { sid: `s${version}` },
    proxyKey: `auth-profile:p1:${version}`,
  });

  beforeAll(async () => {
    sitePort = await listen(site);
    for (const proxy of proxies) await proxy.listen();
    const config = JSON.stringify({ pool: proxies.map((proxy) => `http://127.0.0.1:${proxy.port}`) });
    // Two replicas: each its own fetcher and its own pools (health, rotation), from the same configuration.
    replicas = [0, 1].map(() => ({
      fetcher: new StaticFetcher({ guard, timeoutMs: 10_000 }),
      pools: new ProxyPools(parseProxyPools(config)),
    }));
  });

  afterAll(async () => {
    for (const { fetcher } of replicas) fetcher.close();
    for (const proxy of proxies) await proxy.close(true);
    await new Promise((resolve) => site.close(resolve));
  });

  beforeEach(() => {
    for (const log of logs) log.length = 0;
  });

  const fetchOn = (replica: number, path: string, options: { session?: ReturnType<typeof session>; host?: string } = {}) => {
    const { fetcher, pools } = replicas[replica];
    return fetcher.fetch(`http://${options.host ?? 'members.test'}:${sitePort}${path}`, {
      proxy: pools.get('pool'),
      ...(options.session ? { session: options.session } : {}),
    });
  };

  it('sends every request of one session through one proxy from both replicas, and rotates the pages without a session', async () => {
    for (let n = 0; n < 12; n++) {
      const page = await fetchOn(n % 2, `/members/p/${n}`, { session: session(1) });
      expect(page.html).toContain(`path=/members/p/${n} cookie=sid=s1`);
    }
    expect(used()).toHaveLength(1);
    expect(logs[used()[0]]).toHaveLength(12);

    for (const log of logs) log.length = 0;
    for (let n = 0; n < 6; n++) await fetchOn(n % 2, `/open/${n}`);
    expect(used()).toEqual([0, 1, 2]);
  });

  it('a new session (the next login) draws its own proxy, again the same on both replicas; a host off the session rotates', async () => {
    const proxyOf = async (version: number) => {
      for (const log of logs) log.length = 0;
      for (let n = 0; n < 4; n++) await fetchOn(n % 2, `/members/v${version}/${n}`, { session: session(version) });
      expect(used()).toHaveLength(1);
      return used()[0];
    };
    const picked = new Set<number>();
    for (let version = 1; version <= 8; version++) picked.add(await proxyOf(version));
    // Eight sessions over three proxies: more than one proxy drawn.
    expect(picked.size).toBeGreaterThan(1);

    // A page of another host fetched with the session carries no cookie and is not held to the session's proxy.
    for (const log of logs) log.length = 0;
    for (let n = 0; n < 6; n++) {
      const page = await fetchOn(0, `/elsewhere/${n}`, { session: session(1), host: 'outside.test' });
      expect(page.html).toContain(`path=/elsewhere/${n} cookie=</p>`);
    }
    expect(used()).toEqual([0, 1, 2]);
  });

  it("a browser context's guard proxy with the session's affinity tunnels the session's hosts through the same proxy", async () => {
    for (let n = 0; n < 2; n++) await fetchOn(n, `/members/static/${n}`, { session: session(3) });
    const [held] = used();
    expect(used()).toHaveLength(1);
    for (const log of logs) log.length = 0;

    // Two guard proxies (two replicas' browser contexts), each with its replica's pool, asked as Chromium asks: CONNECT.
    for (const replica of [0, 1]) {
      const guarded = new GuardedProxy(guard, 10_000, replicas[replica].pools.get('pool'), {
        hosts: ['members.test'],
        key: 'auth-profile:p1:3',
      });
      const url = await guarded.start();
      try {
        for (let n = 0; n < 3; n++) expect(await connectThrough(url, `members.test:${sitePort}`)).toMatch(/^HTTP\/1\.1 200/);
      } finally {
        await guarded.close();
      }
    }
    expect(used()).toEqual([held]);
    expect(logs[held]).toHaveLength(6);
  });
});

/** One CONNECT through a loopback proxy and one request in the tunnel; the answer's first line. */
function connectThrough(proxyUrl: string, target: string): Promise<string> {
  const { hostname, port } = new URL(proxyUrl);
  return new Promise((resolve, reject) => {
    const request = http.request({ host: hostname, port: Number(port), method: 'CONNECT', path: target });
    request.on('connect', (res, socket) => {
      if (res.statusCode !== 200) {
        socket.destroy();
        return reject(new Error(`CONNECT answered ${res.statusCode}`));
      }
      let answer = '';
      socket.setEncoding('utf8');
      socket.on('data', (chunk: string) => {
        answer += chunk;
        if (answer.includes('\r\n')) {
          socket.destroy();
          resolve(answer.slice(0, answer.indexOf('\r\n')));
        }
      });
      socket.on('error', reject);
      socket.write(`GET /members/browser HTTP/1.1\r\nHost: ${target}\r\nConnection: close\r\n\r\n`);
    });
    request.on('error', reject);
    request.end();
  });
}
