/**
 * Encrypts secrets that must be recovered later (provider keys, webhook signing secrets) before
 * they are stored. The platform provides the implementation (AES-256-GCM under GLEANER_SECRET).
 */
export interface SecretSealer {
  seal(plaintext: string): string;
  open(sealed: string): string;
}

export const SECRET_SEALER = Symbol('SECRET_SEALER');
