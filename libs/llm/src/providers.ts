/** The model providers a caller can configure (docs/api.md "LLM provider key record"). */
export const LLM_PROVIDERS = ['openrouter', 'anthropic', 'openai', 'ollama'] as const;
export type LlmProvider = (typeof LLM_PROVIDERS)[number];

export interface ProviderInfo {
  /** Where calls go when the caller stored no `base_url`. */
  baseUrlDefault: string;
  /** Whether a call needs an API key (a local Ollama does not). */
  requiresKey: boolean;
}

export const PROVIDER_INFO: Record<LlmProvider, ProviderInfo> = {
  openrouter: { baseUrlDefault: 'https://openrouter.ai/api/v1', requiresKey: true },
  anthropic: { baseUrlDefault: 'https://api.anthropic.com', requiresKey: true },
  openai: { baseUrlDefault: 'https://api.openai.com/v1', requiresKey: true },
  ollama: { baseUrlDefault: 'http://localhost:11434', requiresKey: false },
};

export function isLlmProvider(value: unknown): value is LlmProvider {
  return typeof value === 'string' && (LLM_PROVIDERS as readonly string[]).includes(value);
}
