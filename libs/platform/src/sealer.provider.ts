import type { AppConfig } from '@app/config';
import type { SecretSealer } from '@app/core';
import { createCipheriv, createDecipheriv, createHash, hkdfSync, randomBytes } from 'node:crypto';

/**
 * Interim sealer (AES-256-GCM, key derived from GLEANER_SECRET with HKDF); replaced by the LLM
 * lib's SecretBox once it lands. Envelope: `v1.<kid>.<iv>.<tag>.<ciphertext>` (base64url).
 */
export function createSealer(config: AppConfig): SecretSealer {
  const key = Buffer.from(hkdfSync('sha256', config.secret, 'gleaner', 'sealed-secrets', 32));
  const kid = createHash('sha256').update(key).digest('hex').slice(0, 8);
  return {
    seal(plaintext: string): string {
      const iv = randomBytes(12);
      const cipher = createCipheriv('aes-256-gcm', key, iv);
      const ct = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
      return ['v1', kid, iv.toString('base64url'), cipher.getAuthTag().toString('base64url'), ct.toString('base64url')].join('.');
    },
    open(sealed: string): string {
      const [v, k, iv, tag, ct] = sealed.split('.');
      if (v !== 'v1' || k !== kid) throw new Error('sealed secret was made with another GLEANER_SECRET');
      const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64url'));
      decipher.setAuthTag(Buffer.from(tag, 'base64url'));
      return Buffer.concat([decipher.update(Buffer.from(ct, 'base64url')), decipher.final()]).toString('utf8');
    },
  };
}
