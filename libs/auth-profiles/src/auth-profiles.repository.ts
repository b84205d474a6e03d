import { Inject, Injectable, type OnModuleInit } from '@nestjs/common';
import { DOCUMENT_STORE, type Collection, type DocumentStore } from '@app/storage';
import type { AuthProfileRecord } from './auth-profile.types';

/**
 * The only code that touches auth profiles. The resource's queries are scoped by the owner; the session's
 * writes are conditional (on the lock's holder, on the session version), so every replica sees one login.
 */
@Injectable()
export class AuthProfilesRepository implements OnModuleInit {
  private profiles!: Collection<AuthProfileRecord>;

  constructor(@Inject(DOCUMENT_STORE) private readonly store: DocumentStore) {}

  async onModuleInit(): Promise<void> {
    this.profiles = await this.store.collection<AuthProfileRecord>({
      name: 'auth_profiles',
      indexes: [{ fields: { user_id: 1, created_at: -1 } }],
    });
  }

  insert(profile: AuthProfileRecord): Promise<void> {
    return this.profiles.insertOne(profile);
  }

  findOwn(owner: { userId: string }, id: string): Promise<AuthProfileRecord | null> {
    return this.profiles.findOne({ _id: id, user_id: owner.userId });
  }

  listOwn(owner: { userId: string }): Promise<AuthProfileRecord[]> {
    return this.profiles.find({ user_id: owner.userId }, { sort: { created_at: -1 }, limit: 1000 });
  }

  updateOwn(owner: { userId: string }, id: string, set: Record<string, unknown>): Promise<AuthProfileRecord | null> {
    return this.profiles.findOneAndUpdate({ _id: id, user_id: owner.userId }, { $set: set }, { returnDocument: 'after' });
  }

  deleteOwn(owner: { userId: string }, id: string): Promise<boolean> {
    return this.profiles.deleteOne({ _id: id, user_id: owner.userId });
  }

  deleteAllOf(owner: { userId: string }): Promise<number> {
    return this.profiles.deleteMany({ user_id: owner.userId });
  }

  /**
   * Takes the profile's login lock when it is free (or its holder's time ran out) and the session is still
   * version `seen`: the one compare-and-set that makes a login happen once across replicas.
   */
  takeLoginLock(owner: string, id: string, seen: number, token: string, now: number, lockMs: number): Promise<AuthProfileRecord | null> {
    return this.profiles.findOneAndUpdate(
      { _id: id, user_id: owner, session_version: seen, login_lock_until: { $lt: now } },
      { $set: { login_lock_until: now + lockMs, login_lock_owner: token } },
      { returnDocument: 'after' },
    );
  }

  /** The lock holder's new session: the next version, the lock freed. Null when the lock was lost meanwhile. */
  storeSession(id: string, token: string, sealed: string, now: number): Promise<AuthProfileRecord | null> {
    return this.profiles.findOneAndUpdate(
      { _id: id, login_lock_owner: token },
      {
        $set: {
          session_sealed: sealed,
          session_at_ms: now,
          login_lock_until: 0,
          login_lock_owner: null,
          login_failures: 0,
          last_login_error: null,
        },
        $inc: { session_version: 1, logins: 1 },
      },
      { returnDocument: 'after' },
    );
  }

  /** The lock holder's failed login: counted, the lock freed. */
  recordFailure(id: string, token: string, reason: string): Promise<AuthProfileRecord | null> {
    return this.profiles.findOneAndUpdate(
      { _id: id, login_lock_owner: token },
      { $set: { login_lock_until: 0, login_lock_owner: null, last_login_error: reason }, $inc: { login_failures: 1 } },
      { returnDocument: 'after' },
    );
  }

  /** The session side's read: the owner's profile by id. */
  findForSession(owner: string, id: string): Promise<AuthProfileRecord | null> {
    return this.profiles.findOne({ _id: id, user_id: owner });
  }
}
