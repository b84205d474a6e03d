import { nowIso } from '@app/core';
import { sha256Hex } from './archive-codec';
import type { ArchiveRepository } from './archive.repository';
import type { ArchivedPage, ArchivedPageRecord, ArchiveEvents, KeepOutcome, PageCapture } from './archive.types';
import type { ArchiveBlobStore } from './blob-store.port';
import { BodyReferences } from './body-references';
import { PageDeletion } from './page-deletion';
import { PageReads } from './page-reads';
import { TenantUsage } from './tenant-usage';
import { WarcUploads } from './warc-uploads';

export interface PageArchiveSettings {
  /** Days a page is kept after it was archived; 0 turns archiving off (GLEANER_ARCHIVE_TTL_DAYS). */
  ttlDays: number;
  /** Stored (compressed) bytes per tenant past which no new body is kept; 0 = no cap. */
  maxBytesPerTenant: number;
  /** Largest body read back (a stored body is never larger than the fetch cap). */
  maxBodyBytes: number;
  /**
   * Compressed bodies up to this many bytes are kept inline in their body document; larger ones in the
   * blob store (default INLINE_MAX_BYTES; 0 = every body in the blob store).
   */
  inlineMaxBytes?: number;
}

const NO_EVENTS: ArchiveEvents = { kept: () => undefined, written: () => undefined, deleted: () => undefined };

const DAY_MS = 24 * 60 * 60 * 1000;

/**
 * The page archive (docs/archive.md): pages as fetched, their bodies content-addressed per tenant.
 *
 * The one entry point of the other libs, over its parts: the tenants' usage and size cap (tenant-usage.ts),
 * pages' bodies referenced and stored (body-references.ts, with the rule that a body is never removed under a
 * page that references it), deletions and the retention (page-deletion.ts), uploaded WARC files
 * (warc-uploads.ts) and the reads (page-reads.ts).
 */
export class PageArchive {
  private readonly tenantUsage: TenantUsage;
  private readonly bodies: BodyReferences;
  private readonly uploads: WarcUploads;
  private readonly deletion: PageDeletion;
  private readonly reads: PageReads;

  constructor(
    private readonly repository: ArchiveRepository,
    private readonly blobs: ArchiveBlobStore,
    private readonly settings: PageArchiveSettings,
    private readonly events: ArchiveEvents = NO_EVENTS,
  ) {
    this.tenantUsage = new TenantUsage(repository, settings);
    this.bodies = new BodyReferences(repository, blobs, this.tenantUsage, events, settings);
    this.uploads = new WarcUploads(repository, blobs);
    this.deletion = new PageDeletion(repository, blobs, this.bodies, this.tenantUsage, this.uploads, events, settings);
    this.reads = new PageReads(repository, blobs, settings);
  }

  /** Writes the pages and usage changes not written yet (at shutdown). */
  async flushUsage(): Promise<void> {
    await this.bodies.drain();
    this.tenantUsage.stop();
    await this.tenantUsage.flush();
  }

  /** Writes the usage changes not written yet, now (a metrics scrape reads every tenant's usage). */
  writeUsage(): Promise<void> {
    return this.tenantUsage.flush();
  }

  get enabled(): boolean {
    return this.settings.ttlDays > 0;
  }

  get blobStore(): ArchiveBlobStore {
    return this.blobs;
  }

  /** Keeps one fetched page of a job (idempotent per job and page: a task run twice keeps it once). */
  async keep(userId: string, jobId: string, key: string, capture: PageCapture, origin: 'fetch' | 'warc' = 'fetch'): Promise<KeepOutcome> {
    if (!this.enabled) return this.report('disabled');
    if (await this.tenantUsage.overCap(userId)) return this.report('refused_cap');
    const rendered = capture.rendered === undefined ? null : Buffer.from(capture.rendered, 'utf8');
    const bodySha = sha256Hex(capture.body);
    const renderedSha = rendered ? sha256Hex(rendered) : null;
    const now = nowIso();
    const record: ArchivedPageRecord = {
      _id: `${jobId}:${key}`,
      job_id: jobId,
      user_id: userId,
      key,
      url: capture.url,
      final_url: capture.finalUrl,
      status: capture.status,
      headers: capture.headers,
      redirects: capture.redirects,
      fetch_mode: capture.mode,
      content_type: capture.contentType,
      charset: capture.charset,
      body_sha256: bodySha,
      body_bytes: capture.body.length,
      rendered_sha256: renderedSha,
      rendered_bytes: rendered?.length ?? null,
      fetched_at: capture.fetchedAt,
      expires_at: this.expiry(now),
      origin,
      failure: null,
    };
    const bodies = [{ sha256: bodySha, data: capture.body }];
    if (rendered && renderedSha && renderedSha !== bodySha) bodies.push({ sha256: renderedSha, data: rendered });
    return this.report((await this.bodies.keep(userId, record, bodies)) ? 'stored' : 'deduplicated');
  }

  /** A WARC record that could not be read: a page record that says why (its page fails with it). */
  async keepFailure(
    userId: string,
    jobId: string,
    key: string,
    url: string,
    failure: NonNullable<ArchivedPageRecord['failure']>,
  ): Promise<void> {
    const now = nowIso();
    await this.repository.insertPage({
      _id: `${jobId}:${key}`,
      job_id: jobId,
      user_id: userId,
      key,
      url,
      final_url: url,
      status: 0,
      headers: {},
      redirects: [],
      fetch_mode: 'static',
      content_type: '',
      charset: '',
      body_sha256: '',
      body_bytes: 0,
      rendered_sha256: null,
      rendered_bytes: null,
      fetched_at: now,
      expires_at: this.expiry(now),
      origin: 'warc',
      failure,
    });
  }

  /** The page's record, or null (never archived, expired, deleted, or another tenant's). */
  record(userId: string, jobId: string, key: string): Promise<ArchivedPageRecord | null> {
    return this.reads.record(userId, jobId, key);
  }

  /** The tenant's newest kept copy of a page asked for by any of these URLs (page-reads.ts). */
  latest(userId: string, urls: string[], since: string | null = null, jobIds?: string[]): Promise<ArchivedPageRecord | null> {
    return this.reads.latest(userId, urls, since, jobIds);
  }

  /** The page with its bodies; null when the record or a body is gone. */
  load(userId: string, jobId: string, key: string): Promise<ArchivedPage | null> {
    return this.reads.load(userId, jobId, key);
  }

  /** One stored body by digest (the tenant's own), decompressed; null when it is gone. */
  body(userId: string, sha256: string): Promise<Buffer | null> {
    return this.reads.body(userId, sha256);
  }

  /**
   * Re-extraction: the source job's page becomes a page of the new job too (same bodies, referenced
   * again; the retention of the fetch is kept, not renewed), under `key`; `fromKey` is its key in the
   * source when that differs (an extract's one page). Null when the source page or a body is gone.
   */
  async copy(userId: string, fromJob: string, toJob: string, key: string, fromKey = key): Promise<ArchivedPage | null> {
    const source = await this.reads.load(userId, fromJob, fromKey);
    if (!source) return null;
    const record: ArchivedPageRecord = { ...source.record, _id: `${toJob}:${key}`, job_id: toJob, key };
    await this.repository.insertPage(record);
    if (record.failure) return { ...source, record };
    // Referenced again after the copy's record exists: a concurrent release of the source sees it or loses its token.
    const kept = await this.bodies.retouch(userId, record.body_sha256);
    const keptRendered = record.rendered_sha256 ? await this.bodies.retouch(userId, record.rendered_sha256) : true;
    if (!kept || !keptRendered) {
      await this.deletion.release([record]);
      return null;
    }
    return { ...source, record };
  }

  /** Deletes a job's pages and every body only they referenced. */
  deleteJob(userId: string, jobId: string): Promise<{ pages: number; bodies: number }> {
    return this.deletion.deleteJob(userId, jobId);
  }

  /** Deletes everything a tenant has in the archive. */
  deleteTenant(userId: string): Promise<{ pages: number; bodies: number }> {
    return this.deletion.deleteTenant(userId);
  }

  /** Retention: expired pages and bodies nobody references any more (page-deletion.ts). */
  sweep(now = new Date(), limit = 1000): Promise<{ pages: number; bodies: number }> {
    return this.deletion.sweep(now, limit);
  }

  /**
   * Stores an uploaded WARC file as it streams (never whole in memory), refusing it past `maxBytes`
   * (BlobTooLarge, nothing kept). Returns its id; the job that reads it drops it when done.
   */
  storeUpload(userId: string, source: AsyncIterable<Buffer>, maxBytes: number): Promise<{ id: string; bytes: number }> {
    return this.uploads.store(userId, source, maxBytes);
  }

  openUpload(id: string): Promise<AsyncIterable<Buffer> | null> {
    return this.uploads.open(id);
  }

  dropUpload(id: string): Promise<void> {
    return this.uploads.drop(id);
  }

  /** The tenant's stored bytes and bodies (this process's changes not written yet are written first). */
  usage(userId: string): Promise<{ stored_bytes: number; blobs: number }> {
    return this.tenantUsage.usage(userId);
  }

  countJobPages(userId: string, jobId: string): Promise<number> {
    return this.reads.countJobPages(userId, jobId);
  }

  jobPages(userId: string, jobId: string): AsyncIterable<ArchivedPageRecord> {
    return this.reads.jobPages(userId, jobId);
  }

  private expiry(from: string): string {
    return new Date(Date.parse(from) + this.settings.ttlDays * DAY_MS).toISOString();
  }

  private report(outcome: KeepOutcome): KeepOutcome {
    this.events.kept(outcome);
    return outcome;
  }
}
