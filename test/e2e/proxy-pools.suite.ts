/**
 * Proxy pools end to end (docs/proxies.md): the app is started with GLEANER_PROXY_POOLS naming a pool of a dead
 * proxy and a live one (proxy-chain on loopback, with credentials). Requests name the pool; the proxy's own log
 * shows what went through it. Run on both deployments by batch.e2e-spec.ts (its app start).
 */
import type { ModelServer } from '../fixtures/model-server';
import { product, type Playground } from '../fixtures/playground/playground';
import type { RunningApp } from './embedded-app';
import { http, waitFor } from './helpers';

export interface ProxyPoolsEnv {
  app: RunningApp;
  play: Playground;
  models: ModelServer;
  /** What the live proxy was asked: `username hostname:port` per connection. */
  proxied: string[];
  livePort: number;
  deadPort: number;
  /** The proxies' password: it must appear in no answer and no metric. */
  password: string;
}

/** The pool the spec configures: the dead proxy first, so every first pick of a fresh process tries it. */
export const PROXY_POOL = 'e2e-pool';
/** A pool of the dead proxy alone: whatever goes through it never reaches the site (nothing goes direct). */
export const DEAD_POOL = 'e2e-dead';

const SCHEMA = { name: 'string', price: 'string', sku: 'string' };

export function proxyPoolsSuite(getEnv: () => ProxyPoolsEnv): void {
  let env: ProxyPoolsEnv;
  const call = (method: string, path: string, opts: Parameters<typeof http>[3] = {}) =>
    http(env.app.baseUrl, method, path, { key: env.app.adminKey, ...opts });
  const llm = () => ({ provider: 'openai', model: 'gpt-4o-mini', api_key: 'sk-proxy-test', base_url: env.models.openaiBaseUrl });
  const finished = (jobId: string): Promise<any> =>
    waitFor(async () => {
      const job = (await call('GET', `/api/v1/jobs/${jobId}`)).body;
      return ['completed', 'failed', 'cancelled'].includes(job.status) ? job : null;
    }, 120_000);
  /** A shop product URL no other test of the app asked for (a query the shop ignores). */
  const productUrl = (id: number, tag: string) => `${env.play.url('shop.test', `/product/${id}`)}?proxy=${tag}-${Date.now()}`;

  beforeAll(() => {
    env = getEnv();
  });

  it('answers an unknown pool with a 422 that lists the known ones, on a request and under crawl options', async () => {
    const url = env.play.url('shop.test', '/product/1');
    const single = await call('POST', '/api/v1/extract', { body: { url, schema: SCHEMA, llm_config: llm(), proxy: 'elsewhere' } });
    expect(single.status).toBe(422);
    expect(JSON.stringify(single.body.errors)).toContain(
      `no proxy pool is named \\"elsewhere\\"; known pools: ${DEAD_POOL}, ${PROXY_POOL}, or none`,
    );
    expect(single.body.errors.map((e: { location: string }) => e.location)).toContain('body.proxy');
    const batch = await call('POST', '/api/v1/batch/extract', {
      body: { urls: [url], schema: SCHEMA, llm_config: llm(), options: { proxy: 'http://user:pw@10.0.0.1:3128' } },
    });
    expect(batch.status).toBe(422);
    expect(batch.body.errors.map((e: { location: string }) => e.location)).toContain('body.options.proxy');
  });

  it('fetches a batch through the pool: past the dead proxy, to the vetted address, with the credentials', async () => {
    const urls = [1, 2, 3].map((id) => productUrl(id, 'batch'));
    const before = env.proxied.length;
    const started = await call('POST', '/api/v1/batch/extract', {
      body: { urls, schema: SCHEMA, llm_config: llm(), options: { proxy: PROXY_POOL } },
    });
    expect(started.status).toBe(202);
    const job = await finished(started.body.job_id);
    expect(job).toMatchObject({ status: 'completed', page_count: 3, failed_count: 0 });
    expect(job.options.proxy).toBe(PROXY_POOL);
    // Every page went through the live proxy, which was asked for the address the guard vetted (not the name).
    const through = env.proxied.slice(before);
    expect(through.length).toBeGreaterThanOrEqual(1);
    expect(new Set(through)).toEqual(new Set([`gleaner 127.0.0.1:${env.play.port}`]));
    const pages = env.play.requests.filter((r) => urls.some((u) => u.endsWith(r.path)));
    expect(pages).toHaveLength(3);
    expect(new Set(pages.map((r) => r.host))).toEqual(new Set(['shop.test']));
    const items = (await call('GET', `/api/v1/jobs/${job.id}/results`)).body as any[];
    expect(items.find((i) => i.url === urls[0])).toMatchObject({ status: 'completed', data: { sku: product(1).sku } });
    expect(JSON.stringify({ job, items })).not.toContain(env.password);
  });

  it('fetches a single page through the pool; `none` fetches directly', async () => {
    const before = env.proxied.length;
    // A host the batch above did not fetch: its connection is a new tunnel (the proxy logs each), not a kept one.
    const url = `${env.play.url('h9.test', '/p/1')}?proxy=single-${Date.now()}`;
    const through = await call('POST', '/api/v1/extract', { body: { url, schema: SCHEMA, llm_config: llm(), proxy: PROXY_POOL } });
    expect(through.status).toBe(200);
    expect(env.proxied.slice(before)).toEqual([`gleaner 127.0.0.1:${env.play.port}`]);
    const direct = await call('POST', '/api/v1/extract', { body: { url, schema: SCHEMA, llm_config: llm(), proxy: 'none' } });
    expect(direct.status).toBe(200);
    expect(env.proxied.slice(before)).toHaveLength(1);
    expect(JSON.stringify(through.body)).not.toContain(env.password);
  });

  /** A host of the playground's tiny sites no other test asks for (h<N>.test: `/`, `/p/1`..`/p/3`, robots.txt 404). */
  const freshHost = (tag: string) => `h${tag}${Date.now() % 1_000_000}.test`;
  const hostUrl = (host: string, path = '/') => env.play.url(host, path);

  it("reads a crawl's robots.txt and sitemap through its pool, as its pages", async () => {
    const host = freshHost('381');
    const before = env.proxied.length;
    const started = await call('POST', '/api/v1/crawl', {
      body: { url: hostUrl(host), schema: SCHEMA, llm_config: llm(), options: { proxy: PROXY_POOL, max_depth: 0, use_sitemap: true } },
    });
    expect(started.status).toBe(202);
    expect(await finished(started.body.job_id)).toMatchObject({ status: 'completed', page_count: 1 });
    expect(env.play.requestsTo(host, '/robots.txt').length).toBeGreaterThanOrEqual(1);
    expect(env.play.requestsTo(host, '/sitemap.xml').length).toBeGreaterThanOrEqual(1);
    expect(new Set(env.proxied.slice(before))).toEqual(new Set([`gleaner 127.0.0.1:${env.play.port}`]));

    // Through the dead pool nothing reaches the site: robots.txt and the sitemap are not read directly either.
    const deadHost = freshHost('382');
    const dead = await call('POST', '/api/v1/crawl', {
      body: { url: hostUrl(deadHost), schema: SCHEMA, llm_config: llm(), options: { proxy: DEAD_POOL, max_depth: 0, use_sitemap: true } },
    });
    expect(dead.status).toBe(202);
    const job = await finished(dead.body.job_id);
    expect(job.page_count).toBe(0);
    expect(env.play.requestsTo(deadHost)).toEqual([]);
    expect(JSON.stringify(job)).not.toContain(env.password);
  });

  it('maps a site through the pool (POST /map): robots.txt, sitemap and seed page, nothing direct', async () => {
    const host = freshHost('383');
    const before = env.proxied.length;
    const mapped = await call('POST', '/api/v1/map', { body: { url: hostUrl(host), proxy: PROXY_POOL } });
    expect(mapped.status).toBe(200);
    expect(mapped.body.urls.map((u: { url: string }) => u.url)).toContain(hostUrl(host, '/p/1'));
    expect(env.play.requestsTo(host, '/robots.txt').length).toBeGreaterThanOrEqual(1);
    expect(new Set(env.proxied.slice(before))).toEqual(new Set([`gleaner 127.0.0.1:${env.play.port}`]));

    const deadHost = freshHost('384');
    // The seed page alone: its failure is the answer. With sitemaps: robots.txt unreadable, nothing listed.
    const dead = await call('POST', '/api/v1/map', { body: { url: hostUrl(deadHost), proxy: DEAD_POOL, use_sitemap: false } });
    expect(dead.status).toBe(502);
    expect(dead.body.detail).toContain(`Every proxy of the pool ${DEAD_POOL} failed`);
    const withSitemaps = await call('POST', '/api/v1/map', { body: { url: hostUrl(deadHost), proxy: DEAD_POOL } });
    expect(withSitemaps.status).toBe(200);
    expect(withSitemaps.body).toMatchObject({ count: 0, sitemap_files: 0, robots_excluded: 1 });
    expect(env.play.requestsTo(deadHost)).toEqual([]);
    expect(JSON.stringify([dead.body, withSitemaps.body])).not.toContain(env.password);
    const unknown = await call('POST', '/api/v1/map', { body: { url: hostUrl(deadHost), proxy: 'elsewhere' } });
    expect(unknown.status).toBe(422);
    expect(unknown.body.errors.map((e: { location: string }) => e.location)).toContain('body.proxy');
  });

  it('analyzes a page through the pool (POST /analyze), its linked pages too', async () => {
    const host = freshHost('385');
    const before = env.proxied.length;
    const analyzed = await call('POST', '/api/v1/analyze', {
      body: { url: hostUrl(host), fetch_mode: 'static', depth: 1, llm_config: llm(), proxy: PROXY_POOL },
    });
    expect(analyzed.status).toBe(200);
    expect(env.play.requestsTo(host, '/').length).toBeGreaterThanOrEqual(1);
    expect(new Set(env.proxied.slice(before))).toEqual(new Set([`gleaner 127.0.0.1:${env.play.port}`]));

    const deadHost = freshHost('386');
    const dead = await call('POST', '/api/v1/analyze', {
      body: { url: hostUrl(deadHost), fetch_mode: 'static', llm_config: llm(), proxy: DEAD_POOL },
    });
    expect(dead.status).toBe(502);
    expect(JSON.stringify(dead.body)).toContain(`Every proxy of the pool ${DEAD_POOL} failed`);
    expect(env.play.requestsTo(deadHost)).toEqual([]);
    expect(JSON.stringify(dead.body)).not.toContain(env.password);
  });

  it('runs a monitor through the pool its options name, robots.txt included', async () => {
    const host = freshHost('387');
    const before = env.proxied.length;
    const created = await call('POST', '/api/v1/monitors', {
      body: {
        name: 'proxied',
        url: hostUrl(host),
        schema: SCHEMA,
        llm_config: llm(),
        schedule: { every: '1h' },
        paused: true,
        options: { proxy: PROXY_POOL, max_depth: 0 },
      },
    });
    expect(created.status).toBe(201);
    expect(created.body.options.proxy).toBe(PROXY_POOL);
    try {
      const started = await call('POST', `/api/v1/monitors/${created.body.id}/run`);
      expect(started.status).toBe(202);
      const run = await waitFor(async () => {
        const runs = (await call('GET', `/api/v1/monitors/${created.body.id}/runs?limit=10`)).body.runs as any[];
        const found = runs.find((r) => r.id === started.body.run.id);
        return found && ['completed', 'failed'].includes(found.status) ? found : undefined;
      }, 120_000);
      expect(run).toMatchObject({ status: 'completed', counts: { added: 1, failed: 0 } });
      expect((await call('GET', `/api/v1/jobs/${run.job_id}`)).body.options.proxy).toBe(PROXY_POOL);
      expect(env.play.requestsTo(host, '/robots.txt').length).toBeGreaterThanOrEqual(1);
      expect(new Set(env.proxied.slice(before))).toEqual(new Set([`gleaner 127.0.0.1:${env.play.port}`]));
    } finally {
      await call('DELETE', `/api/v1/monitors/${created.body.id}`);
    }
  });

  it('counts per proxy in Prometheus, by label, never with the credentials', async () => {
    const text = (await http(env.app.baseUrl, 'GET', '/metrics')).text;
    const series = (name: string, port: number) =>
      new RegExp(`${name}\\{pool="${PROXY_POOL}",proxy="http://127\\.0\\.0\\.1:${port}"[^}]*\\} [1-9]`);
    expect(text).toMatch(series('gleaner_proxy_requests_total', env.livePort));
    expect(text).toMatch(series('gleaner_proxy_failures_total', env.deadPort));
    expect(text).toMatch(series('gleaner_proxy_rested_total', env.deadPort));
    expect(text).not.toContain(env.password);
  });
}
