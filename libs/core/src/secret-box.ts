import { createCipheriv, createDecipheriv, createHash, hkdfSync, randomBytes } from 'node:crypto';
import { AppError } from './app-error';

/** What is stored instead of a secret: AES-256-GCM ciphertext, all binary fields base64url. */
export interface SealedSecret {
  v: 1;
  /** Id of the key that sealed it: first 8 hex chars of SHA-256 of the derived key (not of the secret). */
  kid: string;
  iv: string;
  tag: string;
  ct: string;
}

export interface SecretBoxOptions {
  /** GLEANER_SECRET: every new seal uses the key derived from it. */
  current: string;
  /** Earlier values of GLEANER_SECRET (proposed: GLEANER_PREVIOUS_SECRETS), still accepted when opening. */
  previous?: readonly string[];
}

// Fixed HKDF parameters: changing either makes every stored secret unreadable.
const HKDF_SALT = 'gleaner/secret-box/salt/v1';
const HKDF_INFO = 'gleaner/secret-box/aes-256-gcm/provider-keys';
const IV_BYTES = 12;
const TAG_BYTES = 16;

interface DerivedKey {
  kid: string;
  key: Buffer;
}

function deriveKey(secret: string): DerivedKey {
  const key = Buffer.from(hkdfSync('sha256', Buffer.from(secret, 'utf8'), HKDF_SALT, HKDF_INFO, 32));
  return { key, kid: createHash('sha256').update(key).digest('hex').slice(0, 8) };
}

/** Binds a ciphertext to its envelope version, key id and owning record, so it cannot be moved elsewhere. */
function aad(kid: string, context: string): Buffer {
  return Buffer.from(`gleaner-secret-box|v1|${kid}|${context}`, 'utf8');
}

function sealError(message: string): AppError {
  // Never carries the plaintext, the ciphertext or key material: only what an operator needs to act.
  return new AppError('internal-error', message, { category: 'internal', retryable: false });
}

/**
 * Encrypts provider keys at rest. AES-256-GCM with a key derived from GLEANER_SECRET by HKDF-SHA256,
 * a random 12-byte IV per seal and the 16-byte auth tag. The envelope names its key (`kid`), so the
 * secret can be rotated: seal always uses `current`, open accepts `current` and every `previous`.
 * `context` (e.g. `<user_id>/<provider>`) is authenticated data: opening needs the same context.
 */
export class SecretBox {
  private readonly current: DerivedKey;
  private readonly keys = new Map<string, Buffer>();

  constructor(options: SecretBoxOptions) {
    if (!options.current) throw new Error('SecretBox: the current secret is empty');
    this.current = deriveKey(options.current);
    for (const secret of [options.current, ...(options.previous ?? [])]) {
      if (!secret) continue;
      const derived = deriveKey(secret);
      if (!this.keys.has(derived.kid)) this.keys.set(derived.kid, derived.key);
    }
  }

  /** Id of the key new seals use. */
  get currentKid(): string {
    return this.current.kid;
  }

  seal(plaintext: string, context = ''): SealedSecret {
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', this.current.key, iv, { authTagLength: TAG_BYTES });
    cipher.setAAD(aad(this.current.kid, context));
    const ct = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
    return {
      v: 1,
      kid: this.current.kid,
      iv: iv.toString('base64url'),
      tag: cipher.getAuthTag().toString('base64url'),
      ct: ct.toString('base64url'),
    };
  }

  open(sealed: SealedSecret, context = ''): string {
    if (!isSealedSecret(sealed)) throw sealError('Stored secret is not a valid sealed envelope.');
    const key = this.keys.get(sealed.kid);
    if (!key) {
      throw sealError(
        `Stored secret was sealed with key ${sealed.kid}, which is not configured: set GLEANER_PREVIOUS_SECRETS to the earlier GLEANER_SECRET.`,
      );
    }
    const iv = Buffer.from(sealed.iv, 'base64url');
    const tag = Buffer.from(sealed.tag, 'base64url');
    if (iv.length !== IV_BYTES || tag.length !== TAG_BYTES) throw sealError('Stored secret has a malformed IV or tag.');
    try {
      const decipher = createDecipheriv('aes-256-gcm', key, iv, { authTagLength: TAG_BYTES });
      decipher.setAAD(aad(sealed.kid, context));
      decipher.setAuthTag(tag);
      return Buffer.concat([decipher.update(Buffer.from(sealed.ct, 'base64url')), decipher.final()]).toString('utf8');
    } catch {
      throw sealError(`Stored secret failed authentication (key ${sealed.kid}): it was altered or belongs to another record.`);
    }
  }

  /** Whether secrets other than the current one are configured (a rotation is in progress). */
  get hasPreviousKeys(): boolean {
    return this.keys.size > 1;
  }

  /** Whether the envelope should be sealed again with the current key (after a rotation). */
  isStale(sealed: SealedSecret): boolean {
    return sealed.kid !== this.current.kid;
  }
}

export function isSealedSecret(value: unknown): value is SealedSecret {
  if (typeof value !== 'object' || value === null) return false;
  const v = value as Record<string, unknown>;
  return v.v === 1 && ['kid', 'iv', 'tag', 'ct'].every((field) => typeof v[field] === 'string');
}
