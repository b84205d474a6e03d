import { roundUsd } from './money';

/**
 * What model calls used: their tokens and what they cost (docs/api.md "Usage"). One value type from the model
 * router to the wire: a page's extraction carries it whole, and this module is the only place that knows the
 * spellings it is stored and answered in (`token_usage_input` on results, crawl entries and jobs;
 * `input_tokens` in an extract's answer). A new counter is added here, and every hop gets it.
 */
export interface Usage {
  readonly inputTokens: number;
  readonly outputTokens: number;
  /** What the caller is charged: the model cost with the platform fee (llmCostUsd × (1 + fee)). */
  readonly costUsd: number;
  /** What the model calls cost at the provider's prices. */
  readonly llmCostUsd: number;
}

/** A stored record's usage fields (results, crawl entries, crawl outcomes). */
export interface UsageRecordFields {
  token_usage_input: number;
  token_usage_output: number;
  cost_usd: number;
}

/** A job's usage counters (JobsService.recordUsage adds them): the record fields and the model cost. */
export interface UsageCounterFields extends UsageRecordFields {
  llm_cost_usd: number;
}

/** The usage of an answer (POST /extract's `usage`). */
export interface UsageWire {
  input_tokens: number;
  output_tokens: number;
  cost_usd: number;
  llm_cost_usd: number;
}

/** What a model run reports (the router's RunSummary): its tokens, and what it cost with and without the fee. */
export interface ModelRunUsage {
  usage: { inputTokens: number; outputTokens: number };
  costUsd: number;
  llmCostUsd: number;
}

const NONE: Usage = Object.freeze({ inputTokens: 0, outputTokens: 0, costUsd: 0, llmCostUsd: 0 });

export const Usage = {
  /** No model call. */
  NONE,

  /** The usage of a model run (every attempt of it, failed ones included: they were billed). */
  of(run: ModelRunUsage): Usage {
    return { inputTokens: run.usage.inputTokens, outputTokens: run.usage.outputTokens, costUsd: run.costUsd, llmCostUsd: run.llmCostUsd };
  },

  add(a: Usage, b: Usage): Usage {
    return {
      inputTokens: a.inputTokens + b.inputTokens,
      outputTokens: a.outputTokens + b.outputTokens,
      costUsd: a.costUsd + b.costUsd,
      llmCostUsd: a.llmCostUsd + b.llmCostUsd,
    };
  },

  sum(usages: Iterable<Usage>): Usage {
    let total = NONE;
    for (const usage of usages) total = Usage.add(total, usage);
    return total;
  },

  toRecordFields(usage: Usage): UsageRecordFields {
    return { token_usage_input: usage.inputTokens, token_usage_output: usage.outputTokens, cost_usd: usage.costUsd };
  },

  toCounters(usage: Usage): UsageCounterFields {
    return {
      token_usage_input: usage.inputTokens,
      token_usage_output: usage.outputTokens,
      cost_usd: usage.costUsd,
      llm_cost_usd: usage.llmCostUsd,
    };
  },

  /** A stored record's usage (fields it lacks are 0: records stored before them, or kinds that never had them). */
  fromRecordFields(fields: Partial<UsageCounterFields>): Usage {
    return {
      inputTokens: fields.token_usage_input ?? 0,
      outputTokens: fields.token_usage_output ?? 0,
      costUsd: fields.cost_usd ?? 0,
      llmCostUsd: fields.llm_cost_usd ?? 0,
    };
  },

  /** As answered: tokens as counted, money to 1e-8 USD (roundUsd). */
  toWire(usage: Usage): UsageWire {
    return {
      input_tokens: usage.inputTokens,
      output_tokens: usage.outputTokens,
      cost_usd: roundUsd(usage.costUsd),
      llm_cost_usd: roundUsd(usage.llmCostUsd),
    };
  },
} as const;
