import { roundUsd } from '@app/core';
import type { PriceTable } from '../price-table';
import type { ProviderName, TokenUsage } from './model-types';

/**
 * Cost of one model call: the provider's own report (OpenRouter usage.cost) when present, else the
 * price table × tokens; a model the table does not know costs 0 with `known: false`.
 */
export function callCost(
  prices: PriceTable,
  provider: ProviderName,
  model: string,
  usage: TokenUsage,
  providerCostUsd: number | null,
): { usd: number; known: boolean } {
  if (providerCostUsd !== null) return { usd: roundUsd(providerCostUsd), known: true };
  const fromTable = prices.cost(provider, model, usage.inputTokens, usage.outputTokens);
  return fromTable === null ? { usd: 0, known: false } : { usd: fromTable, known: true };
}

/** What the caller is charged: model cost plus the operator fee (GLEANER_FEE_PERCENT). */
export function withFee(llmCostUsd: number, feePercent: number): number {
  return roundUsd(llmCostUsd * (1 + feePercent / 100));
}
