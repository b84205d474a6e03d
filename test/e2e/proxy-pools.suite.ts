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
    expect(JSON.stringify(single.body.errors)).toContain(`no proxy pool is named \\"elsewhere\\"; known pools: ${PROXY_POOL}, or none`);
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
