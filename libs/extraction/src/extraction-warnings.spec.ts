import type { ModelCall, ModelRouter, ModelTarget, PriceTable } from '@app/llm';
import { Metrics } from '@app/observability';
import type { JsonSchemaObject } from '@app/schema';
import { ExtractionService } from './extraction.service';

const TARGET = {
  provider: 'openai',
  model: 'small',
  maxTokens: 100,
  temperature: 0,
  isByok: true,
  source: 'request',
} as unknown as ModelTarget;

/** The router's run as the extraction uses it: one target, one call answering `answer`, what was sent recorded. */
function service(answer: unknown, contextTokens: number) {
  const sent: string[] = [];
  const router = {
    run: async (_plan: ModelTarget[], attempt: (target: ModelTarget, call: ModelCall) => Promise<unknown>) => {
      const call = (async (request: { user: string }) => {
        sent.push(request.user);
        return { json: answer, text: JSON.stringify(answer), usage: { inputTokens: 10, outputTokens: 5 }, durationMs: 1 };
      }) as unknown as ModelCall;
      const value = await attempt(TARGET, call);
      return { value, target: TARGET, attempts: [], usage: { inputTokens: 10, outputTokens: 5 }, llmCostUsd: 0, costUsd: 0, isByok: true };
    },
  } as unknown as ModelRouter;
  const prices = { price: () => ({ context_tokens: contextTokens }) } as unknown as PriceTable;
  return { extraction: new ExtractionService(router, prices, new Metrics('test')), sent };
}

const schema: JsonSchemaObject = {
  type: 'object',
  properties: { title: { type: ['string', 'null'] } },
  required: ['title'],
  additionalProperties: false,
};

describe('ExtractionService warnings (issue 40: the page text cut to fit the model)', () => {
  it('warns content_truncated when the answering call saw only the start of the page, with the counts', async () => {
    const { extraction, sent } = service({ title: 'A' }, 3_000);
    const page = 'word '.repeat(5_000);
    const out = await extraction.extract({ userId: 'u', url: 'https://site.test/', content: page, schema }, [TARGET]);
    expect(sent[0].length).toBeLessThan(page.length);
    expect(out.warnings).toEqual([
      {
        code: 'content_truncated',
        message: expect.stringMatching(/^The page's text was cut to fit the context of openai\/small \(1400 of its \d+ tokens were sent\)/),
        location: null,
      },
    ]);
  });

  it('has none when the page fits', async () => {
    const { extraction } = service({ title: 'A' }, 3_000);
    const out = await extraction.extract({ userId: 'u', url: 'https://site.test/', content: 'a short page', schema }, [TARGET]);
    expect(out.warnings).toEqual([]);
  });

  it('a partial call answered with every field: keeps the ones asked for, drops the rest with a warning (issue 40, 11a)', async () => {
    // A stand-in model without a strict JSON mode: asked for title and price, it answers all five fields it knows.
    const every = { title: 'A', price: 12, author: 'B', isbn: '123', pages: 300 };
    const asked: JsonSchemaObject = {
      type: 'object',
      properties: { title: { type: ['string', 'null'] }, price: { type: ['number', 'null'] } },
      required: ['title', 'price'],
      additionalProperties: false,
    };
    const { extraction } = service(every, 32_000);
    const out = await extraction.extract({ userId: 'u', url: 'https://site.test/', content: 'page', schema: asked, partial: true }, [
      TARGET,
    ]);
    expect(out.data).toEqual({ title: 'A', price: 12 });
    expect(out.warnings).toEqual([
      {
        code: 'model_extra_fields',
        message:
          'openai/small was asked for some fields only and also answered author, isbn, pages: those were dropped, the fields asked for kept.',
        location: null,
      },
    ]);
    // Not a partial call: an unasked field is still the validator's (a re-prompt, then llm_invalid_output).
    await expect(
      service(every, 32_000).extraction.extract({ userId: 'u', url: 'https://site.test/', content: 'page', schema: asked }, [TARGET]),
    ).rejects.toMatchObject({ category: 'llm_invalid_output' });
  });
});
