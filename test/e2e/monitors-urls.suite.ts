/**
 * List monitors end to end (docs/monitors.md "Lists of pages"), on both deployments: `urls` instead of a
 * seed, checked by the batch's rules; each run a batch job carrying monitor_id; the cheap re-runs (304,
 * text hash) and field diffs of a crawl monitor; a page answering 404 removed after two runs; a page taken
 * out of the list by a PUT removed by the next run at once. Runs are started with POST /run and awaited
 * by polling their record. The suite sets the product pages it uses as it needs them.
 */
import type { MonitorEnv } from './monitors.suite';
import { http, waitFor } from './helpers';

const SCHEMA = { name: 'string', price: 'number', items: [{ sku: 'string', price: 'number' }] };

export function monitorUrlsSuite(getEnv: () => MonitorEnv): void {
  let env: MonitorEnv;
  let key: string;
  let id: string;
  const call = (method: string, path: string, options: Parameters<typeof http>[3] = {}) =>
    http(env.app.baseUrl, method, path, { key, ...options });
  const llm = () => ({ provider: 'openai', model: 'gpt-4o-mini', api_key: 'sk-list-secret', base_url: env.models.openaiBaseUrl });
  const page = (n: number) => `${env.site.url}/p/${n}`;
  const base = () => ({ name: 'list', urls: [page(1)], schema: SCHEMA, schedule: { every: '1h' }, llm_config: llm(), paused: true });

  async function runNow(monitorId: string): Promise<Record<string, any>> {
    const res = await call('POST', `/api/v1/monitors/${monitorId}/run`);
    expect(res.status).toBe(202);
    return waitFor(async () => {
      const runs = (await call('GET', `/api/v1/monitors/${monitorId}/runs?limit=100`)).body.runs as Array<Record<string, any>>;
      const run = runs.find((r) => r.id === res.body.run.id);
      return run && ['completed', 'failed'].includes(run.status) ? run : undefined;
    }, 60_000);
  }
  const changesOf = async (runId: string) =>
    ((await call('GET', `/api/v1/monitors/${id}/changes?run_id=${encodeURIComponent(runId)}&limit=100`)).body.changes as any[]).map((c) => [
      c.kind,
      c.key.url,
      c.fields,
    ]);
  const stateUrls = async () =>
    ((await call('GET', `/api/v1/monitors/${id}/state?limit=100`)).body.items as any[]).map((i) => [i.key.url, i.misses]).sort();

  beforeAll(async () => {
    env = getEnv();
    key = (await http(env.app.baseUrl, 'POST', '/api/v1/users', { key: env.app.adminKey, body: { name: `lists-${Date.now()}` } })).body.key
      .key;
    // The pages this suite watches, as it wants them (the other suites change the shop).
    for (const n of [1, 2, 3, 4, 5]) {
      const product = env.site.products.get(String(n))!;
      product.gone = false;
      product.price = `${n * 10}.00`;
    }
  });
  afterAll(async () => {
    if (id) await call('DELETE', `/api/v1/monitors/${id}`);
  });

  it.each<[string, () => Record<string, unknown>, string]>([
    ['url and urls together', () => ({ url: `${env.site.url}/` }), 'body.urls'],
    ['an invalid URL, at its index', () => ({ urls: ['https://ok.example/a', 'ftp://nope.example/b'] }), 'body.urls[1]'],
    ['an empty list', () => ({ urls: [] }), 'body.urls'],
    ['an option about finding pages', () => ({ options: { max_depth: 2 } }), 'body.options.max_depth'],
  ])('refuses %s with a 422 at the field', async (_name, change, location) => {
    const res = await call('POST', '/api/v1/monitors', { body: { ...base(), ...change() } });
    expect(res.status).toBe(422);
    expect(res.body.errors.map((e: { location: string }) => e.location)).toContain(location);
    expect(JSON.stringify(res.body)).not.toContain('sk-list-secret');
  });

  it('is created with its list canonical and distinct; the list of monitors counts its pages', async () => {
    const duplicate = page(1).replace('http://', 'HTTP://') + '#price';
    const res = await call('POST', '/api/v1/monitors', { body: { ...base(), urls: [page(1), page(2), page(3), page(4), duplicate] } });
    expect(res.status).toBe(201);
    id = res.body.id;
    expect(res.body).toMatchObject({ url: null, urls: [page(1), page(2), page(3), page(4)], url_count: 4 });
    const listed = (await call('GET', '/api/v1/monitors')).body.monitors.find((m: any) => m.id === id);
    expect(listed).toMatchObject({ url_count: 4 });
    expect(listed).not.toHaveProperty('urls');
  });

  it('first run: a batch job carrying monitor_id extracts every page once, each reported added', async () => {
    const run = await runNow(id);
    expect(run).toMatchObject({ status: 'completed', counts: { added: 4, pages_fetched: 4, model_calls: 4, failed: 0 } });
    const job = (await call('GET', `/api/v1/jobs/${run.job_id}`)).body;
    expect(job).toMatchObject({ type: 'batch', status: 'completed', monitor_id: id, page_count: 4 });
    expect((await changesOf(run.id)).map(([kind, url]) => [kind, url]).sort()).toEqual([1, 2, 3, 4].map((n) => ['added', page(n)]));
  });

  it('second run: a 304 and an equal text cost nothing, a changed price is reported, a 404 removes nothing yet', async () => {
    env.site.setPrice('3', '31.00'); // Last-Modified page
    env.site.products.get('2')!.gone = true; // ETag page
    env.site.resetCounts();
    const run = await runNow(id);
    expect(run.counts).toMatchObject({ changed: 1, added: 0, removed: 0, not_modified: 1, skipped_by_hash: 1, model_calls: 1 });
    expect(env.site.hits.get('/p/1 304')).toBe(1);
    expect(await changesOf(run.id)).toEqual([['changed', page(3), [{ path: 'price', before: 30, after: 31 }]]]);
    expect((await stateUrls()).find(([url]) => url === page(2))).toEqual([page(2), 1]);
    // The unchanged pages are counted, and only the extracted one has a result of this run.
    const job = (await call('GET', `/api/v1/jobs/${run.job_id}`)).body;
    expect(job).toMatchObject({ page_count: 3, failed_count: 1, pages_by_method: { unchanged: 2, model: 1 } });
    const results = (await call('GET', `/api/v1/jobs/${run.job_id}/results`)).body as any[];
    expect(results.filter((r) => r.status === 'completed').map((r) => r.url)).toEqual([page(3)]);
  });

  it('a page answering 404 in two runs in a row is removed', async () => {
    const run = await runNow(id);
    const changes = await changesOf(run.id);
    expect(changes.map(([kind, url]) => [kind, url])).toEqual([['removed', page(2)]]);
    expect(run.counts).toMatchObject({ removed: 1, model_calls: 0 });
  });

  it('a page taken out of the list by a PUT is removed by the next run at once; a page added is added', async () => {
    const updated = await call('PUT', `/api/v1/monitors/${id}`, { body: { urls: [page(1), page(2), page(3), page(5)] } });
    expect(updated.status).toBe(200);
    expect(updated.body).toMatchObject({ url: null, url_count: 4 });
    expect((await call('PUT', `/api/v1/monitors/${id}`, { body: { options: { use_sitemap: true } } })).status).toBe(422);
    const run = await runNow(id);
    expect((await changesOf(run.id)).map(([kind, url]) => [kind, url]).sort()).toEqual([
      ['added', page(5)],
      ['removed', page(4)],
    ]);
    expect(await stateUrls()).toEqual([
      [page(1), 0],
      [page(3), 0],
      [page(5), 0],
    ]);
  });

  it('a PUT with a url turns it back into a crawl monitor', async () => {
    const updated = await call('PUT', `/api/v1/monitors/${id}`, { body: { url: page(1) } });
    expect(updated.status).toBe(200);
    expect(updated.body).toMatchObject({ url: page(1), urls: null, url_count: null });
  });
}
