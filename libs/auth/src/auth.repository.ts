import { Inject, Injectable, type OnModuleInit } from '@nestjs/common';
import { DOCUMENT_STORE, type Collection, type DocumentStore } from '@app/storage';
import type { Scope } from './caller';

export interface UserRecord {
  _id: string;
  name: string;
  organization_id: string;
  is_admin: boolean;
  created_at: string;
  /** Set when the user's deletion began (docs/api.md "Users"): its keys no longer authenticate. */
  deleting_at?: string | null;
  [key: string]: unknown;
}

export interface ApiKeyRecord {
  _id: string;
  user_id: string;
  organization_id: string;
  name: string;
  key_hash: string;
  key_prefix: string;
  scopes: Scope[];
  created_at: string;
  expires_at: string | null;
  revoked_at: string | null;
  [key: string]: unknown;
}

/** The only code that touches users and API keys in the store. Owner-scoped except for lookups by hash. */
@Injectable()
export class AuthRepository implements OnModuleInit {
  private users!: Collection<UserRecord>;
  private keys!: Collection<ApiKeyRecord>;
  private meta!: Collection<{ _id: string; created_at: string }>;

  constructor(@Inject(DOCUMENT_STORE) private readonly store: DocumentStore) {}

  async onModuleInit(): Promise<void> {
    this.users = await this.store.collection<UserRecord>({ name: 'users', indexes: [{ fields: { created_at: 1 } }] });
    this.keys = await this.store.collection<ApiKeyRecord>({
      name: 'api_keys',
      indexes: [{ fields: { key_hash: 1 }, unique: true }, { fields: { user_id: 1, created_at: -1 } }],
    });
    this.meta = await this.store.collection({ name: 'meta', indexes: [] });
  }

  /** Authentication lookup: by hash only (the hash is the credential, so this is not a cross-tenant read). */
  findKeyByHash(keyHash: string): Promise<ApiKeyRecord | null> {
    return this.keys.findOne({ key_hash: keyHash });
  }

  findUser(userId: string): Promise<UserRecord | null> {
    return this.users.findOne({ _id: userId });
  }

  insertUser(user: UserRecord): Promise<void> {
    return this.users.insertOne(user);
  }

  listUsers(): Promise<UserRecord[]> {
    return this.users.find({}, { sort: { created_at: 1 } });
  }

  insertKey(key: ApiKeyRecord): Promise<void> {
    return this.keys.insertOne(key);
  }

  listKeys(owner: { userId: string }): Promise<ApiKeyRecord[]> {
    return this.keys.find({ user_id: owner.userId }, { sort: { created_at: -1 } });
  }

  /** Marks the caller's key revoked; null when it is not the caller's or already revoked. */
  revokeKey(owner: { userId: string }, keyId: string, at: string): Promise<ApiKeyRecord | null> {
    return this.keys.findOneAndUpdate(
      { _id: keyId, user_id: owner.userId, revoked_at: null },
      { $set: { revoked_at: at } },
      { returnDocument: 'after' },
    );
  }

  findOwnKey(owner: { userId: string }, keyId: string): Promise<ApiKeyRecord | null> {
    return this.keys.findOne({ _id: keyId, user_id: owner.userId });
  }

  /**
   * Marks the user as being deleted, once (a deletion run again keeps when it began). Returns the user as
   * stored now and whether this call marked it, or null when there is no such user.
   */
  async markDeleting(userId: string, at: string): Promise<{ user: UserRecord; marked: boolean } | null> {
    const before = await this.users.findOneAndUpdate(
      { _id: userId, deleting_at: null },
      { $set: { deleting_at: at } },
      { returnDocument: 'before' },
    );
    const user = await this.users.findOne({ _id: userId });
    return user ? { user, marked: before !== null } : null;
  }

  /** Users whose deletion began and did not complete (a crash, a store outage), oldest first. */
  usersBeingDeleted(limit: number): Promise<UserRecord[]> {
    return this.users.find({ deleting_at: { $ne: null } }, { sort: { deleting_at: 1 }, limit });
  }

  countUsersBeingDeleted(): Promise<number> {
    return this.users.count({ deleting_at: { $ne: null } });
  }

  /** A deleted user's keys (the last step of its deletion but one). */
  deleteKeysOf(owner: { userId: string }): Promise<number> {
    return this.keys.deleteMany({ user_id: owner.userId });
  }

  /** The last step of a deletion: while the record is there, a restart finishes the deletion. */
  deleteUser(userId: string): Promise<boolean> {
    return this.users.deleteOne({ _id: userId });
  }

  countKeys(): Promise<number> {
    return this.keys.count({});
  }

  /** Claims the one-time bootstrap; false when another replica (or an earlier start) already did. */
  async claimBootstrap(at: string): Promise<boolean> {
    try {
      await this.meta.insertOne({ _id: 'bootstrap', created_at: at });
      return true;
    } catch {
      return false;
    }
  }
}
