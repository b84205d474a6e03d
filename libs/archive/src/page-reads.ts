import { decodeBody } from './archive-codec';
import type { ArchiveRepository } from './archive.repository';
import type { ArchivedPage, ArchivedPageRecord } from './archive.types';
import type { ArchiveBlobStore } from './blob-store.port';

/** Newest records of a URL looked at for its latest usable copy (a failed WARC record or an error status is passed over). */
const LATEST_SCANNED = 20;

/** What the reads read of the archive's records. */
export type ReadRecords = Pick<ArchiveRepository, 'page' | 'latestOf' | 'bodyIn' | 'countJobPages' | 'jobPages'>;

/** The archive's reads (docs/archive.md): a tenant's page records and their bodies, decompressed. */
export class PageReads {
  constructor(
    private readonly repository: ReadRecords,
    private readonly blobs: Pick<ArchiveBlobStore, 'read'>,
    private readonly settings: { readonly maxBodyBytes: number },
  ) {}

  /** The page's record, or null (never archived, expired, deleted, or another tenant's). */
  record(userId: string, jobId: string, key: string): Promise<ArchivedPageRecord | null> {
    return this.repository.page(userId, jobId, key);
  }

  /**
   * The tenant's newest kept copy of a page asked for by any of these URLs (a fetched page, not a WARC record
   * that could not be read), fetched at or after `since` when given; null when there is none. The
   * Firecrawl-compatible API serves `maxAge` and compares `changeTracking` with it (docs/firecrawl.md);
   * `jobIds`: kept by these jobs only (a tagged change-tracking history).
   */
  async latest(userId: string, urls: string[], since: string | null = null, jobIds?: string[]): Promise<ArchivedPageRecord | null> {
    if (jobIds && jobIds.length === 0) return null;
    const records = await this.repository.latestOf(userId, [...new Set(urls)], since, LATEST_SCANNED, jobIds);
    return records.find((record) => !record.failure && record.status >= 200 && record.status < 300) ?? null;
  }

  /** The page with its bodies; null when the record or a body is gone. */
  async load(userId: string, jobId: string, key: string): Promise<ArchivedPage | null> {
    const record = await this.repository.page(userId, jobId, key);
    if (!record || record.failure) return record ? { record, body: Buffer.alloc(0), rendered: null } : null;
    const body = await this.body(userId, record.body_sha256);
    if (!body) return null;
    const rendered = record.rendered_sha256 ? await this.body(userId, record.rendered_sha256) : null;
    if (record.rendered_sha256 && !rendered) return null;
    return { record, body, rendered };
  }

  /** One stored body by digest (the tenant's own), decompressed; null when it is gone. */
  async body(userId: string, sha256: string): Promise<Buffer | null> {
    // Its body document, else (a body stored before issue 37) its archive_blobs record.
    for (const place of ['pages', 'legacy'] as const) {
      const blob = await this.repository.bodyIn(place, userId, sha256);
      if (!blob?.stored) continue;
      const stored = blob.data !== undefined ? Buffer.from(blob.data, 'base64') : blob.blob_id ? await this.blobs.read(blob.blob_id) : null;
      if (stored) return decodeBody(stored, this.settings.maxBodyBytes);
    }
    return null;
  }

  countJobPages(userId: string, jobId: string): Promise<number> {
    return this.repository.countJobPages(userId, jobId);
  }

  jobPages(userId: string, jobId: string): AsyncIterable<ArchivedPageRecord> {
    return this.repository.jobPages(userId, jobId);
  }
}
