/**
 * `paginate` on crawls and batches end to end (docs/long-lists.md "Pagination"): each extracted page's list read over
 * its "next" pages into the page's one result, as an extract reads one page's (long-lists.suite.ts), with the crawl's
 * politeness (robots.txt read, a disallowed next page never fetched) and the same 422s. The pages are lists.test's
 * paged catalogues (`/paged/<layout>/<n>?pages=P`, 30 products a page; `fence=K`: page K is under robots.txt's
 * `Disallow: /private/`). Monitors take it too (docs/monitors.md "Paginated lists"): a list monitor keyed by an item
 * field diffs every item over the pages, and a page whose next pages did not change is unchanged without a model call.
 * Run on both deployments by long-lists.e2e-spec.ts.
 */
import { LIST_SCHEMA, product, products } from '../fixtures/long-lists';
import type { LongListsEnv } from './long-lists.suite';
import { http, waitFor } from './helpers';

const TERMINAL = ['completed', 'failed', 'cancelled'];

interface ResultItem {
  url: string;
  status: string;
  data: { title?: string; products: Array<{ sku: string }> };
  metadata: Record<string, any>;
  warnings: Array<{ code: string; message: string }>;
}

export function pagedListsSuite(getEnv: () => LongListsEnv): void {
  let env: LongListsEnv;
  const call = (method: string, path: string, opts: Parameters<typeof http>[3] = {}) =>
    http(env.app.baseUrl, method, path, { key: env.app.adminKey, ...opts });
  const llm = () => ({ provider: 'openai', model: 'gpt-4o-mini', api_key: 'sk-lists-test', base_url: env.models.openaiBaseUrl });
  const listUrl = (path: string) => env.play.url('lists.test', path);
  const skus = (n: number) => products(n).map((p) => p.sku);
  // The playground is shared by both deployments' runs: each run's pages have their own query.
  const tag = () => `run=${Math.random().toString(36).slice(2, 10)}`;
  const NEXT = { selector: 'li.next > a', max_pages: 10 };

  const results = async (path: string, body: Record<string, unknown>): Promise<{ jobId: string; items: ResultItem[] }> => {
    const res = await call('POST', path, { body });
    expect([res.status, res.status === 202 ? null : res.text]).toEqual([202, null]);
    const jobId = res.body.job_id as string;
    const job = await waitFor(async () => {
      const read = (await call('GET', `/api/v1/jobs/${jobId}`)).body;
      return TERMINAL.includes(read.status) ? read : null;
    }, 120_000);
    expect(job.status).toBe('completed');
    return { jobId, items: (await call('GET', `/api/v1/jobs/${jobId}/results`)).body as ResultItem[] };
  };

  beforeAll(() => {
    env = getEnv();
  });

  describe('paginate on crawls and batches', () => {
    it("crawl: the seed's list read over its 3 pages into the seed's one result; robots.txt read, each page fetched once", async () => {
      const q = `pages=3&${tag()}`;
      const seed = listUrl(`/paged/table/1?${q}`);
      const { jobId, items } = await results('/api/v1/crawl', {
        url: seed,
        schema: LIST_SCHEMA,
        llm_config: llm(),
        options: { max_pages: 1, fetch_mode: 'static' },
        paginate: NEXT,
      });
      expect(items).toHaveLength(1);
      const [item] = items;
      expect(item.data.products.map((p) => p.sku)).toEqual(skus(90));
      expect(item.data.title).toBe('Catalogue, page 1');
      expect(item.metadata.items).toEqual([{ path: 'products', expected: 90, extracted: 90, chunks: 3, complete: true }]);
      expect(item.metadata.pagination).toEqual({
        pages: [1, 2, 3].map((n) => ({
          url: listUrl(`/paged/table/${n}?${q}`),
          items: { products: { from: (n - 1) * 30, count: 30 } },
          repeated: 0,
        })),
        stopped: { reason: 'no_next_link' },
      });
      expect(item.warnings).toEqual([]);
      // One page of the crawl: the next pages are its result's, not pages of their own.
      const job = (await call('GET', `/api/v1/jobs/${jobId}`)).body;
      expect(job.page_count).toBe(1);
      const seen = env.play.requestsTo('lists.test').map((r) => r.path);
      expect(seen).toContain('/robots.txt');
      for (const n of [1, 2, 3]) expect(seen.filter((p) => p === `/paged/table/${n}?${q}`)).toHaveLength(1);
    });

    it('batch: each listed page read over its own next pages; a next page robots.txt disallows is never fetched', async () => {
      const open = `pages=2&${tag()}`;
      const fenced = `pages=4&fence=3&${tag()}`;
      const urls = [listUrl(`/paged/cards/1?${open}`), listUrl(`/paged/table/1?${fenced}`)];
      const { items } = await results('/api/v1/batch/extract', { urls, schema: LIST_SCHEMA, llm_config: llm(), paginate: NEXT });
      const byUrl = new Map(items.map((i) => [i.url, i]));
      const cards = byUrl.get(urls[0])!;
      expect(cards.data.products.map((p) => p.sku)).toEqual(skus(60));
      expect(cards.metadata.items).toEqual([{ path: 'products', expected: 60, extracted: 60, chunks: 2, complete: true }]);
      expect(cards.metadata.pagination.stopped).toEqual({ reason: 'no_next_link' });
      const table = byUrl.get(urls[1])!;
      expect(table.data.products.map((p) => p.sku)).toEqual(skus(60));
      expect(table.metadata.items).toEqual([{ path: 'products', expected: 60, extracted: 60, chunks: 2, complete: false }]);
      expect(table.metadata.pagination.stopped).toEqual({
        reason: 'refused',
        next: listUrl(`/private/paged/table/3?${fenced}`),
        why: expect.stringContaining('robots.txt disallows it'),
      });
      expect(table.warnings.map((w) => w.code)).toEqual(['list_incomplete']);
      expect(env.play.requestsTo('lists.test', '/private/')).toHaveLength(0);
    });

    it('is a 422 problem at body.paginate on a crawl or batch without a list to follow, with formats, or a bad selector', async () => {
      const url = listUrl('/paged/table/1');
      const cases: Array<[string, Record<string, unknown>, string]> = [
        ['/api/v1/crawl', { url, schema: { title: 'string' }, paginate: NEXT }, 'body.paginate'],
        ['/api/v1/crawl', { url, formats: ['markdown'], paginate: NEXT }, 'body.paginate'],
        ['/api/v1/crawl', { url, schema: LIST_SCHEMA, paginate: { selector: 'li.next [[' } }, 'body.paginate.selector'],
        ['/api/v1/batch/extract', { urls: [url], schema: { title: 'string' }, paginate: NEXT }, 'body.paginate'],
        [
          '/api/v1/batch/extract',
          { urls: [url], schema: LIST_SCHEMA, paginate: { selector: 'a', max_pages: 21 } },
          'body.paginate.max_pages',
        ],
      ];
      for (const [path, body, location] of cases) {
        const res = await call('POST', path, { body: { llm_config: llm(), ...body } });
        expect([path, res.status, res.headers.get('content-type')]).toEqual([
          path,
          422,
          expect.stringContaining('application/problem+json'),
        ]);
        expect(res.body.errors.map((e: { location: string }) => e.location)).toContain(location);
      }
      // The OpenAPI document states the same rules as the extract's paginate (one DTO).
      const doc = (await http(env.app.baseUrl, 'GET', '/api/v1/openapi.json')).body;
      for (const body of ['CrawlRequestDto', 'BatchRequestDto'])
        expect(JSON.stringify(doc.components.schemas[body].properties.paginate)).toContain('#/components/schemas/PaginateDto');
      expect(doc.components.schemas.PaginateDto).toMatchObject({
        required: ['selector'],
        properties: { selector: { minLength: 1, maxLength: 500 }, max_pages: { minimum: 1, maximum: 20, default: 5 } },
      });
    });
  });

  describe('paginate on monitors', () => {
    const runNow = async (id: string): Promise<Record<string, any>> => {
      const started = await call('POST', `/api/v1/monitors/${id}/run`);
      expect([started.status, started.status === 202 ? null : started.text]).toEqual([202, null]);
      return waitFor(async () => {
        const runs = (await call('GET', `/api/v1/monitors/${id}/runs?limit=10`)).body.runs as Array<Record<string, any>>;
        const found = runs.find((r) => r.id === started.body.run.id);
        return found && ['completed', 'failed'].includes(found.status) ? found : undefined;
      }, 120_000);
    };

    it('a monitor keyed by products.sku diffs every item over the pages: a price changed on page 2 is named, an unchanged list calls no model', async () => {
      const run = tag();
      const q = `pages=3&${run}`;
      const first = listUrl(`/paged/table/1?${q}`);
      const created = await call('POST', '/api/v1/monitors', {
        body: {
          name: 'paged list',
          urls: [first],
          schema: LIST_SCHEMA,
          key: ['products.sku'],
          paginate: NEXT,
          schedule: { every: '1h' },
          llm_config: llm(),
          paused: true,
        },
      });
      expect([created.status, created.status === 201 ? null : created.text]).toEqual([201, null]);
      expect(created.body.paginate).toEqual(NEXT);
      const id = created.body.id as string;
      try {
        // Run 1: the 90 items of the 3 pages, each a record of its own.
        const baseline = await runNow(id);
        expect(baseline.status).toBe('completed');
        expect(baseline.counts).toMatchObject({ added: 90, changed: 0, removed: 0, failed: 0, pages_fetched: 1, model_calls: 1 });
        expect((await call('GET', `/api/v1/monitors/${id}/state?limit=1`)).body.total).toBe(90);
        const [result] = (await call('GET', `/api/v1/jobs/${baseline.job_id}/results`)).body as ResultItem[];
        expect(result.metadata.pagination.stopped).toEqual({ reason: 'no_next_link' });
        expect(result.metadata.pagination.pages).toHaveLength(3);

        // Page 2 changes (its 5th product, SKU-00035): the first page's text is the same, its list is not.
        const sku = product(34).sku;
        env.play.reprice(run.slice('run='.length), sku, 1234.5);
        const second = await runNow(id);
        expect(second.status).toBe('completed');
        expect(second.counts).toMatchObject({ changed: 1, added: 0, removed: 0, unchanged: 89, skipped_by_hash: 0, model_calls: 1 });
        const changes = (await call('GET', `/api/v1/monitors/${id}/changes?run_id=${encodeURIComponent(second.id)}&limit=100`)).body
          .changes as Array<Record<string, any>>;
        expect(changes.map((c) => [c.kind, c.key, c.url, c.fields])).toEqual([
          ['changed', { sku }, first, [{ path: 'price', before: product(34).price, after: 1234.5 }]],
        ]);

        // Nothing changed since: every page fetched again (their text hash covers them all), no model call.
        const third = await runNow(id);
        expect(third.status).toBe('completed');
        expect(third.counts).toMatchObject({ changed: 0, added: 0, removed: 0, skipped_by_hash: 1, model_calls: 0 });
        const seen = env.play.requestsTo('lists.test').map((r) => r.path);
        for (const n of [1, 2, 3]) expect(seen.filter((p) => p === `/paged/table/${n}?${q}`)).toHaveLength(3);
      } finally {
        await call('DELETE', `/api/v1/monitors/${id}`);
      }
    });

    it('takes paginate by the rules of a crawl or batch: 422s at body.paginate, max_pages defaulted, null removes it', async () => {
      const urls = [listUrl(`/paged/table/1?${tag()}`)];
      const body = { name: 'paged rules', urls, schema: LIST_SCHEMA, schedule: { every: '1h' }, llm_config: llm(), paused: true };
      const cases: Array<[Record<string, unknown>, string]> = [
        [{ schema: { title: 'string' }, paginate: NEXT }, 'body.paginate'],
        [{ paginate: { selector: 'li.next [[' } }, 'body.paginate.selector'],
        [{ paginate: { selector: 'a', max_pages: 21 } }, 'body.paginate.max_pages'],
        [{ paginate: { selector: '' } }, 'body.paginate.selector'],
      ];
      for (const [change, location] of cases) {
        const res = await call('POST', '/api/v1/monitors', { body: { ...body, ...change } });
        expect([res.status, res.headers.get('content-type')]).toEqual([422, expect.stringContaining('application/problem+json')]);
        expect(res.body.errors.map((e: { location: string }) => e.location)).toContain(location);
      }
      const created = await call('POST', '/api/v1/monitors', { body: { ...body, paginate: { selector: 'li.next > a' } } });
      expect(created.status).toBe(201);
      const id = created.body.id as string;
      try {
        expect(created.body.paginate).toEqual({ selector: 'li.next > a', max_pages: 5 });
        // The whole is checked again on an update: a schema without a list cannot keep the stored paginate.
        const lost = await call('PUT', `/api/v1/monitors/${id}`, { body: { schema: { title: 'string' } } });
        expect(lost.status).toBe(422);
        expect(lost.body.errors.map((e: { location: string }) => e.location)).toContain('body.paginate');
        const removed = await call('PUT', `/api/v1/monitors/${id}`, { body: { paginate: null } });
        expect([removed.status, removed.body.paginate]).toEqual([200, null]);
        expect((await call('GET', `/api/v1/monitors/${id}`)).body.paginate).toBeNull();
      } finally {
        await call('DELETE', `/api/v1/monitors/${id}`);
      }
      // The OpenAPI document: the same PaginateDto as extract, crawl and batch, or null (which removes it).
      const doc = (await http(env.app.baseUrl, 'GET', '/api/v1/openapi.json')).body;
      for (const schema of ['CreateMonitorDto', 'UpdateMonitorDto'])
        expect(doc.components.schemas[schema].properties.paginate.anyOf).toEqual([
          { $ref: '#/components/schemas/PaginateDto' },
          { type: 'null' },
        ]);
      expect(JSON.stringify(doc.components.schemas.MonitorResponse.properties.paginate)).toContain('#/components/schemas/PaginateDto');
    });
  });
}
