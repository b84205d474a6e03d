import type { AttemptRecord, RunSummary } from '@app/llm';
import { joined } from './joined-runs';

const attempt = (model: string): AttemptRecord => ({
  provider: 'openai',
  model,
  outcome: 'success',
  input_tokens: 1,
  output_tokens: 1,
  duration_ms: 1,
  llm_cost_usd: 0.001,
  cost_known: true,
});

const run = (model: string, tokens: number, cost: number, isByok: boolean): RunSummary => ({
  attempts: [attempt(model)],
  usage: { inputTokens: tokens, outputTokens: tokens / 2 },
  llmCostUsd: cost,
  costUsd: cost * 1.1,
  isByok,
});

describe('joined', () => {
  it('adds the runs up in order, the last run saying whose key paid', () => {
    const out = joined([run('a', 100, 0.01, false), null, run('b', 40, 0.02, true)]);
    expect(out.attempts.map((a) => a.model)).toEqual(['a', 'b']);
    expect(out.usage).toEqual({ inputTokens: 140, outputTokens: 70 });
    expect(out.llmCostUsd).toBeCloseTo(0.03);
    expect(out.costUsd).toBeCloseTo(0.033);
    expect(out.isByok).toBe(true);
  });

  it('is nothing spent for no run', () => {
    expect(joined([null])).toEqual({ attempts: [], usage: { inputTokens: 0, outputTokens: 0 }, llmCostUsd: 0, costUsd: 0, isByok: false });
  });
});
