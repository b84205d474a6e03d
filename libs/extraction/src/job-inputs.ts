import type { LlmConfigInput } from '@app/llm';
import type { JsonSchemaObject } from '@app/schema';
import type { FetchMode } from './page-loader.service';

/** `llm_config` as stored on a job: never the api_key (that travels sealed in the queue message). */
export type StoredLlmConfig = Omit<LlmConfigInput, 'api_key'> & { byok_key: boolean };

export interface ExtractJobInput {
  url: string;
  fetch_mode: FetchMode;
  schema: JsonSchemaObject;
  schema_id: string | null;
  site_id: string | null;
  llm_config: StoredLlmConfig | null;
  max_cost_usd: number | null;
}

export interface AnalyzeJobInput {
  url: string;
  depth: number;
  fetch_mode: FetchMode;
  site_id: string | null;
  llm_config: StoredLlmConfig | null;
}

/** The request's llm_config for the worker: stored fields + the api_key opened from the queue message. */
export function llmConfigFor(stored: StoredLlmConfig | null, secrets: Record<string, string>): LlmConfigInput | undefined {
  if (!stored) return undefined;
  const { byok_key: _byok, ...rest } = stored;
  return secrets.llm_api_key ? { ...rest, api_key: secrets.llm_api_key } : rest;
}

export function storeLlmConfig(config: LlmConfigInput | undefined): { stored: StoredLlmConfig | null; secrets: Record<string, string> } {
  if (!config) return { stored: null, secrets: {} };
  const { api_key, ...rest } = config;
  return { stored: { ...rest, byok_key: Boolean(api_key) }, secrets: api_key ? { llm_api_key: api_key } : {} };
}
