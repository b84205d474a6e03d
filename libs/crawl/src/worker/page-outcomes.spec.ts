import { AppError, Usage } from '@app/core';
import { PageFailure, type ModelPagePlan, type PageExtraction } from '@app/extraction';
import type { JobRecord } from '@app/jobs';
import type { LoadedPage } from '@app/pages';
import type { CrawlJobInput } from '../crawl-input';
import { crawlPagePlan, extractionOutcome, pageScreenshotId } from './page-outcomes';

const page = { fetch: { url: 'https://a.example/x', status: 200 } } as unknown as LoadedPage;
const base = { final_url: 'https://a.example/x', http_status: 200, fetch_mode: 'static', links: [], fetch_duration_ms: 5 };
const at = { started: 1_000, extractStarted: 1_040 };
const live = new AbortController().signal;

describe('page outcomes (a crawl page at the end of the page pipeline)', () => {
  it('derives screenshot ids that are path-safe, stable and distinct per page', () => {
    const a = pageScreenshotId('J1', 'a.example/x?q=../..');
    expect(a).toMatch(/^J1-[0-9a-f]{24}$/);
    expect(pageScreenshotId('J1', 'a.example/x?q=../..')).toBe(a);
    expect(pageScreenshotId('J1', 'a.example/y')).not.toBe(a);
  });

  it("plans a page: the job's model plan as it is, or its formats with the page's own screenshot id", () => {
    const job = { _id: 'J1', cost_usd: 0 } as JobRecord;
    const input = { options: { max_cost_usd: null } } as unknown as CrawlJobInput;
    const model = { kind: 'model' } as ModelPagePlan;
    expect(crawlPagePlan({ job, input, plan: model }, 'a.example/x')).toBe(model);
    const formats = { formats: ['screenshot' as const], only_main_content: true, full_page_screenshot: false };
    expect(crawlPagePlan({ job, input, plan: formats }, 'a.example/x')).toEqual({
      kind: 'formats',
      formats,
      screenshotId: pageScreenshotId('J1', 'a.example/x'),
      withFetchDuration: false,
    });
    // With the json format: its model plan goes with the formats plan, not into the formats.
    const json = { ...formats, formats: ['markdown' as const, 'json' as const] };
    expect(crawlPagePlan({ job, input, plan: { ...json, json: model } }, 'a.example/x')).toEqual({
      kind: 'formats',
      formats: json,
      screenshotId: pageScreenshotId('J1', 'a.example/x'),
      withFetchDuration: false,
      json: model,
    });
  });

  it("gives a page what is left of the crawl's cost cap as it starts, checked between its list chunks (docs/long-lists.md)", () => {
    const job = { _id: 'J1', cost_usd: 0.03 } as JobRecord;
    const input = { options: { max_cost_usd: 0.05 } } as unknown as CrawlJobInput;
    const model = { kind: 'model' } as ModelPagePlan;
    expect((crawlPagePlan({ job, input, plan: model }, 'k') as ModelPagePlan).maxCostUsd).toBeCloseTo(0.02, 10);
    const formats = { formats: ['markdown' as const, 'json' as const], only_main_content: true, full_page_screenshot: false };
    const planned = crawlPagePlan({ job, input, plan: { ...formats, json: model } }, 'k');
    expect(planned).toMatchObject({ kind: 'formats', json: { kind: 'model' } });
    expect((planned as { json: ModelPagePlan }).json.maxCostUsd).toBeCloseTo(0.02, 10);
    // Past the cap (pages in flight as it was reached): nothing left, so no chunk after a page's first answers.
    const over = crawlPagePlan({ job: { ...job, cost_usd: 0.07 }, input, plan: model }, 'k') as ModelPagePlan;
    expect(over.maxCostUsd).toBe(0);
  });

  it('an extracted page completes with its extraction as the result', () => {
    const extraction: PageExtraction = { data: { a: 1 }, made: { method: 'model' }, model: null, usage: Usage.NONE };
    expect(extractionOutcome(extraction, page, base, at, live)).toEqual({
      kind: 'completed',
      ...base,
      extract_duration_ms: expect.any(Number),
      result: extraction,
    });
  });

  it('a failed page reports its category, message, what its model calls cost and its ungrounded values; only our own failures are retried', () => {
    const usage = { inputTokens: 120, outputTokens: 30, costUsd: 0.0012, llmCostUsd: 0.001 };
    const ungrounded = new AppError('upstream-failure', 'grounding', { category: 'ungrounded_output', detail: 'not on the page: price' });
    expect(extractionOutcome(new PageFailure('grounding', ungrounded, usage, [], ungrounded, 1), page, base, at, live)).toEqual({
      kind: 'failed',
      error_category: 'ungrounded_output',
      error_message: 'not on the page: price',
      error_details: null,
      http_status: 200,
      final_url: 'https://a.example/x',
      retryable: false,
      usage,
      ungrounded_fields: 1,
    });
    const internal = new AppError('internal-error', 'our bug', { category: 'internal' });
    expect(extractionOutcome(new PageFailure('page', internal, null, [], internal), page, base, at, live)).toMatchObject({
      retryable: true,
      usage: null,
    });
  });

  it('an unexpected failure says how far into the task the extraction began', () => {
    const boom = new TypeError('boom');
    const failure = new PageFailure(
      'page',
      new AppError('internal-error', 'Extraction failed unexpectedly.', { category: 'internal' }),
      null,
      [],
      boom,
    );
    expect(extractionOutcome(failure, page, base, at, live)).toMatchObject({
      error_category: 'internal',
      error_message: 'Extraction failed unexpectedly (started 40 ms after the fetch).',
      retryable: true,
    });
  });

  it("a failure met while the task is cancelled or handed back is not the page's: thrown on to the worker", () => {
    const controller = new AbortController();
    controller.abort(new Error('cancelled'));
    const aborted = new AppError('upstream-failure', 'The call was aborted.', { category: 'llm_timeout' });
    expect(() => extractionOutcome(new PageFailure('model', aborted, null, [], aborted), page, base, at, controller.signal)).toThrow(
      aborted,
    );
  });
});
