import type { AppConfig } from '@app/config';

/** The configuration this lib reads (previousSecrets and priceTableFile live on AppConfig). */
export type LlmConfig = AppConfig;
