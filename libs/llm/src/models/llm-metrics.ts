import { Inject, Injectable } from '@nestjs/common';
import { Counter, Histogram, type Registry } from 'prom-client';
import { METRICS, type Metrics } from '@app/observability';
import type { ProviderName, TokenUsage } from './model-types';

/** Prometheus series of model calls, on the process registry (labels: provider, model, outcome/direction). */
@Injectable()
export class LlmMetrics {
  readonly calls: Counter<'provider' | 'model' | 'outcome'>;
  readonly tokens: Counter<'provider' | 'model' | 'direction'>;
  readonly cost: Counter<'provider' | 'model'>;
  readonly duration: Histogram<'provider' | 'model'>;

  constructor(@Inject(METRICS) metrics: Metrics) {
    const registry = metrics.registry;
    this.calls = counter(registry, 'gleaner_llm_calls_total', 'Model calls by provider, model and outcome (success or error_category).', [
      'provider',
      'model',
      'outcome',
    ]);
    this.tokens = counter(registry, 'gleaner_llm_tokens_total', 'Tokens reported by providers, by direction (input, output).', [
      'provider',
      'model',
      'direction',
    ]);
    this.cost = counter(registry, 'gleaner_llm_cost_usd_total', 'Model cost in USD (before the operator fee).', ['provider', 'model']);
    this.duration =
      (registry.getSingleMetric('gleaner_llm_duration_seconds') as Histogram<'provider' | 'model'> | undefined) ??
      new Histogram({
        name: 'gleaner_llm_duration_seconds',
        help: 'Duration of model calls in seconds.',
        labelNames: ['provider', 'model'],
        buckets: [0.1, 0.25, 0.5, 1, 2, 5, 10, 20, 30, 60, 120, 300],
        registers: [registry],
      });
  }

  record(provider: ProviderName, model: string, outcome: string, usage: TokenUsage, costUsd: number, durationMs: number): void {
    this.calls.inc({ provider, model, outcome });
    if (usage.inputTokens > 0) this.tokens.inc({ provider, model, direction: 'input' }, usage.inputTokens);
    if (usage.outputTokens > 0) this.tokens.inc({ provider, model, direction: 'output' }, usage.outputTokens);
    if (costUsd > 0) this.cost.inc({ provider, model }, costUsd);
    this.duration.observe({ provider, model }, durationMs / 1000);
  }
}

/** Reuses a series already registered (several Nest apps may share a registry in tests). */
function counter<L extends string>(registry: Registry, name: string, help: string, labelNames: L[]): Counter<L> {
  return (registry.getSingleMetric(name) as Counter<L> | undefined) ?? new Counter({ name, help, labelNames, registers: [registry] });
}
