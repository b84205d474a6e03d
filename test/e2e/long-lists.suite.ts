/**
 * Long lists end to end (docs/long-lists.md): a list that does not fit one model answer is extracted in chunks and
 * merged, every item once and in page order; the answer says how many items the page has and the data holds
 * (`metadata.items`), and warns `list_incomplete` when items are missing: on the extract answer, on result items,
 * in the crawl map's `list_incomplete=true` filter and in `gleaner_lists_total`. The pages are lists.test's generated
 * catalogues; the stand-in model reads the items it is given, stops after n (`items-<n>`) or leaves out every k-th
 * (`drop-<k>`). Run on both deployments by long-lists.e2e-spec.ts, with GLEANER_LIST_ITEMS_PER_CALL 50 (the default).
 */
import type { ModelServer } from '../fixtures/model-server';
import { LIST_SCHEMA, products } from '../fixtures/long-lists';
import type { Playground } from '../fixtures/playground/playground';
import type { RunningApp } from './embedded-app';
import { http, waitFor } from './helpers';

export interface LongListsEnv {
  app: RunningApp;
  play: Playground;
  models: ModelServer;
}

const TERMINAL = ['completed', 'failed', 'cancelled'];

export function longListsSuite(getEnv: () => LongListsEnv): void {
  let env: LongListsEnv;
  const call = (method: string, path: string, opts: Parameters<typeof http>[3] = {}) =>
    http(env.app.baseUrl, method, path, { key: env.app.adminKey, ...opts });
  const llm = (model = 'gpt-4o-mini') => ({ provider: 'openai', model, api_key: 'sk-lists-test', base_url: env.models.openaiBaseUrl });
  const listUrl = (path: string) => env.play.url('lists.test', path);
  // The model server is shared by both deployments' runs: a test counts the calls made since it started.
  let since = 0;
  const extract = async (path: string, model?: string) => {
    since = env.models.requests.length;
    const res = await call('POST', '/api/v1/extract', {
      body: { url: listUrl(path), schema: LIST_SCHEMA, fetch_mode: 'static', llm_config: llm(model) },
    });
    expect([res.status, res.status === 200 ? null : res.text]).toEqual([200, null]);
    return res.body;
  };
  const callsFor = (url: string) => env.models.requests.slice(since).filter((r) => r.userText.includes(`Page URL: ${url}`));
  const skus = (n: number) => products(n).map((p) => p.sku);

  beforeAll(() => {
    env = getEnv();
  });

  it('extract: 120 rows in three chunks of 40, every item once and in order, the usage of every chunk counted', async () => {
    const answer = await extract('/table/120');
    expect(answer.data.products.map((p: { sku: string }) => p.sku)).toEqual(skus(120));
    expect(answer.data.products[7]).toEqual({ name: products(8)[7].name, sku: products(8)[7].sku, price: products(8)[7].price });
    expect(answer.data.title).toBe('Catalogue of 120 products');
    expect(answer.metadata.items).toEqual([{ path: 'products', expected: 120, extracted: 120, chunks: 3, complete: true }]);
    expect(answer.metadata.content_truncated).toBeUndefined();
    expect(answer.warnings).toEqual([]);
    const calls = callsFor(listUrl('/table/120'));
    expect(calls).toHaveLength(3);
    // Each chunk was told which items it holds; the table's header goes with every chunk.
    expect(calls.map((c) => /items (\d+) to (\d+) of the 120/.exec(c.userText)?.slice(1).join('-')).sort()).toEqual([
      '1-40',
      '41-80',
      '81-120',
    ]);
    for (const c of calls) expect(c.userText).toContain('| Name | SKU | Price |');
    // The answer's tokens are the three calls' (the job's counters say the same).
    const job = (await call('GET', `/api/v1/jobs/${answer.job_id}`)).body;
    expect(answer.usage.input_tokens).toBeGreaterThan(0);
    expect(job.token_usage_input).toBe(answer.usage.input_tokens);
    const [item] = (await call('GET', `/api/v1/jobs/${answer.job_id}/results`)).body;
    expect(item.metadata.items).toEqual(answer.metadata.items);
  });

  it('extract: a model that stops after 25 items is asked again for the rest of its chunk', async () => {
    const answer = await extract('/cards/90', 'gpt-4o-mini+items-25');
    expect(answer.data.products.map((p: { sku: string }) => p.sku)).toEqual(skus(90));
    // Two chunks of 45, each answered 25 then 20.
    expect(answer.metadata.items).toEqual([{ path: 'products', expected: 90, extracted: 90, chunks: 4, complete: true }]);
    expect(answer.warnings).toEqual([]);
  });

  it('extract: a model that leaves items out makes an answer that says so (list_incomplete), never a silent partial one', async () => {
    const answer = await extract('/sections/30', 'gpt-4o-mini+drop-10');
    // It answers 27 of 30, ending with item 29; asked again from item 30, it answers that one: 10 and 20 are missing.
    expect(answer.data.products).toHaveLength(28);
    expect(answer.data.products.map((p: { sku: string }) => p.sku)).not.toContain(products(10)[9].sku);
    expect(answer.metadata.items).toEqual([{ path: 'products', expected: 30, extracted: 28, chunks: 2, complete: false }]);
    expect(answer.warnings).toEqual([expect.objectContaining({ code: 'list_incomplete', location: 'body.schema.products' })]);
    expect(answer.warnings[0].message).toContain('the page lists 30 items and the answer has 28');
    const [item] = (await call('GET', `/api/v1/jobs/${answer.job_id}/results`)).body;
    expect(item.warnings).toEqual(answer.warnings);
  });

  it('crawl: result items carry their counts; the crawl map lists the pages with incomplete lists', async () => {
    const res = await call('POST', '/api/v1/crawl', {
      body: { url: listUrl('/'), schema: LIST_SCHEMA, llm_config: llm('gpt-4o-mini+drop-10'), options: { max_depth: 1, max_pages: 3 } },
    });
    expect([res.status, res.status === 202 ? null : res.text]).toEqual([202, null]);
    const jobId = res.body.job_id as string;
    await waitFor(async () => {
      const job = (await call('GET', `/api/v1/jobs/${jobId}`)).body;
      return TERMINAL.includes(job.status) ? job : null;
    }, 120_000);
    const items = (await call('GET', `/api/v1/jobs/${jobId}/results`)).body as Array<{
      url: string;
      metadata: { items: unknown[] };
      warnings: Array<{ code: string }>;
    }>;
    const table = items.find((i) => i.url.endsWith('/table/120'))!;
    // Each chunk of 40 loses its 10th, 20th and 30th item (its 40th is asked for again and answered).
    expect(table.metadata.items).toEqual([{ path: 'products', expected: 120, extracted: 111, chunks: 6, complete: false }]);
    expect(table.warnings.map((w) => w.code)).toEqual(['list_incomplete']);
    const map = (await call('GET', `/api/v1/jobs/${jobId}/crawl-map`)).body;
    expect(map.pages_with_incomplete_lists).toBe(2);
    const filtered = (await call('GET', `/api/v1/jobs/${jobId}/crawl-map?list_incomplete=true`)).body;
    expect(filtered.entries.map((e: { url: string }) => new URL(e.url).pathname).sort()).toEqual(['/cards/30', '/table/120']);
    expect(filtered.entries.map((e: { items_missing: number }) => e.items_missing).sort((a: number, b: number) => a - b)).toEqual([2, 9]);
    expect((await call('GET', `/api/v1/jobs/${jobId}/crawl-map?list_incomplete=yes`)).status).toBe(422);
  });

  const finished = (jobId: string) =>
    waitFor(async () => {
      const job = (await call('GET', `/api/v1/jobs/${jobId}`)).body;
      return TERMINAL.includes(job.status) ? job : null;
    }, 120_000);

  it('batch: a 2,000-row page in 40 chunks and a 200-card page in 4, every item once and in order', async () => {
    since = env.models.requests.length;
    const urls = [listUrl('/table/2000'), listUrl('/cards/200')];
    const res = await call('POST', '/api/v1/batch/extract', { body: { urls, schema: LIST_SCHEMA, llm_config: llm() } });
    expect([res.status, res.status === 202 ? null : res.text]).toEqual([202, null]);
    expect((await finished(res.body.job_id)).status).toBe('completed');
    const items = (await call('GET', `/api/v1/jobs/${res.body.job_id}/results`)).body as Array<{ url: string; data: any; metadata: any }>;
    const byUrl = new Map(items.map((i) => [i.url, i]));
    expect(byUrl.get(urls[0])!.data.products.map((p: { sku: string }) => p.sku)).toEqual(skus(2000));
    expect(byUrl.get(urls[0])!.metadata.items).toEqual([{ path: 'products', expected: 2000, extracted: 2000, chunks: 40, complete: true }]);
    expect(byUrl.get(urls[1])!.data.products.map((p: { sku: string }) => p.sku)).toEqual(skus(200));
    expect(byUrl.get(urls[1])!.metadata.items).toEqual([{ path: 'products', expected: 200, extracted: 200, chunks: 4, complete: true }]);
    expect(callsFor(urls[0])).toHaveLength(40);
  });

  it("batch: the job's cost cap is checked between a page's chunks, and the answer says the cap stopped them", async () => {
    since = env.models.requests.length;
    const url = listUrl('/table/1000');
    // Less than one chunk's call costs: the page's first chunks (four at once) are asked, no more.
    const res = await call('POST', '/api/v1/batch/extract', {
      body: { urls: [url], schema: LIST_SCHEMA, llm_config: llm(), max_cost_usd: 0.000001 },
    });
    expect([res.status, res.status === 202 ? null : res.text]).toEqual([202, null]);
    await finished(res.body.job_id);
    expect(callsFor(url)).toHaveLength(4);
    const [item] = (await call('GET', `/api/v1/jobs/${res.body.job_id}/results`)).body as Array<{ metadata: any; warnings: any[] }>;
    expect(item.metadata.items).toEqual([{ path: 'products', expected: 1000, extracted: 200, chunks: 4, complete: false }]);
    expect(item.warnings).toEqual([
      expect.objectContaining({
        code: 'list_incomplete',
        message: expect.stringMatching(/cost cap \(max_cost_usd\) stopped asking for its chunks after 4/),
      }),
    ]);
  });

  it('monitor keyed by an item field: a 120-row list extracted in chunks, every item a record of the run', async () => {
    const created = await call('POST', '/api/v1/monitors', {
      body: {
        name: 'long list',
        urls: [listUrl('/table/120')],
        schema: LIST_SCHEMA,
        key: ['products.sku'],
        schedule: { every: '1h' },
        llm_config: llm(),
        paused: true,
      },
    });
    expect([created.status, created.status === 201 ? null : created.text]).toEqual([201, null]);
    const id = created.body.id as string;
    try {
      const started = await call('POST', `/api/v1/monitors/${id}/run`);
      expect(started.status).toBe(202);
      const run = await waitFor(async () => {
        const runs = (await call('GET', `/api/v1/monitors/${id}/runs?limit=10`)).body.runs as Array<Record<string, any>>;
        const found = runs.find((r) => r.id === started.body.run.id);
        return found && ['completed', 'failed'].includes(found.status) ? found : undefined;
      }, 120_000);
      expect(run.status).toBe('completed');
      expect(run.counts).toMatchObject({ added: 120, removed: 0, failed: 0 });
      const state = (await call('GET', `/api/v1/monitors/${id}/state?limit=100`)).body;
      // One record per item, keyed by its sku (the state is paged: 100 at most per read).
      expect(state.total).toBe(120);
      expect(state.items).toHaveLength(100);
      const [item] = (await call('GET', `/api/v1/jobs/${run.job_id}/results`)).body as Array<{ metadata: any }>;
      expect(item.metadata.items).toEqual([{ path: 'products', expected: 120, extracted: 120, chunks: 3, complete: true }]);
    } finally {
      await call('DELETE', `/api/v1/monitors/${id}`);
    }
  });

  it('counts lists for Prometheus: complete, incomplete, chunked', async () => {
    const text = (await http(env.app.baseUrl, 'GET', '/metrics')).text;
    const value = (outcome: string, chunked: string) =>
      Number(new RegExp(`gleaner_lists_total\\{outcome="${outcome}",chunked="${chunked}"[^}]*\\} (\\d+)`).exec(text)?.[1] ?? NaN);
    expect(value('complete', 'true')).toBeGreaterThanOrEqual(2);
    expect(value('incomplete', 'true')).toBeGreaterThanOrEqual(3);
    // The crawl's home page: a list asked for, none on the page.
    expect(value('unknown', 'false')).toBeGreaterThanOrEqual(1);
    expect(value('complete', 'false')).toBe(0);
  });

  // After the Prometheus counts (each paged page is a 30-row list, complete and not chunked).
  describe('paginate', () => {
    // The playground is shared by both deployments' runs: each run's pages have their own query.
    const tag = () => `run=${Math.random().toString(36).slice(2, 10)}`;
    const paginated = async (path: string, paginate: Record<string, unknown>) => {
      since = env.models.requests.length;
      const res = await call('POST', '/api/v1/extract', {
        body: { url: listUrl(path), schema: LIST_SCHEMA, fetch_mode: 'static', llm_config: llm(), provenance: 'full', paginate },
      });
      expect([res.status, res.status === 200 ? null : res.text]).toEqual([200, null]);
      return res.body;
    };

    it('follows the next link over 4 pages: one list of 120 in page order, which page gave which items, usage of every page', async () => {
      const q = `pages=4&${tag()}`;
      const answer = await paginated(`/paged/table/1?${q}`, { selector: 'li.next > a', max_pages: 10 });
      expect(answer.data.products.map((p: { sku: string }) => p.sku)).toEqual(skus(120));
      // Fields outside the list from the first page.
      expect(answer.data.title).toBe('Catalogue, page 1');
      expect(answer.metadata.items).toEqual([{ path: 'products', expected: 120, extracted: 120, chunks: 4, complete: true }]);
      expect(answer.metadata.pagination).toEqual({
        pages: [1, 2, 3, 4].map((n) => ({
          url: listUrl(`/paged/table/${n}?${q}`),
          items: { products: { from: (n - 1) * 30, count: 30 } },
          repeated: 0,
        })),
        stopped: { reason: 'no_next_link' },
      });
      // Provenance per value, at its place in the merged list: the last item came from page 4.
      expect(answer.metadata.fields['products[119].sku']).toMatchObject({ grounded: true });
      expect(answer.warnings).toEqual([]);
      expect(env.models.requests.slice(since)).toHaveLength(4);
      const job = (await call('GET', `/api/v1/jobs/${answer.job_id}`)).body;
      expect(job.token_usage_input).toBe(answer.usage.input_tokens);
      expect(job.page_count).toBe(1);
      // The pages were fetched once each, and robots.txt read before them.
      const seen = env.play.requestsTo('lists.test').map((r) => r.path);
      expect(seen).toContain('/robots.txt');
      for (const n of [1, 2, 3, 4]) expect(seen.filter((p) => p === `/paged/table/${n}?${q}`)).toHaveLength(1);
    });

    it('stops at max_pages and says the list is incomplete, naming the page it did not read', async () => {
      const q = `pages=4&${tag()}`;
      const answer = await paginated(`/paged/table/1?${q}`, { selector: 'li.next > a', max_pages: 2 });
      expect(answer.data.products.map((p: { sku: string }) => p.sku)).toEqual(skus(60));
      expect(answer.metadata.items).toEqual([{ path: 'products', expected: 60, extracted: 60, chunks: 2, complete: false }]);
      expect(answer.metadata.pagination.stopped).toEqual({ reason: 'max_pages', next: listUrl(`/paged/table/3?${q}`) });
      expect(answer.warnings).toEqual([
        expect.objectContaining({
          code: 'list_incomplete',
          location: 'body.schema.products',
          message: expect.stringContaining('raise paginate.max_pages'),
        }),
      ]);
      expect(env.play.requestsTo('lists.test', `/paged/table/2?${q}`)).toHaveLength(1);
      expect(env.play.requestsTo('lists.test', `/paged/table/3?${q}`)).toHaveLength(0);
    });

    it('never fetches a next page robots.txt disallows: the pages stop there, the answer says why', async () => {
      const q = `pages=4&fence=3&${tag()}`;
      const answer = await paginated(`/paged/table/1?${q}`, { selector: 'li.next > a', max_pages: 10 });
      expect(answer.data.products).toHaveLength(60);
      expect(answer.metadata.items[0]).toMatchObject({ extracted: 60, complete: false });
      expect(answer.metadata.pagination.stopped).toEqual({
        reason: 'refused',
        next: listUrl(`/private/paged/table/3?${q}`),
        why: expect.stringContaining('robots.txt disallows it'),
      });
      expect(env.play.requestsTo('lists.test', `/paged/table/2?${q}`)).toHaveLength(1);
      expect(env.play.requestsTo('lists.test', '/private/')).toHaveLength(0);
    });

    it('is a 422 problem at body.paginate without a list to follow, with a bad selector or max_pages', async () => {
      const cases: Array<[unknown, unknown, string]> = [
        [{ title: 'string' }, { selector: 'li.next > a' }, 'body.paginate'],
        [LIST_SCHEMA, { selector: 'li.next [[' }, 'body.paginate.selector'],
        [LIST_SCHEMA, { selector: 'a', max_pages: 0 }, 'body.paginate.max_pages'],
        [LIST_SCHEMA, { selector: 'a', max_pages: 21 }, 'body.paginate.max_pages'],
        [LIST_SCHEMA, { max_pages: 3 }, 'body.paginate.selector'],
      ];
      for (const [schema, paginate, location] of cases) {
        const res = await call('POST', '/api/v1/extract', {
          body: { url: listUrl('/paged/table/1'), schema, llm_config: llm(), paginate },
        });
        expect([res.status, res.headers.get('content-type')]).toEqual([422, expect.stringContaining('application/problem+json')]);
        expect(res.body.errors.map((e: { location: string }) => e.location)).toContain(location);
      }
    });
  });
}
