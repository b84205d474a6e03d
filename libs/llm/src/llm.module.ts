import { Module } from '@nestjs/common';
import { APP_CONFIG } from '@app/config';
import type { LlmConfig } from './llm-config';
import { ChainRepository } from './chain.repository';
import { LlmChainService } from './chain.service';
import { LlmCatalogService } from './llm-catalog.service';
import { loadPriceTable, PriceTable } from './price-table';
import { ProviderKeysRepository } from './provider-keys.repository';
import { LlmKeysService } from './provider-keys.service';
import { LlmTenantErasure } from './llm-tenant-erasure';
import { SecretBox } from '@app/core';
import { guardFromSettings } from '@app/fetch';
import { LOGGER, type AppLogger } from '@app/observability';
import { LlmMetrics } from './models/llm-metrics';
import { ModelCallParts } from './models/model-call-parts';
import { ModelClient } from './models/model-client';
import { ModelPlanner } from './models/model-planner';
import { ModelRouter } from './models/model-router';

@Module({
  providers: [
    {
      provide: SecretBox,
      inject: [APP_CONFIG],
      useFactory: (config: LlmConfig) => new SecretBox({ current: config.secret, previous: config.previousSecrets }),
    },
    { provide: PriceTable, inject: [APP_CONFIG], useFactory: (config: LlmConfig) => loadPriceTable(config.priceTableFile) },
    ProviderKeysRepository,
    ChainRepository,
    LlmKeysService,
    LlmChainService,
    LlmCatalogService,
    LlmTenantErasure,
    {
      provide: ModelClient,
      inject: [APP_CONFIG, LOGGER],
      useFactory: (config: LlmConfig, logger: AppLogger) =>
        new ModelClient({ guard: guardFromSettings(config, logger), timeoutMs: config.llmTimeoutMs }),
    },
    LlmMetrics,
    ModelPlanner,
    ModelCallParts,
    ModelRouter,
  ],
  exports: [SecretBox, PriceTable, LlmKeysService, LlmChainService, LlmCatalogService, ModelClient, ModelPlanner, ModelRouter, LlmMetrics],
})
export class LlmModule {}
