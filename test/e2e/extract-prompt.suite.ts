/**
 * A prompt without a schema (docs/scrape.md "A prompt without a schema"), end to end: POST /extract, the scrape's json
 * format and a batch without formats, against the fixture quotes site and the local model server. The model proposes
 * each page's schema (one call), the page is extracted with it (another), and the answer names the schema.
 */
import { quotesForPage } from '../fixtures/site/quotes-data';
import { http, waitFor } from './helpers';
import type { ExtractionEnv } from './extraction.suite';

const PROMPT = 'Every quote on the page with its author and tags.';

export function extractPromptSuite(getEnv: () => ExtractionEnv): void {
  describe('a prompt without a schema', () => {
    let env: ExtractionEnv;
    let key: string;
    const call = (method: string, path: string, body?: unknown) => http(env.app.baseUrl, method, path, { key, body });
    const llm = (model = 'gpt-4o-mini') => ({ provider: 'openai', model, api_key: 'sk-prompt-only', base_url: env.models.openaiBaseUrl });
    const quotes = (page: number) => quotesForPage(page).map((q) => ({ text: q.text, author: q.author, tags: q.tags }));
    /** The model requests since `since`: whether each asked for a schema (the proposal) or for the page's data. */
    const asked = (since: number) =>
      env.models.requests.slice(since).map((r) => (r.schema?.properties?.suggested_schema ? 'proposal' : 'data'));

    beforeAll(async () => {
      env = getEnv();
      key = (await http(env.app.baseUrl, 'POST', '/api/v1/users', { key: env.app.adminKey, body: { name: `prompt-${Date.now()}` } })).body
        .key.key as string;
    });

    it('POST /extract: the model proposes the schema, the data follows it, metadata.schema names it, both calls are paid', async () => {
      const since = env.models.requests.length;
      const res = await call('POST', '/api/v1/extract', {
        url: `${env.site.url}/page/1/`,
        prompt: PROMPT,
        fetch_mode: 'static',
        llm_config: llm(),
      });
      expect(res.status).toBe(200);
      expect(asked(since)).toEqual(['proposal', 'data']);
      // The proposal call was told the prompt beside the page.
      expect(env.models.requests[since].userText).toContain(PROMPT);
      expect(env.models.requests[since + 1].userText).toContain(PROMPT);
      expect(res.body.data.quotes).toEqual(quotes(1));
      const schema = res.body.metadata.schema;
      expect(schema).toMatchObject({
        type: 'object',
        properties: { quotes: { type: expect.arrayContaining(['array']), items: { type: 'object' } } },
      });
      expect(Object.keys(schema.properties.quotes.items.properties).sort()).toEqual(['author', 'tags', 'text']);
      // Long lists and provenance work on the proposed schema as on a given one: per leaf, every one on the page.
      expect(res.body.metadata.items).toEqual([expect.objectContaining({ path: 'quotes', expected: 10, extracted: 10, complete: true })]);
      const fields = Object.entries(res.body.metadata.fields as Record<string, { grounded: boolean }>).filter(([path]) =>
        path.startsWith('quotes'),
      );
      expect(fields.length).toBe(quotes(1).reduce((n, q) => n + 2 + q.tags.length, 0));
      expect(fields.every(([, f]) => f.grounded)).toBe(true);
      const job = (await call('GET', `/api/v1/jobs/${res.body.job_id}`)).body;
      expect(job.attempts.map((a: { outcome: string }) => a.outcome)).toEqual(['success', 'success']);
      expect(job.token_usage_input).toBe(res.body.usage.input_tokens);
      expect(res.body.usage.input_tokens).toBeGreaterThan(0);

      // The proposed schema, given back as a schema, extracts another page alike (one call).
      const again = await call('POST', '/api/v1/extract', {
        url: `${env.site.url}/page/2/`,
        schema,
        fetch_mode: 'static',
        llm_config: llm(),
      });
      expect(again.status).toBe(200);
      expect(again.body.data.quotes).toEqual(quotes(2));
      expect(again.body.metadata.schema).toBeUndefined();
    });

    it('a proposal that does not parse is asked once more; twice is llm_invalid_output, both calls on the job', async () => {
      const once = env.models.requests.length;
      const ok = await call('POST', '/api/v1/extract', {
        url: `${env.site.url}/page/1/`,
        prompt: PROMPT,
        fetch_mode: 'static',
        llm_config: llm('bad-schema-1'),
      });
      expect(ok.status).toBe(200);
      expect(asked(once)).toEqual(['proposal', 'proposal', 'data']);
      expect(env.models.requests[once + 1].userText).toContain('did not parse');
      expect(ok.body.data.quotes).toEqual(quotes(1));

      const since = env.models.requests.length;
      const bad = await call('POST', '/api/v1/extract', {
        url: `${env.site.url}/page/1/`,
        prompt: PROMPT,
        fetch_mode: 'static',
        llm_config: llm('bad-schema-2'),
      });
      expect(bad.status).toBe(502);
      expect(bad.body).toMatchObject({
        error_category: 'llm_invalid_output',
        detail: expect.stringMatching(/did not propose a usable schema/),
      });
      expect(asked(since)).toEqual(['proposal', 'proposal']);
      const job = (await call('GET', `/api/v1/jobs/${bad.body.job_id}`)).body;
      expect(job).toMatchObject({ status: 'failed', error_category: 'llm_invalid_output' });
      expect(job.token_usage_input).toBeGreaterThan(0);
    });

    it('refuses extraction_mode auto with a prompt alone, and a request with neither schema nor prompt', async () => {
      const since = env.models.requests.length;
      const url = `${env.site.url}/page/1/`;
      for (const [body, location] of [
        [{ url, prompt: PROMPT, extraction_mode: 'auto', llm_config: llm() }, 'body.extraction_mode'],
        [{ url, llm_config: llm() }, 'body.schema'],
        [{ url, prompt: '', llm_config: llm() }, 'body.prompt'],
      ] as const) {
        const res = await call('POST', '/api/v1/extract', body);
        expect([res.status, res.body.errors?.[0]?.location]).toEqual([422, location]);
      }
      const batch = await call('POST', '/api/v1/batch/extract', {
        urls: [url],
        prompt: PROMPT,
        extraction_mode: 'auto',
        llm_config: llm(),
      });
      expect([batch.status, batch.body.errors?.[0]?.location]).toEqual([422, 'body.extraction_mode']);
      expect(env.models.requests.length).toBe(since);
    });

    it("the scrape's json format with a prompt alone: data.json and metadata.schema", async () => {
      const res = await call('POST', '/api/v1/scrape', {
        url: `${env.site.url}/page/1/`,
        formats: ['markdown', 'json'],
        prompt: PROMPT,
        fetch_mode: 'static',
        llm_config: llm(),
      });
      expect(res.status).toBe(200);
      expect(res.body.data.markdown).toContain('Albert Einstein');
      expect(res.body.data.json.quotes).toEqual(quotes(1));
      expect(res.body.metadata).toMatchObject({
        model_call: 'full',
        schema: { properties: { quotes: { type: expect.arrayContaining(['array']) } } },
      });
    });

    it('a batch with a prompt alone and no formats: every page extracted with its own proposed schema', async () => {
      const urls = [`${env.site.url}/page/3/`, `${env.site.url}/page/4/`];
      const started = await call('POST', '/api/v1/batch/extract', {
        urls,
        prompt: PROMPT,
        llm_config: llm(),
        options: { fetch_mode: 'static' },
      });
      expect(started.status).toBe(202);
      const jobId = started.body.job_id as string;
      await waitFor(async () => ['completed', 'failed'].includes((await call('GET', `/api/v1/jobs/${jobId}`)).body.status), 60_000, 200);
      const job = (await call('GET', `/api/v1/jobs/${jobId}`)).body;
      expect(job).toMatchObject({ status: 'completed', page_count: 2 });
      const items = (await call('GET', `/api/v1/jobs/${jobId}/results`)).body as Array<{ url: string; data: any; metadata: any }>;
      const byUrl = new Map(items.map((item) => [item.url, item]));
      expect(byUrl.get(urls[0])!.data.quotes).toEqual(quotes(3));
      expect(byUrl.get(urls[1])!.data.quotes).toEqual(quotes(4));
      for (const item of items)
        expect(item.metadata.schema).toMatchObject({ properties: { quotes: { type: expect.arrayContaining(['array']) } } });
    });
  });
}
