import { Inject, Injectable, type BeforeApplicationShutdown, type OnApplicationBootstrap } from '@nestjs/common';
import type { Caller } from '@app/auth';
import { Errors, newId, nowIso, type FieldError } from '@app/core';
import { SCHEMA_MISMATCH_DETAIL } from '@app/http';
import { LOGGER, type AppLogger } from '@app/observability';
import { baseUrlProblem, isSafeToEcho } from './base-url';
import { ProviderKeysRepository, type ProviderKeyChanges, type ProviderKeyRecord } from './provider-keys.repository';
import type { LlmProvider } from './providers';
import { PROVIDER_API_KEY_PATTERN } from './dto/provider-key.dto';
import { SecretBox, type SealedSecret } from '@app/core';

/** docs/api.md "LLM provider key record": the key itself is never part of it. */
export interface ProviderKeyView {
  id: string;
  provider: LlmProvider;
  /** The custom endpoint, or null for the provider's default (see GET /llm/providers). */
  base_url: string | null;
  has_key: boolean;
  is_enabled: boolean;
  created_at: string;
  updated_at: string;
}

export interface PutProviderKeyInput {
  provider: LlmProvider;
  is_enabled: boolean;
  /** Unvalidated on purpose (see PutProviderKeyDto): checked here so that errors never echo it. */
  api_key?: unknown;
  /** Unvalidated too (see PutProviderKeyDto): checked here, echoed only when it cannot hold credentials. */
  base_url?: unknown;
}

/** What the extraction side needs to call a provider for a user. */
export interface ResolvedProviderKey {
  /** The decrypted key; absent when none is stored. */
  apiKey?: string;
  /** The custom endpoint; absent means the provider's default (PROVIDER_INFO). */
  baseUrl?: string;
  isEnabled: boolean;
}

export const API_KEY_MAX_LENGTH = 4096;

export function toProviderKeyView(record: ProviderKeyRecord): ProviderKeyView {
  return {
    id: record._id,
    provider: record.provider,
    base_url: record.base_url ?? null,
    has_key: record.api_key_sealed !== null && record.api_key_sealed !== undefined,
    is_enabled: record.is_enabled,
    created_at: record.created_at,
    updated_at: record.updated_at,
  };
}

/** AAD of a sealed provider key: a sealed key only opens in the record it was written for. */
const sealContext = (userId: string, provider: LlmProvider) => `llm-key/${userId}/${provider}`;

/** The caller's provider keys: one record per provider, the key sealed at rest, never returned or logged. */
@Injectable()
export class LlmKeysService implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private resealing?: Promise<void>;

  constructor(
    private readonly repository: ProviderKeysRepository,
    private readonly box: SecretBox,
    @Inject(LOGGER) private readonly logger: AppLogger,
  ) {}

  /**
   * During a rotation (previous secrets configured) every stored key is re-sealed with the current
   * secret in the background, so the previous secrets can be dropped at the next restart. Safe on
   * several replicas at once: each re-seal is a compare-and-set on the old ciphertext.
   */
  onApplicationBootstrap(): void {
    if (!this.box.hasPreviousKeys) return;
    this.resealing = this.resealAll().then(
      (counts) => this.logger.info({ ...counts, kid: this.box.currentKid }, 'llm provider keys re-sealed with the current secret'),
      (error: unknown) => this.logger.error({ err: error }, 'llm provider key re-sealing failed'),
    );
  }

  async beforeApplicationShutdown(): Promise<void> {
    await this.resealing;
  }

  async list(caller: Caller): Promise<{ keys: ProviderKeyView[] }> {
    return { keys: (await this.repository.list(caller)).map(toProviderKeyView) };
  }

  /**
   * Creates or updates the caller's record for `provider`. An absent or empty (blank) `api_key` keeps
   * the stored key; an absent `base_url` keeps the stored one, null or "" resets it to the default.
   */
  async put(caller: Caller, input: PutProviderKeyInput): Promise<ProviderKeyView> {
    const errors: FieldError[] = [];
    const apiKey = this.checkApiKey(input.api_key, errors);
    const baseUrl = this.checkBaseUrl(input.base_url, errors);
    // Every rule checked here is one the OpenAPI document states (type, pattern, length).
    if (errors.length > 0) throw Errors.validation(errors, SCHEMA_MISMATCH_DETAIL);

    const changes: ProviderKeyChanges = { is_enabled: input.is_enabled };
    if (baseUrl !== undefined) changes.base_url = baseUrl;
    if (apiKey !== undefined) changes.api_key_sealed = this.box.seal(apiKey, sealContext(caller.userId, input.provider));
    const record = await this.repository.upsert(caller, input.provider, changes, { id: newId(), now: nowIso() });
    this.logger.info(
      {
        user_id: caller.userId,
        provider: input.provider,
        record_id: record._id,
        key_changed: apiKey !== undefined,
        is_enabled: record.is_enabled,
      },
      'llm provider key saved',
    );
    return toProviderKeyView(record);
  }

  async remove(caller: Caller, id: string): Promise<{ success: true }> {
    if (!(await this.repository.delete(caller, id))) throw Errors.notFound('Provider key');
    this.logger.info({ user_id: caller.userId, record_id: id }, 'llm provider key deleted');
    return { success: true };
  }

  /**
   * The user's stored settings for `provider` with the key decrypted, or null when the user stored
   * nothing for it. A key sealed under a previous GLEANER_SECRET is re-sealed with the current one.
   */
  async resolveKey(userId: string, provider: LlmProvider): Promise<ResolvedProviderKey | null> {
    const record = await this.repository.findByProvider({ userId }, provider);
    if (!record) return null;
    const resolved: ResolvedProviderKey = { isEnabled: record.is_enabled };
    if (record.base_url) resolved.baseUrl = record.base_url;
    if (record.api_key_sealed) {
      resolved.apiKey = this.box.open(record.api_key_sealed, sealContext(userId, provider));
      if (this.box.isStale(record.api_key_sealed)) await this.reseal(record, resolved.apiKey);
    }
    return resolved;
  }

  /**
   * Re-seals every stored key that is not under the current secret (after a rotation, before the
   * previous secret is dropped). Returns how many were re-sealed; keys that do not open are counted
   * as failed and left alone.
   */
  async resealAll(): Promise<{ resealed: number; failed: number }> {
    let resealed = 0;
    let failed = 0;
    for await (const record of this.repository.iterateAllWithKeys()) {
      if (!record.api_key_sealed || !this.box.isStale(record.api_key_sealed)) continue;
      try {
        const plaintext = this.box.open(record.api_key_sealed, sealContext(record.user_id, record.provider));
        if (await this.reseal(record, plaintext)) resealed++;
      } catch {
        failed++;
        this.logger.warn({ record_id: record._id, kid: record.api_key_sealed.kid }, 'llm provider key cannot be opened for re-sealing');
      }
    }
    return { resealed, failed };
  }

  private async reseal(record: ProviderKeyRecord, plaintext: string): Promise<boolean> {
    const previous = record.api_key_sealed as SealedSecret;
    const sealed = this.box.seal(plaintext, sealContext(record.user_id, record.provider));
    return this.repository.replaceSealedKey({ userId: record.user_id }, record._id, previous, sealed);
  }

  /** undefined = keep the stored key. Errors never carry the value. */
  private checkApiKey(value: unknown, errors: FieldError[]): string | undefined {
    if (value === undefined || value === null) return undefined;
    if (typeof value !== 'string') {
      errors.push({ location: 'body.api_key', message: 'must be a string' });
      return undefined;
    }
    // The same rule the OpenAPI document states (PROVIDER_API_KEY_PATTERN, maxLength), on the value as sent.
    if (value.length > API_KEY_MAX_LENGTH)
      errors.push({ location: 'body.api_key', message: `must be at most ${API_KEY_MAX_LENGTH} characters` });
    else if (!PROVIDER_API_KEY_PATTERN.test(value))
      errors.push({ location: 'body.api_key', message: 'must be printable ASCII without spaces' });
    else return value.trim() || undefined;
    return undefined;
  }

  /** undefined = keep, null = reset to the provider's default. */
  private checkBaseUrl(value: unknown, errors: FieldError[]): string | null | undefined {
    if (value === undefined) return undefined;
    if (value === null || value === '') return null;
    if (typeof value !== 'string') {
      errors.push({ location: 'body.base_url', message: 'must be a string' });
      return undefined;
    }
    const problem = baseUrlProblem(value);
    if (!problem) return value;
    errors.push({ location: 'body.base_url', message: problem, ...(isSafeToEcho(value) ? { value } : {}) });
    return undefined;
  }
}
