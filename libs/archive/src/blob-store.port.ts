/**
 * Where the archive keeps bytes (docs/archive.md "Where it is kept"): one blob per id, written whole
 * (a compressed page body) or from a stream (an uploaded WARC file, never held whole in memory). The
 * embedded adapter writes files under DATA_DIR/archive; the cluster adapter writes MongoDB GridFS.
 * Which blobs exist, who references them and when they go is decided by the page archive
 * (page-archive.ts) in the document store, never here.
 */
export interface ArchiveBlobStore {
  readonly kind: 'files' | 'gridfs';
  /** Stores `data` under `id`. Writing the same id again with the same bytes is harmless. */
  write(id: string, data: Buffer): Promise<void>;
  /**
   * Stores a stream under `id`, refusing it past `maxBytes` (BlobTooLarge; nothing is kept then).
   * Returns the bytes written.
   */
  writeStream(id: string, source: AsyncIterable<Buffer>, maxBytes: number): Promise<number>;
  /** The blob's bytes, or null when there is none. */
  read(id: string): Promise<Buffer | null>;
  /** The blob as a stream, or null when there is none. */
  readStream(id: string): Promise<AsyncIterable<Buffer> | null>;
  /** Removes the blob (nothing when there is none). */
  delete(id: string): Promise<void>;
  close(): Promise<void>;
}

export const ARCHIVE_BLOBS = Symbol('ARCHIVE_BLOBS');

/** A streamed blob over its cap: what was written of it is gone. */
export class BlobTooLarge extends Error {
  constructor(readonly maxBytes: number) {
    super(`the stream is larger than ${maxBytes} bytes`);
    this.name = 'BlobTooLarge';
  }
}

/** Blob ids are ULID-like: letters and digits only, so they are safe as file names and GridFS names. */
export function checkBlobId(id: string): string {
  if (!/^[0-9A-Za-z_-]{8,80}$/.test(id)) throw new Error(`invalid blob id: ${id}`);
  return id;
}
