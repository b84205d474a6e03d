import { Injectable } from '@nestjs/common';
import { PriceTable } from '../price-table';
import { LlmMetrics } from './llm-metrics';
import { ModelClient } from './model-client';

/**
 * What one model call of ModelRouter goes through, as one named group instead of three positional parameters: the
 * client that sends it, the price table that costs it and the metrics that count it. A provider of LlmModule.
 */
@Injectable()
export class ModelCallParts {
  constructor(
    readonly client: ModelClient,
    readonly prices: PriceTable,
    readonly metrics: LlmMetrics,
  ) {}
}
