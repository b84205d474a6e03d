import { newId, nowIso } from '@app/core';
import type { ArchiveRepository } from './archive.repository';
import type { ArchiveBlobStore } from './blob-store.port';

/** What the uploads read and write of the archive's records. */
export type UploadRecords = Pick<ArchiveRepository, 'insertUpload' | 'upload' | 'deleteUpload' | 'tenantUploads' | 'uploadsBefore'>;

/**
 * Uploaded WARC files (docs/archive.md): a record per upload in the document store, its bytes in the blob store
 * under the same id, until the job that reads it drops it (or the tenant's deletion, or the retention's sweep).
 */
export class WarcUploads {
  constructor(
    private readonly repository: UploadRecords,
    private readonly blobs: Pick<ArchiveBlobStore, 'writeStream' | 'readStream' | 'delete'>,
  ) {}

  /**
   * Stores an uploaded WARC file as it streams (never whole in memory), refusing it past `maxBytes`
   * (BlobTooLarge, nothing kept). Returns its id; the job that reads it drops it when done.
   */
  async store(userId: string, source: AsyncIterable<Buffer>, maxBytes: number): Promise<{ id: string; bytes: number }> {
    const id = `up${newId()}`;
    await this.repository.insertUpload({ _id: id, user_id: userId, bytes: 0, created_at: nowIso() });
    try {
      const bytes = await this.blobs.writeStream(id, source, maxBytes);
      return { id, bytes };
    } catch (error) {
      // The upload's own error is the answer (a 413, a store outage's 503); what is left of it, the sweep removes.
      await this.drop(id).catch(() => undefined);
      throw error;
    }
  }

  /** The upload's bytes; null when it is gone. */
  async open(id: string): Promise<AsyncIterable<Buffer> | null> {
    if (!(await this.repository.upload(id))) return null;
    return this.blobs.readStream(id);
  }

  async drop(id: string): Promise<void> {
    await this.blobs.delete(id);
    await this.repository.deleteUpload(id);
  }

  /** Drops every upload of the tenant (its deletion). */
  async dropTenant(userId: string): Promise<void> {
    for (;;) {
      const uploads = await this.repository.tenantUploads(userId, 200);
      if (uploads.length === 0) break;
      for (const upload of uploads) await this.drop(upload._id);
    }
  }

  /** Drops up to `limit` uploads made before `before` (ISO time) that no job read (cancelled before it ran). */
  async dropBefore(before: string, limit: number): Promise<void> {
    for (const upload of await this.repository.uploadsBefore(before, limit)) await this.drop(upload._id);
  }
}
