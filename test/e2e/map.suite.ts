/**
 * POST /map end to end on the crawl playground: sitemaps (robots.txt line, index, gzip), the seed page's
 * links, robots.txt, scope, search, JSON and JSON lines, the time budget, refusals. Run on both
 * deployments by map.e2e-spec.ts.
 */
import { SHOP_PRODUCTS, type Playground } from '../fixtures/playground/playground';
import type { RunningApp } from './embedded-app';
import { http } from './helpers';

export interface MapEnv {
  app: RunningApp;
  play: Playground;
}

export function mapSuite(getEnv: () => MapEnv): void {
  let env: MapEnv;
  const call = (method: string, path: string, opts: Parameters<typeof http>[3] = {}) =>
    http(env.app.baseUrl, method, path, { key: env.app.adminKey, ...opts });
  const u = (path: string, host = 'shop.test') => env.play.url(host, path);

  beforeAll(() => {
    env = getEnv();
  });

  it("lists the seed page's links and every sitemap URL once, in scope, without robots.txt's disallowed ones", async () => {
    const res = await call('POST', '/api/v1/map', { body: { url: u('/') } });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    const urls: string[] = res.body.urls.map((x: any) => x.url);
    expect(new Set(urls).size).toBe(urls.length);
    expect(urls[0]).toBe(u('/'));
    for (let id = 1; id <= SHOP_PRODUCTS; id++) expect(urls).toContain(u(`/product/${id}`));
    expect(urls).toContain(u('/catalog/page/1'));
    expect(urls).not.toContain(u('/private/secret'));
    expect(urls.some((x) => x.includes('other.test'))).toBe(false);
    expect(res.body).toMatchObject({ url: u('/'), complete: true, count: urls.length, found: urls.length, sitemap_files: 3 });
    expect(res.body.robots_excluded).toBeGreaterThanOrEqual(1);
    expect(res.body.urls.find((x: any) => x.url === u('/product/1')).source).toBe('sitemap');
    expect(res.body.urls.find((x: any) => x.url === u('/about'))).toMatchObject({ source: 'page', text: 'About' });

    const noSitemap = await call('POST', '/api/v1/map', { body: { url: u('/'), use_sitemap: false } });
    expect(noSitemap.body.sitemap_files).toBe(0);
    expect(noSitemap.body.urls.every((x: any) => x.source !== 'sitemap')).toBe(true);
  });

  it('ranks by search, cuts at limit, and streams JSON lines on request', async () => {
    const ranked = await call('POST', '/api/v1/map', { body: { url: u('/'), search: 'catalog', limit: 3 } });
    expect(ranked.body.count).toBe(3);
    expect(ranked.body.urls[0]).toMatchObject({ url: u('/catalog/page/1'), score: expect.any(Number) });
    expect(ranked.body.urls[0].score).toBeGreaterThan(0);
    expect(ranked.body.found).toBeGreaterThan(3);

    const lines = await call('POST', '/api/v1/map', { body: { url: u('/'), limit: 10 }, headers: { accept: 'application/x-ndjson' } });
    expect(lines.status).toBe(200);
    expect(lines.headers.get('content-type')).toMatch(/^application\/x-ndjson/);
    expect(lines.headers.get('x-map-complete')).toBe('true');
    expect(lines.headers.get('x-map-count')).toBe('10');
    const parsed = lines.text
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(parsed).toHaveLength(10);
    expect(parsed[0]).toEqual({ url: u('/'), source: 'seed', text: null });
  });

  it('keeps subdomains only when asked', async () => {
    const hub = await call('POST', '/api/v1/map', { body: { url: u('/?hosts=3', 'hub.test'), use_sitemap: false } });
    expect(hub.body.urls.map((x: any) => x.url)).toEqual([u('/?hosts=3', 'hub.test')]);
  });

  it('answers within the time budget with what it found (complete: false)', async () => {
    const gate = `map-budget-${Date.now()}`; // a gate, once opened, stays open
    const res = await call('POST', '/api/v1/map', { body: { url: u(`/gate/${gate}`), use_sitemap: true } });
    env.play.openGate(gate);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ complete: false, urls: [{ url: u(`/gate/${gate}`), source: 'seed' }] });
  });

  it('refuses bad requests at the field, a forbidden address with 422, an unreadable seed with 502, and a key without the crawl scope', async () => {
    const bad = await call('POST', '/api/v1/map', { body: { url: 'ftp://x.example/', limit: 0, search: '', extra: 1 } });
    expect(bad.status).toBe(422);
    expect(bad.body.errors.map((e: any) => e.location).sort()).toEqual(['body.extra', 'body.limit', 'body.search', 'body.url']);
    // With sitemaps (the default) and without: a refused seed is a 422 naming the variable that opens it, never an empty map.
    for (const useSitemap of [undefined, true, false]) {
      const forbidden = await call('POST', '/api/v1/map', { body: { url: 'http://10.1.2.3/', use_sitemap: useSitemap } });
      expect(forbidden.status).toBe(422);
      expect(forbidden.body.error_category).toBe('ssrf_blocked');
      expect(forbidden.body.detail).toContain('GLEANER_ALLOW_NETWORKS');
    }
    // A name's refusal names the host and the variables; the address it resolves to is in the log only.
    const internal = await call('POST', '/api/v1/map', { body: { url: 'http://intranet.example/' } });
    expect(internal.status).toBe(422);
    expect(internal.body).toMatchObject({ error_category: 'ssrf_blocked', errors: [{ location: 'body.url' }] });
    expect(internal.body.detail).toContain('intranet.example');
    expect(internal.body.detail).toContain('GLEANER_ALLOW_PRIVATE_NETWORKS=true');
    expect(internal.text).not.toContain('10.9.8.7');
    expect(env.app.logs.text).toContain('"address":"10.9.8.7"');
    const missing = await call('POST', '/api/v1/map', { body: { url: u('/no-such-page'), use_sitemap: false } });
    expect(missing.status).toBe(502);
    expect(missing.body.error_category).toBe('http_error');
    const scoped = await call('POST', '/api/v1/keys', { body: { name: `map-${Date.now()}`, scopes: ['extract', 'jobs'] } });
    expect((await http(env.app.baseUrl, 'POST', '/api/v1/map', { key: scoped.body.key, body: { url: u('/') } })).status).toBe(403);
  });
}
