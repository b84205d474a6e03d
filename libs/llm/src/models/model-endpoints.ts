import type { ProviderName } from './model-types';

/**
 * Where each provider is called when nothing else is configured. Ollama is called on its
 * OpenAI-compatible API (`/v1`); 127.0.0.1 rather than localhost so the address is unambiguous.
 */
export const MODEL_ENDPOINT_DEFAULTS: Record<ProviderName, string> = {
  openai: 'https://api.openai.com/v1',
  openrouter: 'https://openrouter.ai/api/v1',
  anthropic: 'https://api.anthropic.com',
  ollama: 'http://127.0.0.1:11434/v1',
};

/**
 * The endpoint as the SDK needs it: no trailing slash, and for Ollama the `/v1` of its
 * OpenAI-compatible API added when the URL names only the server (`http://host:11434`), which is
 * how Ollama URLs are usually written.
 */
export function normaliseEndpoint(provider: ProviderName, baseUrl: string): string {
  const url = new URL(baseUrl);
  if (provider === 'ollama' && (url.pathname === '/' || url.pathname === '')) url.pathname = '/v1';
  return url.toString().replace(/\/+$/, '');
}

/** The endpoint a target calls: its own, else the provider default. */
export function endpointOf(provider: ProviderName, baseUrl: string | undefined): string {
  return normaliseEndpoint(provider, baseUrl ?? MODEL_ENDPOINT_DEFAULTS[provider]);
}
