import { readFileSync } from 'node:fs';
import * as http from 'node:http';
import * as https from 'node:https';
import * as net from 'node:net';
import type { AddressInfo } from 'node:net';
import * as path from 'node:path';
import type { TLSSocket } from 'node:tls';
import { Server as ProxyChainServer } from 'proxy-chain';
import { AppError } from '@app/core';
import { AddressGuard, pinnedLookup, type Resolver } from '../address-guard';
import { RobotsCache } from '../robots';
import { StaticFetcher } from '../static-fetcher';
import { ProxyAgents } from './proxy-agents';
import { ProxyPools, UnconfiguredProxyPool } from './proxy-pool';
import { parseProxyPools } from './proxy-pools-config';
import { throughPool } from './through-pool';

/*
 * https through a pool's tunnel, sticky pools and the fetches besides a page's (robots.txt: throughPool), against
 * real servers on loopback: an https site with a certificate for `site.test` (test/fixtures/tls, valid to 2126) and
 * two proxy-chain proxies that log what they are asked to connect to.
 */

const TLS_DIR = path.join(__dirname, '../../../../test/fixtures/tls');
const cert = readFileSync(path.join(TLS_DIR, 'site-test.crt'));
const key = readFileSync(path.join(TLS_DIR, 'site-test.key'));
const resolver: Resolver = async (host) => {
  if (host !== 'site.test') throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' });
  return [{ address: '127.0.0.1', family: 4 }];
};

function listen(server: net.Server): Promise<number> {
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve((server.address() as AddressInfo).port)));
}

function loggingProxy(log: string[]): ProxyChainServer {
  return new ProxyChainServer({
    port: 0,
    host: '127.0.0.1',
    prepareRequestFunction: ({ hostname, port }) => {
      log.push(`${hostname}:${port}`);
      return {};
    },
  });
}

async function failure(promise: Promise<unknown>): Promise<AppError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(AppError);
  return error as AppError;
}

describe('proxy pools: https through the tunnel, sticky hosts, robots.txt through the pool (real servers on loopback)', () => {
  /** What the https site saw per request: the TLS SNI and the Host header. */
  const siteSaw: Array<{ sni: string | false | null; host: string | undefined; path: string | undefined }> = [];
  const site = https.createServer({ cert, key }, (req, res) => {
    siteSaw.push({ sni: (req.socket as TLSSocket).servername, host: req.headers.host, path: req.url });
    if (req.url === '/robots.txt') {
      res.writeHead(200, { 'content-type': 'text/plain' });
      return res.end('User-agent: *\nDisallow: /private/\n');
    }
    res.writeHead(200, { 'content-type': 'text/html' });
    res.end(`<html><body><p>secure host=${req.headers.host}</p></body></html>`);
  });
  /** A plain http site (robots.txt, pages): what it was asked, `host path`. */
  const plainSaw: string[] = [];
  const plainSite = http.createServer((req, res) => {
    plainSaw.push(`${req.headers.host} ${req.url}`);
    const robots = req.url === '/robots.txt';
    res.writeHead(200, { 'content-type': robots ? 'text/plain' : 'text/html' });
    res.end(robots ? 'User-agent: *\nDisallow: /private/\n' : '<html><body><p>plain</p></body></html>');
  });
  let plainPort = 0;
  const logA: string[] = [];
  const logB: string[] = [];
  const proxyA = loggingProxy(logA);
  const proxyB = loggingProxy(logB);
  let sitePort = 0;
  let pools: ProxyPools;
  let fetcher: StaticFetcher;

  beforeAll(async () => {
    sitePort = await listen(site);
    plainPort = await listen(plainSite);
    await proxyA.listen();
    await proxyB.listen();
    pools = new ProxyPools(
      parseProxyPools(
        JSON.stringify({
          live: [`http://127.0.0.1:${proxyA.port}`],
          pair: [`http://127.0.0.1:${proxyA.port}`, `http://127.0.0.1:${proxyB.port}`],
          sticky: { proxies: [`http://127.0.0.1:${proxyA.port}`, `http://127.0.0.1:${proxyB.port}`], sticky_seconds: 600 },
        }),
      ),
    );
    fetcher = new StaticFetcher({ guard: new AddressGuard({ resolver, allowCidrs: ['127.0.0.0/8'] }), timeoutMs: 10_000 });
  });

  afterAll(async () => {
    fetcher.close();
    await proxyA.close(true);
    await proxyB.close(true);
    await new Promise((resolve) => site.close(resolve));
    await new Promise((resolve) => plainSite.close(resolve));
  });

  beforeEach(() => {
    siteSaw.length = 0;
    logA.length = 0;
    logB.length = 0;
    plainSaw.length = 0;
  });

  it('opens TLS to the site inside a tunnel to the vetted address: SNI and Host carry the name, the certificate is checked for it', async () => {
    const agents = new ProxyAgents(10_000);
    const proxy = pools.get('live')!.pick('site.test')!;
    try {
      const body = await new Promise<string>((resolve, reject) => {
        const req = https.request(
          {
            host: 'site.test',
            port: sitePort,
            path: '/tls',
            ca: cert,
            agent: agents.for(proxy).https,
            lookup: pinnedLookup([{ address: '127.0.0.1', family: 4 }]),
          },
          (res) => {
            let text = '';
            res.on('data', (chunk: Buffer) => (text += chunk.toString()));
            res.on('end', () => resolve(text));
          },
        );
        req.on('error', reject);
        req.end();
      });
      expect(body).toContain(`secure host=site.test:${sitePort}`);
      expect(logA).toEqual([`127.0.0.1:${sitePort}`]);
      expect(siteSaw).toEqual([{ sni: 'site.test', host: `site.test:${sitePort}`, path: '/tls' }]);
    } finally {
      agents.close();
    }
  });

  it('fetches an https page through the pool: the tunnel to the vetted address, SNI and Host with the name', async () => {
    const pool = pools.get('live')!;
    const result = await fetcher.fetch(`https://site.test:${sitePort}/page`, { proxy: pool });
    expect(result.html).toContain(`secure host=site.test:${sitePort}`);
    expect(logA).toEqual([`127.0.0.1:${sitePort}`]);
    expect(siteSaw).toEqual([{ sni: 'site.test', host: `site.test:${sitePort}`, path: '/page' }]);
    // The certificate (the fixture's own CA) is not checked, exactly as on a direct fetch of the static fetcher.
    siteSaw.length = 0;
    const direct = await fetcher.fetch(`https://site.test:${sitePort}/direct`);
    expect(direct.html).toContain(`secure host=site.test:${sitePort}`);
    expect(siteSaw).toEqual([{ sni: 'site.test', host: `site.test:${sitePort}`, path: '/direct' }]);
    expect(logA).toHaveLength(1);
  });

  it('keeps a host on the same proxy while the pool is sticky; a pool that is not rotates', async () => {
    const sticky = pools.get('sticky')!;
    const firstPicks = [sticky.pick('site.test'), sticky.pick('site.test'), sticky.pick('site.test')];
    expect(new Set(firstPicks).size).toBe(1);
    expect(sticky.pick('other.test')).not.toBe(firstPicks[0]);
    const pair = pools.get('pair')!;
    expect(pair.pick('site.test')).not.toBe(pair.pick('site.test'));
    // The fetches themselves: pages of one host through the sticky pool go through one proxy (the held one).
    const other = new StaticFetcher({ guard: new AddressGuard({ resolver, allowCidrs: ['127.0.0.0/8'] }), timeoutMs: 10_000 });
    try {
      for (let i = 0; i < 3; i++) await other.fetch(`http://site.test:${plainPort}/p${i}`, { proxy: sticky });
    } finally {
      other.close();
    }
    expect(plainSaw).toEqual([0, 1, 2].map((i) => `site.test:${plainPort} /p${i}`));
    expect(firstPicks[0]!.label).toBe(`http://127.0.0.1:${proxyA.port}`);
    expect(logA.length).toBeGreaterThanOrEqual(1);
    expect(logB).toEqual([]);
  });

  it("reads robots.txt through a crawl's pool (throughPool); a pool the operator removed fails it, never direct", async () => {
    const viaPool = new RobotsCache({ fetcher: throughPool(fetcher, 'live', pools) });
    expect(await viaPool.isAllowed(`http://site.test:${plainPort}/private/x`)).toBe(false);
    expect(plainSaw).toEqual([`site.test:${plainPort} /robots.txt`]);
    expect(logA).toEqual([`127.0.0.1:${plainPort}`]);

    const removed = new RobotsCache({ fetcher: throughPool(fetcher, 'removed', pools) });
    const error = await failure(removed.check(`http://site.test:${plainPort}/a`));
    expect(error).toBeInstanceOf(UnconfiguredProxyPool);
    expect(error.category).toBe('fetch_error');
    expect(plainSaw).toHaveLength(1);
    // `none` and no pool: the fetcher itself.
    expect(throughPool(fetcher, 'none', pools)).toBe(fetcher);
    expect(throughPool(fetcher, null, pools)).toBe(fetcher);
  });
});
