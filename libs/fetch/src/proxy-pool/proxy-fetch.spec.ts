import * as http from 'node:http';
import * as net from 'node:net';
import type { AddressInfo } from 'node:net';
import { Server as ProxyChainServer } from 'proxy-chain';
import { AppError } from '@app/core';
import { AddressGuard, type Resolver } from '../address-guard';
import { StaticFetcher } from '../static-fetcher';
import { ProxyPools, type ProxyCounters } from './proxy-pool';
import { parseProxyPools } from './proxy-pools-config';

/*
 * Static fetches through real proxies on loopback: proxy-chain (HTTP CONNECT, with credentials) and a small
 * SOCKS5 server of the spec's own (RFC 1928/1929). Each proxy logs what it was asked to connect to.
 */

const PASSWORD = 'pw-secret-1';
const names: Record<string, string> = { 'site.test': '127.0.0.1', 'intranet.test': '10.0.0.7' };
const resolver: Resolver = async (host) => {
  const address = names[host];
  if (!address) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' });
  return [{ address, family: 4 }];
};

interface Seen {
  username: string;
  password: string;
  hostname: string;
  port: number;
}

function listen(server: net.Server): Promise<number> {
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve((server.address() as AddressInfo).port)));
}

/** A SOCKS5 server (no auth, or username/password) that connects where it is asked and logs it. */
function socks5Server(credentials: { username: string; password: string }, log: string[]): net.Server {
  return net.createServer((client) => {
    client.once('data', (greeting: Buffer) => {
      if (!greeting.subarray(2).includes(2)) return client.end(Buffer.from([5, 0xff]));
      client.write(Buffer.from([5, 2]));
      client.once('data', (auth: Buffer) => {
        const user = auth.subarray(2, 2 + auth[1]).toString();
        const pass = auth.subarray(3 + auth[1], 3 + auth[1] + auth[2 + auth[1]]).toString();
        if (user !== credentials.username || pass !== credentials.password) return client.end(Buffer.from([1, 1]));
        client.write(Buffer.from([1, 0]));
        client.once('data', (request: Buffer) => {
          if (request[3] !== 1) return client.end(Buffer.from([5, 8, 0, 1, 0, 0, 0, 0, 0, 0]));
          const host = [...request.subarray(4, 8)].join('.');
          const port = request.readUInt16BE(8);
          log.push(`${user} ${host}:${port}`);
          const upstream = net.connect({ host, port }, () => {
            client.write(Buffer.from([5, 0, 0, 1, 127, 0, 0, 1, 0, 0]));
            upstream.pipe(client);
            client.pipe(upstream);
          });
          upstream.on('error', () => client.destroy());
          client.on('error', () => upstream.destroy());
        });
      });
    });
  });
}

describe('StaticFetcher through a proxy pool (real proxies on loopback)', () => {
  const site = http.createServer((req, res) => {
    res.writeHead(200, { 'content-type': 'text/html' });
    res.end(`<html><body><p>host=${req.headers.host} path=${req.url}</p></body></html>`);
  });
  const seen: Seen[] = [];
  const proxy = new ProxyChainServer({
    port: 0,
    host: '127.0.0.1',
    prepareRequestFunction: ({ username, password, hostname, port }) => {
      seen.push({ username, password, hostname, port });
      return { requestAuthentication: username !== 'gleaner' || password !== PASSWORD };
    },
  });
  const socksLog: string[] = [];
  const socks = socks5Server({ username: 'sock', password: PASSWORD }, socksLog);
  let sitePort = 0;
  let deadPort = 0;
  let fetcher: StaticFetcher;
  let pools: ProxyPools;
  const counted: string[] = [];
  const counters: ProxyCounters = {
    start: () => {},
    request: (pool, p) => counted.push(`request ${pool} ${p}`),
    failure: (pool, p) => counted.push(`failure ${pool} ${p}`),
    rested: (pool, p) => counted.push(`rested ${pool} ${p}`),
  };

  beforeAll(async () => {
    sitePort = await listen(site);
    await proxy.listen();
    const socksPort = await listen(socks);
    const dead = net.createServer();
    deadPort = await listen(dead);
    await new Promise((resolve) => dead.close(resolve));
    pools = new ProxyPools(
      parseProxyPools(
        JSON.stringify({
          live: [`http://gleaner:${PASSWORD}@127.0.0.1:${proxy.port}`],
          'dead-first': [`http://gleaner:${PASSWORD}@127.0.0.1:${deadPort}`, `http://gleaner:${PASSWORD}@127.0.0.1:${proxy.port}`],
          'all-dead': [`http://gleaner:${PASSWORD}@127.0.0.1:${deadPort}`],
          'wrong-password': [`http://gleaner:not-${PASSWORD}@127.0.0.1:${proxy.port}`],
          socks: [`socks5://sock:${PASSWORD}@127.0.0.1:${socksPort}`],
        }),
      ),
      counters,
    );
    fetcher = new StaticFetcher({ guard: new AddressGuard({ resolver, allowCidrs: ['127.0.0.0/8'] }), timeoutMs: 10_000 });
  });

  afterAll(async () => {
    fetcher.close();
    await proxy.close(true);
    await new Promise((resolve) => site.close(resolve));
    await new Promise((resolve) => socks.close(resolve));
  });

  beforeEach(() => {
    seen.length = 0;
    socksLog.length = 0;
    counted.length = 0;
  });

  it('tunnels to the vetted address with the credentials; the site still sees its name', async () => {
    const result = await fetcher.fetch(`http://site.test:${sitePort}/a`, { proxy: pools.get('live') });
    expect(result.html).toContain(`host=site.test:${sitePort} path=/a`);
    expect(seen).toEqual([{ username: 'gleaner', password: PASSWORD, hostname: '127.0.0.1', port: sitePort }]);
    expect(counted).toEqual([`request live http://127.0.0.1:${proxy.port}`]);
  });

  it('goes through SOCKS5 with username and password, to the vetted address', async () => {
    const result = await fetcher.fetch(`http://site.test:${sitePort}/s`, { proxy: pools.get('socks') });
    expect(result.html).toContain(`host=site.test:${sitePort} path=/s`);
    expect(socksLog).toEqual([`sock 127.0.0.1:${sitePort}`]);
    expect(seen).toEqual([]);
  });

  it('rests a proxy that cannot be reached and fetches the page through the next', async () => {
    const result = await fetcher.fetch(`http://site.test:${sitePort}/b`, { proxy: pools.get('dead-first') });
    expect(result.html).toContain('path=/b');
    expect(seen.map((s) => s.hostname)).toEqual(['127.0.0.1']);
    const dead = `http://127.0.0.1:${deadPort}`;
    expect(counted).toEqual([
      `request dead-first ${dead}`,
      `failure dead-first ${dead}`,
      `rested dead-first ${dead}`,
      `request dead-first http://127.0.0.1:${proxy.port}`,
    ]);
    // Resting: the next page goes straight to the live proxy.
    counted.length = 0;
    await fetcher.fetch(`http://site.test:${sitePort}/c`, { proxy: pools.get('dead-first') });
    expect(counted).toEqual([`request dead-first http://127.0.0.1:${proxy.port}`]);
  });

  it.each([
    ['all-dead', /Every proxy of the pool all-dead failed/],
    ['wrong-password', /Every proxy of the pool wrong-password failed/],
  ])('fails the fetch as a fetch_error when every proxy of %s fails, naming no credentials', async (pool, message) => {
    const error = await fetcher.fetch(`http://site.test:${sitePort}/d`, { proxy: pools.get(pool) }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(AppError);
    expect((error as AppError).category).toBe('fetch_error');
    expect((error as AppError).message).toMatch(message);
    expect(JSON.stringify({ message: (error as AppError).message, detail: (error as AppError).detail, counted })).not.toContain(PASSWORD);
  });

  it('refuses what the guard refuses before any proxy is asked', async () => {
    const error = await fetcher.fetch('http://intranet.test/', { proxy: pools.get('live') }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect((error as AppError).category).toBe('ssrf_blocked');
    expect(seen).toEqual([]);
    expect(counted).toEqual([]);
  });
});
