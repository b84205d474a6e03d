import { z } from 'zod';
import type { LlmConfigInput } from './models/model-types';
import { LLM_PROVIDERS } from './providers';

/**
 * A request's `llm_config` on its way through a job: the API stores it without the api_key (which
 * travels sealed in the queue message) and the worker puts the two back together.
 */

/** `llm_config` as stored on a job: never the api_key. */
export type StoredLlmConfig = Omit<LlmConfigInput, 'api_key'> & { byok_key: boolean };

/** An absent optional field may come back from the store as null (MongoDB keeps explicit undefineds as null). */
const absent = <T extends z.ZodType>(schema: T) => schema.nullish().transform((v) => v ?? undefined);

export const storedLlmConfigSchema = z
  .object({
    provider: z.enum(LLM_PROVIDERS),
    model: z.string(),
    base_url: absent(z.string()),
    max_tokens: absent(z.number()),
    temperature: absent(z.number()),
    byok_key: z.boolean(),
  })
  .nullable();

/** Splits a request's llm_config into what may be stored and the secret that travels sealed. */
export function storeLlmConfig(config: LlmConfigInput | undefined): { stored: StoredLlmConfig | null; secrets: Record<string, string> } {
  if (!config) return { stored: null, secrets: {} };
  const { api_key, ...rest } = config;
  return { stored: { ...rest, byok_key: Boolean(api_key) }, secrets: api_key ? { llm_api_key: api_key } : {} };
}

/** The request's llm_config for the worker: stored fields + the api_key opened from the queue message. */
export function llmConfigFor(stored: StoredLlmConfig | null, secrets: Record<string, string>): LlmConfigInput | undefined {
  if (!stored) return undefined;
  const { byok_key: _byok, ...rest } = stored;
  return secrets.llm_api_key ? { ...rest, api_key: secrets.llm_api_key } : rest;
}
