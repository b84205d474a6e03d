import { Inject, Injectable, type OnModuleInit } from '@nestjs/common';
import { TENANT_ERASERS, type TenantErasers } from '@app/core';
import { ChainRepository } from './chain.repository';
import { ProviderKeysRepository } from './provider-keys.repository';

/** A tenant's stored provider keys and its fallback chain go with it (docs/api.md "Users"). */
@Injectable()
export class LlmTenantErasure implements OnModuleInit {
  constructor(
    @Inject(TENANT_ERASERS) private readonly erasers: TenantErasers,
    private readonly keys: ProviderKeysRepository,
    private readonly chains: ChainRepository,
  ) {}

  onModuleInit(): void {
    this.erasers.register({ name: 'provider_keys', phase: 'data', run: (userId) => this.keys.deleteAllOf({ userId }) });
    this.erasers.register({ name: 'model_chains', phase: 'data', run: (userId) => this.chains.deleteAllOf({ userId }) });
  }
}
