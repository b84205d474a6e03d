import { Metrics } from '@app/observability';
import { LlmMetrics, MODEL_LABEL_CAP } from './llm-metrics';

describe('LlmMetrics', () => {
  it('caps the model label: the first 20 models keep their names, later ones are other', async () => {
    const metrics = new Metrics('test');
    const llm = new LlmMetrics(metrics);
    for (let i = 0; i < 100; i++) {
      llm.record('openrouter', `vendor/model-${i}`, 'success', { inputTokens: 10, outputTokens: 5 }, 0.001, 1200);
    }
    llm.record('openrouter', 'vendor/model-3', 'llm_rate_limit', { inputTokens: 0, outputTokens: 0 }, 0, 10);
    const calls = await metrics.registry.getSingleMetric('gleaner_llm_calls_total')!.get();
    const models = new Set(calls.values.map((v) => v.labels.model));
    expect(models.size).toBe(MODEL_LABEL_CAP + 1);
    expect(models.has('other')).toBe(true);
    expect(models.has('vendor/model-3')).toBe(true);
    expect(models.has('vendor/model-50')).toBe(false);
    const other = calls.values.find((v) => v.labels.model === 'other')!;
    expect(other.value).toBe(100 - MODEL_LABEL_CAP);
  });

  it('shares the cap between two instances on one registry', async () => {
    const metrics = new Metrics('test');
    const [a, b] = [new LlmMetrics(metrics), new LlmMetrics(metrics)];
    for (let i = 0; i < 30; i++) (i % 2 ? a : b).record('ollama', `m-${i}`, 'success', { inputTokens: 1, outputTokens: 1 }, 0, 5);
    const calls = await metrics.registry.getSingleMetric('gleaner_llm_calls_total')!.get();
    expect(new Set(calls.values.map((v) => v.labels.model)).size).toBe(MODEL_LABEL_CAP + 1);
  });
});
