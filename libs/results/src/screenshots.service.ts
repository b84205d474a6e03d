import { Inject, Injectable } from '@nestjs/common';
import type { Caller } from '@app/auth';
import { APP_CONFIG, type AppConfig } from '@app/config';
import { AppError, Errors, nowIso } from '@app/core';
import { JobsService, type JobRecord } from '@app/jobs';
import { DownloadSigner } from './download-signer';
import { publicBaseUrl, type RequestOrigin } from './public-base-url';
import { DOWNLOAD_TTL_SECONDS } from './results.service';
import { ScreenshotsRepository, type ScreenshotRecord } from './screenshots.repository';

/** The largest PNG stored (a full-page screenshot is capped at 10,000 px high, which stays well below). */
export const MAX_SCREENSHOT_BYTES = 8 * 1024 * 1024;

export interface ScreenshotLink {
  url: string;
  expires_at: string;
}

/**
 * Screenshots of scrape pages (docs/scrape.md "screenshot"): stored once per page, read with the
 * caller's key (`GET /jobs/{id}/screenshots/{screenshot_id}`) or through a signed link that needs no
 * key (`GET /downloads/screenshots/{screenshot_id}`, 1 hour, like results downloads).
 */
@Injectable()
export class ScreenshotsService {
  private readonly signer: DownloadSigner;

  constructor(
    private readonly repository: ScreenshotsRepository,
    private readonly jobs: JobsService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {
    this.signer = new DownloadSigner(config.secret, config.previousSecrets);
  }

  /** Stores a page's PNG under `id` (content_too_large above MAX_SCREENSHOT_BYTES). */
  async store(job: JobRecord, id: string, png: Buffer): Promise<void> {
    if (png.length > MAX_SCREENSHOT_BYTES) {
      throw new AppError('upstream-failure', `The screenshot is larger than ${MAX_SCREENSHOT_BYTES} bytes.`, {
        category: 'content_too_large',
        retryable: false,
      });
    }
    const isPng = png.length >= 24 && png.readUInt32BE(12) === 0x49484452; // IHDR
    await this.repository.insertOnce({
      _id: id,
      job_id: job._id,
      user_id: job.user_id,
      content_type: 'image/png',
      width: isPng ? png.readUInt32BE(16) : 0,
      height: isPng ? png.readUInt32BE(20) : 0,
      bytes: png.length,
      data_base64: png.toString('base64'),
      created_at: nowIso(),
    });
  }

  /** The path a key with the `jobs` scope reads the screenshot from (what results carry). */
  static path(jobId: string, id: string): string {
    return `/api/v1/jobs/${encodeURIComponent(jobId)}/screenshots/${encodeURIComponent(id)}`;
  }

  /** An absolute link that needs no key, valid 1 hour. */
  signedLink(id: string, origin: RequestOrigin, ttlSeconds = DOWNLOAD_TTL_SECONDS): ScreenshotLink {
    const expires = Math.floor(Date.now() / 1000) + ttlSeconds;
    const query = new URLSearchParams({ expires: String(expires), sig: this.signer.signScreenshot(id, expires) });
    const base = publicBaseUrl(this.config.publicUrl, origin, this.config.port);
    return {
      url: `${base}/api/v1/downloads/screenshots/${encodeURIComponent(id)}?${query.toString()}`,
      expires_at: new Date(expires * 1000).toISOString(),
    };
  }

  /** GET /jobs/{id}/screenshots/{screenshot_id}: 404 for another user's job or an unknown screenshot. */
  async read(caller: Caller, jobId: string, id: string): Promise<Buffer> {
    const job = await this.jobs.getRecord(caller, jobId);
    return png(await this.repository.findOwn(job.user_id, job._id, id));
  }

  /** GET /downloads/screenshots/{id}: the signature is the credential (403 before anything is revealed). */
  async readSigned(id: string, query: { expires?: string; sig?: string }): Promise<Buffer> {
    const expires = /^\d{1,12}$/.test(query.expires ?? '') ? Number(query.expires) : -1;
    this.signer.verifyScreenshot(id, expires, expires >= 0 ? query.sig : '');
    return png(await this.repository.findById(id));
  }
}

function png(record: ScreenshotRecord | null): Buffer {
  if (!record) throw Errors.notFound('Screenshot');
  return Buffer.from(record.data_base64, 'base64');
}
