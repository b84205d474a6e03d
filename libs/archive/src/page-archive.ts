import { newId, nowIso } from '@app/core';
import { ARCHIVE_ENCODING, decodeBody, encodeBody, sha256Hex } from './archive-codec';
import { placeOf, type ArchiveRepository, type BodyReference } from './archive.repository';
import { ArchiveWriteBatch } from './archive-write-batch';
import type { ArchivedPage, ArchivedPageRecord, ArchiveBlobRecord, KeepOutcome, PageCapture } from './archive.types';
import type { ArchiveBlobStore } from './blob-store.port';
import { UsageTally } from './usage-tally';

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

/** Compressed bodies up to a GridFS chunk (255 KiB) are inline: one document where GridFS writes two. */
export const INLINE_MAX_BYTES = 255 * 1024;
/** Bodies this process saw stored, remembered so that a page with one is only a touch (no compression). */
const KNOWN_KEPT = 20_000;

/** A body of a page being kept, compressed (null: known stored, not compressed again). */
interface PreparedBody {
  sha256: string;
  data: Buffer;
  encoded: Buffer | null;
  inline: boolean;
}

/** What the archive reports to its metrics (archive-metrics.ts). */
export interface ArchiveEvents {
  kept(outcome: KeepOutcome): void;
  written(storedBytes: number): void;
  deleted(storedBytes: number): void;
}

const NO_EVENTS: ArchiveEvents = { kept: () => undefined, written: () => undefined, deleted: () => undefined };

/** A body not referenced for this long past the retention is collected even if a page delete missed it. */
const STALE_GRACE_MS = 60 * 60 * 1000;
const DAY_MS = 24 * 60 * 60 * 1000;
/** A tenant's usage, as read for the cap check, is trusted this long (other processes' writes show within it). */
export const USAGE_FRESH_MS = 1000;
const USAGE_KEPT = 10_000;
/** Newest records of a URL looked at for its latest usable copy (a failed WARC record or an error status is passed over). */
const LATEST_SCANNED = 20;

/**
 * The page archive (docs/archive.md): pages as fetched, their bodies content-addressed per tenant.
 *
 * A body is stored once per tenant under the SHA-256 of its bytes (Brotli-compressed, in the blob
 * store); pages reference it by that digest. Keeping a page writes its record first and then
 * references the body (a new touch token on the body's record, which creates it, and then the bytes,
 * when it is the first reference); releasing a body deletes its record only if no page references it
 * and its touch token is still the one read, then the bytes. So a body is never removed under a page
 * that references it, whatever runs at the same time: a new reference either is seen by the count or
 * changes the token, and a body stored anew gets a new blob id, so a late delete of the old bytes
 * cannot remove it.
 */
export class PageArchive {
  /** Tenants' stored bytes as last read (see overCap). */
  private readonly tenantBytes = new Map<string, { bytes: number; at: number }>();
  /** Bodies this process is storing now, by blob id (see reference). */
  private readonly storing = new Map<string, Promise<boolean>>();
  /** Bodies this process is compressing now, by `<tenant>:<sha256>` (pages with one body fetched at once compress it once). */
  private readonly encoding = new Map<string, Promise<Buffer>>();
  /** Bodies this process saw stored (`<tenant>:<sha256>` → inline or not), least recently used first. */
  private readonly known = new Map<string, 'inline' | 'blob'>();
  /** New bodies' bytes, added to the tenants' usage records once a second (usage-tally.ts). */
  private readonly tally: UsageTally;
  /** Pages' records and inline bodies kept at the same time, written in one command (archive-write-batch.ts). */
  private readonly writes: ArchiveWriteBatch;

  constructor(
    private readonly repository: ArchiveRepository,
    private readonly blobs: ArchiveBlobStore,
    private readonly settings: PageArchiveSettings,
    private readonly events: ArchiveEvents = NO_EVENTS,
  ) {
    this.tally = new UsageTally((userId, bytes, blobs) => this.repository.addUsage(userId, bytes, blobs));
    this.writes = new ArchiveWriteBatch((pages) => this.repository.keepPages(pages));
  }

  /** Writes the pages and usage changes not written yet (at shutdown). */
  async flushUsage(): Promise<void> {
    await this.writes.drain();
    this.tally.stop();
    await this.tally.flush();
  }

  /** Writes the usage changes not written yet, now (a metrics scrape reads every tenant's usage). */
  writeUsage(): Promise<void> {
    return this.tally.flush();
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
    if (await this.overCap(userId)) return this.report('refused_cap');
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
    return this.report((await this.keepWith(userId, record, bodies)) ? 'stored' : 'deduplicated');
  }

  /**
   * Writes the page record and references its bodies: one write command for the record and every inline
   * body, shared with the other pages this process keeps at the same time (docs/archive.md "Where it is
   * kept"); a body above the inline size then goes to the blob store. True when this call stored a body.
   */
  private async keepWith(userId: string, record: ArchivedPageRecord, bodies: Array<{ sha256: string; data: Buffer }>): Promise<boolean> {
    const prepared = await Promise.all(bodies.map((body) => this.prepare(userId, body)));
    const inline = prepared.filter((body) => body.inline);
    const kept = await this.writes.keep({ record, userId, bodies: inline.map((body) => this.inlineReference(body)) });
    let fresh = this.settle(userId, inline, kept.created);
    if (kept.missing.length > 0) {
      // Known bodies deleted since this process saw them (a job deletion, the retention): created again with
      // their bytes, in a second command (the page record is there already).
      const again = await Promise.all(kept.missing.map((i) => this.prepare(userId, inline[i], true)));
      const retried = await this.writes.keep({ record, userId, bodies: again.map((body) => this.inlineReference(body)) });
      fresh = this.settle(userId, again, retried.created) || fresh;
    }
    for (const body of prepared.filter((b) => !b.inline))
      fresh = (await this.reference(userId, body.sha256, body.data, body.encoded)) || fresh;
    return fresh;
  }

  /** Compresses a body once per process at a time, unless it is known stored (`fresh`: compress all the same). */
  private async prepare(userId: string, body: { sha256: string; data: Buffer }, fresh = false): Promise<PreparedBody> {
    const key = `${userId}:${body.sha256}`;
    const known = fresh ? undefined : this.known.get(key);
    if (known) {
      this.known.delete(key);
      this.known.set(key, known);
      return { ...body, encoded: null, inline: known === 'inline' };
    }
    let encoding = this.encoding.get(key);
    if (!encoding) {
      encoding = encodeBody(body.data);
      this.encoding.set(key, encoding);
      void encoding.then(
        () => this.encoding.delete(key),
        () => this.encoding.delete(key),
      );
    }
    const encoded = await encoding;
    return { ...body, encoded, inline: encoded.length <= (this.settings.inlineMaxBytes ?? INLINE_MAX_BYTES) };
  }

  /** An inline body's reference: created with its bytes when compressed now, touched only when known stored. */
  private inlineReference(body: PreparedBody): BodyReference {
    return {
      sha256: body.sha256,
      create: body.encoded
        ? {
            size: body.data.length,
            stored_size: body.encoded.length,
            encoding: ARCHIVE_ENCODING,
            stored: true,
            data: body.encoded.toString('base64'),
          }
        : null,
    };
  }

  /** Counts the inline bodies this write created, remembers them all as stored; true when it created one. */
  private settle(userId: string, bodies: PreparedBody[], created: boolean[]): boolean {
    let fresh = false;
    for (const [i, body] of bodies.entries()) {
      if (created[i] && body.encoded) {
        fresh = true;
        this.tally.add(userId, body.encoded.length, 1);
        this.counted(userId, body.encoded.length);
        this.events.written(body.encoded.length);
      }
      this.remember(`${userId}:${body.sha256}`, 'inline');
    }
    return fresh;
  }

  private remember(key: string, kind: 'inline' | 'blob'): void {
    this.known.delete(key);
    this.known.set(key, kind);
    if (this.known.size > KNOWN_KEPT) this.known.delete(this.known.keys().next().value as string);
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

  /**
   * Re-extraction: the source job's page becomes a page of the new job too (same bodies, referenced
   * again; the retention of the fetch is kept, not renewed), under `key`; `fromKey` is its key in the
   * source when that differs (an extract's one page). Null when the source page or a body is gone.
   */
  async copy(userId: string, fromJob: string, toJob: string, key: string, fromKey = key): Promise<ArchivedPage | null> {
    const source = await this.load(userId, fromJob, fromKey);
    if (!source) return null;
    const record: ArchivedPageRecord = { ...source.record, _id: `${toJob}:${key}`, job_id: toJob, key };
    await this.repository.insertPage(record);
    if (record.failure) return { ...source, record };
    // Referenced again after the copy's record exists: a concurrent release of the source sees it or loses its token.
    const kept = await this.retouch(userId, record.body_sha256);
    const keptRendered = record.rendered_sha256 ? await this.retouch(userId, record.rendered_sha256) : true;
    if (!kept || !keptRendered) {
      await this.release([record]);
      return null;
    }
    return { ...source, record };
  }

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
    for (;;) {
      const uploads = await this.repository.tenantUploads(userId, 200);
      if (uploads.length === 0) break;
      for (const upload of uploads) await this.dropUpload(upload._id);
    }
    this.tally.forget(userId);
    await this.repository.dropUsage(userId);
    this.tenantBytes.delete(userId);
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
    for (const upload of await this.repository.uploadsBefore(before, limit)) await this.dropUpload(upload._id);
    return { pages: expired.length, bodies };
  }

  /**
   * Stores an uploaded WARC file as it streams (never whole in memory), refusing it past `maxBytes`
   * (BlobTooLarge, nothing kept). Returns its id; the job that reads it drops it when done.
   */
  async storeUpload(userId: string, source: AsyncIterable<Buffer>, maxBytes: number): Promise<{ id: string; bytes: number }> {
    const id = `up${newId()}`;
    await this.repository.insertUpload({ _id: id, user_id: userId, bytes: 0, created_at: nowIso() });
    try {
      const bytes = await this.blobs.writeStream(id, source, maxBytes);
      return { id, bytes };
    } catch (error) {
      // The upload's own error is the answer (a 413, a store outage's 503); what is left of it, the sweep removes.
      await this.dropUpload(id).catch(() => undefined);
      throw error;
    }
  }

  async openUpload(id: string): Promise<AsyncIterable<Buffer> | null> {
    if (!(await this.repository.upload(id))) return null;
    return this.blobs.readStream(id);
  }

  async dropUpload(id: string): Promise<void> {
    await this.blobs.delete(id);
    await this.repository.deleteUpload(id);
  }

  /** The tenant's stored bytes and bodies (this process's changes not written yet are written first). */
  async usage(userId: string): Promise<{ stored_bytes: number; blobs: number }> {
    await this.tally.flush(userId);
    return this.repository.usageOf(userId);
  }

  countJobPages(userId: string, jobId: string): Promise<number> {
    return this.repository.countJobPages(userId, jobId);
  }

  jobPages(userId: string, jobId: string): AsyncIterable<ArchivedPageRecord> {
    return this.repository.jobPages(userId, jobId);
  }

  /** Deletes these page records, then each body no other page references. Returns the bodies deleted. */
  private async release(records: ArchivedPageRecord[]): Promise<number> {
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
    if (deleted > 0) for (const userId of new Set(bodies.values())) await this.tally.flush(userId);
    return deleted;
  }

  /** Deletes a body whose record is unchanged since it was read (no new reference in between). */
  private async dropBlob(blob: ArchiveBlobRecord): Promise<boolean> {
    if (!(await this.repository.deleteBlobIfUntouched(blob))) return false;
    this.known.delete(`${blob.user_id}:${blob.sha256}`);
    if (blob.blob_id) await this.blobs.delete(blob.blob_id);
    if (blob.stored) {
      this.tally.add(blob.user_id, -blob.stored_size, -1);
      this.counted(blob.user_id, -blob.stored_size);
      this.events.deleted(blob.stored_size);
    }
    return true;
  }

  /**
   * References a body: touches its record (creating it on first reference) and stores the bytes when
   * they are not stored yet. True when this call stored them.
   */
  private async reference(userId: string, sha256: string, data: Buffer, encoded: Buffer | null = null): Promise<boolean> {
    const blobId = newId();
    const before = await this.repository.touchBlob('pages', userId, sha256, {
      blob_id: blobId,
      size: data.length,
      stored_size: 0,
      encoding: ARCHIVE_ENCODING,
    });
    if (before?.stored) {
      this.remember(`${userId}:${sha256}`, 'blob');
      return false;
    }
    // Not stored yet: this call stores the bytes (another first reference may be writing the same bytes
    // under the same id, or have died before it could); whoever marks them stored counts them.
    const id = before?.blob_id ?? blobId;
    // A first reference of this process is storing these very bytes under this id (pages with one body
    // fetched at once): its storing is this one's. Only if it failed does this call store them itself.
    const running = this.storing.get(id);
    if (
      running &&
      (await running.then(
        () => true,
        () => false,
      ))
    )
      return false;
    const storing = this.store(userId, sha256, id, data, encoded);
    this.storing.set(id, storing);
    try {
      return await storing;
    } finally {
      if (this.storing.get(id) === storing) this.storing.delete(id);
    }
  }

  /** Compresses and writes the bytes under `id`, and counts them for the one call that marks them stored. */
  private async store(userId: string, sha256: string, id: string, data: Buffer, known: Buffer | null): Promise<boolean> {
    const encoded = known ?? (await encodeBody(data));
    await this.blobs.write(id, encoded);
    if (!(await this.repository.markStored(userId, sha256, id, encoded.length))) return false;
    this.remember(`${userId}:${sha256}`, 'blob');
    this.tally.add(userId, encoded.length, 1);
    this.counted(userId, encoded.length);
    this.events.written(encoded.length);
    return true;
  }

  /** References an existing body again; false when it is gone. */
  private async retouch(userId: string, sha256: string): Promise<boolean> {
    const existing = await this.repository.blob(userId, sha256);
    if (!existing?.stored) return false;
    // Deleted between the read and the touch: the touch makes an empty record (a new blob id, never the
    // deleted one's), which the caller's release or the sweep removes.
    const before = await this.repository.touchBlob(placeOf(existing), userId, sha256, {
      blob_id: newId(),
      size: existing.size,
      stored_size: 0,
      encoding: existing.encoding,
    });
    return before?.stored === true;
  }

  /**
   * Whether the tenant is at or over its cap. Its usage is read at most once per USAGE_FRESH_MS (a read per
   * page was one more store round trip on every page's way); this process's own writes and deletes count at
   * once, other processes' within USAGE_FRESH_MS (docs/archive.md: a tenant may pass the cap by a few pages).
   */
  private async overCap(userId: string): Promise<boolean> {
    if (this.settings.maxBytesPerTenant <= 0) return false;
    let known = this.tenantBytes.get(userId);
    if (!known || Date.now() - known.at >= USAGE_FRESH_MS) {
      known = { bytes: (await this.repository.usageOf(userId)).stored_bytes, at: Date.now() };
      this.tenantBytes.delete(userId);
      this.tenantBytes.set(userId, known);
      if (this.tenantBytes.size > USAGE_KEPT) this.tenantBytes.delete(this.tenantBytes.keys().next().value as string);
    }
    return known.bytes >= this.settings.maxBytesPerTenant;
  }

  /** This process's own change of a tenant's stored bytes, for the cap check. */
  private counted(userId: string, bytes: number): void {
    const known = this.tenantBytes.get(userId);
    if (known) known.bytes += bytes;
  }

  private expiry(from: string): string {
    return new Date(Date.parse(from) + this.settings.ttlDays * DAY_MS).toISOString();
  }

  private report(outcome: KeepOutcome): KeepOutcome {
    this.events.kept(outcome);
    return outcome;
  }
}
