import { createHmac, hkdfSync, timingSafeEqual } from 'node:crypto';
import { AppError } from '@app/core';
import type { ResultFormat } from './result-formats';

// Fixed HKDF parameters: a subkey of GLEANER_SECRET used for nothing but download links.
const HKDF_SALT = 'gleaner/download-links/salt/v1';
const HKDF_INFO = 'gleaner/download-links/hmac-sha256';

export interface DownloadParams {
  jobId: string;
  format: ResultFormat;
  merge: boolean;
  /** Unix time (seconds) after which the link is refused. */
  expires: number;
}

function resultsPayload(params: DownloadParams): string {
  return `${params.jobId}|${params.format}|${params.merge ? 'true' : 'false'}|${params.expires}`;
}

function screenshotPayload(id: string, expires: number): string {
  return `screenshot|${id}|${expires}`;
}

function deriveKey(secret: string): Buffer {
  return Buffer.from(hkdfSync('sha256', Buffer.from(secret, 'utf8'), HKDF_SALT, HKDF_INFO, 32));
}

/**
 * Signs and verifies download links: `sig` = base64url HMAC-SHA256 over `job_id|format|merge|expires`
 * with an HKDF-derived subkey of GLEANER_SECRET. Links signed with a previous secret (rotation) stay
 * valid until they expire.
 */
export class DownloadSigner {
  private readonly current: Buffer;
  private readonly keys: Buffer[];

  constructor(secret: string, previous: readonly string[] = []) {
    this.current = deriveKey(secret);
    this.keys = [this.current, ...previous.filter(Boolean).map(deriveKey)];
  }

  sign(params: DownloadParams): string {
    return this.mac(this.current, resultsPayload(params)).toString('base64url');
  }

  /** Throws a 403 (`forbidden`) when the signature does not match or the link expired. */
  verify(params: DownloadParams, sig: string | undefined, nowSeconds = Math.floor(Date.now() / 1000)): void {
    this.check(resultsPayload(params), params.expires, sig, 'ask GET /api/v1/jobs/{id}/download for a new one', nowSeconds);
  }

  /** A screenshot link: `screenshot|<id>|expires` (a job id is a ULID, so it never collides with a results payload). */
  signScreenshot(id: string, expires: number): string {
    return this.mac(this.current, screenshotPayload(id, expires)).toString('base64url');
  }

  verifyScreenshot(id: string, expires: number, sig: string | undefined, nowSeconds = Math.floor(Date.now() / 1000)): void {
    this.check(
      screenshotPayload(id, expires),
      expires,
      sig,
      'fetch it with your key at GET /api/v1/jobs/{id}/screenshots/{screenshot_id}',
      nowSeconds,
    );
  }

  private check(payload: string, expires: number, sig: string | undefined, renew: string, nowSeconds: number): void {
    const given = Buffer.from(sig ?? '', 'base64url');
    const valid = this.keys.some((key) => {
      const expected = this.mac(key, payload);
      return given.length === expected.length && timingSafeEqual(given, expected);
    });
    if (!valid) throw new AppError('forbidden', 'This download link is invalid: its signature does not match.');
    if (nowSeconds > expires) throw new AppError('forbidden', `This download link has expired; ${renew}.`);
  }

  private mac(key: Buffer, payload: string): Buffer {
    return createHmac('sha256', key).update(payload, 'utf8').digest();
  }
}
