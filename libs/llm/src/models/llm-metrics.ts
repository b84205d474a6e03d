import { Inject, Injectable } from '@nestjs/common';
import { Counter, Histogram, type Registry } from 'prom-client';
import { BoundedLabel, METRICS, type Metrics } from '@app/observability';
import type { ProviderName, TokenUsage } from './model-types';

/** Model names that keep their own series per process; later ones are `other` (BYOK users name any model). */
export const MODEL_LABEL_CAP = 20;

/**
 * Prometheus series of model calls, on the process registry (labels: provider, model, outcome/direction).
 * `model` is capped: the first MODEL_LABEL_CAP models a process calls keep their names, the rest are
 * `other` (the exact model of every call is in the job's attempts).
 */
@Injectable()
export class LlmMetrics {
  readonly calls: Counter<'provider' | 'model' | 'outcome'>;
  readonly tokens: Counter<'provider' | 'model' | 'direction'>;
  readonly cost: Counter<'provider' | 'model'>;
  readonly duration: Histogram<'provider' | 'model'>;
  private readonly models: BoundedLabel;

  constructor(@Inject(METRICS) metrics: Metrics) {
    this.models = metrics.boundedLabel('llm_model', MODEL_LABEL_CAP);
    const registry = metrics.registry;
    this.calls = counter(
      registry,
      'gleaner_llm_calls_total',
      'Model calls by provider, model (the first 20 per process, then "other") and outcome (success or an error_category). Unit: calls.',
      ['provider', 'model', 'outcome'],
    );
    this.tokens = counter(
      registry,
      'gleaner_llm_tokens_total',
      'Tokens the providers reported, by provider, model and direction (input, output). Unit: tokens.',
      ['provider', 'model', 'direction'],
    );
    this.cost = counter(
      registry,
      'gleaner_llm_cost_usd_total',
      "Cost of model calls (the provider's report or the price table; before the operator fee), by provider and model. Unit: US dollars.",
      ['provider', 'model'],
    );
    this.duration =
      (registry.getSingleMetric('gleaner_llm_duration_seconds') as Histogram<'provider' | 'model'> | undefined) ??
      new Histogram({
        name: 'gleaner_llm_duration_seconds',
        help: 'Duration of model calls (request to complete answer), by provider and model. Unit: seconds.',
        labelNames: ['provider', 'model'],
        buckets: [0.1, 0.25, 0.5, 1, 2, 5, 10, 20, 30, 60, 120, 300],
        registers: [registry],
      });
  }

  record(provider: ProviderName, modelName: string, outcome: string, usage: TokenUsage, costUsd: number, durationMs: number): void {
    const model = this.models.label(`${provider}/${modelName}`) === BoundedLabel.OTHER ? BoundedLabel.OTHER : modelName;
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
