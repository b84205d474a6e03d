import { Inject, Injectable, type OnModuleInit } from '@nestjs/common';
import { DuplicateKeyError } from '@app/core';
import { DOCUMENT_STORE, type Collection, type DocumentStore } from '@app/storage';
import type { LlmProvider } from './providers';
import type { SealedSecret } from '@app/core';

export interface ProviderKeyRecord {
  _id: string;
  user_id: string;
  organization_id: string;
  provider: LlmProvider;
  /** A custom endpoint; null means the provider's default. */
  base_url: string | null;
  /** The provider key, sealed by SecretBox with context `<user_id>/<provider>`; null when none is stored. */
  api_key_sealed: SealedSecret | null;
  is_enabled: boolean;
  created_at: string;
  updated_at: string;
  [key: string]: unknown;
}

export interface Owner {
  userId: string;
  organizationId?: string;
}

/** What an upsert changes; absent fields keep their stored value (or their default on insert). */
export interface ProviderKeyChanges {
  is_enabled: boolean;
  base_url?: string | null;
  api_key_sealed?: SealedSecret;
}

/** The only code that touches stored provider keys. Every query is scoped by the owner. */
@Injectable()
export class ProviderKeysRepository implements OnModuleInit {
  private keys!: Collection<ProviderKeyRecord>;

  constructor(@Inject(DOCUMENT_STORE) private readonly store: DocumentStore) {}

  async onModuleInit(): Promise<void> {
    this.keys = await this.store.collection<ProviderKeyRecord>({
      name: 'llm_provider_keys',
      indexes: [{ fields: { user_id: 1, provider: 1 }, unique: true }],
    });
  }

  list(owner: Owner): Promise<ProviderKeyRecord[]> {
    return this.keys.find({ user_id: owner.userId }, { sort: { provider: 1 } });
  }

  findByProvider(owner: Owner, provider: LlmProvider): Promise<ProviderKeyRecord | null> {
    return this.keys.findOne({ user_id: owner.userId, provider });
  }

  /** Creates or updates the owner's one record for `provider` atomically (unique on user_id + provider). */
  async upsert(
    owner: Owner & { organizationId: string },
    provider: LlmProvider,
    changes: ProviderKeyChanges,
    ids: { id: string; now: string },
  ) {
    const set: Record<string, unknown> = { is_enabled: changes.is_enabled, updated_at: ids.now };
    const onInsert: Record<string, unknown> = { _id: ids.id, organization_id: owner.organizationId, created_at: ids.now };
    if (changes.base_url !== undefined) set.base_url = changes.base_url;
    else onInsert.base_url = null;
    if (changes.api_key_sealed !== undefined) set.api_key_sealed = changes.api_key_sealed;
    else onInsert.api_key_sealed = null;
    const write = () =>
      this.keys.findOneAndUpdate({ user_id: owner.userId, provider }, { $set: set, $setOnInsert: onInsert }, { upsert: true });
    try {
      return (await write())!;
    } catch (error) {
      // Two first writes raced: the loser's insert hit the unique index; now the record exists.
      if (error instanceof DuplicateKeyError) return (await write())!;
      throw error;
    }
  }

  /** Re-seals a key after a secret rotation, only if nobody changed it in between. */
  async replaceSealedKey(owner: Owner, id: string, previous: SealedSecret, sealed: SealedSecret): Promise<boolean> {
    const updated = await this.keys.findOneAndUpdate(
      { _id: id, user_id: owner.userId, 'api_key_sealed.ct': previous.ct },
      { $set: { api_key_sealed: sealed } },
    );
    return updated !== null;
  }

  delete(owner: Owner, id: string): Promise<boolean> {
    return this.keys.deleteOne({ _id: id, user_id: owner.userId });
  }

  /** Maintenance only (re-sealing after a rotation): every record that holds a key, across users. */
  iterateAllWithKeys(): AsyncIterable<ProviderKeyRecord> {
    return this.keys.iterate({ api_key_sealed: { $ne: null } }, { sort: { _id: 1 } });
  }

  /** Every provider key record of the owner (its deletion). */
  deleteAllOf(owner: Owner): Promise<number> {
    return this.keys.deleteMany({ user_id: owner.userId });
  }
}
