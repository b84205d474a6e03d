import type { ErrorCategory } from '@app/core';
import type { JsonSchemaObject } from '@app/schema';
import type { LlmProvider } from '../providers';

export type ProviderName = LlmProvider;

/** Where a target came from: the request's llm_config, the caller's stored chain, or the server default chain. */
export type TargetSource = 'request' | 'chain' | 'server';

/**
 * One provider/model to try, with everything needed to call it. `apiKey` is a secret: targets made by
 * the planner hide it from JSON.stringify / util.inspect (see hideSecrets), so logging a target is safe.
 */
export interface ModelTarget {
  provider: ProviderName;
  model: string;
  apiKey?: string;
  /** The endpoint actually called (already defaulted and normalised, e.g. Ollama's `/v1`). */
  baseUrl?: string;
  maxTokens: number;
  temperature: number;
  /** True when the caller's key (request or stored) pays; false for server-held keys. */
  isByok: boolean;
  source: TargetSource;
  /**
   * The endpoint is the operator's own configuration (GLEANER_<PROVIDER>_BASE_URL), so it may live on
   * a private network; user-supplied endpoints always go through the address guard.
   */
  trustedEndpoint?: boolean;
}

export interface ModelRequest {
  system: string;
  user: string;
  /** The normalised schema; the reply must match it. */
  schema: JsonSchemaObject;
  /** Name given to the provider (OpenAI json_schema name); sanitised to [A-Za-z0-9_-]{1,64}. */
  schemaName?: string;
  /** Overrides the target's max_tokens for this call. */
  maxTokens?: number;
  signal?: AbortSignal;
  /** Overrides the configured deadline (GLEANER_LLM_TIMEOUT_MS) of this call. */
  timeoutMs?: number;
}

export interface TokenUsage {
  inputTokens: number;
  outputTokens: number;
}

export interface ModelReply {
  /** The JSON text: OpenAI message content, or the Anthropic tool input JSON.stringified. */
  text: string;
  /** Parsed data when the provider returned structured data itself (Anthropic tool input). */
  json?: unknown;
  /** 'length' never reaches callers: a truncated reply is thrown as llm_truncation. */
  finishReason: 'stop' | 'length' | 'other';
  usage: TokenUsage;
  /** The provider's own cost report (OpenRouter usage.cost), or null. */
  providerCostUsd: number | null;
  durationMs: number;
  provider: ProviderName;
  model: string;
}

/** One try of one target (snake_case: it is stored with the job and may be shown to callers). */
export interface AttemptRecord {
  provider: ProviderName;
  model: string;
  outcome: 'success' | ErrorCategory;
  input_tokens: number;
  output_tokens: number;
  duration_ms: number;
  llm_cost_usd: number;
  /** False when the price of the model is unknown (its cost counted as 0). */
  cost_known: boolean;
  error_message?: string;
}

/** Totals of a run, success or failure. */
export interface RunSummary {
  attempts: AttemptRecord[];
  usage: TokenUsage;
  /** What the model calls cost (every attempt, failed ones included: they were billed). */
  llmCostUsd: number;
  /** llmCostUsd × (1 + feePercent / 100). */
  costUsd: number;
  /** Whether the caller's own key paid (the answering target's, or the last tried target's on failure). */
  isByok: boolean;
}

export interface RunResult<T> extends RunSummary {
  value: T;
  target: ModelTarget;
}

/** The call handed to an attempt: one model call on the attempt's target. */
export type ModelCall = (request: ModelRequest) => Promise<ModelReply>;

/** `llm_config` of extract/crawl/analyze requests (docs/api.md "Extraction input"). */
export interface LlmConfigInput {
  provider: ProviderName;
  model: string;
  api_key?: string;
  base_url?: string;
  max_tokens?: number;
  temperature?: number;
}
