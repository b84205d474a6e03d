import type { AppConfig } from '@app/config';
import { isSealedSecret, SecretBox, type SecretSealer } from '@app/core';

/**
 * The sealer for secrets other than provider keys (webhook signing secrets): the same SecretBox
 * (AES-256-GCM under GLEANER_SECRET, GLEANER_PREVIOUS_SECRETS still open), stored as JSON text.
 */
export function createSealer(config: AppConfig): SecretSealer {
  const box = new SecretBox({ current: config.secret, previous: config.previousSecrets });
  const CONTEXT = 'sealed-secret';
  return {
    seal: (plaintext) => JSON.stringify(box.seal(plaintext, CONTEXT)),
    open: (sealed) => {
      const parsed: unknown = JSON.parse(sealed);
      if (!isSealedSecret(parsed)) throw new Error('not a sealed secret');
      return box.open(parsed, CONTEXT);
    },
  };
}
