/**
 * `paginate` on crawls and batches end to end (docs/long-lists.md "Pagination"): each extracted page's list read over
 * its "next" pages into the page's one result, as an extract reads one page's (long-lists.suite.ts), with the crawl's
 * politeness (robots.txt read, a disallowed next page never fetched) and the same 422s. The pages are lists.test's
 * paged catalogues (`/paged/<layout>/<n>?pages=P`, 30 products a page; `fence=K`: page K is under robots.txt's
 * `Disallow: /private/`). Run on both deployments by long-lists.e2e-spec.ts.
 */
import { LIST_SCHEMA, products } from '../fixtures/long-lists';
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
}
