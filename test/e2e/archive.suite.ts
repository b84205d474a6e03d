/**
 * The page archive end to end (docs/archive.md): pages kept by a crawl (or not), read back safely,
 * deduplicated across crawls, re-extracted with a new schema without a single request to the site
 * (the playground counts every request), retention and deletion, tenant isolation, WARC out (read
 * back by Python warcio, every digest checked) and WARC in, hostile WARC files. Run on both
 * deployments by archive.e2e-spec.ts.
 */
import { gzipSync } from 'node:zlib';
import { ArchiveRetentionService } from '@app/archive';
import { DOCUMENT_STORE, type DocumentStore } from '@app/storage';
import type { ModelServer } from '../fixtures/model-server';
import { SHOP_PAGES, SHOP_PRODUCTS, product, type Playground } from '../fixtures/playground/playground';
import type { RunningApp } from './embedded-app';
import { fetchFromSite, readWithWarcio } from './archive-helpers';
import { http, readSse, waitFor } from './helpers';

export interface ArchiveEnv {
  app: RunningApp;
  play: Playground;
  models: ModelServer;
  /** GLEANER_WARC_MAX_BYTES of the app. */
  warcMaxBytes: number;
}

const SCHEMA = { name: 'string', price: 'string', sku: 'string' };
const NEW_SCHEMA = { title: 'string', sku: 'string' };
/** A WARC record written by hand (for the hostile files). */
function warcRecord(type: string, uri: string | null, content: Buffer | string, length?: number, extra = ''): Buffer {
  const body = Buffer.isBuffer(content) ? content : Buffer.from(content, 'utf8');
  const head =
    `WARC/1.1\r\nWARC-Type: ${type}\r\nWARC-Record-ID: <urn:uuid:${crypto.randomUUID()}>\r\nWARC-Date: 2026-10-01T10:00:00Z\r\n` +
    (uri ? `WARC-Target-URI: ${uri}\r\n` : '') +
    `Content-Type: application/http; msgtype=response\r\n${extra}Content-Length: ${length ?? body.length}\r\n\r\n`;
  return Buffer.concat([Buffer.from(head), body, Buffer.from('\r\n\r\n')]);
}

const httpPage = (html: string, status = '200 OK') => `HTTP/1.1 ${status}\r\nContent-Type: text/html; charset=utf-8\r\n\r\n${html}`;
const productHtml = (name: string, sku: string) =>
  `<html><head><title>${name}</title></head><body><h1>${name}</h1><p>Name: ${name}</p><p>Price: $9.99</p><p>SKU: ${sku}</p></body></html>`;

export function archiveSuite(getEnv: () => ArchiveEnv): void {
  let env: ArchiveEnv;
  const call = (method: string, path: string, opts: Parameters<typeof http>[3] = {}) =>
    http(env.app.baseUrl, method, path, { key: env.app.adminKey, ...opts });
  const llm = () => ({ provider: 'openai', model: 'gpt-4o-mini', api_key: 'sk-archive-test', base_url: env.models.openaiBaseUrl });
  const finished = (jobId: string, key = env.app.adminKey): Promise<any> =>
    waitFor(async () => {
      const job = (await http(env.app.baseUrl, 'GET', `/api/v1/jobs/${jobId}`, { key })).body;
      return ['completed', 'failed', 'cancelled'].includes(job.status) ? job : null;
    }, 120_000);
  const results = async (jobId: string): Promise<any[]> => (await call('GET', `/api/v1/jobs/${jobId}/results`)).body;
  const crawlShop = async (options: Record<string, unknown> = {}) => {
    const started = await call('POST', '/api/v1/crawl', {
      body: {
        url: env.play.url('shop.test', '/catalog/page/1'),
        schema: SCHEMA,
        llm_config: llm(),
        options: { follow_selector: 'li.next a, a.product', max_depth: 10, max_pages: 100, concurrency: 6, ...options },
      },
    });
    expect(started.status).toBe(202);
    return finished(started.body.job_id);
  };
  const siteRequests = (since: number) => env.play.requests.filter((r) => r.host === 'shop.test' && r.at >= since);
  const metric = async (name: string, labels = ''): Promise<number> => {
    const text = (await http(env.app.baseUrl, 'GET', '/metrics')).text;
    const line = text.split('\n').find((l) => l.startsWith(`${name}{`) && l.includes(labels));
    return line ? Number(line.split(' ').at(-1)) : 0;
  };
  const download = async (path: string, key = env.app.adminKey) => {
    const response = await fetch(`${env.app.baseUrl}${path}`, { headers: { authorization: `Bearer ${key}` } });
    return { status: response.status, headers: response.headers, body: Buffer.from(await response.arrayBuffer()) };
  };
  const postWarc = (file: Buffer, query: string, contentType = 'application/gzip') =>
    fetch(`${env.app.baseUrl}/api/v1/warc-extract${query}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${env.app.adminKey}`, 'content-type': contentType },
      body: file,
    }).then(async (r) => ({ status: r.status, headers: r.headers, body: (await r.json()) as any }));
  let schemaId: string;

  /** The first crawl of the shop, archived (the default), shared by the tests below. */
  let source: { job: any; items: any[] };

  beforeAll(async () => {
    env = getEnv();
    // WARC bodies name their schema by id and use the caller's stored model chain.
    const key = await call('PUT', '/api/v1/llm/keys', {
      body: { provider: 'openai', is_enabled: true, api_key: 'sk-stored', base_url: env.models.openaiBaseUrl },
    });
    expect(key.status).toBe(200);
    expect((await call('PUT', '/api/v1/llm/chain', { body: { chain: [{ provider: 'openai', model: 'gpt-4o-mini' }] } })).status).toBe(200);
    const saved = await call('POST', '/api/v1/schemas', {
      body: { name: `archive-products-${Date.now()}`, schema_yaml: 'name: string\nprice: string\nsku: string\n', visibility: 'private' },
    });
    expect(saved.status).toBe(201);
    schemaId = saved.body.id;
    const job = await crawlShop();
    expect(job).toMatchObject({ status: 'completed', page_count: SHOP_PAGES + SHOP_PRODUCTS });
    expect(job.options.archive).toBe(true);
    source = { job, items: await results(job.id) };
  });

  it("keeps every fetched page by default and serves a result's page back safely, raw or as the text the model saw", async () => {
    const item = source.items.find((i) => i.url.endsWith('/product/3'));
    const since = Date.now();
    const direct = await fetchFromSite(env.play.url('shop.test', '/product/3'));
    const original = direct.body;
    const page = await download(`/api/v1/jobs/${source.job.id}/results/${item.id}/page`);
    expect(page.status).toBe(200);
    expect(page.body.equals(original)).toBe(true);
    expect(page.headers.get('content-type')).toBe(direct.contentType);
    expect(page.headers.get('content-disposition')).toBe(`attachment; filename="page-${item.id}.html"`);
    expect(page.headers.get('x-content-type-options')).toBe('nosniff');
    expect(page.headers.get('content-security-policy')).toBe('sandbox');
    expect(siteRequests(since)).toHaveLength(1); // only the direct fetch above
    const text = await download(`/api/v1/jobs/${source.job.id}/results/${item.id}/page?view=text`);
    expect(text.status).toBe(200);
    expect(text.headers.get('content-type')).toBe('text/plain; charset=utf-8');
    expect(text.headers.get('content-security-policy')).toBe('sandbox');
    expect(text.body.toString('utf8')).toContain(product(3).name);
    expect(text.body.toString('utf8')).not.toContain('<html');
    const bad = await call('GET', `/api/v1/jobs/${source.job.id}/results/${item.id}/page?view=html`);
    expect(bad.status).toBe(422);
    expect((await call('GET', `/api/v1/jobs/${source.job.id}/results/nope/page`)).status).toBe(404);
  });

  it('keeps nothing with archive: false (the page is a 404, a re-extraction skips every page archive_missing)', async () => {
    const job = await crawlShop({ archive: false, max_pages: 3 });
    expect(job).toMatchObject({ status: 'completed', page_count: 3 });
    expect(job.options.archive).toBe(false);
    const [item] = await results(job.id);
    const page = await call('GET', `/api/v1/jobs/${job.id}/results/${item.id}/page`);
    expect(page.status).toBe(404);
    expect(page.headers.get('content-type')).toMatch(/problem\+json/);
    const re = await call('POST', `/api/v1/jobs/${job.id}/reextract`, { body: { llm_config: llm() } });
    expect(re.status).toBe(202);
    const done = await finished(re.body.job_id);
    expect(done).toMatchObject({ status: 'failed', page_count: 0 });
    const map = (await call('GET', `/api/v1/jobs/${done.id}/crawl-map`)).body;
    expect(map.skipped_by_reason).toEqual({ archive_missing: 3 });
  });

  it('stores a body once per tenant: a second crawl of the same pages adds no body', async () => {
    const bodies = await metric('gleaner_archive_bodies');
    const deduplicated = await metric('gleaner_archive_pages_total', 'outcome="deduplicated"');
    const job = await crawlShop();
    expect(job.page_count).toBe(SHOP_PAGES + SHOP_PRODUCTS);
    expect(await metric('gleaner_archive_bodies')).toBe(bodies);
    expect((await metric('gleaner_archive_pages_total', 'outcome="deduplicated"')) - deduplicated).toBe(SHOP_PAGES + SHOP_PRODUCTS);
    expect(await metric('gleaner_archive_stored_bytes')).toBeGreaterThan(0);
    const deleted = await call('DELETE', `/api/v1/jobs/${job.id}`);
    expect(deleted).toMatchObject({ status: 200, body: { success: true } });
    // The first crawl references the same bodies: they stay.
    expect(await metric('gleaner_archive_bodies')).toBe(bodies);
    const item = source.items[0];
    expect((await call('GET', `/api/v1/jobs/${source.job.id}/results/${item.id}/page`)).status).toBe(200);
  });

  it('re-extracts with a new schema from the archive: not one request reaches the site; results, map, events as a crawl', async () => {
    const since = Date.now();
    const started = await call('POST', `/api/v1/jobs/${source.job.id}/reextract`, {
      body: { schema: NEW_SCHEMA, llm_config: llm(), concurrency: 8 },
    });
    expect(started.status).toBe(202);
    expect(started.headers.get('location')).toBe(started.body.status_url);
    expect(started.body).toMatchObject({ source_job_id: source.job.id, page_count: SHOP_PAGES + SHOP_PRODUCTS });
    const job = await finished(started.body.job_id);
    expect(job).toMatchObject({
      type: 'reextract',
      status: 'completed',
      source_job_id: source.job.id,
      page_count: SHOP_PAGES + SHOP_PRODUCTS,
    });
    expect(siteRequests(since)).toEqual([]);
    const items = await results(job.id);
    expect(items).toHaveLength(SHOP_PAGES + SHOP_PRODUCTS);
    for (const item of items.filter((i) => /\/product\/\d+$/.test(i.url))) {
      const id = Number(/\/product\/(\d+)$/.exec(item.url)![1]);
      expect(Object.keys(item.data).sort()).toEqual(['sku', 'title']);
      expect(item.data.sku).toBe(product(id).sku);
    }
    const map = (await call('GET', `/api/v1/jobs/${job.id}/crawl-map`)).body;
    expect(map).toMatchObject({ completed: SHOP_PAGES + SHOP_PRODUCTS, failed: 0, skipped: 0 });
    expect(map.entries.every((e: any) => e.via === 'list' && e.depth === 0)).toBe(true);
    const sse = await readSse(`${env.app.baseUrl}/api/v1/jobs/${job.id}/stream`, { key: env.app.adminKey, timeoutMs: 10_000 });
    expect(sse.events.filter((e) => e.event === 'result')).toHaveLength(SHOP_PAGES + SHOP_PRODUCTS);
    expect(sse.events.at(-1)?.event).toBe('complete');
    // The re-extraction's own results have their pages too (copies of the source's records).
    expect((await call('GET', `/api/v1/jobs/${job.id}/results/${items[0].id}/page`)).status).toBe(200);
    // Only a finished crawl-engine job of a finished source; a bad body is a 422.
  });

  it('only: ungrounded re-extracts the pages with a value not found on the page (provenance), and only those', async () => {
    // A model that invents every second value: the crawl's pages carry ungrounded values (docs/provenance.md).
    const crawled = await call('POST', '/api/v1/crawl', {
      body: {
        url: env.play.url('shop.test', '/catalog/page/1'),
        schema: SCHEMA,
        llm_config: { ...llm(), model: 'gpt-4o-mini+invent' },
        options: { follow_selector: 'li.next a, a.product', max_depth: 10, max_pages: 6, concurrency: 3 },
      },
    });
    const crawl = await finished(crawled.body.job_id);
    expect(crawl).toMatchObject({ status: 'completed', page_count: 6 });
    const ungrounded = (await call('GET', `/api/v1/jobs/${crawl.id}/crawl-map?ungrounded=true`)).body;
    const wanted = new Set((ungrounded.entries as any[]).map((e) => e.url));
    expect(wanted.size).toBeGreaterThan(0);
    const since = Date.now();
    const started = await call('POST', `/api/v1/jobs/${crawl.id}/reextract`, { body: { only: 'ungrounded', llm_config: llm() } });
    expect(started.status).toBe(202);
    expect(started.body.page_count).toBe(wanted.size);
    const job = await finished(started.body.job_id);
    expect(job).toMatchObject({ status: 'completed', page_count: wanted.size, ungrounded_fields: 0 });
    expect(siteRequests(since)).toEqual([]);
    const items = await results(job.id);
    expect(new Set(items.map((i) => i.url))).toEqual(wanted);
    for (const item of items.filter((i) => /\/product\/\d+$/.test(i.url)))
      expect(item.data.sku).toBe(product(Number(/\/product\/(\d+)$/.exec(item.url)![1])).sku);
    // Its pages are all grounded now: nothing left for another `only: ungrounded`.
    const again = await call('POST', `/api/v1/jobs/${job.id}/reextract`, { body: { only: 'ungrounded', llm_config: llm() } });
    expect(again.status).toBe(409);
    expect(again.body.detail).toMatch(/no pages with a value not found on the page/);
    expect((await call('POST', `/api/v1/jobs/${job.id}/reextract`, { body: { only: 'some' } })).status).toBe(422);
  });

  it('a crawl that stored page formats is re-extracted with a schema given (none of its own: a 422 without)', async () => {
    const crawled = await call('POST', '/api/v1/crawl', {
      body: { url: env.play.url('shop.test', '/product/2'), formats: ['markdown'], options: { max_depth: 0 } },
    });
    expect(crawled.status).toBe(202);
    const crawl = await finished(crawled.body.job_id);
    expect(crawl).toMatchObject({ status: 'completed', page_count: 1 });
    const without = await call('POST', `/api/v1/jobs/${crawl.id}/reextract`, { body: { llm_config: llm() } });
    expect(without.status).toBe(422);
    expect(without.body.errors).toEqual([
      expect.objectContaining({ location: 'body.schema', message: expect.stringMatching(/page formats/) }),
    ]);
    const since = Date.now();
    const started = await call('POST', `/api/v1/jobs/${crawl.id}/reextract`, { body: { schema: NEW_SCHEMA, llm_config: llm() } });
    expect(started.status).toBe(202);
    expect(await finished(started.body.job_id)).toMatchObject({ status: 'completed', page_count: 1 });
    const [item] = await results(started.body.job_id);
    expect(item.data.sku).toBe(product(2).sku);
    expect(siteRequests(since)).toEqual([]);
  });

  it('re-extraction with extraction_mode auto learns selector programs from the archived pages', async () => {
    const since = Date.now();
    const started = await call('POST', `/api/v1/jobs/${source.job.id}/reextract`, {
      body: { schema_id: schemaId, llm_config: llm(), extraction_mode: 'auto', concurrency: 6 },
    });
    const job = await finished(started.body.job_id);
    expect(job).toMatchObject({ status: 'completed', page_count: SHOP_PAGES + SHOP_PRODUCTS });
    expect(job.pages_by_method.selectors).toBeGreaterThanOrEqual(10);
    expect(siteRequests(since)).toEqual([]);
    for (const item of (await results(job.id)).filter((i) => /\/product\/\d+$/.test(i.url))) {
      const id = Number(/\/product\/(\d+)$/.exec(item.url)![1]);
      expect(item.data).toEqual({ name: product(id).name, price: product(id).price, sku: product(id).sku });
    }
  });

  it('retention removes expired pages; a re-extraction then skips them archive_missing', async () => {
    const job = await crawlShop({ max_pages: 4 });
    const store = env.app.app.get<DocumentStore>(DOCUMENT_STORE);
    const pages = await store.collection({ name: 'archive_pages', indexes: [] });
    expect(await pages.updateMany({ job_id: job.id }, { $set: { expires_at: '2000-01-01T00:00:00.000Z' } })).toBe(4);
    await env.app.app.get(ArchiveRetentionService).sweepNow();
    expect(await pages.count({ job_id: job.id })).toBe(0);
    const [item] = await results(job.id);
    expect((await call('GET', `/api/v1/jobs/${job.id}/results/${item.id}/page`)).status).toBe(404);
    const re = await call('POST', `/api/v1/jobs/${job.id}/reextract`, { body: { llm_config: llm() } });
    const done = await finished(re.body.job_id);
    const map = (await call('GET', `/api/v1/jobs/${done.id}/crawl-map`)).body;
    expect(map.skipped_by_reason).toEqual({ archive_missing: 4 });
    // The shop's bodies are still referenced by the first crawl: its pages are intact.
    expect((await call('GET', `/api/v1/jobs/${source.job.id}/results/${source.items[1].id}/page`)).status).toBe(200);
  });

  it('DELETE /jobs/{id}: 409 while it runs; then the job, its results, map and archived pages are gone', async () => {
    const gate = `archive-delete-${Date.now()}`;
    const started = await call('POST', '/api/v1/crawl', {
      body: { url: env.play.url('shop.test', `/gate/${gate}`), schema: SCHEMA, llm_config: llm(), options: { max_depth: 0 } },
    });
    await waitFor(async () => (env.play.held(gate) > 0 ? true : null), 30_000);
    const running = await call('DELETE', `/api/v1/jobs/${started.body.job_id}`);
    expect(running.status).toBe(409);
    expect(running.body.detail).toMatch(/only finished jobs can be deleted/);
    env.play.openGate(gate);
    await finished(started.body.job_id);
    const job = await crawlShop({ max_pages: 3 });
    const [item] = await results(job.id);
    expect((await call('DELETE', `/api/v1/jobs/${job.id}`)).status).toBe(200);
    expect((await call('GET', `/api/v1/jobs/${job.id}`)).status).toBe(404);
    expect((await call('GET', `/api/v1/jobs/${job.id}/results`)).status).toBe(404);
    expect((await call('GET', `/api/v1/jobs/${job.id}/crawl-map`)).status).toBe(404);
    expect((await call('GET', `/api/v1/jobs/${job.id}/results/${item.id}/page`)).status).toBe(404);
    expect((await call('DELETE', `/api/v1/jobs/${job.id}`)).status).toBe(404);
    const listed = (await call('GET', '/api/v1/jobs?limit=100')).body.jobs as any[];
    expect(listed.some((j) => j.id === job.id)).toBe(false);
    const store = env.app.app.get<DocumentStore>(DOCUMENT_STORE);
    expect(await (await store.collection({ name: 'archive_pages', indexes: [] })).count({ job_id: job.id })).toBe(0);
    expect(await (await store.collection({ name: 'crawl_entries', indexes: [] })).count({ job_id: job.id })).toBe(0);
    expect(await (await store.collection({ name: 'job_results', indexes: [] })).count({ job_id: job.id })).toBe(0);
  });

  it('another tenant finds none of the archive: pages, WARC, re-extraction and deletion are 404s', async () => {
    const other = (await call('POST', '/api/v1/users', { body: { name: `archive-other-${Date.now()}` } })).body.key.key as string;
    const item = source.items[0];
    const as = (method: string, path: string, body?: unknown) => http(env.app.baseUrl, method, path, { key: other, body });
    expect((await as('GET', `/api/v1/jobs/${source.job.id}/results/${item.id}/page`)).status).toBe(404);
    expect((await as('GET', `/api/v1/jobs/${source.job.id}/results/${item.id}/page?view=text`)).status).toBe(404);
    expect((await as('GET', `/api/v1/jobs/${source.job.id}/warc`)).status).toBe(404);
    expect((await as('POST', `/api/v1/jobs/${source.job.id}/reextract`, {})).status).toBe(404);
    expect((await as('DELETE', `/api/v1/jobs/${source.job.id}`)).status).toBe(404);
    expect((await call('GET', `/api/v1/jobs/${source.job.id}/results/${item.id}/page`)).status).toBe(200);
  });

  it('WARC out: a WARC/1.1 file Python warcio reads, every digest right, one gzip member per record; WARC in extracts it again offline', async () => {
    const file = await download(`/api/v1/jobs/${source.job.id}/warc`);
    expect(file.status).toBe(200);
    expect(file.headers.get('content-type')).toBe('application/gzip');
    expect(file.headers.get('content-disposition')).toBe(`attachment; filename="gleaner-${source.job.id}.warc.gz"`);
    const read = readWithWarcio(file.body);
    const pages = SHOP_PAGES + SHOP_PRODUCTS;
    expect(read.records[0]).toMatchObject({ type: 'warcinfo' });
    expect(read.records[0].content).toContain(`gleaner-job-id: ${source.job.id}`);
    expect(read.gzip_members).toBe(read.records.length);
    expect(read.records.filter((r) => r.type === 'request')).toHaveLength(pages);
    expect(read.records.filter((r) => r.type === 'response')).toHaveLength(pages);
    expect(read.records.filter((r) => r.type === 'metadata')).toHaveLength(pages);
    const ids = new Map(read.records.map((r) => [r.id, r]));
    for (const record of read.records.slice(1)) {
      expect(record.digest_problems).toEqual([]);
      expect(record.digest_passed).toBe(true);
      expect(record.block_digest).toMatch(/^sha256:[0-9a-f]{64}$/);
      expect(record.target).toMatch(/^http:\/\/shop\.test:\d+\//);
      if (record.type === 'response') {
        expect(record.payload_digest).toMatch(/^sha256:[0-9a-f]{64}$/);
        expect(record.status).toBe('200');
        expect(ids.get(record.concurrent_to)).toMatchObject({ type: 'request', target: record.target });
      }
      if (record.type === 'metadata') expect(ids.get(record.refers_to)).toMatchObject({ type: 'response', target: record.target });
    }
    const resultIds = new Set(source.items.map((i) => i.id));
    const metadata = read.records.filter((r) => r.type === 'metadata').map((r) => JSON.parse(r.content));
    expect(metadata.every((m) => resultIds.has(m.result_id) && m.gleaner_job_id === source.job.id)).toBe(true);
    const p3 = read.records.find((r) => r.type === 'response' && r.target.endsWith('/product/3'));
    expect(p3.content).toContain(product(3).name);

    const since = Date.now();
    const started = await postWarc(file.body, `?schema_id=${schemaId}`);
    expect(started.status).toBe(202);
    expect(started.body).toMatchObject({ bytes: file.body.length });
    const job = await finished(started.body.job_id);
    expect(job).toMatchObject({ type: 'warc-extract', status: 'completed', page_count: pages, failed_count: 0 });
    expect(siteRequests(since)).toEqual([]);
    for (const item of (await results(job.id)).filter((i) => /\/product\/\d+$/.test(i.url))) {
      const id = Number(/\/product\/(\d+)$/.exec(item.url)![1]);
      expect(item.data).toEqual({ name: product(id).name, price: product(id).price, sku: product(id).sku });
    }
  });

  it('WARC in: malformed records are failed items with the reason; the rest of the file counts', async () => {
    const good = (n: number) => warcRecord('response', `https://warc.test/p/${n}`, httpPage(productHtml(`Warc Lamp ${n}`, `WL-${n}`)));
    const file = Buffer.concat([
      gzipSync(warcRecord('warcinfo', null, 'software: hand\r\n')),
      gzipSync(good(1)),
      // Content-Length too long: swallows the start of the next record.
      gzipSync(warcRecord('response', 'https://warc.test/p/long', httpPage('<p>x</p>'), 70)),
      gzipSync(good(2)),
      // Not an HTTP message.
      gzipSync(warcRecord('response', 'https://warc.test/p/nohttp', 'this is not HTTP')),
      // A 404 page, an image (passed over) and a header over 64 KiB.
      gzipSync(warcRecord('response', 'https://warc.test/p/gone', httpPage('<p>gone</p>', '404 Not Found'))),
      gzipSync(warcRecord('response', 'https://warc.test/logo.png', 'HTTP/1.1 200 OK\r\nContent-Type: image/png\r\n\r\n\x89PNG')),
      gzipSync(
        warcRecord('response', 'https://warc.test/p/huge-header', httpPage('<p>h</p>'), undefined, `X-Filler: ${'a'.repeat(70_000)}\r\n`),
      ),
      gzipSync(good(3)),
    ]);
    const started = await postWarc(file, `?schema_id=${schemaId}&concurrency=4`);
    expect(started.status).toBe(202);
    const job = await finished(started.body.job_id);
    expect(job).toMatchObject({ status: 'completed', page_count: 3 });
    const items = await results(job.id);
    const byUrl = new Map(items.map((i) => [i.url, i]));
    for (const n of [1, 2, 3])
      expect(byUrl.get(`https://warc.test/p/${n}`)).toMatchObject({ status: 'completed', data: { sku: `WL-${n}` } });
    expect(byUrl.get('https://warc.test/p/long')).toMatchObject({ status: 'failed', error_category: 'invalid_request' });
    expect(byUrl.get('https://warc.test/p/long').error_message).toMatch(/Content-Length does not match/);
    expect(byUrl.get('https://warc.test/p/nohttp')).toMatchObject({ status: 'failed', error_category: 'invalid_request' });
    expect(byUrl.get('https://warc.test/p/gone')).toMatchObject({ status: 'failed', error_category: 'http_error' });
    expect(byUrl.get('https://warc.test/p/huge-header')).toMatchObject({ status: 'failed', error_category: 'invalid_request' });
    expect(byUrl.get('https://warc.test/p/huge-header').error_message).toMatch(/header is larger than 65536 bytes/);
    expect(byUrl.has('https://warc.test/logo.png')).toBe(false);
    expect(job.failed_count).toBe(4);

    // Deleting the job removes the bodies only it referenced (no other job has these pages), and says so in the metrics.
    const store = env.app.app.get<DocumentStore>(DOCUMENT_STORE);
    const pages = await (await store.collection<any>({ name: 'archive_pages', indexes: [] })).find({ job_id: job.id });
    const own = new Set(pages.map((p) => p.body_sha256).filter(Boolean));
    expect(own.size).toBeGreaterThanOrEqual(3);
    const bodies = await metric('gleaner_archive_bodies');
    const deletedBytes = await metric('gleaner_archive_deleted_bytes_total');
    expect((await call('DELETE', `/api/v1/jobs/${job.id}`)).status).toBe(200);
    expect(await metric('gleaner_archive_bodies')).toBe(bodies - own.size);
    expect(await metric('gleaner_archive_deleted_bytes_total')).toBeGreaterThan(deletedBytes);
  });

  it('hostile WARC files are refused safely: not WARC, over the size cap, a gzip bomb, truncated gzip, a wrong content type', async () => {
    const notWarc = await postWarc(Buffer.from('<html>not a warc</html>'.repeat(50)), `?schema_id=${schemaId}`, 'application/warc');
    expect(notWarc.status).toBe(422);
    expect(notWarc.body).toMatchObject({ errors: [{ location: 'body' }] });
    const tooBig = await postWarc(Buffer.alloc(env.warcMaxBytes + 1, 0x41), `?schema_id=${schemaId}`, 'application/warc');
    expect(tooBig.status).toBe(413);
    const json = await call('POST', `/api/v1/warc-extract?schema_id=${schemaId}`, { body: { warc: 'no' } });
    expect(json.status).toBe(415);
    // The body is the file: the saved ids are query parameters, and a 422 names them there.
    for (const [query, location] of [
      ['?schema_id=nope', 'query.schema_id'],
      [`?schema_id=${schemaId}&site_id=nope`, 'query.site_id'],
      [`?schema_id=${schemaId}&webhook_id=nope`, 'query.webhook_id'],
      ['', 'query.schema_id'],
    ]) {
      const refused = await postWarc(gzipSync(warcRecord('warcinfo', null, 'x')), query);
      expect({ query, status: refused.status, locations: (refused.body.errors as any[]).map((e) => e.location) }).toEqual({
        query,
        status: 422,
        locations: [location],
      });
    }
    // Nothing of the refused bodies is kept.
    const store = env.app.app.get<DocumentStore>(DOCUMENT_STORE);
    const uploadsBefore = await (await store.collection({ name: 'archive_uploads', indexes: [] })).count({});

    const ok = warcRecord('response', 'https://bomb.test/ok', httpPage(productHtml('Bomb Proof', 'BP-1')));
    const bomb = gzipSync(Buffer.alloc(64 * 1024 * 1024, 0x20)); // ~64 KiB on the wire, 64 MiB inflated
    const started = await postWarc(Buffer.concat([gzipSync(ok), bomb]), `?schema_id=${schemaId}`);
    expect(started.status).toBe(202);
    const job = await finished(started.body.job_id);
    const items = await results(job.id);
    expect(items.find((i) => i.url === 'https://bomb.test/ok')).toMatchObject({ status: 'completed', data: { sku: 'BP-1' } });
    const stopped = items.find((i) => i.status === 'failed' && /once decompressed/.test(i.error_message));
    expect(stopped).toMatchObject({ error_category: 'invalid_request' });

    const whole = Buffer.concat([gzipSync(ok), gzipSync(warcRecord('response', 'https://trunc.test/x', httpPage('<p>x</p>')))]);
    const truncated = await postWarc(whole.subarray(0, whole.length - 20), `?schema_id=${schemaId}`);
    const tJob = await finished(truncated.body.job_id);
    const tItems = await results(tJob.id);
    expect(tItems.find((i) => i.url === 'https://bomb.test/ok')).toMatchObject({ status: 'completed' });
    expect(tItems.some((i) => i.status === 'failed' && /corrupt or truncated/.test(i.error_message))).toBe(true);
    // The uploads were read and dropped.
    await waitFor(
      async () => ((await (await store.collection({ name: 'archive_uploads', indexes: [] })).count({})) <= uploadsBefore ? true : null),
      10_000,
    );
  });
}
