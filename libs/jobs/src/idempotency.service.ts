import { createHash } from 'node:crypto';
import { Inject, Injectable, type OnModuleInit } from '@nestjs/common';
import { AppError, Errors } from '@app/core';
import { DOCUMENT_STORE, type Collection, type DocumentStore } from '@app/storage';

/** How long a key's first answer is kept (docs/api.md "Idempotency-Key"). */
export const IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000;
/** A request still being answered after this long is taken to have died with its replica: its key is free again. */
export const IDEMPOTENCY_PENDING_MS = 10 * 60 * 1000;
const KEY_PATTERN = /^[\x21-\x7e]{1,255}$/;

/** A remembered answer: what the first request got. */
export interface StoredAnswer {
  status: number;
  headers: Record<string, string>;
  body: unknown;
}

interface IdempotencyRecord {
  _id: string;
  user_id: string;
  fingerprint: string;
  state: 'pending' | 'done';
  answer: StoredAnswer | null;
  created_at: string;
  /** Until when this record counts (pending: its lease; done: 24 h after the first answer). */
  expires_at: string;
  [key: string]: unknown;
}

export type IdempotencyBegin = { kind: 'run'; token: string } | { kind: 'replay'; answer: StoredAnswer };

/**
 * `Idempotency-Key` on the job-creating POSTs (docs/api.md "Idempotency-Key"): per tenant, the first
 * request with a key runs and its answer is stored; the same key with the same request (method, path,
 * query, body) within 24 hours gets that answer again and starts nothing; with another request it is a
 * 422; while the first is still being answered a 409. Records live in the store, so every API replica
 * and a restarted one see them. Only answers that committed to something are remembered (2xx, and
 * problems that name a job, such as a 504 while the job goes on); a refusal before any job exists
 * (422, 401, 429, ...) frees the key for a corrected retry.
 */
@Injectable()
export class IdempotencyService implements OnModuleInit {
  private records!: Collection<IdempotencyRecord>;
  private lastSweep = 0;

  constructor(@Inject(DOCUMENT_STORE) private readonly store: DocumentStore) {}

  async onModuleInit(): Promise<void> {
    this.records = await this.store.collection<IdempotencyRecord>({ name: 'idempotency_keys', indexes: [{ fields: { expires_at: 1 } }] });
  }

  /** Every record of a tenant (its deletion). */
  deleteTenant(userId: string): Promise<number> {
    return this.records.deleteMany({ user_id: userId });
  }

  /** The key as sent, checked (1-255 visible ASCII characters). */
  static checkKey(value: string | string[] | undefined): string | null {
    if (value === undefined) return null;
    const key = Array.isArray(value) ? value.join(',') : value;
    if (!KEY_PATTERN.test(key)) {
      throw Errors.validation([{ location: 'header.idempotency-key', message: 'must be 1 to 255 visible ASCII characters' }]);
    }
    return key;
  }

  static fingerprint(parts: { method: string; path: string; query: unknown; body: unknown }): string {
    return createHash('sha256').update(stableJson(parts)).digest('hex');
  }

  async begin(userId: string, key: string, fingerprint: string, now = Date.now()): Promise<IdempotencyBegin> {
    await this.sweep(now);
    const id = recordId(userId, key);
    for (let attempt = 0; attempt < 3; attempt++) {
      const fresh: IdempotencyRecord = {
        _id: id,
        user_id: userId,
        fingerprint,
        state: 'pending',
        answer: null,
        created_at: new Date(now).toISOString(),
        expires_at: new Date(now + IDEMPOTENCY_PENDING_MS).toISOString(),
      };
      const { duplicates } = await this.records.insertMany([fresh]);
      if (duplicates.length === 0) return { kind: 'run', token: fresh.created_at };
      const known = await this.records.findOne({ _id: id });
      if (!known) continue; // released meanwhile
      if (Date.parse(known.expires_at) <= now) {
        // Expired (24 h passed, or its replica died mid-request): this request starts afresh.
        await this.records.deleteOne({ _id: id, expires_at: known.expires_at });
        continue;
      }
      if (known.fingerprint !== fingerprint) {
        throw new AppError(
          'idempotency-key-reused',
          'This Idempotency-Key was used for a different request (another body, path or query).',
          {
            category: 'invalid_request',
            errors: [{ location: 'header.idempotency-key', message: 'was used for a different request in the last 24 hours' }],
          },
        );
      }
      if (known.state === 'done' && known.answer) return { kind: 'replay', answer: known.answer };
      throw new AppError('idempotency-key-in-use', 'A request with this Idempotency-Key is still being answered.', {
        retryAfterSeconds: 1,
        headers: { 'retry-after': '1' },
      });
    }
    throw Errors.internal('The idempotency record kept changing.');
  }

  /** Stores the first request's answer (kept 24 hours). */
  async complete(userId: string, key: string, token: string, answer: StoredAnswer, now = Date.now()): Promise<void> {
    await this.records.findOneAndUpdate(
      { _id: recordId(userId, key), created_at: token, state: 'pending' },
      {
        $set: {
          state: 'done',
          answer: JSON.parse(JSON.stringify(answer)) as StoredAnswer,
          expires_at: new Date(now + IDEMPOTENCY_TTL_MS).toISOString(),
        },
      },
    );
  }

  /** The first request was refused before committing to anything: the key is free again. */
  async release(userId: string, key: string, token: string): Promise<void> {
    await this.records.deleteOne({ _id: recordId(userId, key), created_at: token, state: 'pending' });
  }

  /** Expired records go, at most once a minute per process. */
  private async sweep(now: number): Promise<void> {
    if (now - this.lastSweep < 60_000) return;
    this.lastSweep = now;
    await this.records.deleteMany({ expires_at: { $lt: new Date(now).toISOString() } }).catch(() => undefined);
  }
}

function recordId(userId: string, key: string): string {
  return `${userId}:${createHash('sha256').update(key).digest('hex')}`;
}

/** JSON with object keys sorted, so a body's key order does not change its fingerprint. */
function stableJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(stableJson).join(',')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${stableJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}
