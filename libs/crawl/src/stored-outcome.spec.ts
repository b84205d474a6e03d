import { Usage } from '@app/core';
import type { PageExtraction } from '@app/extraction';
import type { PageOutcome } from './crawl.types';
import { fromStoredOutcome, toStoredOutcome, type StoredPageOutcome } from './stored-outcome';

const base = { final_url: 'https://a.test/p', http_status: 200, fetch_mode: 'static', links: ['https://a.test/q'], fetch_duration_ms: 5 };
const completed = (result: PageExtraction | null): PageOutcome => ({ kind: 'completed', ...base, extract_duration_ms: 7, result });
const usage = { inputTokens: 120, outputTokens: 30, costUsd: 0.0012, llmCostUsd: 0.001 };
const provenance = { fields: { title: { source: 'model' as const, grounded: true } }, ungrounded_fields: 0 };

describe('stored outcomes (crawl_outcomes, read by owners of this version and the one before)', () => {
  it('stores a model page flat, in the record spellings, and reads it back whole', () => {
    const outcome = completed({
      data: { title: 'x' },
      made: { method: 'model' },
      model: { provider: 'openai', model: 'm' },
      usage,
      provenance,
    });
    const stored = toStoredOutcome(outcome);
    expect(stored).toEqual({
      kind: 'completed',
      ...base,
      extract_duration_ms: 7,
      result: {
        data: { title: 'x' },
        method: 'model',
        llm_model: 'm',
        llm_provider: 'openai',
        token_usage_input: 120,
        token_usage_output: 30,
        cost_usd: 0.0012,
        llm_cost_usd: 0.001,
        provenance,
      },
    });
    expect(fromStoredOutcome(JSON.parse(JSON.stringify(stored)))).toEqual(outcome);
  });

  it('keeps how a learned page, a formats page and an unchanged page were made', () => {
    const mixed = completed({
      data: {},
      made: { method: 'mixed', program_id: 'prg_1', template_id: 'tpl_1', model_fields: ['author'], model_call: 'partial' },
      model: { provider: 'openai', model: 'm' },
      usage,
      provenance,
    });
    const formats = completed({
      data: { markdown: 'Hi' },
      made: {
        method: 'scrape',
        fetched_at: 't',
        fetch_mode: 'dynamic',
        status_code: 200,
        content_type: 'text/html',
        convert_duration_ms: 2,
      },
      model: null,
      usage: Usage.NONE,
    });
    const unchanged = completed({ data: { price: 1 }, made: { method: 'unchanged' }, model: null, usage: Usage.NONE });
    for (const outcome of [mixed, formats, unchanged, completed(null)])
      expect(fromStoredOutcome(toStoredOutcome(outcome))).toEqual(outcome);
    expect(toStoredOutcome(formats)).toMatchObject({
      result: {
        method: 'scrape',
        details: { fetched_at: 't', fetch_mode: 'dynamic', status_code: 200, content_type: 'text/html', convert_duration_ms: 2 },
      },
    });
  });

  it('reads what an earlier version stored: no method is a model page, null learned fields are left out', () => {
    const legacy = {
      kind: 'completed',
      ...base,
      extract_duration_ms: 7,
      result: {
        data: {},
        llm_model: 'm',
        llm_provider: 'openai',
        token_usage_input: 3,
        token_usage_output: 1,
        cost_usd: 0.01,
        llm_cost_usd: 0.01,
      },
    } as StoredPageOutcome;
    expect(fromStoredOutcome(legacy)).toMatchObject({
      result: {
        made: { method: 'model' },
        model: { provider: 'openai', model: 'm' },
        usage: { inputTokens: 3, outputTokens: 1, costUsd: 0.01, llmCostUsd: 0.01 },
      },
    });
    const selectors = {
      kind: 'completed',
      ...base,
      extract_duration_ms: 7,
      result: {
        data: {},
        method: 'selectors',
        program_id: 'prg_1',
        template_id: 'tpl_1',
        model_fields: null,
        model_call: null,
        llm_model: null,
        llm_provider: null,
        token_usage_input: 0,
        token_usage_output: 0,
        cost_usd: 0,
        llm_cost_usd: 0,
      },
    } as StoredPageOutcome;
    expect(fromStoredOutcome(selectors)).toMatchObject({
      result: { made: { method: 'selectors', program_id: 'prg_1', template_id: 'tpl_1' }, model: null, usage: Usage.NONE },
    });
  });

  it("stores a failed page's usage as records spell it (its model cost is not kept: crawls do not count it)", () => {
    const failed: PageOutcome = {
      kind: 'failed',
      error_category: 'ungrounded_output',
      error_message: 'x',
      error_details: null,
      http_status: 200,
      final_url: null,
      retryable: false,
      usage,
      ungrounded_fields: 1,
    };
    expect(toStoredOutcome(failed)).toMatchObject({ usage: { token_usage_input: 120, token_usage_output: 30, cost_usd: 0.0012 } });
    expect(fromStoredOutcome(toStoredOutcome(failed))).toEqual({ ...failed, usage: { ...usage, llmCostUsd: 0 } });
    const skipped: PageOutcome = { kind: 'skipped', reason: 'duplicate', why: 'x', final_url: null };
    expect(fromStoredOutcome(toStoredOutcome(skipped))).toEqual(skipped);
  });
});
