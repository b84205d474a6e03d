/**
 * Provenance and grounding end to end (docs/provenance.md): `metadata.fields` on the extract answer, result items in
 * every export format, SSE `result` events and `job.page` webhooks; the `provenance` and `grounding` options on
 * requests and saved sites; the counters per page, crawl and extract; the crawl map filter; learned values with their
 * selectors; the Prometheus counter. A model that invents values is the model server's `invent` fault (every second
 * text or number of its answer replaced by one on no page). Run on both deployments by provenance.e2e-spec.ts.
 */
import { createHmac } from 'node:crypto';
import type { ModelServer } from '../fixtures/model-server';
import { SHOP_PRODUCTS, product, type Playground } from '../fixtures/playground/playground';
import type { WebhookReceiver } from '../fixtures/webhook-receiver';
import type { RunningApp } from './embedded-app';
import { http, readSse, waitFor } from './helpers';

export interface ProvenanceEnv {
  app: RunningApp;
  play: Playground;
  models: ModelServer;
  receiver: WebhookReceiver;
}

const SCHEMA = { name: 'string', price: 'string', sku: 'string', in_stock: 'boolean' };
const INVENTED = 'Zanzibar Quillfeather';
const TERMINAL = ['completed', 'failed', 'cancelled'];

export function provenanceSuite(getEnv: () => ProvenanceEnv): void {
  let env: ProvenanceEnv;
  const call = (method: string, path: string, opts: Parameters<typeof http>[3] = {}) =>
    http(env.app.baseUrl, method, path, { key: env.app.adminKey, ...opts });
  const llm = (model = 'gpt-4o-mini') => ({ provider: 'openai', model, api_key: 'sk-provenance-test', base_url: env.models.openaiBaseUrl });
  const productUrl = (id: number) => env.play.url('shop.test', `/product/${id}`);
  const extract = (body: Record<string, unknown>, model?: string) =>
    call('POST', '/api/v1/extract', { body: { schema: SCHEMA, fetch_mode: 'static', llm_config: llm(model), ...body } });
  const finished = (jobId: string) =>
    waitFor(async () => {
      const job = (await call('GET', `/api/v1/jobs/${jobId}`)).body;
      return TERMINAL.includes(job.status) ? job : null;
    }, 120_000);
  const crawl = async (body: Record<string, unknown>, model?: string) => {
    const res = await call('POST', '/api/v1/crawl', { body: { schema: SCHEMA, llm_config: llm(model), ...body } });
    expect([res.status, res.status === 202 ? null : res.text]).toEqual([202, null]);
    return res.body.job_id as string;
  };
  const results = async (jobId: string, format = 'json') => (await call('GET', `/api/v1/jobs/${jobId}/results?format=${format}`)).text;

  beforeAll(() => {
    env = getEnv();
  });

  it('extract: every value says where it came from and whether it is on the page (summary by default)', async () => {
    const res = await extract({ url: productUrl(3) });
    expect([res.status, res.status === 200 ? null : res.text]).toEqual([200, null]);
    expect(res.body.data).toMatchObject({ name: product(3).name, price: product(3).price, sku: product(3).sku });
    expect(res.body.metadata).toMatchObject({
      method: 'model',
      ungrounded_fields: 0,
      fields: {
        name: { source: 'model', grounded: true },
        price: { source: 'model', grounded: true },
        sku: { source: 'model', grounded: true },
        // Nothing to check: the page does not say (and a boolean would be chosen, not read).
        in_stock: { source: 'model', grounded: null },
      },
    });
    // summary keeps source and grounded only.
    for (const entry of Object.values(res.body.metadata.fields))
      expect(Object.keys(entry as object).sort()).toEqual(['grounded', 'source']);
    const [item] = JSON.parse(await results(res.body.job_id));
    expect(item.metadata).toEqual({ method: 'model', fields: res.body.metadata.fields, ungrounded_fields: 0 });
    expect((await call('GET', `/api/v1/jobs/${res.body.job_id}`)).body).toMatchObject({ type: 'extract', ungrounded_fields: 0 });
  });

  it('extract, full: the evidence is a snippet and its offsets in the very text the model was given', async () => {
    const res = await extract({ url: productUrl(4), provenance: 'full', capture_debug: true });
    expect(res.status).toBe(200);
    const sent = (await call('GET', `/api/v1/jobs/${res.body.job_id}/debug-capture`)).body.captures[0].raw_content as string;
    const words = (text: string) => text.toLowerCase().match(/[\p{L}\p{N}]+/gu);
    for (const name of ['name', 'price', 'sku']) {
      const field = res.body.metadata.fields[name];
      expect(field).toMatchObject({ source: 'model', grounded: true, evidence: { in: 'page' } });
      const { start, end, text } = field.evidence;
      // The offsets cover the value's words in the text sent, and the snippet shows them.
      expect([name, words(sent.slice(start, end))]).toEqual([name, words(res.body.data[name])]);
      expect(text).toContain(sent.slice(start, end));
    }
    // The page says nothing of stock: the model's null, and why it is null.
    expect(res.body.metadata.fields.in_stock).toEqual({ source: 'model', grounded: null, reason: 'model_null' });
  });

  it('extract with a model that invents: report keeps the value and says so, null_ungrounded removes it, fail_page fails the page', async () => {
    const reported = await extract({ url: productUrl(5) }, 'gpt-4o-mini+invent');
    expect(reported.status).toBe(200);
    // The second value of the answer (price) is invented; name and sku are the page's.
    expect(reported.body.data).toMatchObject({ name: product(5).name, price: INVENTED, sku: product(5).sku });
    expect(reported.body.metadata).toMatchObject({
      ungrounded_fields: 1,
      fields: { name: { grounded: true }, price: { grounded: false }, sku: { grounded: true } },
    });
    expect((await call('GET', `/api/v1/jobs/${reported.body.job_id}`)).body.ungrounded_fields).toBe(1);

    const nulled = await extract({ url: productUrl(5), grounding: 'null_ungrounded', provenance: 'full' }, 'gpt-4o-mini+invent');
    expect(nulled.status).toBe(200);
    expect(nulled.body.data).toMatchObject({ name: product(5).name, price: null, sku: product(5).sku });
    expect(nulled.body.metadata.fields.price).toEqual({ source: 'model', grounded: false, reason: 'ungrounded', value: INVENTED });
    expect(nulled.body.metadata.ungrounded_fields).toBe(1);

    const failed = await extract({ url: productUrl(5), grounding: 'fail_page' }, 'gpt-4o-mini+invent');
    expect(failed.status).toBe(502);
    expect(failed.headers.get('content-type')).toContain('application/problem+json');
    expect(failed.body).toMatchObject({
      error_category: 'ungrounded_output',
      detail: 'A value is not on the page (grounding: fail_page): price.',
      job_id: expect.any(String),
    });
    const job = await finished(failed.body.job_id);
    expect(job).toMatchObject({ status: 'failed', error_category: 'ungrounded_output', failed_count: 1, ungrounded_fields: 1 });
    expect(job.token_usage_input).toBeGreaterThan(0); // the model call was made and is paid for
    const [item] = JSON.parse(await results(failed.body.job_id));
    expect(item).toMatchObject({ status: 'failed', error_category: 'ungrounded_output', data: null, metadata: { method: null } });
  });

  it('extract, provenance off: no fields, the count still there', async () => {
    const res = await extract({ url: productUrl(6), provenance: 'off' }, 'gpt-4o-mini+invent');
    expect(res.status).toBe(200);
    expect(res.body.metadata.fields).toBeUndefined();
    expect(res.body.metadata.ungrounded_fields).toBe(1);
    const [item] = JSON.parse(await results(res.body.job_id));
    expect(item.metadata).toEqual({ method: 'model', ungrounded_fields: 1 });
  });

  it('extract: a number the model gave as text it cannot read is null with reason coerce_failed and its value (full)', async () => {
    const schema = { name: 'string', price: 'number' };
    const calls = () => env.models.requests.filter((r) => r.model === 'gpt-4o-mini+unreadable' && r.userText.includes('/product/7')).length;
    const before = calls();
    const res = await extract({ url: productUrl(7), schema, provenance: 'full' }, 'gpt-4o-mini+unreadable');
    expect([res.status, res.status === 200 ? null : res.text]).toEqual([200, null]);
    expect(res.body.data).toEqual({ name: product(7).name, price: null });
    expect(res.body.metadata.fields.price).toEqual({ source: 'model', grounded: null, reason: 'coerce_failed', value: 'Call for price' });
    // One model call: the null is the answer, not a reason to ask again.
    expect(calls() - before).toBe(1);
    expect((await call('GET', `/api/v1/jobs/${res.body.job_id}`)).body).toMatchObject({ status: 'completed', ungrounded_fields: 0 });
    const summary = await extract({ url: productUrl(7), schema }, 'gpt-4o-mini+unreadable');
    expect(summary.body.metadata.fields.price).toEqual({ source: 'model', grounded: null });
  });

  it("a saved site's provenance and grounding apply to its extracts and crawls; the request's own win", async () => {
    const site = await call('POST', '/api/v1/sites', {
      body: { url: productUrl(7), crawl_options: { provenance: 'full', grounding: 'null_ungrounded', max_pages: 1, max_depth: 0 } },
    });
    expect(site.status).toBe(201);
    expect(site.body.crawl_options).toMatchObject({ provenance: 'full', grounding: 'null_ungrounded' });
    const bySite = await extract({ site_id: site.body.id }, 'gpt-4o-mini+invent');
    expect(bySite.status).toBe(200);
    expect(bySite.body.data.price).toBeNull();
    expect(bySite.body.metadata.fields.price).toMatchObject({ reason: 'ungrounded' });
    const overridden = await extract({ site_id: site.body.id, provenance: 'summary', grounding: 'report' }, 'gpt-4o-mini+invent');
    expect(overridden.body.data.price).toBe(INVENTED);
    expect(overridden.body.metadata.fields.price).toEqual({ source: 'model', grounded: false });

    const jobId = await crawl({ site_id: site.body.id }, 'gpt-4o-mini+invent');
    const job = await finished(jobId);
    expect(job.options).toMatchObject({ provenance: 'full', grounding: 'null_ungrounded' });
    const [item] = JSON.parse(await results(jobId));
    expect(item.data.price).toBeNull();
    expect(item.metadata.fields.price).toEqual({ source: 'model', grounded: false, reason: 'ungrounded', value: INVENTED });
  });

  it('refuses unknown options with a 422 that points at them, on extract, crawl and saved sites', async () => {
    const bad = await extract({ url: productUrl(1), provenance: 'verbose' });
    expect(bad.status).toBe(422);
    expect(bad.body.errors).toEqual([expect.objectContaining({ location: 'body.provenance' })]);
    const badCrawl = await call('POST', '/api/v1/crawl', {
      body: { url: productUrl(1), schema: SCHEMA, llm_config: llm(), options: { grounding: 'strict' } },
    });
    expect(badCrawl.status).toBe(422);
    expect(badCrawl.body.errors).toEqual([expect.objectContaining({ location: 'body.options.grounding' })]);
    const badSite = await call('POST', '/api/v1/sites', { body: { url: productUrl(1), crawl_options: { provenance: 1 } } });
    expect(badSite.status).toBe(422);
    expect(badSite.body.errors).toEqual([expect.objectContaining({ location: 'body.crawl_options.provenance' })]);
  });

  it('crawl: provenance in results (json, jsonl, yaml), SSE result events and job.page webhooks; counters per page and job; the map filter', async () => {
    const secret = 'provenance-webhook-secret';
    const jobId = await crawl(
      {
        url: env.play.url('shop.test', '/catalog/page/1'),
        options: { follow_selector: 'a.product', max_depth: 1, max_pages: 6, provenance: 'full' },
        webhook: { url: `${env.receiver.url}/ok`, secret },
      },
      'gpt-4o-mini+invent',
    );
    const stream = await readSse(`${env.app.baseUrl}/api/v1/jobs/${jobId}/stream`, { key: env.app.adminKey, timeoutMs: 120_000 });
    const job = await finished(jobId);
    expect(job).toMatchObject({ status: 'completed', page_count: 6 });
    const items = JSON.parse(await results(jobId)) as any[];
    expect(items).toHaveLength(6);
    const products = items.filter((i) => /\/product\/\d+$/.test(i.url));
    expect(products).toHaveLength(5);
    for (const item of products) {
      expect(item.data.price).toBe(INVENTED);
      expect(item.metadata).toMatchObject({
        method: 'model',
        ungrounded_fields: 1,
        fields: {
          name: { source: 'model', grounded: true, evidence: { in: 'page' } },
          price: { source: 'model', grounded: false },
          sku: { source: 'model', grounded: true },
        },
      });
    }
    // The same item everywhere: the SSE result event, the job.page webhook, every export format.
    const byId = new Map(items.map((i) => [i.id, i]));
    const sseItems = stream.events.filter((e) => e.event === 'result').map((e) => e.data);
    expect(sseItems).toHaveLength(6);
    for (const data of sseItems) expect(data.metadata).toEqual(byId.get(data.id).metadata);
    const hooks = await waitFor(async () => {
      const got = env.receiver.requests.filter((r) => r.json?.job_id === jobId);
      return got.some((r) => r.json.type === 'job.completed') ? got : null;
    });
    const pageHooks = hooks.filter((h) => h.json.type === 'job.page');
    expect(pageHooks).toHaveLength(6);
    for (const hook of pageHooks) {
      const signed = `${hook.headers['webhook-id']}.${hook.headers['webhook-timestamp']}.${hook.body}`;
      expect(String(hook.headers['webhook-signature'])).toBe(`v1,${createHmac('sha256', secret).update(signed).digest('base64')}`);
      expect(hook.json.data.metadata).toEqual(byId.get(hook.json.data.id as string).metadata);
    }
    const lines = (await results(jobId, 'jsonl'))
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(lines.map((l) => l.metadata)).toEqual(items.map((i) => i.metadata));
    expect(await results(jobId, 'yaml')).toContain('reason: model_null');

    // Per page (map entry, item), per job, and the map's filter for pages with ungrounded values.
    const m = (await call('GET', `/api/v1/jobs/${jobId}/crawl-map`)).body;
    const total = items.reduce((n, i) => n + i.metadata.ungrounded_fields, 0);
    expect(job.ungrounded_fields).toBe(total);
    expect(m.entries.reduce((n: number, e: any) => n + (e.ungrounded_fields ?? 0), 0)).toBe(total);
    const flagged = m.entries.filter((e: any) => e.ungrounded_fields > 0);
    expect(flagged.length).toBeGreaterThanOrEqual(5);
    expect(m.pages_with_ungrounded_fields).toBe(flagged.length);
    const filtered = (await call('GET', `/api/v1/jobs/${jobId}/crawl-map?ungrounded=true`)).body;
    expect(filtered.entries.map((e: any) => e.url)).toEqual(flagged.map((e: any) => e.url));
    expect((await call('GET', `/api/v1/jobs/${jobId}/crawl-map?ungrounded=yes`)).status).toBe(422);
    const lastStatus = stream.events.filter((e) => e.event === 'status').pop()!;
    expect(lastStatus.data.ungrounded_fields).toBeGreaterThan(0);
  });

  it('crawl, fail_page: pages with an invented value fail with ungrounded_output, counted as model calls and in the error summary', async () => {
    const jobId = await crawl(
      {
        url: env.play.url('shop.test', '/catalog/page/2'),
        options: { follow_selector: 'a.product', max_depth: 1, max_pages: 4, grounding: 'fail_page', provenance: 'off' },
      },
      'gpt-4o-mini+invent',
    );
    const job = await finished(jobId);
    const m = (await call('GET', `/api/v1/jobs/${jobId}/crawl-map`)).body;
    const failed = m.entries.filter((e: any) => e.status === 'failed');
    expect(failed.length).toBeGreaterThanOrEqual(3);
    for (const entry of failed) expect(entry).toMatchObject({ error_category: 'ungrounded_output', ungrounded_fields: 1 });
    for (const entry of m.entries.filter((e: any) => e.status === 'completed')) expect(entry.ungrounded_fields).toBe(0);
    expect(m.error_summary.by_category).toEqual({ ungrounded_output: failed.length });
    expect(job).toMatchObject({ status: 'completed', failed_count: failed.length, ungrounded_fields: failed.length });
    expect(job.model_calls).toBe(job.page_count + failed.length);
    const items = JSON.parse(await results(jobId)) as any[];
    for (const item of items.filter((i) => i.status === 'failed'))
      expect(item).toMatchObject({ error_category: 'ungrounded_output', error_message: expect.stringContaining('price') });
  });

  it('learned extraction: values a program read carry their selector, at no model cost', async () => {
    const jobId = await crawl({
      url: env.play.url('shop.test', '/catalog/page/3'),
      schema: { name: 'string', price: 'string', sku: 'string' },
      extraction_mode: 'auto',
      options: { follow_selector: 'a.product', max_depth: 1, max_pages: 11, concurrency: 1, provenance: 'full' },
    });
    const job = await finished(jobId);
    expect(job.status).toBe('completed');
    const items = JSON.parse(await results(jobId)) as any[];
    const programmed = items.filter((i) => i.metadata.method === 'selectors' || i.metadata.method === 'mixed');
    expect(programmed.length).toBeGreaterThan(0);
    for (const item of programmed) {
      const modelFields = new Set<string>(item.metadata.model_fields ?? []);
      for (const name of ['name', 'price', 'sku']) {
        const field = item.metadata.fields[name];
        if (modelFields.has(name)) {
          expect(field).toMatchObject({ source: 'model', grounded: true });
          continue;
        }
        expect(field).toMatchObject({
          source: 'selectors',
          grounded: true,
          selector: { css: expect.any(String), read: expect.any(String) },
        });
        expect(field.evidence.text).toContain(item.data[name]);
      }
    }
    for (const item of items.filter((i) => i.metadata.method === 'model'))
      for (const field of Object.values(item.metadata.fields)) expect(field).toMatchObject({ source: 'model' });
    expect(SHOP_PRODUCTS).toBeGreaterThan(10);
  });

  it('counts checked values by model for Prometheus: which model invents', async () => {
    const text = (await http(env.app.baseUrl, 'GET', '/metrics')).text;
    const value = (model: string, outcome: string) =>
      Number(
        new RegExp(
          `gleaner_field_grounding_total\\{provider="openai",model="${model.replace(/[+]/g, '\\+')}",outcome="${outcome}"[^}]*\\} (\\d+)`,
        ).exec(text)?.[1] ?? NaN,
      );
    expect(value('gpt-4o-mini+invent', 'ungrounded')).toBeGreaterThan(0);
    expect(value('gpt-4o-mini+invent', 'grounded')).toBeGreaterThan(0);
    expect(value('gpt-4o-mini', 'ungrounded')).toBe(0);
    expect(value('gpt-4o-mini', 'grounded')).toBeGreaterThan(0);
  });
}
