import { convertHtml } from '@app/content';
import { AppError, StoreUnavailableError } from '@app/core';
import { ExtractionFailure, GroundingService, type ExtractionService, type ExtractOutput } from '@app/extraction';
import type { JobRecord } from '@app/jobs';
import { learnedTemplates } from '@app/learned';
import type { ModelTarget } from '@app/llm';
import { Metrics, type AppLogger } from '@app/observability';
import type { LoadedPage } from '@app/pages';
import type { ResultsService } from '@app/results';
import type { CrawlOptions } from '@app/sites';
import { SqliteDocumentStore, type DocumentStore } from '@app/storage';
import { DEFAULT_OPTIONS } from '../../../../test/support/crawl-owner';
import { bookNumber } from '../../../../test/fixtures/learned-model';
import { BOOK_SCHEMA, book, productPage, productUrl, truth } from '../../../../test/fixtures/learned-shop';
import type { CrawlJobInput } from '../crawl-input';
import type { PageTaskPayload } from '../crawl.types';
import { PLAN_CACHE_MS, PageExtract, type ExtractContext } from './page-extract';

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
const BASE = { final_url: URL_A, http_status: 200, fetch_mode: 'static', links: ['http://shop.test/b'], fetch_duration_ms: 7 };

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

/** The extraction service as the stage sees it: a plan that counts its resolutions, and a scripted model answer. */
class ScriptedExtraction {
  plans = 0;
  readonly calls: Array<{ input: ExtractInput; targets: ModelTarget[] | undefined }> = [];
  constructor(private readonly answer: Answer) {}

  async plan(): Promise<ModelTarget[]> {
    this.plans++;
    return [TARGET];
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
    return output(await this.answer(input), input.content);
  }
}

function markdownPage(url: string, markdown = MARKDOWN): LoadedPage {
  return {
    fetch: { url, status: 200, mode: 'static', html: `<p>${markdown}</p>` },
    content: { markdown, metadata: { title: 'Bree', openGraph: {}, jsonLd: [] }, links: [], stats: { ms: 1 } },
  } as unknown as LoadedPage;
}

/** A page of the made-up bookshop, converted as a page worker converts it (with the attribute values grounding reads). */
function shopPage(n: number): LoadedPage {
  const url = productUrl(book(n));
  const html = productPage(book(n));
  return {
    fetch: { url, status: 200, mode: 'static', html },
    content: convertHtml({ html, url, mode: 'main', also: { attributes: true } }),
  } as unknown as LoadedPage;
}

interface StageOptions {
  options?: Partial<CrawlOptions>;
  mode?: 'model' | 'auto';
  schema?: object;
  store?: DocumentStore;
  capture?: boolean;
}

/** An extract stage over the real grounding service (its own metrics registry) and fakes for the rest. */
function stage(answer: Answer, opts: StageOptions = {}) {
  const metrics = new Metrics('test');
  const extraction = new ScriptedExtraction(answer);
  const logs: Array<{ obj: Record<string, unknown>; msg: string }> = [];
  const logger = { error: (obj: Record<string, unknown>, msg: string) => void logs.push({ obj, msg }) } as unknown as AppLogger;
  const captures: Array<{ prompt: string; redact: readonly string[] | undefined }> = [];
  const results = {
    recordCapture: async (_job: JobRecord, input: { prompt: string }, o: { redact?: readonly string[] }) =>
      void captures.push({ prompt: input.prompt, redact: o.redact }),
  } as unknown as ResultsService;
  const extract = new PageExtract(extraction, new GroundingService(metrics), results, opts.store ?? ({} as DocumentStore), logger);
  const contextOf = (jobId: string): ExtractContext => ({
    job: { _id: jobId, user_id: 'u1', capture_debug: opts.capture ?? false } as JobRecord,
    input: {
      url: 'http://shop.test/',
      options: { ...DEFAULT_OPTIONS, ...opts.options },
      schema: opts.schema ?? SCHEMA,
      page_formats: null,
      llm_config: { provider: 'openai', model: 'gpt-4o-mini', byok_key: true },
      extraction_mode: opts.mode ?? 'model',
    } as unknown as CrawlJobInput,
  });
  const context = contextOf('J1');
  const run = (
    page: LoadedPage = markdownPage(URL_A),
    signal = new AbortController().signal,
    on: ExtractContext = context,
    secrets: Record<string, string> = { llm_api_key: 'sk-live-secret' },
  ) => {
    const task = { job_id: on.job._id, key: 'k', url: page.fetch.url, extract: true } as PageTaskPayload;
    return extract.extract(task, on, page, { ...BASE, final_url: page.fetch.url }, signal, secrets, Date.now());
  };
  return { run, extraction, context, contextOf, logs, captures, metrics };
}

describe('PageExtract (a page task extract stage)', () => {
  it('completes with the model answer, its usage and cost, and provenance grounded on what the model was given', async () => {
    const s = stage(() => ({ title: 'Bree Tanner', price: 13.99 }), { capture: true });
    const got = await s.run();
    expect(got).toEqual({
      kind: 'completed',
      ...BASE,
      extract_duration_ms: expect.any(Number),
      result: {
        data: { title: 'Bree Tanner', price: 13.99 },
        llm_model: 'gpt-4o-mini',
        llm_provider: 'openai',
        token_usage_input: 120,
        token_usage_output: 30,
        cost_usd: 0.0012,
        llm_cost_usd: 0.001,
        provenance: {
          fields: { title: { source: 'model', grounded: true }, price: { source: 'model', grounded: false } },
          ungrounded_fields: 1,
        },
      },
    });
    // The model got the page's markdown, the crawl's schema, its stored llm_config with the opened key, and the resolved plan.
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

  it('records no capture when the crawl does not capture debug', async () => {
    const s = stage(() => ({ title: 'Bree Tanner', price: 12.99 }));
    expect(await s.run()).toMatchObject({ kind: 'completed', result: { provenance: { ungrounded_fields: 0 } } });
    expect(s.extraction.calls[0].input.onCall).toBeUndefined();
    expect(s.captures).toEqual([]);
  });

  it('grounding fail_page and a value not on the page: failed ungrounded_output, not retryable, the call paid for', async () => {
    const s = stage(() => ({ title: 'Bree Tanner', price: 99.5 }), { options: { grounding: 'fail_page' } });
    const got = await s.run();
    expect(got).toEqual({
      kind: 'failed',
      error_category: 'ungrounded_output',
      error_message: expect.stringContaining('price'),
      error_details: null,
      http_status: 200,
      final_url: URL_A,
      retryable: false,
      usage: { token_usage_input: 120, token_usage_output: 30, cost_usd: 0.0012 },
      ungrounded_fields: 1,
    });
  });

  it("a model failure is the page's failure with its category and what the failed attempts cost; only internal is retried", async () => {
    const cause = new AppError('upstream-failure', 'invalid', { category: 'llm_invalid_output', detail: 'The model answered no JSON.' });
    const summary = { attempts: [], usage: { inputTokens: 50, outputTokens: 5 }, llmCostUsd: 0.0004, costUsd: 0.0005, isByok: false };
    const s = stage(() => {
      throw new ExtractionFailure(cause, summary);
    });
    expect(await s.run()).toEqual({
      kind: 'failed',
      error_category: 'llm_invalid_output',
      error_message: 'The model answered no JSON.',
      error_details: null,
      http_status: 200,
      final_url: URL_A,
      retryable: false,
      usage: { token_usage_input: 50, token_usage_output: 5, cost_usd: 0.0005 },
    });
    const internal = stage(() => {
      throw new AppError('internal-error', 'our bug', { category: 'internal' });
    });
    expect(await internal.run()).toMatchObject({
      kind: 'failed',
      error_category: 'internal',
      error_message: 'our bug',
      retryable: true,
      usage: null,
    });
    expect([...s.logs, ...internal.logs]).toEqual([]);
  });

  it('an unexpected error fails the page internal, retryable, and is logged', async () => {
    const boom = new TypeError('boom');
    const s = stage(() => {
      throw boom;
    });
    const got = await s.run();
    expect(got).toMatchObject({
      kind: 'failed',
      error_category: 'internal',
      retryable: true,
      usage: null,
      http_status: 200,
      final_url: URL_A,
    });
    expect((got as { error_message: string }).error_message).toMatch(
      /^Extraction failed unexpectedly \(started \d+ ms after the fetch\)\.$/,
    );
    expect(s.logs).toEqual([{ obj: { err: boom, job_id: 'J1', url: URL_A }, msg: 'crawl page extraction failed unexpectedly' }]);
  });

  it('throws a store outage and the error of an aborted task on to the worker (not the page failure)', async () => {
    const outage = new StoreUnavailableError(new Error('connection reset'));
    const s = stage(() => {
      throw new AppError('internal-error', 'wrapped', { category: 'internal', cause: outage });
    });
    await expect(s.run()).rejects.toThrow('wrapped');
    const bare = stage(() => {
      throw outage;
    });
    await expect(bare.run()).rejects.toBe(outage);
    const controller = new AbortController();
    const aborted = stage(() => {
      controller.abort(new Error('cancelled'));
      throw new AppError('upstream-failure', 'The call was aborted.', { category: 'llm_timeout' });
    });
    await expect(aborted.run(markdownPage(URL_A), controller.signal)).rejects.toThrow('The call was aborted.');
    expect([...s.logs, ...bare.logs, ...aborted.logs]).toEqual([]);
  });

  it('resolves the model plan once per crawl within PLAN_CACHE_MS, and again once it is older', async () => {
    const s = stage(() => ({ title: 'Bree Tanner', price: 12.99 }));
    await s.run(markdownPage(URL_A));
    await s.run(markdownPage('http://shop.test/b'));
    expect(s.extraction.plans).toBe(1);
    expect(s.context.plan?.targets).toEqual([TARGET]);
    const other = s.contextOf('J2');
    await s.run(markdownPage(URL_A), undefined, other);
    expect(s.extraction.plans).toBe(2);
    // No waiting: the cached plan is made as old as the cache keeps it.
    s.context.plan!.at -= PLAN_CACHE_MS;
    await s.run(markdownPage('http://shop.test/c'));
    expect(s.extraction.plans).toBe(3);
    expect(s.extraction.calls.map((c) => c.targets)).toEqual([[TARGET], [TARGET], [TARGET], [TARGET]]);
  });

  describe('extraction_mode auto (the crawl learned extraction over a SQLite document store)', () => {
    let store: SqliteDocumentStore;
    beforeEach(() => {
      store = SqliteDocumentStore.open({ file: ':memory:' });
    });
    afterEach(async () => store.close());

    it('asks the model while it learns the template, then fills pages by the rules without a model call', async () => {
      // A perfect model: each book's values, for the fields the request's schema asks.
      const s = stage(
        (input) => {
          const answer = truth(book(bookNumber(input.url)));
          return Object.fromEntries(Object.keys(input.schema.properties ?? {}).map((name) => [name, answer[name] ?? null]));
        },
        { mode: 'auto', schema: BOOK_SCHEMA, store },
      );
      const outcomes = [];
      for (let n = 1; n <= 20; n++) outcomes.push(await s.run(shopPage(n)));
      const results = outcomes.map((o) => (o.kind === 'completed' ? o.result! : null));
      expect(results).not.toContain(null);
      const first = results[0]!;
      expect(first).toMatchObject({
        data: truth(book(1)),
        method: 'model',
        model_call: 'full',
        llm_model: 'gpt-4o-mini',
        token_usage_input: 120,
        template_id: expect.any(String),
        provenance: { ungrounded_fields: 0 },
      });
      const byRules = results.flatMap((r, i) => (r!.method === 'selectors' ? [{ n: i + 1, r: r! }] : []));
      expect(byRules.length).toBeGreaterThan(0);
      const { n, r: last } = byRules.at(-1)!;
      expect(last).toMatchObject({
        data: truth(book(n)),
        program_id: expect.any(String),
        template_id: first.template_id,
        model_call: null,
        llm_model: null,
        llm_provider: null,
        token_usage_input: 0,
        cost_usd: 0,
      });
      // Provenance names the rule behind each value of a page the program filled.
      expect((last.provenance!.fields as Record<string, unknown>).title).toMatchObject({ source: 'selectors', grounded: true });
      // One model call per page that was not filled by the rules alone.
      expect(s.extraction.calls.length).toBe(results.filter((r) => r!.method !== 'selectors').length);
      // The templates live in the store the worker was given, with this crawl as a consumer.
      const [template] = await (await learnedTemplates(store)).find({ kind: 'template' });
      expect(template.state.trust).toHaveProperty('crawl:J1');
    });
  });
});
