import { Inject, Injectable } from '@nestjs/common';
import { createGunzip } from 'node:zlib';
import { BlobTooLarge, isGzip, PageArchive } from '@app/archive';
import type { Caller } from '@app/auth';
import { APP_CONFIG, type AppConfig } from '@app/config';
import { AppError, Errors } from '@app/core';
import { JobIntakeService } from '@app/intake';
import { publicBaseUrl, type RequestOrigin } from '@app/results';
import { CRAWL_CAPS, resolveCrawlOptions, validCrawlOptions, type CrawlOptions } from '@app/sites';
import { archivedJobOptions } from './archived-job-options';
import type { CrawlJobInput } from '../crawl-input';
import { recordUrl } from '../owner/warc-seeding';
import type { WarcExtractQuery, WarcExtractResponse } from './dto/archive.dto';

/** The media types POST /warc-extract takes (the one exception to JSON-only bodies, docs/api.md). */
export const WARC_MEDIA_TYPES = ['application/warc', 'application/gzip'] as const;

const HEAD_BYTES = 64 * 1024;

export interface WarcAnswer {
  location: string;
  body: WarcExtractResponse;
}

/**
 * API side of POST /warc-extract (docs/archive.md "WARC in"): the raw body (a WARC file, plain or
 * gzip) is streamed into the archive's blob store as it arrives, never whole in memory, up to
 * GLEANER_WARC_MAX_BYTES (413 past it, nothing kept); a body that does not begin like a WARC file is
 * a 422 (nothing kept). Then a `warc-extract` job reads it on the crawler side.
 */
@Injectable()
export class WarcRequestsService {
  constructor(
    private readonly intake: JobIntakeService,
    private readonly archive: PageArchive,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  async start(
    caller: Caller,
    body: AsyncIterable<Buffer> | undefined,
    declaredLength: number | undefined,
    query: WarcExtractQuery,
    requestId: string,
    origin: RequestOrigin,
  ): Promise<WarcAnswer> {
    if (!this.archive.enabled) {
      throw Errors.conflict('The archive is off on this server (GLEANER_ARCHIVE_TTL_DAYS=0): a WARC file has nowhere to be read into.');
    }
    if (declaredLength !== undefined && declaredLength > this.config.warcMaxBytes) throw tooLarge(this.config.warcMaxBytes);
    if (!body) throw notWarc();
    // The body is the file: the saved ids are query parameters, and a 422 names them there.
    const site = await this.intake.site(caller, query.site_id, 'query');
    const { parsed, schemaId } = await this.intake.schema(caller, { schema_id: query.schema_id }, site?.default_schema_id ?? null, 'query');
    const head = new HeadTap(HEAD_BYTES);
    let upload: { id: string; bytes: number };
    try {
      upload = await this.archive.storeUpload(caller.userId, head.tap(body), this.config.warcMaxBytes);
    } catch (error) {
      if (error instanceof BlobTooLarge) throw tooLarge(this.config.warcMaxBytes);
      throw error;
    }
    try {
      if (!(await looksLikeWarc(head.bytes()))) throw notWarc();
      const saved = validCrawlOptions(site?.crawl_options);
      const options = warcOptions(resolveCrawlOptions({ concurrency: query.concurrency }, saved));
      const url = recordUrl(-1);
      const job = await this.intake.submit<CrawlJobInput>(caller, {
        type: 'warc-extract',
        url: null,
        input: (llmConfig) => ({
          url,
          schema: parsed.jsonSchema,
          schema_id: schemaId,
          page_formats: null,
          site_id: site?._id ?? null,
          llm_config: llmConfig,
          options,
          extraction_mode: query.extraction_mode ?? 'model',
          source: { kind: 'warc', upload_id: upload.id, bytes: upload.bytes },
        }),
        captureDebug: false,
        requestId,
        webhooks: query.webhook_id ? { webhook_id: query.webhook_id } : undefined,
        fieldsAt: 'query',
        requireModel: true,
      });
      const statusUrl = `${publicBaseUrl(this.config.publicUrl, origin, this.config.port)}/api/v1/jobs/${job.id}`;
      return { location: statusUrl, body: { job_id: job.id, status: job.status, status_url: statusUrl, bytes: upload.bytes } };
    } catch (error) {
      await this.archive.dropUpload(upload.id).catch(() => undefined);
      throw error;
    }
  }
}

/** A WARC extraction's options: nothing is found or fetched; each HTML record of the file is one page. */
function warcOptions(resolved: CrawlOptions): CrawlOptions {
  return archivedJobOptions(resolved, CRAWL_CAPS.maxPages);
}

function tooLarge(max: number): AppError {
  return new AppError('payload-too-large', `The WARC file is larger than ${max} bytes (GLEANER_WARC_MAX_BYTES); nothing was kept.`);
}

function notWarc(): AppError {
  return Errors.validation(
    [{ location: 'body', message: 'must be a WARC file: it begins with a "WARC/1.0" or "WARC/1.1" record, plain or gzip-compressed' }],
    'The body is not a WARC file; nothing was kept.',
  );
}

/** Whether the first bytes are a WARC record's version line, plain or inside gzip (only its first bytes inflated). */
export async function looksLikeWarc(head: Buffer): Promise<boolean> {
  const text = isGzip(head) ? await inflatedStart(head, 64) : head;
  return /^\s*WARC\/1\.[01]\r?\n/.test(text.subarray(0, 64).toString('latin1'));
}

/** The first `length` bytes of a gzip stream's content (a bomb is never inflated further). */
function inflatedStart(compressed: Buffer, length: number): Promise<Buffer> {
  return new Promise((resolve) => {
    const gunzip = createGunzip();
    const chunks: Buffer[] = [];
    let size = 0;
    const done = () => {
      gunzip.destroy();
      resolve(Buffer.concat(chunks));
    };
    gunzip.on('data', (chunk: Buffer) => {
      chunks.push(chunk);
      size += chunk.length;
      if (size >= length) done();
    });
    gunzip.on('error', done);
    gunzip.on('end', done);
    gunzip.end(compressed);
  });
}

/** Keeps the first bytes of a stream as it passes through. */
class HeadTap {
  private readonly chunks: Buffer[] = [];
  private size = 0;

  constructor(private readonly max: number) {}

  async *tap(source: AsyncIterable<Buffer>): AsyncGenerator<Buffer> {
    for await (const chunk of source) {
      if (this.size < this.max) {
        this.chunks.push(chunk.subarray(0, this.max - this.size));
        this.size += Math.min(chunk.length, this.max - this.size);
      }
      yield chunk;
    }
  }

  bytes(): Buffer {
    return Buffer.concat(this.chunks);
  }
}
