import type { ArchiveRepository } from './archive.repository';
import type { ArchivedPageRecord, ArchiveBlobRecord, ArchiveEvents } from './archive.types';
import type { ArchiveBlobStore } from './blob-store.port';
import type { BodyReferences } from './body-references';
import type { TenantUsage } from './tenant-usage';
import type { WarcUploads } from './warc-uploads';

/** A body not referenced for this long past the retention is collected even if a page delete missed it. */
const STALE_GRACE_MS = 60 * 60 * 1000;
const DAY_MS = 24 * 60 * 60 * 1000;

/** What deleting pages reads and deletes of the archive's records. */
export type DeletionRecords = Pick<
  ArchiveRepository,
  'jobPages' | 'tenantPages' | 'tenantBlobs' | 'expired' | 'staleBlobs' | 'referenced' | 'deletePage' | 'bodyIn' | 'deleteBlobIfUntouched'
>;

/**
 * The archive's deletions (docs/archive.md "How long"): a job's pages, a tenant's archive, the retention's
 * sweep. A page's bodies go with it only when no other page references them, under the rule of
 * body-references.ts: a body's record is deleted only if no page references it and its touch token is still
 * the one read, then its bytes.
 */
export class PageDeletion {
  constructor(
    private readonly repository: DeletionRecords,
    private readonly blobs: Pick<ArchiveBlobStore, 'delete'>,
    private readonly bodies: Pick<BodyReferences, 'forget'>,
    private readonly usage: Pick<TenantUsage, 'change' | 'flush' | 'drop'>,
    private readonly uploads: Pick<WarcUploads, 'dropTenant' | 'dropBefore'>,
    private readonly events: Pick<ArchiveEvents, 'deleted'>,
    private readonly settings: { readonly ttlDays: number },
  ) {}

  /** Deletes a job's pages and every body only they referenced. */
  async deleteJob(userId: string, jobId: string): Promise<{ pages: number; bodies: number }> {
    let pages = 0;
    let bodies = 0;
    let batch: ArchivedPageRecord[] = [];
    for await (const record of this.repository.jobPages(userId, jobId)) {
      batch.push(record);
      if (batch.length >= 200) {
        bodies += await this.release(batch);
        pages += batch.length;
        batch = [];
      }
    }
    bodies += await this.release(batch);
    pages += batch.length;
    return { pages, bodies };
  }

  /** Deletes everything a tenant has in the archive. */
  async deleteTenant(userId: string): Promise<{ pages: number; bodies: number }> {
    let pages = 0;
    let bodies = 0;
    for (;;) {
      const batch = await this.repository.tenantPages(userId, 200);
      if (batch.length === 0) break;
      bodies += await this.release(batch);
      pages += batch.length;
    }
    for (;;) {
      const stale = await this.repository.tenantBlobs(userId, 200);
      if (stale.length === 0) break;
      for (const blob of stale) if (await this.dropBlob(blob)) bodies++;
    }
    await this.uploads.dropTenant(userId);
    await this.usage.drop(userId);
    return { pages, bodies };
  }

  /**
   * Retention: pages past their expiry go with every body only they referenced; bodies nobody has
   * referenced for longer than the retention (a page write that died half way) go too.
   */
  async sweep(now = new Date(), limit = 1000): Promise<{ pages: number; bodies: number }> {
    const expired = await this.repository.expired(now.toISOString(), limit);
    let bodies = await this.release(expired);
    const before = new Date(now.getTime() - this.settings.ttlDays * DAY_MS - STALE_GRACE_MS).toISOString();
    for (const blob of await this.repository.staleBlobs(before, limit)) {
      if (!(await this.repository.referenced(blob.user_id, blob.sha256)) && (await this.dropBlob(blob))) bodies++;
    }
    // An upload whose job never read it (cancelled before it ran) goes with the retention too.
    await this.uploads.dropBefore(before, limit);
    return { pages: expired.length, bodies };
  }

  /** Deletes these page records, then each body no other page references. Returns the bodies deleted. */
  async release(records: ArchivedPageRecord[]): Promise<number> {
    const bodies = new Map<string, string>();
    for (const record of records) {
      await this.repository.deletePage(record._id);
      if (record.body_sha256) bodies.set(`${record.user_id}:${record.body_sha256}`, record.user_id);
      if (record.rendered_sha256) bodies.set(`${record.user_id}:${record.rendered_sha256}`, record.user_id);
    }
    let deleted = 0;
    for (const [id, userId] of bodies) {
      const sha = id.slice(userId.length + 1);
      // A body may have a record in both places (stored before issue 37 and again since): each goes alike.
      for (const place of ['pages', 'legacy'] as const) {
        const blob = await this.repository.bodyIn(place, userId, sha);
        if (!blob) continue;
        if (await this.repository.referenced(userId, sha)) break;
        if (await this.dropBlob(blob)) deleted++;
      }
    }
    // A deletion frees its tenants' quota at once (not with the next second's tally): the caller's answer and
    // every read after it see the usage without the bodies it dropped.
    if (deleted > 0) for (const userId of new Set(bodies.values())) await this.usage.flush(userId);
    return deleted;
  }

  /** Deletes a body whose record is unchanged since it was read (no new reference in between). */
  private async dropBlob(blob: ArchiveBlobRecord): Promise<boolean> {
    if (!(await this.repository.deleteBlobIfUntouched(blob))) return false;
    this.bodies.forget(blob.user_id, blob.sha256);
    if (blob.blob_id) await this.blobs.delete(blob.blob_id);
    if (blob.stored) {
      this.usage.change(blob.user_id, -blob.stored_size, -1);
      this.events.deleted(blob.stored_size);
    }
    return true;
  }
}
