// The page archive (docs/archive.md): pages as fetched, content-addressed per tenant, WARC in and out.
// What the platform, the crawl lib and the contract suite use.
export { ARCHIVE_BLOBS, BlobTooLarge, type ArchiveBlobStore } from './blob-store.port';
export { FileBlobStore } from './adapters/file-blob-store';
export { GridFsBlobStore } from './adapters/gridfs-blob-store';
export { ArchiveRepository } from './archive.repository';
export { PageArchive, type PageArchiveSettings } from './page-archive';
export { INLINE_MAX_BYTES } from './body-references';
export { USAGE_FRESH_MS } from './tenant-usage';
export { ArchiveModule } from './archive.module';
export { ArchiveRetentionService } from './archive-retention.service';
export type { ArchivedPageRecord, PageCapture } from './archive.types';
export { pageCapture } from './page-capture';
export { writeWarc, type WarcPage } from './warc/warc-writer';
export { warcPages } from './warc/warc-pages';
export { isGzip, type WarcLimits } from './warc/warc-reader';
