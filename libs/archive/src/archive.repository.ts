import { DuplicateKeyError, newId, nowIso } from '@app/core';
import type { Collection, DocumentStore } from '@app/storage';
import type { ArchiveBlobRecord, ArchivedPageRecord, ArchiveUploadRecord, ArchiveUsageRecord } from './archive.types';

/** Page records read per store round-trip when a job's pages are walked (deletion, WARC export). */
export const PAGE_BATCH = 200;

/**
 * The only code that touches the archive's records: pages, blobs (which body is stored where, and who
 * last referenced it) and per-tenant usage. Every read is scoped by the tenant.
 */
export class ArchiveRepository {
  private constructor(
    private readonly pages: Collection<ArchivedPageRecord>,
    private readonly blobs: Collection<ArchiveBlobRecord>,
    private readonly usage: Collection<ArchiveUsageRecord>,
    private readonly uploads: Collection<ArchiveUploadRecord>,
  ) {}

  static async open(store: DocumentStore): Promise<ArchiveRepository> {
    const pages = await store.collection<ArchivedPageRecord>({
      name: 'archive_pages',
      indexes: [
        { fields: { job_id: 1, key: 1 } },
        { fields: { user_id: 1, body_sha256: 1 } },
        { fields: { user_id: 1, rendered_sha256: 1 } },
        { fields: { expires_at: 1 } },
        // The tenant's newest copy of a URL (the Firecrawl-compatible API's maxAge and changeTracking).
        { fields: { user_id: 1, url: 1, fetched_at: 1 } },
      ],
    });
    const blobs = await store.collection<ArchiveBlobRecord>({
      name: 'archive_blobs',
      indexes: [{ fields: { user_id: 1, touched_at: 1 } }, { fields: { touched_at: 1 } }],
    });
    const usage = await store.collection<ArchiveUsageRecord>({ name: 'archive_usage', indexes: [] });
    const uploads = await store.collection<ArchiveUploadRecord>({ name: 'archive_uploads', indexes: [{ fields: { created_at: 1 } }] });
    return new ArchiveRepository(pages, blobs, usage, uploads);
  }

  /** Inserts a page record; false when the job already has one for this page (a task run twice). */
  async insertPage(record: ArchivedPageRecord): Promise<boolean> {
    try {
      await this.pages.insertOne(record);
      return true;
    } catch (error) {
      if (error instanceof DuplicateKeyError) return false;
      throw error;
    }
  }

  page(userId: string, jobId: string, key: string): Promise<ArchivedPageRecord | null> {
    return this.pages.findOne({ _id: `${jobId}:${key}`, user_id: userId });
  }

  /** The tenant's newest page records of these URLs (as asked for), fetched at or after `since` when given. */
  latestOf(userId: string, urls: string[], since: string | null, limit: number, jobIds?: string[]): Promise<ArchivedPageRecord[]> {
    return this.pages.find(
      {
        user_id: userId,
        url: { $in: urls },
        ...(since ? { fetched_at: { $gte: since } } : {}),
        ...(jobIds ? { job_id: { $in: jobIds } } : {}),
      },
      { sort: { fetched_at: -1 }, limit },
    );
  }

  deletePage(id: string): Promise<boolean> {
    return this.pages.deleteOne({ _id: id });
  }

  jobPages(userId: string, jobId: string): AsyncIterable<ArchivedPageRecord> {
    return this.pages.iterate({ job_id: jobId, user_id: userId }, { sort: { _id: 1 }, batchSize: PAGE_BATCH });
  }

  countJobPages(userId: string, jobId: string): Promise<number> {
    return this.pages.count({ job_id: jobId, user_id: userId });
  }

  /** Page records past their retention, oldest first. */
  expired(now: string, limit: number): Promise<ArchivedPageRecord[]> {
    return this.pages.find({ expires_at: { $lt: now } }, { sort: { expires_at: 1 }, limit });
  }

  tenantPages(userId: string, limit: number): Promise<ArchivedPageRecord[]> {
    return this.pages.find({ user_id: userId }, { limit });
  }

  /** Whether any page of the tenant still references this body. */
  async referenced(userId: string, sha256: string): Promise<boolean> {
    if ((await this.pages.count({ user_id: userId, body_sha256: sha256 })) > 0) return true;
    return (await this.pages.count({ user_id: userId, rendered_sha256: sha256 })) > 0;
  }

  blob(userId: string, sha256: string): Promise<ArchiveBlobRecord | null> {
    return this.blobs.findOne({ _id: `${userId}:${sha256}`, user_id: userId });
  }

  /**
   * Marks the body as referenced now (a new touch token), creating its record when it has none.
   * Returns the record as it was before (null: this call created it with `created`).
   */
  async touchBlob(
    userId: string,
    sha256: string,
    created: Pick<ArchiveBlobRecord, 'blob_id' | 'size' | 'stored_size' | 'encoding'>,
  ): Promise<ArchiveBlobRecord | null> {
    const now = nowIso();
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.blobs.findOneAndUpdate(
          { _id: `${userId}:${sha256}` },
          {
            $set: { touch: newId(), touched_at: now },
            $setOnInsert: { user_id: userId, sha256, ...created, stored: false, created_at: now },
          },
          { upsert: true, returnDocument: 'before' },
        );
      } catch (error) {
        // Two first references at once: one inserted, the other updates the record it made.
        if (!(error instanceof DuplicateKeyError) || attempt >= 3) throw error;
      }
    }
  }

  /** Marks the bytes of this blob id stored; true for the one call that did (it counts them). */
  async markStored(userId: string, sha256: string, blobId: string, storedSize: number): Promise<boolean> {
    const before = await this.blobs.findOneAndUpdate(
      { _id: `${userId}:${sha256}`, blob_id: blobId, stored: false },
      { $set: { stored: true, stored_size: storedSize } },
      { returnDocument: 'before' },
    );
    return before !== null;
  }

  /** Deletes the blob record only if nobody referenced the body since `touch` was read. */
  deleteBlobIfUntouched(record: ArchiveBlobRecord): Promise<boolean> {
    return this.blobs.deleteOne({ _id: record._id, touch: record.touch });
  }

  /** Bodies not referenced since `before` (orphans of a crash, bodies of deleted pages), oldest first. */
  staleBlobs(before: string, limit: number): Promise<ArchiveBlobRecord[]> {
    return this.blobs.find({ touched_at: { $lt: before } }, { sort: { touched_at: 1 }, limit });
  }

  tenantBlobs(userId: string, limit: number): Promise<ArchiveBlobRecord[]> {
    return this.blobs.find({ user_id: userId }, { limit });
  }

  async addUsage(userId: string, storedBytes: number, blobs: number): Promise<void> {
    await this.usage.findOneAndUpdate({ _id: userId }, { $inc: { stored_bytes: storedBytes, blobs } }, { upsert: true });
  }

  async usageOf(userId: string): Promise<{ stored_bytes: number; blobs: number }> {
    const record = await this.usage.findOne({ _id: userId });
    return { stored_bytes: Math.max(0, record?.stored_bytes ?? 0), blobs: Math.max(0, record?.blobs ?? 0) };
  }

  /** Every tenant's usage (for the size gauges; one record per tenant). */
  allUsage(): Promise<ArchiveUsageRecord[]> {
    return this.usage.find({});
  }

  async insertUpload(record: ArchiveUploadRecord): Promise<void> {
    await this.uploads.insertOne(record);
  }

  upload(id: string): Promise<ArchiveUploadRecord | null> {
    return this.uploads.findOne({ _id: id });
  }

  deleteUpload(id: string): Promise<boolean> {
    return this.uploads.deleteOne({ _id: id });
  }

  uploadsBefore(before: string, limit: number): Promise<ArchiveUploadRecord[]> {
    return this.uploads.find({ created_at: { $lt: before } }, { limit });
  }

  tenantUploads(userId: string, limit: number): Promise<ArchiveUploadRecord[]> {
    return this.uploads.find({ user_id: userId }, { limit });
  }

  async dropUsage(userId: string): Promise<void> {
    await this.usage.deleteOne({ _id: userId });
  }
}
