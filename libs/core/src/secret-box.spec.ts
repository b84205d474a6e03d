import { AppError } from './app-error';
import { isSealedSecret, SecretBox, type SealedSecret } from './secret-box';

const OLD = 'old-secret-0123456789abcdef0123456789';
const NEW = 'new-secret-abcdef0123456789abcdef0123';
const PLAINTEXT = 'sk-proj-Secret-Provider-Key-1234567890';

function expectSealError(fn: () => unknown, pattern: RegExp): void {
  let thrown: unknown;
  try {
    fn();
  } catch (error) {
    thrown = error;
  }
  expect(thrown).toBeInstanceOf(AppError);
  const error = thrown as AppError;
  expect(error.slug).toBe('internal-error');
  expect(error.message).toMatch(pattern);
  // Nothing secret in the error: not the plaintext, not the secrets.
  for (const secret of [PLAINTEXT, OLD, NEW]) expect(JSON.stringify({ m: error.message, d: error.detail })).not.toContain(secret);
}

describe('SecretBox', () => {
  const box = new SecretBox({ current: NEW });

  it('round-trips with a versioned base64url envelope and a fresh IV every time', () => {
    const a = box.seal(PLAINTEXT, 'ctx');
    const b = box.seal(PLAINTEXT, 'ctx');
    expect(isSealedSecret(a)).toBe(true);
    expect(a).toMatchObject({ v: 1, kid: box.currentKid });
    expect(a.kid).toMatch(/^[0-9a-f]{8}$/);
    for (const field of [a.iv, a.tag, a.ct]) expect(field).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(Buffer.from(a.iv, 'base64url')).toHaveLength(12);
    expect(Buffer.from(a.tag, 'base64url')).toHaveLength(16);
    expect(a.iv).not.toBe(b.iv);
    expect(a.ct).not.toBe(b.ct);
    expect(JSON.stringify(a)).not.toContain(PLAINTEXT);
    expect(box.open(a, 'ctx')).toBe(PLAINTEXT);
    expect(box.open(b, 'ctx')).toBe(PLAINTEXT);
  });

  it('handles empty and non-ASCII plaintext', () => {
    expect(box.open(box.seal(''), '')).toBe('');
    expect(box.open(box.seal('clé-🔑'))).toBe('clé-🔑');
  });

  it('derives a stable key id from the secret (same secret, same kid; other secret, other kid)', () => {
    expect(new SecretBox({ current: NEW }).currentKid).toBe(box.currentKid);
    expect(new SecretBox({ current: OLD }).currentKid).not.toBe(box.currentKid);
  });

  it('opens envelopes of a previous secret after a rotation and seals only with the current one', () => {
    const before = new SecretBox({ current: OLD }).seal(PLAINTEXT, 'ctx');
    const rotated = new SecretBox({ current: NEW, previous: [OLD] });
    expect(rotated.open(before, 'ctx')).toBe(PLAINTEXT);
    expect(rotated.isStale(before)).toBe(true);
    const after = rotated.seal(PLAINTEXT, 'ctx');
    expect(after.kid).toBe(box.currentKid);
    expect(rotated.isStale(after)).toBe(false);
    // Once the old secret is dropped, the re-sealed envelope still opens; the old one does not.
    expect(box.open(after, 'ctx')).toBe(PLAINTEXT);
    expectSealError(() => box.open(before, 'ctx'), /not configured.*GLEANER_PREVIOUS_SECRETS/);
  });

  it('rejects a tampered ciphertext, tag or IV, and a changed key id', () => {
    const sealed = box.seal(PLAINTEXT, 'ctx');
    const flip = (b64: string) => {
      const bytes = Buffer.from(b64, 'base64url');
      bytes[0] ^= 0x01;
      return bytes.toString('base64url');
    };
    expectSealError(() => box.open({ ...sealed, ct: flip(sealed.ct) }, 'ctx'), /failed authentication/);
    expectSealError(() => box.open({ ...sealed, tag: flip(sealed.tag) }, 'ctx'), /failed authentication/);
    expectSealError(() => box.open({ ...sealed, iv: flip(sealed.iv) }, 'ctx'), /failed authentication/);
    expectSealError(() => box.open({ ...sealed, kid: '00000000' }, 'ctx'), /not configured/);
    expectSealError(() => box.open({ ...sealed, iv: 'AAAA' }, 'ctx'), /malformed/);
  });

  it('rejects a wrong key with the same kid claim and an envelope moved to another context', () => {
    const other = new SecretBox({ current: OLD });
    const sealed = other.seal(PLAINTEXT, 'ctx');
    // A forged kid pointing at our key: authentication fails instead of returning garbage.
    expectSealError(() => box.open({ ...sealed, kid: box.currentKid }, 'ctx'), /failed authentication/);
    const mine = box.seal(PLAINTEXT, 'llm-key/user-a/openai');
    expectSealError(() => box.open(mine, 'llm-key/user-b/openai'), /failed authentication/);
  });

  it('rejects malformed envelopes', () => {
    expectSealError(() => box.open({ v: 2 } as unknown as SealedSecret), /not a valid sealed envelope/);
    expectSealError(() => box.open(null as unknown as SealedSecret), /not a valid sealed envelope/);
  });

  it('refuses an empty current secret', () => {
    expect(() => new SecretBox({ current: '' })).toThrow(/empty/);
  });
});
