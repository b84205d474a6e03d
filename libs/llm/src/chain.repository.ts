import { Inject, Injectable, type OnModuleInit } from '@nestjs/common';
import { DuplicateKeyError } from '@app/core';
import { DOCUMENT_STORE, type Collection, type DocumentStore } from '@app/storage';
import type { ChainEntry } from './chain-plan';
import type { Owner } from './provider-keys.repository';

/** A user's whole chain is one document, so a replacement is atomic on both stores. */
export interface ChainRecord {
  _id: string;
  user_id: string;
  organization_id: string;
  entries: ChainEntry[];
  /** Optimistic concurrency: each replacement increments it. */
  revision: number;
  created_at: string;
  updated_at: string;
  [key: string]: unknown;
}

/** The only code that touches stored fallback chains. Every query is scoped by the owner. */
@Injectable()
export class ChainRepository implements OnModuleInit {
  private chains!: Collection<ChainRecord>;

  constructor(@Inject(DOCUMENT_STORE) private readonly store: DocumentStore) {}

  async onModuleInit(): Promise<void> {
    this.chains = await this.store.collection<ChainRecord>({ name: 'llm_chains', indexes: [{ fields: { user_id: 1 }, unique: true }] });
  }

  find(owner: Owner): Promise<ChainRecord | null> {
    return this.chains.findOne({ user_id: owner.userId });
  }

  /**
   * Stores `entries` if the chain is still at `revision` (0 = no chain yet); false when another
   * replacement won the race (the caller re-reads and re-plans).
   */
  async replace(
    owner: Owner & { organizationId: string },
    revision: number,
    entries: ChainEntry[],
    ids: { id: string; now: string },
  ): Promise<boolean> {
    try {
      const written = await this.chains.findOneAndUpdate(
        { user_id: owner.userId, revision },
        {
          $set: { entries, revision: revision + 1, updated_at: ids.now },
          $setOnInsert: { _id: ids.id, organization_id: owner.organizationId, created_at: ids.now },
        },
        { upsert: revision === 0 },
      );
      return written !== null;
    } catch (error) {
      if (error instanceof DuplicateKeyError) return false;
      throw error;
    }
  }

  /** The owner's chain (its deletion). */
  deleteAllOf(owner: Owner): Promise<number> {
    return this.chains.deleteMany({ user_id: owner.userId });
  }
}
