import { createHash } from 'node:crypto';
import { generateKeySecret, hashKeySecret, keyPrefix, looksLikeKeySecret } from './key-secret';

describe('key secrets', () => {
  it('hashes a secret to the SHA-256 hex digest stored for it (keys stored before keep matching)', () => {
    const secret = generateKeySecret();
    expect(hashKeySecret(secret)).toBe(createHash('sha256').update(secret, 'utf8').digest('hex'));
    expect(hashKeySecret('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
  });

  it('makes glk_ secrets of 40 base62 characters, and recognises only that shape', () => {
    const secret = generateKeySecret();
    expect(looksLikeKeySecret(secret)).toBe(true);
    expect(keyPrefix(secret)).toBe(secret.slice(0, 12));
    expect(looksLikeKeySecret(`${secret}x`)).toBe(false);
    expect(looksLikeKeySecret(secret.replace('glk_', 'glx_'))).toBe(false);
  });
});
