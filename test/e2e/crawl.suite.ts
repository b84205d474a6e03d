/**
 * POST /crawl and the crawl map end to end, on the crawl playground (many sites on loopback names)
 * with the local model server. Run on both deployments by crawl.e2e-spec.ts.
 */
import { createHmac } from 'node:crypto';
import type { ModelServer } from '../fixtures/model-server';
import { AUTH_SITE_SECRETS, SHOP_PAGES, SHOP_PRODUCTS, product, type Playground } from '../fixtures/playground/playground';
import type { WebhookReceiver } from '../fixtures/webhook-receiver';
import type { SiteRecord } from '@app/sites';
import { DOCUMENT_STORE, type DocumentStore } from '@app/storage';
import { CrawlRepository } from '../../libs/crawl/src/crawl.repository';
import { canonicalize } from '../../libs/crawl/src/url-canon';
import type { RunningApp } from './embedded-app';
import { http, readSse, waitFor } from './helpers';

export interface CrawlEnv {
  app: RunningApp;
  play: Playground;
  models: ModelServer;
  receiver: WebhookReceiver;
}

export const PRODUCT_SCHEMA = { name: 'string', price: 'string', sku: 'string' };

export function crawlSuite(getEnv: () => CrawlEnv): void {
  let env: CrawlEnv;
  const call = (method: string, path: string, opts: Parameters<typeof http>[3] = {}) =>
    http(env.app.baseUrl, method, path, { key: env.app.adminKey, ...opts });
  const llm = () => ({ provider: 'openai', model: 'gpt-4o-mini', api_key: 'sk-crawl-test', base_url: env.models.openaiBaseUrl });

  async function crawl(body: Record<string, unknown>, query = ''): Promise<{ status: number; body: any; headers: Headers }> {
    const res = await call('POST', `/api/v1/crawl${query}`, { body: { schema: PRODUCT_SCHEMA, llm_config: llm(), ...body } });
    return res;
  }

  async function finished(jobId: string): Promise<any> {
    return waitFor(async () => {
      const job = (await call('GET', `/api/v1/jobs/${jobId}`)).body;
      return ['completed', 'failed', 'cancelled'].includes(job.status) ? job : null;
    }, 120_000);
  }

  async function map(jobId: string, query = ''): Promise<any> {
    const res = await call('GET', `/api/v1/jobs/${jobId}/crawl-map${query}`);
    expect(res.status).toBe(200);
    return res.body;
  }

  async function results(jobId: string): Promise<any[]> {
    return (await call('GET', `/api/v1/jobs/${jobId}/results`)).body;
  }

  /** Page requests the site received for this crawl's paths (robots.txt and sitemaps excluded). */
  const pageRequests = (host: string, since: number) =>
    env.play.requests.filter((r) => r.host === host && r.at >= since && r.path !== '/robots.txt' && !r.path.includes('sitemap'));

  /** The extraction_mode auto crawl (its learned programs are the subject of the test after it). */
  let autoCrawl: { jobId: string; selectorItems: any[] } | undefined;

  beforeAll(() => {
    env = getEnv();
  });

  it('crawls a paged catalog with follow_selector: every page once, one result and one map entry each', async () => {
    const since = Date.now();
    const started = await crawl({
      url: env.play.url('shop.test', '/catalog/page/1'),
      options: { follow_selector: 'li.next a, a.product', max_depth: 10, max_pages: 100, concurrency: 6 },
    });
    expect(started.status).toBe(202);
    expect(started.headers.get('location')).toBe(started.body.status_url);
    // The answer shows the job as it is then: a crawler may have taken it already (it starts within milliseconds).
    expect(['pending', 'running']).toContain(started.body.status);
    expect(started.body).toMatchObject({ page_count: 0, data: {} });
    const job = await finished(started.body.job_id);
    expect(job).toMatchObject({ status: 'completed', page_count: SHOP_PAGES + SHOP_PRODUCTS, failed_count: 0, error_category: null });
    expect(job.token_usage_input).toBeGreaterThan(0);
    expect(job.cost_usd).toBeGreaterThan(0);
    expect(job.options).toMatchObject({
      follow_selector: 'li.next a, a.product',
      max_depth: 10,
      max_pages: 100,
      concurrency: 6,
      delay_ms: 0,
    });
    expect(job.urls_queued).toBe(SHOP_PAGES + SHOP_PRODUCTS);

    const items = await results(job.id);
    expect(items).toHaveLength(SHOP_PAGES + SHOP_PRODUCTS);
    const products = items.filter((i) => /\/product\/\d+$/.test(i.url));
    expect(products).toHaveLength(SHOP_PRODUCTS);
    for (const item of products) {
      const id = Number(/\/product\/(\d+)$/.exec(item.url)![1]);
      expect(item.data).toMatchObject({ name: product(id).name, price: product(id).price, sku: product(id).sku });
    }
    // Each page fetched exactly once.
    const fetched = pageRequests('shop.test', since).map((r) => r.path);
    expect(new Set(fetched).size).toBe(fetched.length);
    expect(fetched).toHaveLength(SHOP_PAGES + SHOP_PRODUCTS);

    const m = await map(job.id);
    expect(m).toMatchObject({
      job_id: job.id,
      seed_url: env.play.url('shop.test', '/catalog/page/1'),
      max_depth: 10,
      completed: 55,
      failed: 0,
      extracted_by_method: { model: 55, selectors: 0, mixed: 0 },
    });
    expect(m.entries.filter((e: any) => e.status === 'completed')).toHaveLength(55);
    const seed = m.entries[0];
    expect(seed).toMatchObject({ url: env.play.url('shop.test', '/catalog/page/1'), depth: 0, parent_url: null, status: 'completed' });
    const p1 = m.entries.find((e: any) => e.url === env.play.url('shop.test', '/product/1'));
    expect(p1).toMatchObject({
      depth: 1,
      parent_url: seed.url,
      llm_provider: 'openai',
      llm_model: 'gpt-4o-mini',
      method: 'model',
      model_call: 'full',
      http_status: 200,
    });
    expect(p1.fetch_duration_ms).toBeGreaterThanOrEqual(0);
    expect(p1.token_usage_input).toBeGreaterThan(0);
    expect(p1.result_id).toBe(items.find((i) => i.url === p1.url).id);
    // Only the followed links were considered (the menu, prev links and related links are not in the map).
    expect(m.entries.some((e: any) => e.url.endsWith('/about'))).toBe(false);
    expect(m.total).toBe(m.entries.length);
  });

  it('extraction_mode auto: learns a selector program per template, then extracts products without a model call, every value right', async () => {
    const started = await crawl({
      url: env.play.url('shop.test', '/catalog/page/1'),
      options: { follow_selector: 'li.next a, a.product', max_depth: 10, max_pages: 100, concurrency: 6 },
      extraction_mode: 'auto',
    });
    expect(started.status).toBe(202);
    const job = await finished(started.body.job_id);
    expect(job).toMatchObject({ status: 'completed', page_count: SHOP_PAGES + SHOP_PRODUCTS, failed_count: 0 });
    const items = await results(job.id);
    const products = items.filter((i) => /\/product\/\d+$/.test(i.url));
    expect(products).toHaveLength(SHOP_PRODUCTS);
    for (const item of products) {
      const id = Number(/\/product\/(\d+)$/.exec(item.url)![1]);
      expect({ id, data: item.data }).toEqual({ id, data: { name: product(id).name, price: product(id).price, sku: product(id).sku } });
    }
    // How each page was made is on its crawl map entry (the stored result keeps the program and template ids too).
    const m = await map(job.id);
    const productEntries = m.entries.filter((e: any) => /\/product\/\d+$/.test(e.url));
    expect(productEntries).toHaveLength(SHOP_PRODUCTS);
    const bySelectors = productEntries.filter((e: any) => e.method === 'selectors');
    const byModel = productEntries.filter((e: any) => e.method === 'model');
    const byMixed = productEntries.filter((e: any) => e.method === 'mixed');
    expect(bySelectors.length + byModel.length + byMixed.length).toBe(SHOP_PRODUCTS);
    const counts = { model: 0, selectors: 0, mixed: 0, scrape: 0 } as Record<string, number>;
    for (const e of m.entries.filter((e: any) => e.status === 'completed')) counts[e.method]++;
    expect(m.extracted_by_method).toEqual(counts);
    expect(counts.model + counts.selectors + counts.mixed).toBe(SHOP_PAGES + SHOP_PRODUCTS);
    // 3 learning + 5 verification pages, the pages in flight while the template was still learning, spot checks.
    expect(bySelectors.length).toBeGreaterThanOrEqual(20);
    for (const entry of bySelectors) {
      expect(entry).toMatchObject({ status: 'completed', llm_model: null, llm_provider: null, token_usage_input: 0, model_call: null });
    }
    for (const entry of byModel)
      expect(entry).toMatchObject({ llm_model: 'gpt-4o-mini', model_call: expect.stringMatching(/^(full|partial)$/) });
    // A mixed page: the program filled some fields, a partial model call the others.
    for (const entry of byMixed) expect(entry).toMatchObject({ llm_model: 'gpt-4o-mini', model_call: 'partial' });
    expect(job.token_usage_input).toBeGreaterThan(0);

    // Each result item says how it was made, as its map entry does; selector-made ones name the program and template.
    const entryByResult = new Map<string, any>(m.entries.filter((e: any) => e.result_id).map((e: any) => [e.result_id, e]));
    for (const item of items) expect([item.url, item.metadata.method]).toEqual([item.url, entryByResult.get(item.id).method]);
    const selectorItems = items.filter((i) => i.metadata.method === 'selectors');
    expect(selectorItems).toHaveLength(counts.selectors);
    for (const item of selectorItems) {
      expect(item.metadata).toEqual({
        method: 'selectors',
        program_id: expect.stringMatching(/^prg_[0-9a-f]{16}$/),
        template_id: expect.stringMatching(/^tpl_[0-9a-f]{16}$/),
        // Each value is the program's, on the page (a catalog page's price and sku are null: nothing to ground).
        fields: Object.fromEntries(
          ['name', 'price', 'sku'].map((name) => [name, { source: 'selectors', grounded: item.data[name] === null ? null : true }]),
        ),
        ungrounded_fields: 0,
      });
    }
    for (const item of items.filter((i) => i.metadata.method === 'model')) {
      expect(item.metadata.template_id).toMatch(/^tpl_/);
      expect(['full', 'partial']).toContain(item.metadata.model_call);
    }
    for (const item of items.filter((i) => i.metadata.method === 'mixed')) {
      expect(item.metadata).toMatchObject({ model_call: 'partial', program_id: expect.stringMatching(/^prg_/) });
      expect(item.metadata.model_fields.length).toBeGreaterThan(0);
      expect(item.metadata.model_fields.every((f: string) => ['name', 'price', 'sku'].includes(f))).toBe(true);
    }
    autoCrawl = { jobId: job.id, selectorItems };

    // The job counts pages by method and model calls exactly like the map (no page failed: model calls = model and mixed
    // pages), the calls by kind as the map's entries have them, and their tokens are the job's.
    const calls = m.extracted_by_method.model + m.extracted_by_method.mixed;
    expect(job.pages_by_method).toEqual(m.extracted_by_method);
    expect(job.model_calls).toBe(calls);
    expect(job.pages_by_method.model + job.pages_by_method.selectors + job.pages_by_method.mixed).toBe(job.page_count);
    const kinds = { full: 0, partial: 0 } as Record<string, number>;
    for (const e of m.entries.filter((e: any) => e.model_call)) kinds[e.model_call]++;
    expect(job.model_calls_by_kind).toEqual(kinds);
    expect(job.tokens_by_call_kind.full.input + job.tokens_by_call_kind.partial.input).toBe(job.token_usage_input);
    expect(job.tokens_by_call_kind.full.output + job.tokens_by_call_kind.partial.output).toBe(job.token_usage_output);
    const counters = { pages_by_method: m.extracted_by_method, model_calls: calls, model_calls_by_kind: kinds };
    const listed = (await call('GET', '/api/v1/jobs?limit=100')).body.jobs.find((j: any) => j.id === job.id);
    expect(listed).toMatchObject(counters);
    const stream = await readSse(`${env.app.baseUrl}/api/v1/jobs/${job.id}/stream`, { key: env.app.adminKey });
    const lastStatus = stream.events.filter((e) => e.event === 'status').pop()!;
    expect(lastStatus.data).toMatchObject(counters);

    const bad = await crawl({ url: env.play.url('shop.test', '/catalog/page/1'), extraction_mode: 'learned' });
    expect(bad.status).toBe(422);
    expect(bad.headers.get('content-type')).toContain('application/problem+json');
    expect(JSON.stringify(bad.body)).toContain('extraction_mode');
  });

  it("learned programs: the auto crawl's templates are listed (by host, paged), shown and deleted; other tenants see none", async () => {
    expect(autoCrawl).toBeDefined(); // made by the extraction_mode auto test above
    const host = new URL(env.play.url('shop.test', '/')).host;
    const list = await call('GET', `/api/v1/learned-programs?host=${encodeURIComponent(host.toUpperCase())}`);
    expect(list.status).toBe(200);
    const programs: any[] = list.body.learned_programs;
    // The product template learned the program that extracted the selector-made pages.
    const { program_id, template_id } = autoCrawl!.selectorItems[0].metadata;
    const product = programs.find((p) => p.template_id === template_id);
    expect(product).toMatchObject({
      id: expect.stringMatching(/^lt_[0-9a-f]{24}$/),
      host,
      phase: 'active',
      fields: ['name', 'price', 'sku'],
      program: { id: program_id, version: 1 },
      retired: [],
      disagreements: { by_field: expect.any(Object), recent: expect.any(Array) },
    });
    expect(product.field_states.map((f: any) => [f.field, f.phase])).toEqual([
      ['name', 'active'],
      ['price', 'active'],
      ['sku', 'active'],
    ]);
    for (const f of product.field_states) expect(f.rule_id).toMatch(/^[0-9a-f]{16}$/);
    expect(product.program.rules.map((r: any) => r.field).sort()).toEqual(['name', 'price', 'sku']);
    expect(product.pages).toBeGreaterThanOrEqual(SHOP_PRODUCTS);
    expect(product.model_calls).toBeLessThan(product.pages);
    expect(product.verification.agreeing).toBeGreaterThan(0);
    expect(JSON.stringify(list.body)).not.toContain('<html'); // never page HTML
    for (const p of programs) expect(p.host).toBe(host);
    expect((await call('GET', '/api/v1/learned-programs?host=other.test')).body).toEqual({ learned_programs: [] });
    // Paged like /jobs: newest first, limit/offset.
    const all = (await call('GET', '/api/v1/learned-programs?limit=100')).body.learned_programs;
    expect(all.length).toBeGreaterThanOrEqual(programs.length);
    const first = (await call('GET', '/api/v1/learned-programs?limit=1')).body.learned_programs;
    const second = (await call('GET', '/api/v1/learned-programs?limit=1&offset=1')).body.learned_programs;
    expect([...first, ...second].map((p: any) => p.id)).toEqual(all.slice(0, 2).map((p: any) => p.id));
    for (const query of ['?limit=0', '?limit=101', '?offset=-1', '?limit=1.5', '?host=', '?host=a%20b', '?hots=x']) {
      const res = await call('GET', `/api/v1/learned-programs${query}`);
      expect([query, res.status, res.headers.get('content-type')]).toEqual([
        query,
        422,
        expect.stringContaining('application/problem+json'),
      ]);
    }

    const one = await call('GET', `/api/v1/learned-programs/${product.id}`);
    expect(one.status).toBe(200);
    expect(one.body).toEqual(all.find((p: any) => p.id === product.id));

    // Another tenant neither sees nor deletes it; a key without the crawl scope is refused.
    const other = (await call('POST', '/api/v1/users', { body: { name: `learned-tenant-${Date.now()}` } })).body.key.key;
    const asOther = (method: string, path: string) => http(env.app.baseUrl, method, path, { key: other });
    expect((await asOther('GET', '/api/v1/learned-programs')).body).toEqual({ learned_programs: [] });
    for (const method of ['GET', 'DELETE']) {
      const res = await asOther(method, `/api/v1/learned-programs/${product.id}`);
      expect([method, res.status, res.body.type]).toEqual([method, 404, '/problems/not-found']);
    }
    const jobsOnly = (await call('POST', '/api/v1/keys', { body: { name: 'jobs only', scopes: ['jobs'] } })).body.key;
    expect((await http(env.app.baseUrl, 'GET', '/api/v1/learned-programs', { key: jobsOnly })).status).toBe(403);
    expect((await http(env.app.baseUrl, 'DELETE', `/api/v1/learned-programs/${product.id}`, { key: jobsOnly })).status).toBe(403);
    expect((await call('GET', `/api/v1/learned-programs/${product.id}`)).status).toBe(200);

    const deleted = await call('DELETE', `/api/v1/learned-programs/${product.id}`);
    expect(deleted.status).toBe(204);
    expect(deleted.text).toBe('');
    for (const method of ['GET', 'DELETE']) {
      const res = await call(method, `/api/v1/learned-programs/${product.id}`);
      expect([method, res.status, res.headers.get('content-type')]).toEqual([
        method,
        404,
        expect.stringContaining('application/problem+json'),
      ]);
    }
    const after = (await call('GET', `/api/v1/learned-programs?host=${encodeURIComponent(host)}`)).body.learned_programs;
    expect(after.map((p: any) => p.id)).toEqual(programs.filter((p) => p.id !== product.id).map((p) => p.id));
    expect((await call('GET', '/api/v1/learned-programs/lt_000000000000000000000000')).status).toBe(404);
  });

  it("puts the request's warnings on every page's result item (issue 40)", async () => {
    const started = await crawl({
      url: env.play.url('shop.test', '/catalog/page/1'),
      schema: { name: 'string', price: 'numbr' },
      options: { max_depth: 0, max_pages: 1 },
    });
    expect(started.status).toBe(202);
    expect((await finished(started.body.job_id)).status).toBe('completed');
    const items = await results(started.body.job_id);
    expect(items).toHaveLength(1);
    expect(items[0].warnings).toEqual([
      {
        code: 'schema_type_misspelled',
        message: '"numbr" is not a type name, so this is a text field described as "numbr"; did you mean number?',
        location: 'body.schema.price',
      },
    ]);
  });

  it('extraction_mode auto with a model that answers more fields than a partial call asks: keeps the asked ones, warns model_extra_fields (issue 40, 11a)', async () => {
    // The page's own URL is on no page, so no rule reads it: once the rules of the other fields are trusted, each
    // page asks the model for page_url alone (a partial call). The model (Ollama's protocol, no strict JSON mode:
    // the model server's every-field) answers every field it was asked for before, too.
    const since = env.models.requests.length;
    const started = await crawl({
      url: env.play.url('shop.test', '/product/1'),
      schema: { ...PRODUCT_SCHEMA, page_url: 'string' },
      llm_config: { provider: 'ollama', model: 'every-field', base_url: env.models.openaiBaseUrl },
      extraction_mode: 'auto',
      options: { follow_selector: '.related a', max_depth: 10, max_pages: 11, concurrency: 1 },
    });
    expect([started.status, started.body]).toEqual([202, expect.objectContaining({ job_id: expect.any(String) })]);
    const job = await finished(started.body.job_id);
    expect(job).toMatchObject({ status: 'completed', page_count: 11, failed_count: 0 });
    const partialCalls = env.models.requests
      .slice(since)
      .filter((r) => r.model === 'every-field' && Object.keys(r.schema?.properties ?? {}).join() === 'page_url');
    expect(partialCalls.length).toBeGreaterThan(0);
    const items = await results(job.id);
    expect(items).toHaveLength(11);
    const mixed = items.filter((i) => i.metadata.method === 'mixed');
    // Each partial call is one mixed page: its asked field from the model, the others from the rules.
    expect(mixed).toHaveLength(partialCalls.length);
    for (const item of items) {
      const id = Number(/\/product\/(\d+)$/.exec(item.url)![1]);
      const { name, price, sku } = product(id);
      expect({ id, data: item.data }).toEqual({ id, data: { name, price, sku, page_url: item.url } });
    }
    for (const item of mixed) {
      expect(item.metadata).toMatchObject({ model_call: 'partial', model_fields: ['page_url'] });
      expect(item.warnings).toEqual([
        {
          code: 'model_extra_fields',
          message:
            'ollama/every-field was asked for some fields only and also answered name, price, sku: those were dropped, the fields asked for kept.',
          location: null,
        },
      ]);
    }
    for (const item of items.filter((i) => i.metadata.method !== 'mixed')) expect(item.warnings).toEqual([]);
  });

  it('stops at exactly max_pages (concurrency above it), the rest skipped with max_pages', async () => {
    const since = Date.now();
    const started = await crawl({
      url: env.play.url('shop.test', '/catalog/page/1'),
      options: { follow_selector: 'li.next a, a.product', max_depth: 10, max_pages: 7, concurrency: 12 },
    });
    const job = await finished(started.body.job_id);
    expect(job).toMatchObject({ status: 'completed', page_count: 7, urls_queued: 7 });
    expect(await results(job.id)).toHaveLength(7);
    expect(pageRequests('shop.test', since)).toHaveLength(7);
    const m = await map(job.id);
    expect(m.completed).toBe(7);
    expect(m.skipped).toBeGreaterThan(0);
    expect(m.skipped_by_reason.max_pages).toBeGreaterThan(0);
    expect(m.entries.filter((e: any) => e.status === 'skipped').every((e: any) => e.error_category === 'max_pages')).toBe(true);
    expect(m.pending + m.running).toBe(0);
  });

  it('honours max_depth, follow_pattern, include/exclude patterns and extract_from_seed', async () => {
    const depth0 = await finished(
      (await crawl({ url: env.play.url('shop.test', '/catalog/page/1'), options: { max_depth: 0 } })).body.job_id,
    );
    expect(depth0.page_count).toBe(1);
    expect(
      (await map(depth0.id)).entries.filter((e: any) => e.status === 'skipped').every((e: any) => e.error_category === 'max_depth'),
    ).toBe(true);

    const patterned = await finished(
      (
        await crawl({
          url: env.play.url('shop.test', '/catalog/page/1'),
          options: {
            max_depth: 1,
            max_pages: 50,
            follow_pattern: '/product/\\d+$',
            include_patterns: ['/product/[1-5]$', '/product/1\\d$'],
            exclude_patterns: ['/product/1[5-9]$'],
            extract_from_seed: false,
          },
        })
      ).body.job_id,
    );
    const urls = (await results(patterned.id))
      .map((i: any) => i.url.replace(/^.*\/product\//, ''))
      .sort((a: string, b: string) => Number(a) - Number(b));
    // Page 1 lists products 1-10: include keeps 1-5 and 10, exclude drops none of them; the seed is not extracted.
    expect(urls).toEqual(['1', '2', '3', '4', '5', '10']);
    const m = await map(patterned.id);
    expect(m.entries[0]).toMatchObject({ depth: 0, status: 'completed', result_id: null });
    expect(m.entries.find((e: any) => e.url.endsWith('/product/7'))).toMatchObject({ status: 'skipped', error_category: 'filtered' });
    expect(m.entries.find((e: any) => e.url.endsWith('/catalog/page/2'))).toMatchObject({ status: 'skipped', error_category: 'filtered' });
  });

  it('keeps to the domain with same_domain_only, leaves it without', async () => {
    const inside = await finished(
      (await crawl({ url: env.play.url('shop.test', '/'), options: { max_depth: 1, max_pages: 20 } })).body.job_id,
    );
    const insideMap = await map(inside.id);
    expect(insideMap.entries.find((e: any) => e.url.startsWith('http://other.test'))).toMatchObject({
      status: 'skipped',
      error_category: 'filtered',
    });
    const outside = await finished(
      (await crawl({ url: env.play.url('shop.test', '/'), options: { max_depth: 1, max_pages: 20, same_domain_only: false } })).body.job_id,
    );
    expect((await map(outside.id)).entries.find((e: any) => e.url.startsWith('http://other.test'))).toMatchObject({ status: 'completed' });
  });

  it('respects robots.txt (Disallow) unless told not to', async () => {
    const polite = await finished(
      (await crawl({ url: env.play.url('shop.test', '/'), options: { max_depth: 1, max_pages: 20 } })).body.job_id,
    );
    const entry = (await map(polite.id)).entries.find((e: any) => e.url.endsWith('/private/secret'));
    expect(entry).toMatchObject({ status: 'skipped', error_category: 'robots' });
    expect(entry.error_message).toMatch(/robots\.txt disallows/);
    const rude = await finished(
      (await crawl({ url: env.play.url('shop.test', '/'), options: { max_depth: 1, max_pages: 20, respect_robots: false } })).body.job_id,
    );
    expect((await map(rude.id)).entries.find((e: any) => e.url.endsWith('/private/secret'))).toMatchObject({ status: 'completed' });
  });

  it('reads the sitemap index (a gzip and a plain sitemap) with use_sitemap, filtering off-site entries', async () => {
    const job = await finished(
      (
        await crawl({
          url: env.play.url('shop.test', '/about'),
          options: { use_sitemap: true, max_depth: 1, max_pages: 200, follow_pattern: '^$' },
        })
      ).body.job_id,
    );
    const m = await map(job.id);
    const products = m.entries.filter((e: any) => /\/product\/\d+$/.test(e.url));
    expect(products).toHaveLength(SHOP_PRODUCTS);
    expect(products.every((e: any) => e.status === 'completed' && e.depth === 1 && /sitemaps\/products-\d\.xml/.test(e.parent_url))).toBe(
      true,
    );
    // Both sitemaps list the same off-site URL: one entry, skipped.
    expect(m.entries.filter((e: any) => e.url.startsWith('http://other.test'))).toEqual([
      expect.objectContaining({ status: 'skipped', error_category: 'filtered' }),
    ]);
    expect(job.page_count).toBe(SHOP_PRODUCTS + 1);
  });

  it('fetches a URL once however it is spelled, and once more only never through a redirect to it', async () => {
    const since = Date.now();
    const job = await finished(
      (await crawl({ url: env.play.url('shop.test', '/spellings'), options: { max_depth: 1, max_pages: 20 } })).body.job_id,
    );
    const fetched = pageRequests('shop.test', since).map((r) => r.path);
    expect(fetched.filter((p) => p === '/product/3')).toHaveLength(1);
    expect(fetched.filter((p) => p === '/product/4')).toHaveLength(1);
    const items = await results(job.id);
    expect(items.filter((i: any) => i.url.endsWith('/product/3'))).toHaveLength(1);
    const m = await map(job.id);
    expect(m.entries.filter((e: any) => e.url.endsWith('/product/3'))).toHaveLength(1);
    expect(m.entries.find((e: any) => e.url.endsWith('/redirect/to-3'))).toMatchObject({ status: 'skipped', error_category: 'duplicate' });
  });

  it('follows redirect chains, fails loops, refuses off-site redirects before any request and forbidden targets always', async () => {
    const since = Date.now();
    const job = await finished(
      (await crawl({ url: env.play.url('shop.test', '/redirects'), options: { max_depth: 1, max_pages: 20 } })).body.job_id,
    );
    expect(job.status).toBe('completed');
    const m = await map(job.id);
    const byPath = (p: string) => m.entries.find((e: any) => e.url === env.play.url('shop.test', p));
    expect(byPath('/redirect/a')).toMatchObject({ status: 'completed', final_url: env.play.url('shop.test', '/product/7') });
    expect(byPath('/product/7')).toMatchObject({ status: 'skipped', error_category: 'duplicate' });
    expect(byPath('/redirect/loop1')).toMatchObject({
      status: 'failed',
      error_category: 'fetch_error',
      error_message: expect.stringMatching(/loop/),
    });
    expect(byPath('/redirect/offsite')).toMatchObject({ status: 'skipped', error_category: 'filtered' });
    expect(byPath('/redirect/evil')).toMatchObject({ status: 'skipped', error_category: 'filtered' });
    expect(byPath('/missing')).toMatchObject({ status: 'failed', error_category: 'http_error', http_status: 404 });
    expect(byPath('/boom')).toMatchObject({ status: 'failed', error_category: 'http_error', http_status: 500 });
    expect(env.play.requests.filter((r) => r.host === 'other.test' && r.at >= since)).toEqual([]);
    expect(m.error_summary).toEqual({ by_category: { fetch_error: 1, http_error: 2 }, has_rate_limit: false, total: 3 });
    const failedItems = (await results(job.id)).filter((i: any) => i.status === 'failed');
    expect(failedItems.map((i: any) => i.error_category).sort()).toEqual(['fetch_error', 'http_error', 'http_error']);
    // Each failed page is also an `error` event on the stream (the crawl went on).
    const stream = await readSse(`${env.app.baseUrl}/api/v1/jobs/${job.id}/stream`, { key: env.app.adminKey });
    const errors = stream.events.filter((e) => e.event === 'error');
    expect(errors.map((e) => e.data.error_category).sort()).toEqual(['fetch_error', 'http_error', 'http_error']);
    expect(errors[0].data).toMatchObject({ job_id: job.id, url: expect.any(String), error_message: expect.any(String) });

    // Without same_domain_only the redirect to a private address is followed as far as the address guard: refused.
    const open = await finished(
      (await crawl({ url: env.play.url('shop.test', '/redirects'), options: { max_depth: 1, max_pages: 20, same_domain_only: false } }))
        .body.job_id,
    );
    const evil = (await map(open.id)).entries.find((e: any) => e.url === env.play.url('shop.test', '/redirect/evil'));
    expect(evil).toMatchObject({ status: 'failed', error_category: 'ssrf_blocked' });
  });

  it('gets out of a link trap (an endless calendar) at max_pages', async () => {
    const job = await finished(
      (await crawl({ url: env.play.url('shop.test', '/calendar/2026-01'), options: { max_depth: 10, max_pages: 8, concurrency: 2 } })).body
        .job_id,
    );
    expect(job).toMatchObject({ status: 'completed', page_count: 8 });
  });

  it('streams status, one result per page and exactly one complete; resumes with Last-Event-ID; signs and sends job.page webhooks', async () => {
    const secret = 'crawl-webhook-secret';
    const started = await crawl({
      url: env.play.url('shop.test', '/catalog/page/1'),
      options: { follow_selector: 'a.product', max_depth: 1, max_pages: 6 },
      webhook: { url: `${env.receiver.url}/ok`, secret },
    });
    const jobId = started.body.job_id;
    const first = await readSse(`${env.app.baseUrl}/api/v1/jobs/${jobId}/stream`, { key: env.app.adminKey, stopAfter: 3 });
    const rest = await readSse(`${env.app.baseUrl}/api/v1/jobs/${jobId}/stream`, {
      key: env.app.adminKey,
      lastEventId: first.events[2].id,
    });
    const events = [...first.events, ...rest.events];
    const ids = events.map((e) => e.id!);
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids).toEqual([...ids].sort((a, b) => a - b));
    expect(events.filter((e) => e.event === 'complete')).toHaveLength(1);
    expect(events[events.length - 1]).toMatchObject({ event: 'complete', data: { job_id: jobId, status: 'completed', page_count: 6 } });
    const pages = events.filter((e) => e.event === 'result');
    expect(pages).toHaveLength(6);
    expect(pages[0].data).toMatchObject({ status: 'completed', depth: expect.any(Number), token_usage_input: expect.any(Number) });
    for (const page of pages) expect(page.data.metadata).toEqual({ method: 'model', fields: expect.any(Object), ungrounded_fields: 0 });
    expect(events.some((e) => e.event === 'status' && e.data.urls_queued > 0)).toBe(true);
    // The status events count pages by method (a crawl in extraction_mode model: every page a model call).
    const lastStatus = events.filter((e) => e.event === 'status').pop()!;
    expect(lastStatus.data).toMatchObject({
      pages_by_method: { model: 6, selectors: 0, mixed: 0 },
      model_calls: 6,
      model_calls_by_kind: { full: 6, partial: 0 },
    });

    const hooks = await waitFor(async () => {
      const got = env.receiver.requests.filter((r) => r.json?.job_id === jobId);
      return got.some((r) => r.json.type === 'job.completed') ? got : null;
    });
    expect(hooks.map((r) => r.json.type)).toEqual(['job.started', ...Array(6).fill('job.page'), 'job.completed']);
    for (const hook of hooks) {
      const [version, signature] = String(hook.headers['webhook-signature']).split(',');
      const signed = `${hook.headers['webhook-id']}.${hook.headers['webhook-timestamp']}.${hook.body}`;
      expect(version).toBe('v1');
      expect(signature).toBe(createHmac('sha256', secret).update(signed).digest('base64'));
    }
    const pageUrls = hooks.filter((h) => h.json.type === 'job.page').map((h) => h.json.data.url);
    expect(new Set(pageUrls).size).toBe(6);
    for (const hook of hooks.filter((h) => h.json.type === 'job.page'))
      expect(hook.json.data.metadata).toEqual({ method: 'model', fields: expect.any(Object), ungrounded_fields: 0 });
  });

  it('cancels: nothing new starts, one cancelled terminal event, no page event after it, the map is closed', async () => {
    const gate = `cancel-${Date.now()}`;
    const started = await crawl({
      url: env.play.url('shop.test', `/gate/${gate}-seed`),
      options: { max_depth: 1, max_pages: 10, concurrency: 1, extract_from_seed: true },
    });
    const jobId = started.body.job_id;
    await waitFor(async () => env.play.held(`${gate}-seed`) > 0);
    const cancelled = await call('POST', `/api/v1/jobs/${jobId}/cancel`);
    expect(cancelled.status).toBe(200);
    const cancelledAt = Date.now();
    env.play.openGate(`${gate}-seed`);
    const job = await finished(jobId);
    expect(job.status).toBe('cancelled');
    const m = await waitFor(async () => {
      const now = await map(jobId);
      return now.pending + now.running === 0 ? now : null;
    });
    expect(m.entries.every((e: any) => e.status !== 'pending' && e.status !== 'running')).toBe(true);
    expect(m.skipped_by_reason.cancelled).toBe(m.entries.filter((e: any) => e.error_category === 'cancelled').length);
    const stream = await readSse(`${env.app.baseUrl}/api/v1/jobs/${jobId}/stream`, { key: env.app.adminKey });
    expect(stream.events.filter((e) => e.event === 'complete')).toEqual([
      expect.objectContaining({ data: expect.objectContaining({ status: 'cancelled' }) }),
    ]);
    expect(stream.events.filter((e) => e.event === 'result')).toEqual([]);
    expect(env.play.requests.filter((r) => r.host === 'shop.test' && r.path.startsWith('/gate/') && r.at > cancelledAt)).toEqual([]);
    expect((await call('POST', `/api/v1/jobs/${jobId}/cancel`)).status).toBe(409);
  });

  it('crawls a pending entry an earlier owner stored behind its position (a stale owner’s last children) instead of closing it unfetched', async () => {
    const gate = `stale-${Date.now()}`;
    const started = await crawl({
      url: env.play.url('shop.test', `/gate/${gate}`),
      options: { max_depth: 1, max_pages: 10, concurrency: 1 },
    });
    const jobId = started.body.job_id;
    // The seed is in flight, so the owner has read the store past it.
    await waitFor(async () => env.play.held(gate) > 0);
    const repository = env.app.app.get(CrawlRepository);
    const [seed, ...others] = await repository.entries.running(jobId);
    expect([seed, others]).toMatchObject([{ status: 'running', seq: 1 }, []]);
    // What a stale owner's last insert looks like: a child under a sequence number the owner already passed.
    const child = canonicalize(env.play.url('shop.test', '/product/3'))!;
    const duplicates = await repository.entries.insertEntries([
      {
        ...seed,
        _id: `${jobId}:${child.key}`,
        key: child.key,
        url: child.url,
        host: child.host,
        depth: 1,
        parent_url: seed.url,
        seq: 1,
        via: 'link',
        status: 'pending',
        ticket: `~${child.key}`,
        admitted: false,
        lease_epoch: 0,
        dispatch: 0,
      },
    ]);
    expect([...duplicates]).toEqual([]);
    env.play.openGate(gate);
    const job = await finished(jobId);
    expect(job).toMatchObject({ status: 'completed', page_count: 2, failed_count: 0 });
    const entry = (await map(jobId)).entries.find((e: any) => e.url === child.url);
    expect(entry).toMatchObject({ status: 'completed' });
    expect((await results(jobId)).map((r) => r.url).sort()).toEqual([child.url, env.play.url('shop.test', `/gate/${gate}`)].sort());
  });

  it('wait=true answers 200 with the merged items when the crawl ends in time, 202 when it does not', async () => {
    const done = await crawl(
      { url: env.play.url('shop.test', '/catalog/page/1'), options: { follow_selector: 'a.product', max_depth: 1, max_pages: 3 } },
      '?wait=true&timeout=60',
    );
    expect(done.status).toBe(200);
    expect(done.body).toMatchObject({ status: 'completed', page_count: 3 });
    expect(done.body.data.items).toHaveLength(3);
    expect(done.body.duration_ms).toBeGreaterThanOrEqual(0);
    const gate = `wait-${Date.now()}`;
    const held = await crawl({ url: env.play.url('shop.test', `/gate/${gate}`), options: { max_depth: 0 } }, '?wait=true&timeout=10');
    expect(held.status).toBe(202);
    expect(held.body).toMatchObject({ status: 'running', data: {} });
    env.play.openGate(gate);
    expect((await finished(held.body.job_id)).status).toBe('completed');
  });

  it('without a schema stores every page in the requested formats: no model call, no cost, in results, merge, map, SSE and exports', async () => {
    const host = 'h90.test';
    const seed = env.play.url(host, '/');
    const calls = env.models.requests.length;
    const started = await call('POST', '/api/v1/crawl?wait=true&timeout=60', {
      body: { url: seed, formats: ['markdown', 'links', 'page_info', 'links'], options: { max_depth: 1 } },
    });
    expect(started.status).toBe(200);
    expect(started.body).toMatchObject({ status: 'completed', page_count: 4, cost_usd: 0, token_usage: { input: 0, output: 0 } });
    // merge=true: one item per page, its URL and its formats (its links are not items).
    expect(started.body.data.items).toHaveLength(4);
    expect(started.body.data.items.map((i: any) => i.url).sort()).toEqual(
      [seed, ...[1, 2, 3].map((n) => env.play.url(host, `/p/${n}`))].sort(),
    );
    expect(env.models.requests.length).toBe(calls);

    const jobId = started.body.job_id;
    const job = (await call('GET', `/api/v1/jobs/${jobId}`)).body;
    expect(job).toMatchObject({ model_calls: 0, pages_by_method: { model: 0, selectors: 0, mixed: 0, scrape: 4 } });
    const items = await results(jobId);
    const home = items.find((i) => i.url === seed);
    expect(Object.keys(home.data).sort()).toEqual(['links', 'markdown', 'page_info']);
    expect(home.data.markdown).toContain(`Name: ${host}`);
    expect(home.data.links.map((l: any) => l.url)).toEqual([1, 2, 3].map((n) => env.play.url(host, `/p/${n}`)));
    expect(home.data.links[0].text).toBe('p1');
    expect(home.data.page_info).toMatchObject({ title: `${host} home`, status_code: 200, content_type: 'text/html' });
    expect(home.metadata).toMatchObject({ method: 'scrape', status_code: 200, content_type: 'text/html', fetch_mode: 'static' });
    expect(home.metadata.llm_model).toBeUndefined();
    const page2 = items.find((i) => i.url === env.play.url(host, '/p/2'));
    expect(page2.data.markdown).toContain(`Name: ${host} page 2`);

    const m = await map(jobId);
    expect(m.extracted_by_method).toEqual({ model: 0, selectors: 0, mixed: 0, scrape: 4 });
    expect(m.entries.every((e: any) => e.method === 'scrape' && e.model_call === null)).toBe(true);

    const stream = await readSse(`${env.app.baseUrl}/api/v1/jobs/${jobId}/stream`, { key: env.app.adminKey });
    const events = stream.events.filter((e) => e.event === 'result');
    expect(events).toHaveLength(4);
    expect(events.every((e) => typeof e.data.data?.markdown === 'string')).toBe(true);

    const jsonl = await call('GET', `/api/v1/jobs/${jobId}/results?format=jsonl`);
    expect(jsonl.status).toBe(200);
    const lines = jsonl.text
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(lines).toHaveLength(4);
    expect(lines.every((l: any) => typeof l.data.markdown === 'string')).toBe(true);
  });

  it('refuses formats beside a schema, a screenshot without the browser, and format options without formats', async () => {
    const url = env.play.url('h91.test', '/');
    const both = await crawl({ url, formats: ['markdown'] });
    expect(both.status).toBe(422);
    expect(both.body.errors).toEqual([expect.objectContaining({ location: 'body.formats' })]);
    const shot = await call('POST', '/api/v1/crawl', { body: { url, formats: ['screenshot'], options: { fetch_mode: 'static' } } });
    expect(shot.status).toBe(422);
    expect(shot.body.errors[0]).toMatchObject({ location: 'body.formats', message: expect.stringContaining('needs the browser') });
    const stray = await crawl({ url, only_main_content: false });
    expect(stray.status).toBe(422);
    expect(stray.body.errors[0]).toMatchObject({ location: 'body.only_main_content' });
    const unknown = await call('POST', '/api/v1/crawl', { body: { url, formats: ['pdf'] } });
    expect(unknown.status).toBe(422);
    expect(unknown.body.errors[0]).toMatchObject({ location: 'body.formats' });
    expect(env.play.requests.some((r) => r.host === 'h91.test')).toBe(false);
  });

  it('fetch control under options: headers, cookies and User-Agent reach the seed host only, and are never stored', async () => {
    const since = Date.now();
    const started = await crawl({
      url: env.play.url('auth.test', '/'),
      options: {
        max_depth: 1,
        same_domain_only: false,
        fetch_mode: 'static',
        headers: { 'X-Key': 'k' },
        cookies: { session: 'abc' },
        user_agent: 'GleanerTest/1.0',
      },
    });
    expect(started.status).toBe(202);
    const job = await finished(started.body.job_id);
    expect(job).toMatchObject({ status: 'completed', page_count: 3, failed_count: 0 });
    const auth = env.play.requests.filter((r) => r.host === 'auth.test' && r.at >= since && r.path !== '/robots.txt');
    expect(auth.map((r) => r.path).sort()).toEqual(['/', '/away', '/p/1']);
    expect(auth.every((r) => r.cookie === 'session=abc' && r.key === 'k' && r.userAgent === 'GleanerTest/1.0')).toBe(true);
    // /away redirected to another host: it got neither the cookie nor the header.
    const other = env.play.requests.filter((r) => r.host === 'other.test' && r.at >= since);
    expect(other.length).toBeGreaterThan(0);
    expect(other.every((r) => r.cookie === undefined && r.key === undefined)).toBe(true);
    const shown = JSON.stringify((await call('GET', `/api/v1/jobs/${job.id}`)).body);
    expect(shown).toContain('GleanerTest/1.0');
    expect(shown).not.toContain('X-Key');
    expect(shown).not.toContain('session');
    expect(job.options).toMatchObject({ headers: null, cookies: null, user_agent: 'GleanerTest/1.0' });

    const bad = await crawl({ url: env.play.url('auth.test', '/'), options: { headers: { Host: 'x' } } });
    expect(bad.status).toBe(422);
  });

  it("a saved site's headers and cookies: sealed in the store, shown masked, sent to the seed host only, under a request's own", async () => {
    const { session, key } = AUTH_SITE_SECRETS;
    const created = await call('POST', '/api/v1/sites', {
      body: {
        url: env.play.url('auth.test', '/'),
        crawl_options: {
          headers: { 'X-Key': key },
          cookies: { session },
          user_agent: 'SiteAgent/1',
          max_depth: 1,
          same_domain_only: false,
          fetch_mode: 'static',
        },
      },
    });
    expect(created.status).toBe(201);
    const siteId = created.body.id;
    expect(created.body.crawl_options).toMatchObject({
      headers: { 'X-Key': '••••' },
      cookies: { session: '••••' },
      user_agent: 'SiteAgent/1',
    });
    const shown = await call('GET', `/api/v1/sites/${siteId}`);
    expect(shown.body.crawl_options).toEqual(created.body.crawl_options);
    for (const text of [created.text, shown.text]) expect(text).not.toMatch(new RegExp(`${session}|${key}`));
    // Read from the store itself: only ciphertext.
    const store = env.app.app.get<symbol, DocumentStore>(DOCUMENT_STORE);
    const record = await (await store.collection<SiteRecord>({ name: 'sites', indexes: [] })).findOne({ _id: siteId });
    expect(record).toMatchObject({
      fetch_secret_names: { headers: ['X-Key'], cookies: ['session'] },
      fetch_secrets_sealed: expect.any(String),
    });
    expect(JSON.stringify(record)).not.toMatch(new RegExp(`${session}|${key}`));

    // A crawl of the site (its URL, its options): the site's cookie and header reach auth.test, not the redirect to other.test.
    const since = Date.now();
    const job = await finished((await crawl({ site_id: siteId })).body.job_id);
    expect(job).toMatchObject({ status: 'completed', page_count: 3, failed_count: 0 });
    const auth = env.play.requests.filter((r) => r.host === 'auth.test' && r.at >= since && r.path !== '/robots.txt');
    expect(auth.map((r) => r.path).sort()).toEqual(['/', '/away', '/p/1']);
    expect(auth.every((r) => r.cookie === `session=${session}` && r.key === key && r.userAgent === 'SiteAgent/1')).toBe(true);
    const other = env.play.requests.filter((r) => r.host === 'other.test' && r.at >= since);
    expect(other.length).toBeGreaterThan(0);
    expect(other.every((r) => r.cookie === undefined && r.key === undefined)).toBe(true);
    expect(job.options).toMatchObject({ headers: null, cookies: null, user_agent: 'SiteAgent/1' });
    const jobs = await store.collection({ name: 'jobs', indexes: [] });
    expect(JSON.stringify(await jobs.findOne({ _id: job.id }))).not.toMatch(new RegExp(`${session}|${key}`));
    expect(JSON.stringify(await results(job.id))).not.toMatch(new RegExp(`${session}|${key}`));

    // A request's own cookie wins over the site's cookie of that name; the site's header still goes.
    const mineSince = Date.now();
    const mine = await finished((await crawl({ site_id: siteId, options: { cookies: { session: 'abc' }, max_depth: 0 } })).body.job_id);
    expect(mine).toMatchObject({ status: 'completed', page_count: 1, failed_count: 0 });
    const seen = env.play.requests.filter((r) => r.host === 'auth.test' && r.at >= mineSince && r.path !== '/robots.txt');
    expect(seen.map((r) => [r.path, r.cookie, r.key])).toEqual([['/', 'session=abc', key]]);

    // The site's headers and cookies belong to its host: a seed elsewhere is refused, nothing is sent there.
    const elsewhereSince = Date.now();
    const elsewhere = await crawl({ site_id: siteId, url: env.play.url('other.test', '/') });
    expect(elsewhere.status).toBe(422);
    expect(elsewhere.body.errors).toEqual([
      expect.objectContaining({ location: 'body.url', message: expect.stringContaining('only sent to its own host (auth.test') }),
    ]);
    expect(env.play.requests.filter((r) => r.host === 'other.test' && r.at >= elsewhereSince)).toEqual([]);

    // Never logged, on either side of the crawl.
    expect(env.app.logs.text).not.toMatch(new RegExp(`${session}|${key}`));
  });

  it('stops starting pages at max_cost_usd; pages in flight finish; the job says budget_exceeded', async () => {
    const job = await finished(
      (
        await crawl({
          url: env.play.url('shop.test', '/catalog/page/1'),
          options: { follow_selector: 'li.next a, a.product', max_depth: 10, max_pages: 100, concurrency: 1, max_cost_usd: 0.0002 },
        })
      ).body.job_id,
    );
    expect(job).toMatchObject({ status: 'completed', error_category: 'budget_exceeded' });
    expect(job.cost_usd).toBeGreaterThanOrEqual(0.0002);
    expect(job.page_count).toBeLessThan(10);
    const m = await map(job.id);
    expect(m.skipped_by_reason.budget_exceeded).toBeGreaterThan(0);
  });

  it('pauses a host that answers 429 for every request until Retry-After, then completes its pages', async () => {
    env.play.limit('limited.test', { count: 2, status: 429, retryAfter: 1 });
    const job = await finished(
      (await crawl({ url: env.play.url('limited.test', '/'), options: { max_depth: 1, max_pages: 20, concurrency: 4 } })).body.job_id,
    );
    env.play.unlimit('limited.test');
    expect(job).toMatchObject({ status: 'completed', page_count: 7, failed_count: 0 });
    expect((await map(job.id)).entries[0]).toMatchObject({ status: 'completed', rate_limited: true });
    const m = await map(job.id);
    expect(m.error_summary.has_rate_limit).toBe(true);
    expect(m.entries.some((e: any) => e.rate_limited)).toBe(true);
    // From the site's side: after each 429, nothing arrived for the Retry-After second.
    const seen = env.play.requestsTo('limited.test').filter((r) => r.path !== '/robots.txt');
    for (const limited of seen.filter((r) => r.status === 429)) {
      const next = seen.find((r) => r.at > limited.at && r.status !== 429);
      if (next) expect(next.at - limited.at).toBeGreaterThanOrEqual(1000);
    }
  });

  it('spaces requests to a host by delay_ms and by robots Crawl-delay', async () => {
    const delayed = await finished(
      (
        await crawl({
          url: env.play.url('shop.test', '/catalog/page/1'),
          options: { follow_selector: 'a.product', max_depth: 1, max_pages: 4, delay_ms: 300, concurrency: 4 },
        })
      ).body.job_id,
    );
    const arrivals = pageRequests('shop.test', Date.parse(delayed.started_at))
      .filter((r) => Date.parse(delayed.completed_at) >= r.at)
      .map((r) => r.at);
    for (let i = 1; i < arrivals.length; i++) expect(arrivals[i] - arrivals[i - 1]).toBeGreaterThanOrEqual(300);
    const slow = await finished(
      (await crawl({ url: env.play.url('slow.test', '/'), options: { max_depth: 3, max_pages: 4, concurrency: 4 } })).body.job_id,
    );
    expect(slow.page_count).toBe(4);
    const slowArrivals = env.play
      .requestsTo('slow.test')
      .filter((r) => r.path !== '/robots.txt')
      .map((r) => r.at);
    for (let i = 1; i < slowArrivals.length; i++) expect(slowArrivals[i] - slowArrivals[i - 1]).toBeGreaterThanOrEqual(1000);
  });

  it('skips the pages of a host whose Crawl-delay is over the maximum, saying why', async () => {
    const job = await finished((await crawl({ url: env.play.url('veryslow.test', '/'), options: { max_depth: 1 } })).body.job_id);
    expect(job).toMatchObject({ status: 'failed', error_category: 'robots_disallowed' });
    expect((await map(job.id)).entries[0]).toMatchObject({
      status: 'skipped',
      error_category: 'robots',
      error_message: expect.stringMatching(/Crawl-delay of 600 s/),
    });
  });

  it('fails a crawl whose seed cannot be fetched, with the seed’s category', async () => {
    const job = await finished((await crawl({ url: env.play.url('shop.test', '/missing'), options: { max_depth: 1 } })).body.job_id);
    expect(job).toMatchObject({ status: 'failed', error_category: 'http_error' });
  });

  it('counts a page whose model call failed as a model call, not as a page by method', async () => {
    const started = await crawl({
      url: env.play.url('shop.test', '/catalog/page/1'),
      llm_config: { ...llm(), model: 'invalid-json' },
      options: { follow_selector: 'a.product', max_depth: 1, max_pages: 3, extract_from_seed: false },
    });
    const job = await finished(started.body.job_id);
    expect(job).toMatchObject({ status: 'completed', page_count: 0, pages_by_method: { model: 0, selectors: 0, mixed: 0 } });
    expect(job.failed_count).toBeGreaterThan(0);
    expect(job.model_calls).toBe(job.failed_count);
    expect((await map(job.id)).error_summary.by_category).toEqual({ llm_invalid_output: job.failed_count });
  });

  it('pages the map with limit, offset and status; whole-crawl totals stay', async () => {
    const job = await finished(
      (await crawl({ url: env.play.url('shop.test', '/catalog/page/1'), options: { max_depth: 1, max_pages: 5 } })).body.job_id,
    );
    const whole = await map(job.id);
    const page = await map(job.id, '?limit=3&offset=2');
    expect(page.entries.map((e: any) => e.id)).toEqual(whole.entries.slice(2, 5).map((e: any) => e.id));
    expect(page.total).toBe(whole.total);
    const skipped = await map(job.id, '?status=skipped&limit=1000');
    expect(skipped.entries.length).toBe(whole.skipped);
    expect(skipped.entries.every((e: any) => e.status === 'skipped')).toBe(true);
    for (const bad of ['?limit=0', '?limit=1001', '?offset=-1', '?status=done', '?limit=abc']) {
      const res = await call('GET', `/api/v1/jobs/${job.id}/crawl-map${bad}`);
      expect([bad, res.status]).toEqual([bad, 422]);
    }
  });

  it('refuses bad crawl requests with problem+json field errors, before any job exists', async () => {
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ url: 'ftp://x.test/' }, 'body.url'],
      [{ url: env.play.url('shop.test'), options: { follow_pattern: '(a' } }, 'body.options.follow_pattern'],
      [{ url: env.play.url('shop.test'), options: { include_patterns: ['(?=x)'] } }, 'body.options.include_patterns'],
      [{ url: env.play.url('shop.test'), options: { follow_selector: 'a[' } }, 'body.options.follow_selector'],
      [{ url: env.play.url('shop.test'), options: { max_pages: 100_001 } }, 'body.options.max_pages'],
      [{ url: env.play.url('shop.test'), options: { max_depth: 11 } }, 'body.options.max_depth'],
      [{ url: env.play.url('shop.test'), options: { concurrency: 33 } }, 'body.options.concurrency'],
      [{ url: env.play.url('shop.test'), options: { unknown_option: 1 } }, 'body.options.unknown_option'],
      [{ url: env.play.url('shop.test'), max_cost_usd: 1, options: { max_cost_usd: 2 } }, 'body.max_cost_usd'],
      [{ url: env.play.url('shop.test'), schema: undefined }, 'body.schema'],
    ];
    const before = (await call('GET', '/api/v1/jobs?limit=100')).body.jobs.length;
    for (const [body, location] of cases) {
      const res = await call('POST', '/api/v1/crawl', { body: { schema: PRODUCT_SCHEMA, llm_config: llm(), ...body } });
      expect([location, res.status, res.headers.get('content-type')]).toEqual([
        location,
        422,
        expect.stringContaining('application/problem+json'),
      ]);
      expect(res.body.errors.map((e: any) => e.location)).toContain(location);
    }
    for (const query of ['?timeout=5', '?timeout=121', '?wait=maybe']) {
      const res = await call('POST', `/api/v1/crawl${query}`, {
        body: { url: env.play.url('shop.test'), schema: PRODUCT_SCHEMA, llm_config: llm() },
      });
      expect([query, res.status]).toEqual([query, 422]);
    }
    expect((await call('GET', '/api/v1/jobs?limit=100')).body.jobs.length).toBe(before);
  });

  it('needs the crawl scope, and never shows a crawl (or its map) to another tenant', async () => {
    const scoped = await call('POST', '/api/v1/keys', { body: { name: 'extract only', scopes: ['extract', 'jobs'] } });
    const denied = await http(env.app.baseUrl, 'POST', '/api/v1/crawl', {
      key: scoped.body.key,
      body: { url: env.play.url('shop.test'), schema: PRODUCT_SCHEMA },
    });
    expect(denied.status).toBe(403);
    const job = await finished((await crawl({ url: env.play.url('shop.test', '/about'), options: { max_depth: 0 } })).body.job_id);
    const other = (await call('POST', '/api/v1/users', { body: { name: `crawl-tenant-${Date.now()}` } })).body.key.key;
    expect((await http(env.app.baseUrl, 'GET', `/api/v1/jobs/${job.id}/crawl-map`, { key: other })).status).toBe(404);
    const extracted = await call('POST', '/api/v1/extract', {
      body: { url: env.play.url('shop.test', '/about'), schema: PRODUCT_SCHEMA, llm_config: llm() },
    });
    expect(extracted.status).toBe(200);
    expect((await call('GET', `/api/v1/jobs/${extracted.body.job_id}/crawl-map`)).status).toBe(404);
  });

  it('crawls many hosts at once (names on loopback), each host its own politeness unit, with one owner throughout', async () => {
    const since = Date.now();
    const job = await finished(
      (
        await crawl({
          url: env.play.url('hub.test', '/?hosts=20'),
          options: { same_domain_only: false, max_depth: 2, max_pages: 200, concurrency: 16 },
        })
      ).body.job_id,
    );
    expect(job).toMatchObject({ status: 'completed', page_count: 1 + 20 * 4, failed_count: 0 });
    const hosts = new Set(env.play.requests.filter((r) => r.at >= since && /^h\d+\.test$/.test(r.host)).map((r) => r.host));
    expect(hosts.size).toBe(20);
    // Concurrent admissions never cost the owner its lease (epoch 1: no takeover, on either store).
    expect(await env.app.app.get(CrawlRepository).states.state(job.id)).toMatchObject({ epoch: 1 });
  });

  it('reads the robots.txt of newly found hosts ahead of admission, not one concurrency slot at a time', async () => {
    const from = Date.now() % 1_000_000_000; // fresh host names: gates stay open once opened
    const hosts = Array.from({ length: 6 }, (_, i) => `rh${from + i + 1}.test`);
    const started = await crawl({
      url: env.play.url('hub.test', `/?hosts=6&prefix=rh&from=${from}`),
      options: { same_domain_only: false, max_depth: 1, max_pages: 50, concurrency: 1 },
    });
    // Every robots.txt is held until opened. Read on admission (one at a time here), only one would be waiting.
    const held = () => hosts.reduce((n, host) => n + env.play.held(`robots-${host}`), 0);
    await waitFor(async () => held() === hosts.length, 30_000);
    for (const host of hosts) env.play.openGate(`robots-${host}`);
    const job = await finished(started.body.job_id);
    expect(job).toMatchObject({ status: 'completed', page_count: 1 + hosts.length, failed_count: 0 });
    for (const host of hosts) expect([host, env.play.requestsTo(host, '/robots.txt').length]).toEqual([host, 1]);
  });

  it('reads robots.txt ahead for no more hosts than max_pages', async () => {
    const from = (Date.now() % 1_000_000_000) + 1_000_000_000; // fresh host names, apart from the test above
    const hosts = Array.from({ length: 6 }, (_, i) => `rh${from + i + 1}.test`);
    const started = await crawl({
      url: env.play.url('hub.test', `/?hosts=6&prefix=rh&from=${from}`),
      options: { same_domain_only: false, max_depth: 1, max_pages: 3, concurrency: 1 },
    });
    // max_pages 3: the hub and two hosts. Only their robots.txt is read ahead; the other hosts' is not.
    await waitFor(async () => env.play.held(`robots-${hosts[0]}`) + env.play.held(`robots-${hosts[1]}`) === 2, 30_000);
    // Admission itself may still look at one more host before it finds max_pages reached.
    for (const host of hosts) env.play.openGate(`robots-${host}`);
    const job = await finished(started.body.job_id);
    expect(job).toMatchObject({ status: 'completed', page_count: 3 });
    const robots = hosts.map((host) => env.play.requestsTo(host, '/robots.txt').length);
    expect(robots.slice(0, 2)).toEqual([1, 1]);
    expect(robots[2]).toBeLessThanOrEqual(1);
    expect(robots.slice(3)).toEqual([0, 0, 0]);
  });

  it('admits exactly max_pages when it spans several blocks of admission tickets', async () => {
    const job = await finished(
      (
        await crawl({
          url: env.play.url('hub.test', '/?hosts=20'),
          options: { same_domain_only: false, max_depth: 2, max_pages: 37, concurrency: 16 },
        })
      ).body.job_id,
    );
    expect(job).toMatchObject({ status: 'completed', page_count: 37, urls_queued: 37 });
    expect(await results(job.id)).toHaveLength(37);
    const m = await map(job.id);
    expect(m.completed).toBe(37);
    expect(m.skipped_by_reason.max_pages).toBeGreaterThan(0);
    expect(await env.app.app.get(CrawlRepository).states.state(job.id)).toMatchObject({ epoch: 1, admitted: 37 });
  });

  it('records the model prompts of every page with capture_debug', async () => {
    const job = await finished(
      (
        await crawl({
          url: env.play.url('shop.test', '/catalog/page/1'),
          capture_debug: true,
          options: { follow_selector: 'a.product', max_depth: 1, max_pages: 3 },
        })
      ).body.job_id,
    );
    const captures = (await call('GET', `/api/v1/jobs/${job.id}/debug-capture`)).body;
    expect(captures).toMatchObject({ job_id: job.id, enabled: true });
    expect(captures.captures).toHaveLength(3);
    expect(captures.captures[0]).toMatchObject({
      job_type: 'crawl',
      request: { provider: 'openai', model: 'gpt-4o-mini' },
      response: { success: true },
    });
    expect(JSON.stringify(captures)).not.toContain('sk-crawl-test');
  });

  it('uses a saved site (url, crawl options, default schema) under the request’s own fields', async () => {
    const schema = await call('POST', '/api/v1/schemas', {
      body: { name: `product-${Date.now()}`, schema_yaml: 'name: string\nsku: string\n', visibility: 'private' },
    });
    const site = await call('POST', '/api/v1/sites', {
      body: {
        url: env.play.url('shop.test', '/catalog/page/2'),
        default_schema_id: schema.body.id,
        crawl_options: { follow_selector: 'a.product', max_depth: 1, max_pages: 3 },
      },
    });
    expect(site.status).toBe(201);
    const started = await call('POST', '/api/v1/crawl', { body: { site_id: site.body.id, llm_config: llm(), options: { max_pages: 2 } } });
    expect(started.status).toBe(202);
    const job = await finished(started.body.job_id);
    expect(job).toMatchObject({ status: 'completed', page_count: 2, url: env.play.url('shop.test', '/catalog/page/2') });
    const items = await results(job.id);
    expect(Object.keys(items[1].data).sort()).toEqual(['name', 'sku']);
  });
}
