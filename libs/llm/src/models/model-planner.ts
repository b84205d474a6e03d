import { inspect } from 'node:util';
import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG } from '@app/config';
import { Errors } from '@app/core';
import { baseUrlProblem } from '../base-url';
import { CHAIN_DEFAULTS } from '../chain-plan';
import { LlmChainService } from '../chain.service';
import type { LlmConfig } from '../llm-config';
import { LlmKeysService, type ResolvedProviderKey } from '../provider-keys.service';
import { isLlmProvider, PROVIDER_INFO } from '../providers';
import { endpointOf } from './model-endpoints';
import { noModelsError } from './model-errors';
import type { LlmConfigInput, ModelTarget, ProviderName } from './model-types';

/**
 * Makes logging a target harmless: JSON.stringify (pino) and util.inspect show `apiKey` as
 * "[redacted]". Non-enumerable, so a spread copy keeps the key but loses the protection.
 */
export function hideSecrets(target: ModelTarget): ModelTarget {
  const safe = () => ({ ...target, apiKey: target.apiKey === undefined ? undefined : '[redacted]' });
  Object.defineProperty(target, 'toJSON', { value: safe, enumerable: false });
  Object.defineProperty(target, inspect.custom, { value: () => safe(), enumerable: false });
  return target;
}

/**
 * Which models answer, in order: the request's `llm_config` (BYOK for this request: the key is
 * never stored or logged; without `api_key` the caller's stored key for the provider) → else the
 * caller's enabled chain entries with their stored keys → else the server default chain with
 * server-held keys → else no_models (422: the caller can fix it).
 */
@Injectable()
export class ModelPlanner {
  constructor(
    private readonly keys: LlmKeysService,
    private readonly chains: LlmChainService,
    @Inject(APP_CONFIG) private readonly config: LlmConfig,
  ) {}

  async plan(caller: { userId: string }, llmConfig?: LlmConfigInput | null): Promise<ModelTarget[]> {
    if (llmConfig) return [hideSecrets(await this.fromRequest(caller.userId, llmConfig))];
    const chain = await this.fromChain(caller.userId);
    if (chain.length > 0) return chain.map(hideSecrets);
    const server = this.fromServer();
    if (server.length > 0) return server.map(hideSecrets);
    throw noModelsError(
      'No usable model: send llm_config with an api_key, store a provider key (PUT /api/v1/llm/keys) and a chain ' +
        '(PUT /api/v1/llm/chain), or ask the operator to configure a server default chain (GLEANER_DEFAULT_CHAIN).',
      'body.llm_config',
    );
  }

  private async fromRequest(userId: string, input: LlmConfigInput): Promise<ModelTarget> {
    const provider = input.provider;
    const model = typeof input.model === 'string' ? input.model.trim() : '';
    if (!isLlmProvider(provider)) throw Errors.validation([{ location: 'body.llm_config.provider', message: 'unknown provider' }]);
    if (!model) throw Errors.validation([{ location: 'body.llm_config.model', message: 'must not be blank' }]);
    if (input.base_url) {
      const problem = baseUrlProblem(input.base_url);
      if (problem) throw Errors.validation([{ location: 'body.llm_config.base_url', message: problem }]);
    }
    const requestKey = typeof input.api_key === 'string' && input.api_key.trim() !== '' ? input.api_key.trim() : undefined;
    // The stored key gives what the request leaves out (its key, its base URL): a request with both needs no read.
    const stored = requestKey && input.base_url ? null : await this.keys.resolveKey(userId, provider);
    let apiKey = requestKey;
    if (!requestKey) {
      if (stored && !stored.isEnabled) {
        throw noModelsError(
          `llm_config names ${provider}, which is disabled in your provider keys; send an api_key or enable it.`,
          'body.llm_config',
        );
      }
      apiKey = stored?.apiKey;
      if (!apiKey && PROVIDER_INFO[provider].requiresKey) {
        throw noModelsError(
          `llm_config names ${provider} without an api_key, and no key is stored for ${provider}.`,
          'body.llm_config.api_key',
        );
      }
    }
    return {
      provider,
      model,
      apiKey,
      ...this.endpoint(provider, input.base_url ?? stored?.baseUrl),
      maxTokens: input.max_tokens ?? CHAIN_DEFAULTS.max_tokens,
      temperature: input.temperature ?? CHAIN_DEFAULTS.temperature,
      isByok: true,
      source: 'request',
    };
  }

  private async fromChain(userId: string): Promise<ModelTarget[]> {
    const entries = (await this.chains.getChain(userId)).filter((entry) => entry.is_enabled);
    const stored = new Map<ProviderName, ResolvedProviderKey | null>();
    const targets: ModelTarget[] = [];
    for (const entry of entries) {
      if (!isLlmProvider(entry.provider)) continue;
      if (!stored.has(entry.provider)) stored.set(entry.provider, await this.keys.resolveKey(userId, entry.provider));
      const record = stored.get(entry.provider) ?? null;
      // A disabled key record disables the provider; a provider that needs a key is unusable without one.
      if (record && !record.isEnabled) continue;
      if (!record?.apiKey && PROVIDER_INFO[entry.provider].requiresKey) continue;
      targets.push({
        provider: entry.provider,
        model: entry.model,
        apiKey: record?.apiKey,
        ...this.endpoint(entry.provider, record?.baseUrl),
        maxTokens: entry.max_tokens,
        temperature: entry.temperature,
        // Keyless Ollama on the server's endpoint is the operator's compute, not the caller's.
        isByok: record?.apiKey !== undefined || record?.baseUrl !== undefined,
        source: 'chain',
      });
    }
    return targets;
  }

  private fromServer(): ModelTarget[] {
    const targets: ModelTarget[] = [];
    for (const entry of this.config.defaultChain) {
      if (!isLlmProvider(entry.provider) || typeof entry.model !== 'string' || entry.model.trim() === '') continue;
      const apiKey = this.config.serverProviders[entry.provider]?.apiKey || undefined;
      if (!apiKey && PROVIDER_INFO[entry.provider].requiresKey) continue;
      targets.push({
        provider: entry.provider,
        model: entry.model.trim(),
        apiKey,
        ...this.endpoint(entry.provider, undefined),
        maxTokens: entry.max_tokens ?? CHAIN_DEFAULTS.max_tokens,
        temperature: entry.temperature ?? CHAIN_DEFAULTS.temperature,
        isByok: false,
        source: 'server',
      });
    }
    return targets;
  }

  /**
   * The endpoint: the given one, else the operator's (GLEANER_<PROVIDER>_BASE_URL), else the default.
   * Only the operator's endpoint is trusted to be on a private network.
   */
  private endpoint(provider: ProviderName, own: string | undefined): { baseUrl: string; trustedEndpoint: boolean } {
    const operator = this.config.serverProviders[provider]?.baseUrl || undefined;
    const baseUrl = endpointOf(provider, own ?? operator);
    return { baseUrl, trustedEndpoint: operator !== undefined && baseUrl === endpointOf(provider, operator) };
  }
}
