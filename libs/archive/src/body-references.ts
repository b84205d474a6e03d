import { newId } from '@app/core';
import { ARCHIVE_ENCODING, encodeBody } from './archive-codec';
import { placeOf, type ArchiveRepository, type BodyReference } from './archive.repository';
import { ArchiveWriteBatch } from './archive-write-batch';
import type { ArchivedPageRecord, ArchiveEvents } from './archive.types';
import type { ArchiveBlobStore } from './blob-store.port';
import type { TenantUsage } from './tenant-usage';

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

/** What referencing bodies reads and writes of the archive's records. */
export type BodyRecords = Pick<ArchiveRepository, 'keepPages' | 'touchBlob' | 'markStored' | 'blob'>;

/**
 * Pages' bodies, referenced and stored (docs/archive.md "Where it is kept").
 *
 * A body is stored once per tenant under the SHA-256 of its bytes (Brotli-compressed, in the blob
 * store); pages reference it by that digest. Keeping a page writes its record first and then
 * references the body (a new touch token on the body's record, which creates it, and then the bytes,
 * when it is the first reference); releasing a body deletes its record only if no page references it
 * and its touch token is still the one read, then the bytes (page-deletion.ts). So a body is never
 * removed under a page that references it, whatever runs at the same time: a new reference either is
 * seen by the count or changes the token, and a body stored anew gets a new blob id, so a late delete
 * of the old bytes cannot remove it.
 */
export class BodyReferences {
  /** Bodies this process is storing now, by blob id (see reference). */
  private readonly storing = new Map<string, Promise<boolean>>();
  /** Bodies this process is compressing now, by `<tenant>:<sha256>` (pages with one body fetched at once compress it once). */
  private readonly encoding = new Map<string, Promise<Buffer>>();
  /** Bodies this process saw stored (`<tenant>:<sha256>` → inline or not), least recently used first. */
  private readonly known = new Map<string, 'inline' | 'blob'>();
  /** Pages' records and inline bodies kept at the same time, written in one command (archive-write-batch.ts). */
  private readonly writes: ArchiveWriteBatch;

  constructor(
    private readonly repository: BodyRecords,
    private readonly blobs: Pick<ArchiveBlobStore, 'write'>,
    private readonly usage: Pick<TenantUsage, 'change'>,
    private readonly events: Pick<ArchiveEvents, 'written'>,
    private readonly settings: { readonly inlineMaxBytes?: number },
  ) {
    this.writes = new ArchiveWriteBatch((pages) => this.repository.keepPages(pages));
  }

  /** Writes the pages not written yet (at shutdown). */
  drain(): Promise<void> {
    return this.writes.drain();
  }

  /**
   * Writes the page record and references its bodies: one write command for the record and every inline
   * body, shared with the other pages this process keeps at the same time (docs/archive.md "Where it is
   * kept"); a body above the inline size then goes to the blob store. True when this call stored a body.
   */
  async keep(userId: string, record: ArchivedPageRecord, bodies: Array<{ sha256: string; data: Buffer }>): Promise<boolean> {
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

  /** References an existing body again; false when it is gone. */
  async retouch(userId: string, sha256: string): Promise<boolean> {
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

  /** A body of the tenant was deleted: the next page with it stores it again (not only a touch). */
  forget(userId: string, sha256: string): void {
    this.known.delete(`${userId}:${sha256}`);
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
        this.usage.change(userId, body.encoded.length, 1);
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
    this.usage.change(userId, encoded.length, 1);
    this.events.written(encoded.length);
    return true;
  }
}
