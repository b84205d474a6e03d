/**
 * The page archive's surroundings for the fast specs of its parts (libs/archive/src/*.spec.ts): the embedded
 * store (SQLite in a temporary directory) with the real archive repository, and the embedded blob store (files in
 * the same directory), with the blob store's writes and deletes counted. No app, no server.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SqliteDocumentStore } from '@app/storage';
import { FileBlobStore } from '../../libs/archive/src/adapters/file-blob-store';
import { sha256Hex } from '../../libs/archive/src/archive-codec';
import { ArchiveRepository } from '../../libs/archive/src/archive.repository';
import type { ArchivedPageRecord } from '../../libs/archive/src/archive.types';
import type { ArchiveBlobStore } from '../../libs/archive/src/blob-store.port';

export interface ArchiveParts {
  store: SqliteDocumentStore;
  repository: ArchiveRepository;
  blobs: ArchiveBlobStore;
  /** Ids written to and deleted from the blob store, in order. */
  blobWrites: string[];
  blobDeletes: string[];
  close(): Promise<void>;
}

export async function archiveParts(): Promise<ArchiveParts> {
  const dir = mkdtempSync(join(tmpdir(), 'gleaner-archive-part-'));
  const store = SqliteDocumentStore.open({ file: join(dir, 'store.db') });
  const files = new FileBlobStore(join(dir, 'archive'));
  const blobWrites: string[] = [];
  const blobDeletes: string[] = [];
  const blobs: ArchiveBlobStore = {
    kind: files.kind,
    write: (id, data) => {
      blobWrites.push(id);
      return files.write(id, data);
    },
    writeStream: (id, source, maxBytes) => {
      blobWrites.push(id);
      return files.writeStream(id, source, maxBytes);
    },
    read: (id) => files.read(id),
    readStream: (id) => files.readStream(id),
    delete: (id) => {
      blobDeletes.push(id);
      return files.delete(id);
    },
    close: () => files.close(),
  };
  return {
    store,
    repository: await ArchiveRepository.open(store),
    blobs,
    blobWrites,
    blobDeletes,
    close: async () => {
      await files.close();
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** A page body of some size that compresses like HTML. */
export function html(seed: string, repeat = 200): Buffer {
  return Buffer.from(`<html><body>${`<p class="item">${seed} price 12.50</p>`.repeat(repeat)}</body></html>`, 'utf8');
}

/** A fetched page's record (status 200, kept now, expiring in `expiresInMs`), its body the digest of `body`. */
export function pageRecord(
  userId: string,
  jobId: string,
  key: string,
  body: Buffer,
  extra: Partial<ArchivedPageRecord> = {},
  expiresInMs = 30 * 24 * 60 * 60 * 1000,
): ArchivedPageRecord {
  const now = new Date();
  return {
    _id: `${jobId}:${key}`,
    job_id: jobId,
    user_id: userId,
    key,
    url: `https://shop.test/${key}`,
    final_url: `https://shop.test/${key}`,
    status: 200,
    headers: {},
    redirects: [],
    fetch_mode: 'static',
    content_type: 'text/html',
    charset: 'utf-8',
    body_sha256: sha256Hex(body),
    body_bytes: body.length,
    rendered_sha256: null,
    rendered_bytes: null,
    fetched_at: now.toISOString(),
    expires_at: new Date(now.getTime() + expiresInMs).toISOString(),
    origin: 'fetch',
    failure: null,
    ...extra,
  };
}
