/**
 * POST /extract with extraction_mode auto end to end: a crawl of the playground shop learns a
 * selector program for its product pages, then single-page extracts of other product pages of the
 * same site and schema re-verify it against the local model server before they use it
 * (docs/learned-extraction.md "Extracts"). Run on both deployments by extract-learned.e2e-spec.ts.
 */
import { learnedTemplates, type LearnedTemplateRecord } from '@app/learned';
import { ResultsRepository } from '@app/results';
import { DOCUMENT_STORE, type DocumentStore } from '@app/storage';
import type { ModelServer } from '../fixtures/model-server';
import { SHOP_PRODUCTS, product, type Playground } from '../fixtures/playground/playground';
import type { RunningApp } from './embedded-app';
import { http, waitFor } from './helpers';

export interface ExtractLearnedEnv {
  app: RunningApp;
  play: Playground;
  models: ModelServer;
}

const PRODUCT_SCHEMA = { name: 'string', price: 'string', sku: 'string' };
/** DEFAULT_LEARNED_CONFIG: agreeing pages before a program is trusted, and one spot check in this many active pages. */
const VERIFY_PAGES = 5;
const SPOT_CHECK_EVERY = 25;

export function extractLearnedSuite(getEnv: () => ExtractLearnedEnv): void {
  let env: ExtractLearnedEnv;
  let key: string;
  let userId: string;
  const call = (method: string, path: string, opts: Parameters<typeof http>[3] = {}) =>
    http(env.app.baseUrl, method, path, { key, ...opts });
  // Each request carries its own BYOK key, so the model server's log tells which request called the model.
  const llm = (apiKey: string) => ({ provider: 'openai', model: 'gpt-4o-mini', api_key: apiKey, base_url: env.models.openaiBaseUrl });
  const modelCallsWith = (apiKey: string) => env.models.requests.filter((r) => r.apiKey === apiKey).length;
  const productUrl = (id: number) => env.play.url('shop.test', `/product/${id}`);
  const expected = (id: number) => ({ name: product(id).name, price: product(id).price, sku: product(id).sku });

  const extract = (body: Record<string, unknown>) =>
    call('POST', '/api/v1/extract', { body: { schema: PRODUCT_SCHEMA, fetch_mode: 'static', ...body } });

  /** The user's stored template of the shop's product pages (the one with an active program). */
  async function productTemplate(): Promise<LearnedTemplateRecord> {
    const templates = await learnedTemplates(env.app.app.get<DocumentStore>(DOCUMENT_STORE));
    const docs = await templates.find({ kind: 'template', user_id: userId });
    const active = docs.filter((d) => d.state.phase === 'active');
    expect(active).toHaveLength(1);
    return active[0];
  }

  beforeAll(() => {
    env = getEnv();
  });
  beforeEach(async () => {
    const created = await http(env.app.baseUrl, 'POST', '/api/v1/users', {
      key: env.app.adminKey,
      body: { name: `learned-${Date.now()}-${Math.random()}` },
    });
    expect(created.status).toBe(201);
    key = created.body.key.key;
    userId = created.body.id;
    env.models.reset();
  });

  it('extraction_mode auto: extracts re-verify the program a crawl learned for the site, then extract by selectors without a model call', async () => {
    const started = await call('POST', '/api/v1/crawl', {
      body: {
        url: env.play.url('shop.test', '/catalog/page/1'),
        schema: PRODUCT_SCHEMA,
        llm_config: llm('sk-learned-crawl'),
        extraction_mode: 'auto',
        options: { follow_selector: 'li.next a, a.product', max_depth: 10, max_pages: 32, concurrency: 3 },
      },
    });
    expect(started.status).toBe(202);
    const job = await waitFor(async () => {
      const j = (await call('GET', `/api/v1/jobs/${started.body.job_id}`)).body;
      return ['completed', 'failed', 'cancelled'].includes(j.status) ? j : null;
    }, 120_000);
    expect(job).toMatchObject({ status: 'completed', failed_count: 0 });
    // The crawl's program was accepted and extracted some of its pages.
    const map = (await call('GET', `/api/v1/jobs/${job.id}/crawl-map`)).body;
    expect(map.extracted_by_method.selectors).toBeGreaterThan(0);
    const crawled = new Set(((await call('GET', `/api/v1/jobs/${job.id}/results`)).body as Array<{ url: string }>).map((i) => i.url));
    const fresh = Array.from({ length: SHOP_PRODUCTS }, (_, i) => i + 1).filter((id) => !crawled.has(productUrl(id)));
    expect(fresh.length).toBeGreaterThanOrEqual(VERIFY_PAGES + 2);

    const learned = await productTemplate();
    const programId = learned.state.program!.id;
    const templateId = learned.template_id;
    expect(learned.state.trust?.extracts).toBeUndefined();

    // The first extracts re-verify the program: the model extracts, the program runs beside it, the agreement is recorded.
    for (const [i, id] of fresh.slice(0, VERIFY_PAGES).entries()) {
      const apiKey = `sk-learned-verify-${i}`;
      const res = await extract({ url: productUrl(id), extraction_mode: 'auto', llm_config: llm(apiKey) });
      expect(res.status).toBe(200);
      expect(res.body.data).toEqual(expected(id));
      // Re-verification reads the page's text around what the rules found: a partial call.
      expect(res.body.metadata).toMatchObject({
        method: 'model',
        model_call: 'partial',
        program_id: programId,
        template_id: templateId,
        model: 'gpt-4o-mini',
      });
      expect(res.body.usage.input_tokens).toBeGreaterThan(0);
      expect(modelCallsWith(apiKey)).toBe(1);
      const state = (await productTemplate()).state;
      expect(state.program!.id).toBe(programId);
      expect(Object.values(state.trust!.extracts)).toEqual(
        Array(3).fill({ rule: expect.stringMatching(/^[0-9a-f]{16}$/), agreeing: i + 1 }),
      );
    }

    // Then the program extracts, unless the page is due for a spot check (one active page in 25 goes to the model).
    let selectorsExtract: { id: number; apiKey: string; body: any } | undefined;
    for (const [i, id] of fresh.slice(VERIFY_PAGES, VERIFY_PAGES + 2).entries()) {
      const spotCheck = ((await productTemplate()).state.active.pages + 1) % SPOT_CHECK_EVERY === 0;
      const apiKey = `sk-learned-use-${i}`;
      const res = await extract({ url: productUrl(id), extraction_mode: 'auto', llm_config: llm(apiKey) });
      expect(res.status).toBe(200);
      expect(res.body.data).toEqual(expected(id));
      expect({ id, method: res.body.metadata.method, modelCalls: modelCallsWith(apiKey) }).toEqual({
        id,
        method: spotCheck ? 'model' : 'selectors',
        modelCalls: spotCheck ? 1 : 0,
      });
      if (!spotCheck) {
        selectorsExtract = { id, apiKey, body: res.body };
        break;
      }
    }
    expect(selectorsExtract).toBeDefined();
    const { body } = selectorsExtract!;
    expect(body.metadata).toMatchObject({
      method: 'selectors',
      program_id: programId,
      template_id: templateId,
      model: null,
      provider: null,
    });
    expect(body.usage).toEqual({ input_tokens: 0, output_tokens: 0, cost_usd: 0, llm_cost_usd: 0, is_byok: false });
    const extractJob = (await call('GET', `/api/v1/jobs/${body.job_id}`)).body;
    expect(extractJob).toMatchObject({ status: 'completed', page_count: 1, token_usage_input: 0, token_usage_output: 0, cost_usd: 0 });
    expect(extractJob.attempts).toEqual([]);
    // The stored result says how it was made.
    const record = await env.app.app.get(ResultsRepository).findById(`${body.job_id}:p:single`);
    expect(record).toMatchObject({
      data: expected(selectorsExtract!.id),
      metadata: { method: 'selectors', program_id: programId, template_id: templateId },
      token_usage_input: 0,
      cost_usd: 0,
      llm_model: null,
    });
    // Extracts never set the template back for crawls: the crawl that learned it keeps its trust, the rules stay active.
    const after = (await productTemplate()).state;
    expect(after.phase).toBe('active');
    expect(after.trust![`crawl:${job.id}`]).toEqual(learned.state.trust![`crawl:${job.id}`]);
  });

  it('extraction_mode model (the default) is unchanged, and a bad extraction_mode is a 422 problem', async () => {
    const res = await extract({ url: productUrl(7), llm_config: llm('sk-learned-model') });
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual(expected(7));
    expect(res.body.metadata).toMatchObject({ method: 'model', model: 'gpt-4o-mini', provider: 'openai' });
    expect(res.body.metadata).not.toHaveProperty('program_id');
    expect(res.body.metadata).not.toHaveProperty('template_id');
    expect(modelCallsWith('sk-learned-model')).toBe(1);
    const record = await env.app.app.get(ResultsRepository).findById(`${res.body.job_id}:p:single`);
    expect(record?.metadata).toEqual({ method: 'model', fields: expect.any(Object), ungrounded_fields: 0 });
    const templates = await learnedTemplates(env.app.app.get<DocumentStore>(DOCUMENT_STORE));
    expect(await templates.find({ user_id: userId })).toEqual([]);

    for (const bad of ['learned', null, 1]) {
      const rejected = await extract({ url: productUrl(7), extraction_mode: bad, llm_config: llm('sk-learned-bad') });
      expect(rejected.status).toBe(422);
      expect(rejected.headers.get('content-type')).toContain('application/problem+json');
      expect(JSON.stringify(rejected.body.errors)).toContain('extraction_mode');
    }
    expect(modelCallsWith('sk-learned-bad')).toBe(0);

    // The document states the same option as the crawl's (only the description says what it does for the endpoint).
    const schemas = (await call('GET', '/api/v1/openapi.json')).body.components.schemas;
    const { description: extractText, ...extractMode } = schemas.ExtractRequestDto.properties.extraction_mode;
    const { description: crawlText, ...crawlMode } = schemas.CrawlRequestDto.properties.extraction_mode;
    expect(extractMode).toEqual(crawlMode);
    expect(extractMode).toMatchObject({ enum: ['model', 'auto'], default: 'model' });
    expect([typeof extractText, typeof crawlText]).toEqual(['string', 'string']);
    expect(schemas.ExtractionMetadataResponse.required).toEqual(expect.arrayContaining(['model', 'provider', 'method']));
  });
}
