import { convertHtml } from '@app/content';
import { AppError, StoreUnavailableError, Usage, type Warning } from '@app/core';
import type { JobRecord } from '@app/jobs';
import { crawlConsumer, learnedTemplates } from '@app/learned';
import type { ModelTarget } from '@app/llm';
import { Metrics, type AppLogger } from '@app/observability';
import { MAX_SCRAPE_DATA_BYTES, type LoadedPage } from '@app/pages';
import type { GroundingPolicy } from '@app/provenance';
import type { ResultsService, ScreenshotsService } from '@app/results';
import { SqliteDocumentStore, type DocumentStore } from '@app/storage';
import { bookNumber } from '../../../../test/fixtures/learned-model';
import { BOOK_SCHEMA, book, productPage, productUrl, truth } from '../../../../test/fixtures/learned-shop';
import { ExtractionFailure, type ExtractionService, type ExtractOutput } from '../extraction.service';
import { GroundingService } from '../grounding.service';
import { completedResult, PageFailure, type PageExtraction } from './page-extraction';
import { PageExtractor } from './page-extractor';
import { PageRecords, PageSteps } from './page-extractor-parts';
import { PROPOSAL_SCHEMA } from './schema-proposal';
import { SCHEMA_FROM_PROMPT } from '@app/schema';
import { ModelPlanCache, PLAN_CACHE_MS, type FormatsPagePlan, type ModelPagePlan, type PageRun } from './page-plan';

type ExtractInput = Parameters<ExtractionService['extract']>[0];
type Answer = (input: ExtractInput) => unknown;

const SCHEMA = {
  type: 'object' as const,
  properties: {
    title: { type: ['string', 'null'] as Array<'string' | 'null'> },
    price: { type: ['number', 'null'] as Array<'number' | 'null'> },
  },
};
const URL_A = 'http://shop.test/a';
const MARKDOWN = '# Bree Tanner\n\nBy Stephenie Meyer — $12.99';
const TARGET = { provider: 'openai', model: 'gpt-4o-mini' } as ModelTarget;

function output(data: unknown, content: string): ExtractOutput {
  return {
    data,
    target: TARGET,
    contentTruncated: false,
    content,
    nulled: [],
    warnings: [],
    attempts: [],
    usage: { inputTokens: 120, outputTokens: 30 },
    llmCostUsd: 0.001,
    costUsd: 0.0012,
    isByok: false,
  };
}

/** The extraction service as the step sees it: a plan that counts its resolutions, and a scripted model answer. */
class ScriptedExtraction {
  plans = 0;
  /** What the next calls report as their warnings (the page's text cut to fit the model). */
  warnings: Warning[] = [];
  readonly calls: Array<{ input: ExtractInput; targets: ModelTarget[] | undefined }> = [];
  constructor(private readonly answer: Answer) {}

  async plan(): Promise<ModelTarget[]> {
    this.plans++;
    return [TARGET];
  }

  chunkBudget(_target: ModelTarget, itemsPerCall: number) {
    return { outputTokens: 16_384, contentTokens: 100_000, itemsPerCall };
  }

  async extract(input: ExtractInput, targets?: ModelTarget[]): Promise<ExtractOutput> {
    this.calls.push({ input, targets });
    await input.onCall?.({
      target: TARGET,
      prompt: `key ${input.llmConfig?.api_key}`,
      content: input.content,
      promptSize: 1,
      contentSize: input.content.length,
      durationMs: 1,
      inputTokens: 120,
      outputTokens: 30,
      success: true,
      error: null,
    });
    return { ...output(await this.answer(input), input.content), warnings: this.warnings };
  }
}

function markdownPage(url: string, markdown = MARKDOWN): LoadedPage {
  return {
    fetch: { url, status: 200, mode: 'static', html: `<p>${markdown}</p>` },
    content: { markdown, metadata: { title: 'Bree', openGraph: {}, jsonLd: [] }, links: [], stats: { ms: 1 } },
  } as unknown as LoadedPage;
}

/** A page of the made-up bookshop, converted as the pipeline loads it (with the attribute values grounding reads). */
function shopPage(n: number): LoadedPage {
  const url = productUrl(book(n));
  const html = productPage(book(n));
  return {
    fetch: { url, status: 200, mode: 'static', html },
    content: convertHtml({ html, url, mode: 'main', also: { attributes: true } }),
  } as unknown as LoadedPage;
}

interface StepOptions {
  grounding?: GroundingPolicy;
  mode?: 'model' | 'auto';
  schema?: object;
  store?: DocumentStore;
  capture?: boolean;
  /** A crawl's plan cache (absent: a one-page job's, which leaves the plan to the extraction service). */
  plans?: ModelPlanCache | null;
  /** GLEANER_LIST_ITEMS_PER_CALL. */
  itemsPerCall?: number;
  /** The request's prompt (the plan's instructions). */
  prompt?: string;
  /** The whole page's markdown, as the loader converts it for a json format that read the main content. */
  wholePage?: string;
}

/** An extraction step over the real grounding service (its own metrics registry) and fakes for the rest. */
function step(answer: Answer, opts: StepOptions = {}) {
  const metrics = new Metrics('test');
  const extraction = new ScriptedExtraction(answer);
  const logs: Array<{ obj: Record<string, unknown>; msg: string }> = [];
  const logger = { error: (obj: Record<string, unknown>, msg: string) => void logs.push({ obj, msg }) } as unknown as AppLogger;
  const captures: Array<{ prompt: string; redact: readonly string[] | undefined }> = [];
  const results = {
    recordCapture: async (_job: JobRecord, input: { prompt: string }, o: { redact?: readonly string[] }) =>
      void captures.push({ prompt: input.prompt, redact: o.redact }),
  } as unknown as ResultsService;
  const stored: Array<[string, number]> = [];
  let storeFails = false;
  const screenshots = {
    store: async (_job: JobRecord, id: string, png: Buffer) => {
      if (storeFails) throw new Error('store down');
      stored.push([id, png.length]);
    },
  } as unknown as ScreenshotsService;
  const extractor = new PageExtractor(
    new PageSteps(extraction as unknown as ExtractionService, new GroundingService(metrics), {
      convert: async () => ({ markdown: opts.wholePage ?? '' }),
    } as never),
    new PageRecords(results, screenshots, opts.store ?? ({} as DocumentStore)),
    logger,
    { listItemsPerCall: opts.itemsPerCall ?? 50 },
    metrics,
  );
  const plan: ModelPagePlan = {
    kind: 'model',
    schema: opts.schema ?? SCHEMA,
    llmConfig: { provider: 'openai', model: 'gpt-4o-mini', byok_key: true },
    mode: opts.mode ?? 'model',
    consumer: crawlConsumer('J1'),
    settings: { provenance: 'summary', grounding: opts.grounding ?? 'report' },
    ...(opts.prompt ? { instructions: opts.prompt } : {}),
  };
  const plans = opts.plans === null ? undefined : (opts.plans ?? new ModelPlanCache());
  const runOf = (jobId: string, signal = new AbortController().signal, cache = plans): PageRun => ({
    job: { _id: jobId, user_id: 'u1', capture_debug: opts.capture ?? false } as JobRecord,
    secrets: { llm_api_key: 'sk-live-secret' },
    signal,
    plans: cache,
  });
  const run = (page: LoadedPage = markdownPage(URL_A), on: PageRun = runOf('J1')) => extractor.extract(page, plan, on);
  const formats = (page: LoadedPage, f: Partial<FormatsPagePlan> = {}) =>
    extractor.extract(
      page,
      {
        kind: 'formats',
        formats: { formats: ['markdown', 'links'], only_main_content: true, full_page_screenshot: false },
        screenshotId: 'J1-shot',
        withFetchDuration: false,
        ...f,
      },
      runOf('J1'),
    );
  return { run, runOf, formats, plan, extraction, logs, captures, metrics, stored, failStore: () => (storeFails = true) };
}

describe('PageExtractor (the page pipeline extraction step)', () => {
  it('extracts with the model answer, its usage and cost, and provenance grounded on what the model was given', async () => {
    const s = step(() => ({ title: 'Bree Tanner', price: 13.99 }), { capture: true });
    const got = await s.run();
    expect(got).toEqual({
      data: { title: 'Bree Tanner', price: 13.99 },
      made: { method: 'model' },
      model: { provider: 'openai', model: 'gpt-4o-mini' },
      usage: { inputTokens: 120, outputTokens: 30, costUsd: 0.0012, llmCostUsd: 0.001 },
      provenance: {
        fields: { title: { source: 'model', grounded: true }, price: { source: 'model', grounded: false } },
        ungrounded_fields: 1,
      },
      run: { isByok: false, attempts: [] },
    });
    // The model got the page's markdown, the plan's schema, its stored llm_config with the opened key, and the resolved plan.
    const [{ input, targets }] = s.extraction.calls;
    expect(input).toMatchObject({ userId: 'u1', url: URL_A, content: MARKDOWN, schema: SCHEMA, llmConfig: { api_key: 'sk-live-secret' } });
    expect(input.excerpt).toBeUndefined();
    expect(targets).toEqual([TARGET]);
    // Debug capture records the call with the key named for redaction.
    expect(s.captures).toEqual([{ prompt: 'key sk-live-secret', redact: ['sk-live-secret'] }]);
    const text = await s.metrics.render();
    expect(text).toContain('gleaner_field_grounding_total{provider="openai",model="gpt-4o-mini",outcome="grounded",role="test"} 1');
    expect(text).toContain('gleaner_field_grounding_total{provider="openai",model="gpt-4o-mini",outcome="ungrounded",role="test"} 1');
  });

  it("carries the model call's warnings on the page's extraction, and its result records the request's first", async () => {
    const s = step(() => ({ title: 'Bree Tanner', price: 12.99 }));
    const cut: Warning = { code: 'content_truncated', message: 'the page was cut to fit the model', location: null };
    s.extraction.warnings = [cut];
    const got = await s.run();
    expect(got).toMatchObject({ warnings: [cut] });
    const fromRequest: Warning = { code: 'schema_type_misspelled', message: 'a type looks misspelled', location: 'body.schema.price' };
    const placement = { url: URL_A, depth: 0, parentUrl: null, fetchDurationMs: 1, extractDurationMs: 1, requestWarnings: [fromRequest] };
    expect(completedResult(got as PageExtraction, placement).warnings).toEqual([fromRequest, cut]);
    s.extraction.warnings = [];
    expect(await s.run()).not.toHaveProperty('warnings');
  });

  it('records no capture when the job does not capture debug', async () => {
    const s = step(() => ({ title: 'Bree Tanner', price: 12.99 }));
    expect(await s.run()).toMatchObject({ made: { method: 'model' }, provenance: { ungrounded_fields: 0 } });
    expect(s.extraction.calls[0].input.onCall).toBeUndefined();
    expect(s.captures).toEqual([]);
  });

  it('grounding fail_page and a value not on the page: failed ungrounded_output, not retryable, the call paid for', async () => {
    const s = step(() => ({ title: 'Bree Tanner', price: 99.5 }), { grounding: 'fail_page' });
    const got = (await s.run()) as PageFailure;
    expect(got).toBeInstanceOf(PageFailure);
    expect(got).toMatchObject({ stage: 'grounding', category: 'ungrounded_output', retryable: false, ungroundedFields: 1 });
    expect(got.message).toContain('price');
    expect(got.usage).toEqual({ inputTokens: 120, outputTokens: 30, costUsd: 0.0012, llmCostUsd: 0.001 });
  });

  it("a model failure is the page's failure with its category and what the failed attempts cost; only internal is retried", async () => {
    const cause = new AppError('upstream-failure', 'invalid', { category: 'llm_invalid_output', detail: 'The model answered no JSON.' });
    const summary = { attempts: [], usage: { inputTokens: 50, outputTokens: 5 }, llmCostUsd: 0.0004, costUsd: 0.0005, isByok: false };
    const s = step(() => {
      throw new ExtractionFailure(cause, summary);
    });
    expect(await s.run()).toMatchObject({
      stage: 'model',
      category: 'llm_invalid_output',
      message: 'The model answered no JSON.',
      retryable: false,
      usage: { inputTokens: 50, outputTokens: 5, costUsd: 0.0005, llmCostUsd: 0.0004 },
    });
    const internal = step(() => {
      throw new AppError('internal-error', 'our bug', { category: 'internal' });
    });
    expect(await internal.run()).toMatchObject({ stage: 'page', category: 'internal', message: 'our bug', retryable: true, usage: null });
    expect([...s.logs, ...internal.logs]).toEqual([]);
  });

  it('an unexpected error fails the page internal, retryable, and is logged', async () => {
    const boom = new TypeError('boom');
    const s = step(() => {
      throw boom;
    });
    const got = (await s.run()) as PageFailure;
    expect(got).toMatchObject({ stage: 'page', category: 'internal', retryable: true, unexpected: true, usage: null, thrown: boom });
    expect(got.message).toBe('Extraction failed unexpectedly.');
    expect(s.logs).toEqual([{ obj: { err: boom, job_id: 'J1', url: URL_A }, msg: 'page extraction failed unexpectedly' }]);
  });

  it('throws a store outage on (not the page failure); an aborted call is a failure its caller judges', async () => {
    const outage = new StoreUnavailableError(new Error('connection reset'));
    const s = step(() => {
      throw new AppError('internal-error', 'wrapped', { category: 'internal', cause: outage });
    });
    await expect(s.run()).rejects.toThrow('wrapped');
    const bare = step(() => {
      throw outage;
    });
    await expect(bare.run()).rejects.toBe(outage);
    const controller = new AbortController();
    const aborted = new AppError('upstream-failure', 'The call was aborted.', { category: 'llm_timeout' });
    const a = step(() => {
      controller.abort(new Error('cancelled'));
      throw aborted;
    });
    expect(await a.run(markdownPage(URL_A), a.runOf('J1', controller.signal))).toMatchObject({ thrown: aborted });
    expect([...s.logs, ...bare.logs, ...a.logs]).toEqual([]);
  });

  it("resolves a crawl's model plan once per cache within PLAN_CACHE_MS, and again once it is older", async () => {
    let now = 1_000_000;
    const cache = new ModelPlanCache(() => now);
    const s = step(() => ({ title: 'Bree Tanner', price: 12.99 }), { plans: cache });
    await s.run(markdownPage(URL_A));
    await s.run(markdownPage('http://shop.test/b'));
    expect(s.extraction.plans).toBe(1);
    await s.run(markdownPage(URL_A), s.runOf('J2', undefined, new ModelPlanCache(() => now)));
    expect(s.extraction.plans).toBe(2);
    now += PLAN_CACHE_MS;
    await s.run(markdownPage('http://shop.test/c'));
    expect(s.extraction.plans).toBe(3);
    expect(s.extraction.calls.map((c) => c.targets)).toEqual([[TARGET], [TARGET], [TARGET], [TARGET]]);
  });

  it("leaves a one-page job's model plan to the extraction service (no cache)", async () => {
    const s = step(() => ({ title: 'Bree Tanner', price: 12.99 }), { plans: null });
    await s.run();
    expect(s.extraction.plans).toBe(0);
    expect(s.extraction.calls.map((c) => c.targets)).toEqual([undefined]);
  });

  describe('extraction_mode auto (learned extraction over a SQLite document store)', () => {
    let store: SqliteDocumentStore;
    beforeEach(() => {
      store = SqliteDocumentStore.open({ file: ':memory:' });
    });
    afterEach(async () => store.close());

    it('asks the model while it learns the template, then fills pages by the rules without a model call', async () => {
      // A perfect model: each book's values, for the fields the request's schema asks.
      const s = step(
        (input) => {
          const answer = truth(book(bookNumber(input.url)));
          return Object.fromEntries(Object.keys(input.schema.properties ?? {}).map((name) => [name, answer[name] ?? null]));
        },
        { mode: 'auto', schema: BOOK_SCHEMA, store },
      );
      const results: PageExtraction[] = [];
      for (let n = 1; n <= 20; n++) {
        const got = await s.run(shopPage(n));
        if (got instanceof PageFailure) throw got.error;
        results.push(got);
      }
      const first = results[0];
      expect(first).toMatchObject({
        data: truth(book(1)),
        made: { method: 'model', model_call: 'full', template_id: expect.any(String) },
        model: { model: 'gpt-4o-mini' },
        usage: { inputTokens: 120 },
        provenance: { ungrounded_fields: 0 },
      });
      const byRules = results.flatMap((r, i) => (r.made.method === 'selectors' ? [{ n: i + 1, r }] : []));
      expect(byRules.length).toBeGreaterThan(0);
      const { n, r: last } = byRules.at(-1)!;
      expect(last).toMatchObject({
        data: truth(book(n)),
        made: { method: 'selectors', program_id: expect.any(String), template_id: (first.made as { template_id: string }).template_id },
        model: null,
        usage: Usage.NONE,
      });
      expect(last.made).not.toHaveProperty('model_call');
      // Provenance names the rule behind each value of a page the program filled.
      expect((last.provenance!.fields as Record<string, unknown>).title).toMatchObject({ source: 'selectors', grounded: true });
      // One model call per page that was not filled by the rules alone.
      expect(s.extraction.calls.length).toBe(results.filter((r) => r.made.method !== 'selectors').length);
      // The templates live in the store the step was given, with the plan's consumer (this crawl).
      const [template] = await (await learnedTemplates(store)).find({ kind: 'template' });
      expect(template.state.trust).toHaveProperty('crawl:J1');
    });
  });

  describe('formats (a scrape, or a page of a crawl or batch without a schema)', () => {
    function page(screenshot?: Buffer): LoadedPage {
      return {
        fetch: {
          url: 'https://a.example/x',
          status: 200,
          contentType: 'text/html',
          html: '<p>Hi</p>',
          mode: 'dynamic',
          ...(screenshot ? { screenshot } : {}),
        },
        content: {
          markdown: 'Hi',
          links: [{ url: 'https://a.example/y', text: 'y' }],
          metadata: { openGraph: {}, jsonLd: [], title: 'X' },
          stats: { ms: 2.4 },
        },
        fetchedAt: '2026-11-26T00:00:00.000Z',
        fetchDurationMs: 5,
      } as unknown as LoadedPage;
    }

    it('makes the formats with no model call and no cost, the page facts as metadata', async () => {
      const s = step(() => null);
      expect(await s.formats(page())).toEqual({
        data: { markdown: 'Hi', links: [{ url: 'https://a.example/y', text: 'y' }] },
        made: {
          method: 'scrape',
          fetched_at: '2026-11-26T00:00:00.000Z',
          fetch_mode: 'dynamic',
          status_code: 200,
          content_type: 'text/html',
          convert_duration_ms: 2,
        },
        model: null,
        usage: Usage.NONE,
      });
      expect(s.stored).toEqual([]);
      expect(s.extraction.calls).toEqual([]);
      // A one-page scrape's answer is made of its metadata: the fetch duration goes in, before the conversion's.
      const scrape = (await s.formats(page(), { withFetchDuration: true })) as PageExtraction;
      expect(Object.keys(scrape.made)).toEqual([
        'method',
        'fetched_at',
        'fetch_mode',
        'status_code',
        'content_type',
        'fetch_duration_ms',
        'convert_duration_ms',
      ]);
    });

    it('stores the screenshot under the plan’s id, and names it in data and metadata', async () => {
      const s = step(() => null);
      const png = Buffer.from('png-bytes');
      const got = (await s.formats(page(png), {
        formats: { formats: ['screenshot'], only_main_content: true, full_page_screenshot: false },
      })) as PageExtraction;
      expect(s.stored).toEqual([['J1-shot', png.length]]);
      expect(got.data).toEqual({ screenshot: '/api/v1/jobs/J1/screenshots/J1-shot' });
      expect(got.made).toMatchObject({ screenshot_id: 'J1-shot' });
    });

    it('warns main_content_empty when an HTML page’s main content is empty (a script-rendered shell), and only then', async () => {
      const s = step(() => null);
      const shell = (mode: 'static' | 'dynamic') => {
        const p = page();
        return { ...p, fetch: { ...p.fetch, mode }, content: { ...p.content, markdown: '' } };
      };
      const got = (await s.formats(shell('static'))) as PageExtraction;
      expect(got.data).toEqual({ markdown: '', links: [{ url: 'https://a.example/y', text: 'y' }] });
      expect(got.warnings).toEqual([
        {
          code: 'main_content_empty',
          message: expect.stringContaining('If its scripts draw the content, fetch_mode dynamic renders it.') as string,
          location: null,
        },
      ]);
      const rendered = (await s.formats(shell('dynamic'))) as PageExtraction;
      expect(rendered.warnings?.[0].message).toContain('even rendered by the browser');
      // The whole page asked for (its conversion, not the main content), or no content format: no warning.
      const whole = await s.formats(shell('static'), {
        formats: { formats: ['markdown'], only_main_content: false, full_page_screenshot: false },
      });
      expect((whole as PageExtraction).warnings).toBeUndefined();
      const links = await s.formats(shell('static'), {
        formats: { formats: ['links'], only_main_content: true, full_page_screenshot: false },
      });
      expect((links as PageExtraction).warnings).toBeUndefined();
      expect(s.extraction.calls).toEqual([]);
    });

    it('fails the page, not the task, when its formats are too large to store', async () => {
      const s = step(() => null);
      const big = page();
      big.content.markdown = 'x'.repeat(MAX_SCRAPE_DATA_BYTES + 1);
      expect(
        await s.formats(big, { formats: { formats: ['markdown'], only_main_content: true, full_page_screenshot: false } }),
      ).toMatchObject({
        stage: 'page',
        category: 'content_too_large',
        retryable: false,
        usage: null,
      });
    });

    it('with json: the model step makes data.json beside the formats, its usage, model, provenance and call kind the page’s', async () => {
      const s = step(() => ({ title: 'Hi', price: 3 }));
      const got = (await s.formats(page(), {
        formats: { formats: ['markdown', 'json'], only_main_content: true, full_page_screenshot: false },
        json: { ...s.plan, instructions: 'Only the title.' },
      })) as PageExtraction;
      expect(got.data).toEqual({ markdown: 'Hi', json: { title: 'Hi', price: 3 } });
      expect(got.made).toMatchObject({ method: 'scrape', status_code: 200, model_call: 'full', model: 'gpt-4o-mini', provider: 'openai' });
      expect(got.model).toEqual({ provider: 'openai', model: 'gpt-4o-mini' });
      expect(got.usage).toEqual({ inputTokens: 120, outputTokens: 30, costUsd: 0.0012, llmCostUsd: 0.001 });
      // Grounded on the markdown the model was given: the title is on the page, the price is not.
      expect(got.provenance).toMatchObject({ ungrounded_fields: 1, fields: { title: { grounded: true }, price: { grounded: false } } });
      const [{ input }] = s.extraction.calls;
      expect(input).toMatchObject({ content: 'Hi', schema: SCHEMA, instructions: 'Only the title.' });
      expect(completedResult(got, { url: 'u', depth: 0, parentUrl: null, fetchDurationMs: 1, extractDurationMs: 1 })).toMatchObject({
        token_usage_input: 120,
        llm_model: 'gpt-4o-mini',
        metadata: { method: 'scrape', model_call: 'full', ungrounded_fields: 1 },
      });
    });

    it('with json: a model failure is the page’s, with what it cost, and stores no screenshot', async () => {
      const cause = new AppError('upstream-failure', 'invalid', { category: 'llm_invalid_output', detail: 'The model answered no JSON.' });
      const summary = { attempts: [], usage: { inputTokens: 50, outputTokens: 5 }, llmCostUsd: 0.0004, costUsd: 0.0005, isByok: false };
      const s = step(() => {
        throw new ExtractionFailure(cause, summary);
      });
      const got = await s.formats(page(Buffer.from('png')), {
        formats: { formats: ['screenshot', 'json'], only_main_content: true, full_page_screenshot: false },
        json: s.plan,
      });
      expect(got).toBeInstanceOf(PageFailure);
      expect(got).toMatchObject({ stage: 'model', category: 'llm_invalid_output', usage: { inputTokens: 50, costUsd: 0.0005 } });
      expect(s.stored).toEqual([]);
    });

    it('lets a store failure through (the queue delivers the task again)', async () => {
      const s = step(() => null);
      s.failStore();
      const failing = s.formats(page(Buffer.from('png')), {
        formats: { formats: ['screenshot'], only_main_content: true, full_page_screenshot: false },
      });
      await expect(failing).rejects.toThrow('store down');
    });
  });

  describe('a prompt without a schema (docs/scrape.md "A prompt without a schema")', () => {
    const propose = (text: string) => (input: ExtractInput) =>
      input.schema === PROPOSAL_SCHEMA ? { suggested_schema: text } : { title: 'Bree Tanner', price: 12.99 };

    it('asks the model for the schema, extracts with it, and says which schema in the metadata; both calls are paid', async () => {
      const s = step(propose('title: string\nprice: number\n'), { schema: SCHEMA_FROM_PROMPT, prompt: 'The book and its price.' });
      const got = (await s.run()) as PageExtraction;
      expect(s.extraction.calls.map((c) => c.input.schema === PROPOSAL_SCHEMA)).toEqual([true, false]);
      // The proposal is told the prompt; the extraction gets the proposed schema and the prompt beside it.
      expect(s.extraction.calls[0].input).toMatchObject({ instructions: 'The book and its price.', content: MARKDOWN });
      const proposed = s.extraction.calls[1].input.schema;
      expect(proposed.properties).toEqual({ title: { type: ['string', 'null'] }, price: { type: ['number', 'null'] } });
      expect(s.extraction.calls[1].input.instructions).toBe('The book and its price.');
      expect(got.data).toEqual({ title: 'Bree Tanner', price: 12.99 });
      expect(got.made).toEqual({ method: 'model', schema: proposed });
      expect(got.usage).toEqual({ inputTokens: 240, outputTokens: 60, costUsd: 0.0024, llmCostUsd: 0.002 });
      // Provenance per leaf of the proposed schema.
      expect(got.provenance?.fields).toEqual({ title: { source: 'model', grounded: true }, price: { source: 'model', grounded: true } });
    });

    it('asks once more when the proposal does not parse, then fails the page as llm_invalid_output with every call paid', async () => {
      const s = step(propose('title: [string'), { schema: SCHEMA_FROM_PROMPT, prompt: 'The title.' });
      const got = await s.run();
      expect(got).toBeInstanceOf(PageFailure);
      const failure = got as PageFailure;
      expect(failure.category).toBe('llm_invalid_output');
      expect(failure.message).toMatch(/did not propose a usable schema/);
      expect(s.extraction.calls).toHaveLength(2);
      expect(s.extraction.calls[1].input.instructions).toMatch(
        /^The title\.\n\nThe schema you proposed before did not parse \(suggested_schema/,
      );
      expect(failure.usage).toEqual({ inputTokens: 240, outputTokens: 60, costUsd: 0.0024, llmCostUsd: 0.002 });
    });

    it('a failed extraction after the proposal is billed with the proposal', async () => {
      const s = step(
        (input) => {
          if (input.schema === PROPOSAL_SCHEMA) return { suggested_schema: 'title: string' };
          throw new ExtractionFailure(new AppError('upstream-failure', 'no', { category: 'llm_invalid_output' }), {
            attempts: [],
            usage: { inputTokens: 5, outputTokens: 1 },
            llmCostUsd: 0.01,
            costUsd: 0.02,
            isByok: false,
          });
        },
        { schema: SCHEMA_FROM_PROMPT, prompt: 'The title.' },
      );
      const failure = (await s.run()) as PageFailure;
      expect(failure).toBeInstanceOf(PageFailure);
      expect(failure.usage).toEqual({ inputTokens: 125, outputTokens: 31, costUsd: 0.0212, llmCostUsd: 0.011 });
    });

    it('the json format carries the proposed schema in its metadata', async () => {
      const s = step(propose('title: string\nprice: number'), {});
      const plan = { ...s.plan, schema: SCHEMA_FROM_PROMPT, instructions: 'The book.' };
      const got = (await s.formats(markdownPage(URL_A), { json: plan })) as PageExtraction;
      expect((got.data as { json: unknown }).json).toEqual({ title: 'Bree Tanner', price: 12.99 });
      expect(got.made).toMatchObject({
        method: 'scrape',
        model_call: 'full',
        schema: { properties: { title: { type: ['string', 'null'] }, price: { type: ['number', 'null'] } } },
      });
    });
  });

  describe('the json format on the main content: its lists counted on the whole page (docs/long-lists.md "Main content")', () => {
    const LIST = {
      type: 'object' as const,
      properties: {
        picks: { type: 'array' as const, items: { type: 'object' as const, properties: { name: { type: 'string' as const } } } },
      },
    };
    const item = (n: number) => `- Widget number ${n} of the catalogue, in stock`;
    const main = [3, 4, 5].map(item).join('\n');
    const whole = `# Shop\n\n${[1, 2, 3, 4, 5, 6].map(item).join('\n')}\n`;
    const answer = () => ({ picks: [3, 4, 5].map((n) => ({ name: `Widget number ${n}` })) });
    const json = (s: ReturnType<typeof step>) => ({ ...s.plan, schema: LIST });

    it('a list the main content cut is expected at the whole page’s count, not complete, with a warning', async () => {
      const s = step(answer, { wholePage: whole });
      const got = (await s.formats(markdownPage(URL_A, main), { json: json(s) })) as PageExtraction;
      expect(got.completeness?.items).toEqual([{ path: 'picks', expected: 6, extracted: 3, chunks: 1, complete: false }]);
      expect(got.warnings).toEqual([
        expect.objectContaining({
          code: 'list_incomplete',
          message: expect.stringMatching(/lists 6 items, the main content the model read holds 3/),
        }),
      ]);
    });

    it('not with only_main_content false or tag filters (the text read is the one asked for)', async () => {
      for (const formats of [
        { formats: ['markdown' as const], only_main_content: false, full_page_screenshot: false },
        { formats: ['markdown' as const], only_main_content: true, full_page_screenshot: false, include_tags: ['main'] },
      ]) {
        const s = step(answer, { wholePage: whole });
        const got = (await s.formats(markdownPage(URL_A, main), { formats, json: json(s) })) as PageExtraction;
        expect(got.completeness?.items).toEqual([{ path: 'picks', expected: 3, extracted: 3, chunks: 1, complete: true }]);
      }
    });
  });
});
