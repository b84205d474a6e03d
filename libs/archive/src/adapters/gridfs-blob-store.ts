import { once } from 'node:events';
import { finished } from 'node:stream/promises';
import mongoose, { type Connection } from 'mongoose';
import { asStoreOutage, openMongoConnection } from '@app/storage';
import { BlobTooLarge, checkBlobId, type ArchiveBlobStore } from '../blob-store.port';

/** GridFS chunk size: the driver's default (255 KiB), so a chunk document stays far below 16 MiB. */
const CHUNK_BYTES = 255 * 1024;

/**
 * Cluster adapter: MongoDB GridFS, bucket `archive` (`archive.files`, `archive.chunks`), one GridFS
 * file per blob with the blob id as its file name. GridFS is MongoDB's standard for binary data of
 * any size: every replica reads what any other wrote, and no file system is shared. It needs only
 * inserts, finds, deletes and two indexes, which the MongoDB-wire test server (mongo-java-server)
 * also implements (test/contract/archive.contract.ts runs on it). An outage of the server is a
 * StoreUnavailableError like the document store's (a 503, a queue message that waits), also when it
 * is met while a blob streams (test/contract/archive-gridfs-outage.int-spec.ts).
 */
export class GridFsBlobStore implements ArchiveBlobStore {
  readonly kind = 'gridfs' as const;
  private readonly bucket: mongoose.mongo.GridFSBucket;

  private constructor(private readonly conn: Connection) {
    this.bucket = new mongoose.mongo.GridFSBucket(conn.db!, { bucketName: 'archive', chunkSizeBytes: CHUNK_BYTES });
  }

  static async connect(uri: string, options: { dbName?: string; serverSelectionTimeoutMS?: number } = {}): Promise<GridFsBlobStore> {
    return new GridFsBlobStore(await openMongoConnection(uri, options));
  }

  async write(id: string, data: Buffer): Promise<void> {
    await this.writeStream(id, [data], Number.MAX_SAFE_INTEGER);
  }

  async writeStream(id: string, source: AsyncIterable<Buffer> | Iterable<Buffer>, maxBytes: number): Promise<number> {
    checkBlobId(id);
    const upload = this.bucket.openUploadStream(id);
    // The upload can fail while the source is being read (a store outage during a slow WARC upload):
    // kept here, never an unhandled 'error' event, and thrown at the next step.
    const failures: unknown[] = [];
    upload.on('error', (error) => failures.push(error));
    let total = 0;
    try {
      for await (const chunk of source) {
        if (failures.length > 0) throw failures[0];
        total += chunk.length;
        if (total > maxBytes) throw new BlobTooLarge(maxBytes);
        // once() rejects on an 'error' meanwhile: a wait for 'drain' alone would never end.
        if (!upload.write(chunk)) await once(upload, 'drain');
      }
      if (failures.length > 0) throw failures[0];
      upload.end();
      await finished(upload);
    } catch (error) {
      await upload.abort().catch(() => undefined);
      throw asStoreOutage(error);
    }
    // Two writers of one blob (a rare race of first references) leave two files of the same bytes: a
    // reader takes the newest, a delete removes both. Removing the other here could remove each other's.
    return total;
  }

  async read(id: string): Promise<Buffer | null> {
    const stream = await this.readStream(id);
    if (!stream) return null;
    const chunks: Buffer[] = [];
    for await (const chunk of stream) chunks.push(chunk);
    return Buffer.concat(chunks);
  }

  async readStream(id: string): Promise<AsyncIterable<Buffer> | null> {
    checkBlobId(id);
    try {
      const [file] = await this.bucket.find({ filename: id }).sort({ uploadDate: -1 }).limit(1).toArray();
      if (!file) return null;
      return outageWhileStreaming(this.bucket.openDownloadStream(file._id));
    } catch (error) {
      throw asStoreOutage(error);
    }
  }

  async delete(id: string): Promise<void> {
    checkBlobId(id);
    try {
      for (const file of await this.bucket.find({ filename: id }).toArray()) {
        await this.bucket.delete(file._id).catch((error: unknown) => {
          // Deleted by a concurrent delete: the goal is reached.
          if (!/FileNotFound/.test(String((error as Error).message))) throw error;
        });
      }
    } catch (error) {
      throw asStoreOutage(error);
    }
  }

  async close(): Promise<void> {
    await this.conn.close();
  }
}

/** The download's chunks, read lazily from the server as they are consumed: an outage met on the way is one too. */
async function* outageWhileStreaming(download: AsyncIterable<Buffer>): AsyncGenerator<Buffer> {
  try {
    for await (const chunk of download) yield chunk;
  } catch (error) {
    throw asStoreOutage(error);
  }
}
