import { Injectable } from '@nestjs/common';
import type { Caller } from '@app/auth';
import { Errors } from '@app/core';
import { PriceTable, type ModelListing } from './price-table';
import { ProviderKeysRepository } from './provider-keys.repository';
import { isLlmProvider, LLM_PROVIDERS, PROVIDER_INFO, type LlmProvider } from './providers';

export interface ProviderView {
  name: LlmProvider;
  /** Whether the caller stored a key for it. */
  has_key: boolean;
  /** The caller's setting; false when the caller stored nothing for the provider. */
  is_enabled: boolean;
  base_url_default: string;
  requires_key: boolean;
}

/** The providers and the models of the price table, as seen by one caller. */
@Injectable()
export class LlmCatalogService {
  constructor(
    private readonly keys: ProviderKeysRepository,
    private readonly prices: PriceTable,
  ) {}

  async providers(caller: Caller): Promise<{ providers: ProviderView[] }> {
    const records = new Map((await this.keys.list(caller)).map((r) => [r.provider, r]));
    return {
      providers: LLM_PROVIDERS.map((name) => {
        const record = records.get(name);
        return {
          name,
          has_key: Boolean(record?.api_key_sealed),
          is_enabled: record?.is_enabled ?? false,
          base_url_default: PROVIDER_INFO[name].baseUrlDefault,
          requires_key: PROVIDER_INFO[name].requiresKey,
        };
      }),
    };
  }

  async models(_caller: Caller, provider: string): Promise<{ provider: LlmProvider; models: ModelListing[] }> {
    if (!isLlmProvider(provider)) throw Errors.notFound('Provider');
    return { provider, models: this.prices.list(provider) };
  }
}
