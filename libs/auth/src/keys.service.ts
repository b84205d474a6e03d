import { Injectable } from '@nestjs/common';
import { Errors, newId, nowIso } from '@app/core';
import { AuthRepository, type ApiKeyRecord } from './auth.repository';
import { AuthService } from './auth.service';
import type { Caller, Scope } from './caller';
import { generateKeySecret, hashKeySecret, keyPrefix } from './key-secret';

export interface ApiKeyView {
  id: string;
  name: string;
  key_prefix: string;
  scopes: Scope[];
  created_at: string;
  expires_at: string | null;
  revoked_at?: string | null;
}

export interface CreatedApiKey extends ApiKeyView {
  /** The secret, shown once. */
  key: string;
}

export interface CreateKeyInput {
  name: string;
  scopes?: Scope[];
  expires_at?: string;
}

export function toKeyView(record: ApiKeyRecord): ApiKeyView {
  return {
    id: record._id,
    name: record.name,
    key_prefix: record.key_prefix,
    scopes: record.scopes,
    created_at: record.created_at,
    expires_at: record.expires_at,
    revoked_at: record.revoked_at,
  };
}

@Injectable()
export class KeysService {
  constructor(
    private readonly repository: AuthRepository,
    private readonly auth: AuthService,
  ) {}

  async create(caller: Caller, input: CreateKeyInput): Promise<CreatedApiKey> {
    if (input.expires_at !== undefined && Date.parse(input.expires_at) <= Date.now()) {
      throw Errors.validation([{ location: 'body.expires_at', message: 'must be in the future', value: input.expires_at }]);
    }
    return this.issue({ userId: caller.userId, organizationId: caller.organizationId }, input);
  }

  /** Creates a key for a user (also used by bootstrap and user creation). */
  async issue(
    owner: { userId: string; organizationId: string },
    input: CreateKeyInput,
    secret = generateKeySecret(),
  ): Promise<CreatedApiKey> {
    const record: ApiKeyRecord = {
      _id: newId(),
      user_id: owner.userId,
      organization_id: owner.organizationId,
      name: input.name,
      key_hash: hashKeySecret(secret),
      key_prefix: keyPrefix(secret),
      scopes: [...new Set(input.scopes ?? [])],
      created_at: nowIso(),
      expires_at: input.expires_at ? new Date(input.expires_at).toISOString() : null,
      revoked_at: null,
    };
    await this.repository.insertKey(record);
    const view = toKeyView(record);
    delete view.revoked_at;
    return { ...view, key: secret };
  }

  async list(caller: Caller): Promise<{ keys: ApiKeyView[] }> {
    const keys = await this.repository.listKeys({ userId: caller.userId });
    return { keys: keys.map(toKeyView) };
  }

  async revoke(caller: Caller, keyId: string): Promise<{ success: true }> {
    const revoked = await this.repository.revokeKey({ userId: caller.userId }, keyId, nowIso());
    if (!revoked) {
      // Already revoked keys of the caller are still a success (idempotent); anything else is unknown.
      const existing = await this.repository.findOwnKey({ userId: caller.userId }, keyId);
      if (!existing) throw Errors.notFound('API key');
      await this.auth.broadcastRevocation(existing.key_hash);
      return { success: true };
    }
    await this.auth.broadcastRevocation(revoked.key_hash);
    return { success: true };
  }
}
