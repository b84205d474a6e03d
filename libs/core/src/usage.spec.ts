import { Usage } from './usage';

describe('Usage (one value type for what model calls used)', () => {
  const run = { usage: { inputTokens: 120, outputTokens: 30 }, costUsd: 0.0012, llmCostUsd: 0.001 };

  it('takes a model run whole, and adds up', () => {
    const one = Usage.of(run);
    expect(one).toEqual({ inputTokens: 120, outputTokens: 30, costUsd: 0.0012, llmCostUsd: 0.001 });
    expect(Usage.add(one, one)).toEqual({ inputTokens: 240, outputTokens: 60, costUsd: 0.0024, llmCostUsd: 0.002 });
    expect(Usage.sum([one, Usage.NONE, one])).toEqual(Usage.add(one, one));
    expect(Usage.sum([])).toEqual(Usage.NONE);
  });

  it('is stored as the records spell it, and read back (absent fields are 0)', () => {
    const one = Usage.of(run);
    expect(Usage.toRecordFields(one)).toEqual({ token_usage_input: 120, token_usage_output: 30, cost_usd: 0.0012 });
    expect(Usage.toCounters(one)).toEqual({ token_usage_input: 120, token_usage_output: 30, cost_usd: 0.0012, llm_cost_usd: 0.001 });
    expect(Usage.fromRecordFields(Usage.toCounters(one))).toEqual(one);
    expect(Usage.fromRecordFields({ token_usage_input: 5 })).toEqual({ ...Usage.NONE, inputTokens: 5 });
  });

  it('is answered with its money rounded to 1e-8 USD', () => {
    expect(Usage.toWire({ inputTokens: 1, outputTokens: 2, costUsd: 0.1 + 0.2, llmCostUsd: 1 / 3 })).toEqual({
      input_tokens: 1,
      output_tokens: 2,
      cost_usd: 0.3,
      llm_cost_usd: 0.33333333,
    });
  });

  it('cannot be changed in place (NONE is shared)', () => {
    expect(Object.isFrozen(Usage.NONE)).toBe(true);
  });
});
