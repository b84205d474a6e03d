import { Inject, Injectable, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '@app/config';
import { AppError } from '@app/core';
import { EVENT_BUS, type EventBusPort } from '@app/events';
import { METRICS, Metrics, type AuthFailureReason } from '@app/observability';
import { AuthRepository } from './auth.repository';
import type { Caller } from './caller';
import { hashKeySecret, looksLikeKeySecret } from './key-secret';

interface CacheEntry {
  caller: Caller | null;
  expiresAt: number | null;
  revoked: boolean;
  cachedAt: number;
}

export const AUTH_REVOKED_CHANNEL = 'auth.revoked';

/**
 * Resolves a bearer secret to a Caller. Lookups are cached for GLEANER_AUTH_CACHE_MS (1 s by
 * default) and a revocation is broadcast on the event bus so every replica drops the key at once;
 * the short cache bounds the delay even if a broadcast is lost.
 */
@Injectable()
export class AuthService implements OnModuleInit, OnModuleDestroy {
  private readonly cache = new Map<string, CacheEntry>();
  private unsubscribe?: () => Promise<void>;

  constructor(
    private readonly repository: AuthRepository,
    @Inject(EVENT_BUS) private readonly bus: EventBusPort,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(METRICS) private readonly metrics: Metrics,
  ) {}

  async onModuleInit(): Promise<void> {
    this.unsubscribe = await this.bus.subscribe(AUTH_REVOKED_CHANNEL, (message) => {
      const keyHash = (message as { key_hash?: string }).key_hash;
      if (keyHash) this.cache.delete(keyHash);
    });
  }

  async onModuleDestroy(): Promise<void> {
    await this.unsubscribe?.();
  }

  async authenticate(authorization: string | undefined): Promise<Caller> {
    if (!authorization) throw this.reject('missing', 'Missing API key: send "Authorization: Bearer <key>".');
    const match = /^Bearer\s+(\S+)\s*$/i.exec(authorization);
    if (!match) throw this.reject('malformed', 'Malformed Authorization header: expected "Bearer <key>".');
    const secret = match[1];
    if (!looksLikeKeySecret(secret)) throw this.reject('unknown', 'Unknown API key.');
    const keyHash = hashKeySecret(secret);
    const now = Date.now();
    let entry = this.cache.get(keyHash);
    if (!entry || now - entry.cachedAt > this.config.authCacheMs) {
      entry = await this.load(keyHash, now);
      if (this.cache.size > 50_000) this.cache.clear();
      this.cache.set(keyHash, entry);
    }
    if (!entry.caller) throw this.reject('unknown', 'Unknown API key.');
    if (entry.revoked) throw this.reject('revoked', 'This API key has been revoked.');
    if (entry.expiresAt !== null && entry.expiresAt <= now) throw this.reject('expired', 'This API key has expired.');
    return entry.caller;
  }

  /** Drops a key from every replica's cache (called after the revocation is stored). */
  async broadcastRevocation(keyHash: string): Promise<void> {
    this.cache.delete(keyHash);
    await this.bus.publish(AUTH_REVOKED_CHANNEL, { key_hash: keyHash });
  }

  private async load(keyHash: string, now: number): Promise<CacheEntry> {
    const key = await this.repository.findKeyByHash(keyHash);
    if (!key) return { caller: null, expiresAt: null, revoked: false, cachedAt: now };
    const user = await this.repository.findUser(key.user_id);
    // A user being deleted is gone for its keys at once (docs/api.md "Users"), even before they are.
    if (!user || user.deleting_at) return { caller: null, expiresAt: null, revoked: false, cachedAt: now };
    return {
      caller: {
        userId: key.user_id,
        organizationId: key.organization_id,
        keyId: key._id,
        scopes: key.scopes,
        fullAccess: key.scopes.length === 0,
        isAdmin: user.is_admin,
      },
      expiresAt: key.expires_at ? Date.parse(key.expires_at) : null,
      revoked: key.revoked_at !== null && key.revoked_at !== undefined,
      cachedAt: now,
    };
  }

  private reject(reason: AuthFailureReason, detail: string): AppError {
    this.metrics.authFailures.inc({ reason });
    return new AppError('unauthorized', detail);
  }
}
