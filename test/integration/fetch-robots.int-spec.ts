import { AddressGuard, RobotsCache, StaticFetcher } from '@app/fetch';
import { ROBOTS_CRAWL_DELAY, startFixtureSite, type FixtureSite } from '../fixtures/site';
import { ALLOWED_TEST_HOSTS, failure, testResolver } from './fetch-helpers';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';

describe('robots.txt', () => {
  let site: FixtureSite;
  let fetcher: StaticFetcher;

  beforeAll(async () => {
    site = await startFixtureSite();
    fetcher = new StaticFetcher({ guard: new AddressGuard({ allowPrivateNetworks: true }), timeoutMs: 3_000 });
  });
  afterAll(async () => {
    fetcher.close();
    await site.close();
  });

  it('allows, disallows and reports the crawl delay; fetched once per origin', async () => {
    const robots = new RobotsCache({ fetcher });
    const before = site.requests.filter((r) => r.path === '/robots.txt').length;
    expect(await robots.isAllowed(`${site.url}/page/1/`)).toBe(true);
    expect(await robots.isAllowed(`${site.url}/private/secret`)).toBe(false);
    await expect(robots.assertAllowed(`${site.url}/private/x`)).rejects.toMatchObject({ category: 'robots_disallowed', retryable: false });
    expect(await robots.crawlDelaySeconds(`${site.url}/`)).toBe(ROBOTS_CRAWL_DELAY);
    expect(await robots.sitemaps(`${site.url}/`)).toEqual([`${site.url}/sitemap.xml`]);
    await Promise.all([1, 2, 3].map((p) => robots.isAllowed(`${site.url}/page/${p}/`)));
    expect(site.requests.filter((r) => r.path === '/robots.txt').length - before).toBe(1);
  });

  it('matches the configured user agent group', async () => {
    const robots = new RobotsCache({ fetcher, userAgent: 'BadBot' });
    expect(await robots.isAllowed(`${site.url}/page/1/`)).toBe(false);
    const sent = site.requests.filter((r) => r.path === '/robots.txt');
    expect(sent.length).toBeGreaterThan(0);
  });

  describe('error handling (Google semantics)', () => {
    let server: http.Server;
    let base: string;
    let status = 404;
    beforeAll(async () => {
      server = http.createServer((_req, res) =>
        res.writeHead(status, { 'content-type': 'text/plain' }).end('User-agent: *\nDisallow: /\n'),
      );
      await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
      base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    });
    afterAll(async () => {
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
    });

    it.each([
      [404, true],
      [403, true],
      [410, true],
      [429, false],
      [500, false],
      [503, false],
    ])('robots.txt answering %i → allowed=%s', async (code, allowed) => {
      status = code;
      const robots = new RobotsCache({ fetcher });
      expect(await robots.isAllowed(`${base}/page`)).toBe(allowed);
    });

    it('an unreachable robots.txt disallows temporarily, then is fetched again', async () => {
      let now = 0;
      const closed = await startFixtureSite();
      await closed.close();
      const robots = new RobotsCache({ fetcher, errorTtlMs: 1_000, now: () => now });
      expect(await robots.isAllowed(`${closed.url}/x`)).toBe(false);
      status = 200;
      const recovering = new RobotsCache({ fetcher, errorTtlMs: 1_000, now: () => now });
      status = 500;
      expect(await recovering.isAllowed(`${base}/x`)).toBe(false);
      status = 404;
      now = 500;
      expect(await recovering.isAllowed(`${base}/x`)).toBe(false); // still inside the TTL
      now = 2_000;
      expect(await recovering.isAllowed(`${base}/x`)).toBe(true); // re-fetched: 404 = allow all
    });
  });

  it('robots.txt goes through the address guard', async () => {
    const guarded = new StaticFetcher({ guard: new AddressGuard({ resolver: testResolver, allowHosts: ALLOWED_TEST_HOSTS }) });
    try {
      const robots = new RobotsCache({ fetcher: guarded });
      expect(await failure(robots.isAllowed(`${site.url}/page/1/`))).toMatchObject({ category: 'ssrf_blocked' });
      expect(await robots.isAllowed(`http://robots.test:${site.port}/page/1/`)).toBe(true);
      expect(await robots.isAllowed(`http://robots.test:${site.port}/private/`)).toBe(false);
    } finally {
      guarded.close();
    }
  });
});
