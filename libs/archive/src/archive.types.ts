/**
 * One page as it was fetched, kept by the archive (`archive_pages`, `_id` = `<job>:<page key>`, the
 * crawl entry's id). Bodies are not in it: they are blobs named by the SHA-256 of their bytes,
 * shared by every page of the tenant with the same body (`archive_blobs`).
 */
export interface ArchivedPageRecord {
  _id: string;
  job_id: string;
  user_id: string;
  /** The crawl entry key (canonical URL hash): the page's identity within its job. */
  key: string;
  /** The URL asked for. */
  url: string;
  /** Where redirects led. */
  final_url: string;
  status: number;
  /** Response headers, names lower-case. */
  headers: Record<string, string>;
  /** Every URL that answered with a redirect, in order. */
  redirects: string[];
  fetch_mode: 'static' | 'dynamic';
  /** Media type without parameters. */
  content_type: string;
  charset: string;
  /** SHA-256 (hex) of the body as received (after content decoding). */
  body_sha256: string;
  body_bytes: number;
  /** A browser fetch: SHA-256 of the rendered HTML (UTF-8), what the page looked like to the model. */
  rendered_sha256: string | null;
  rendered_bytes: number | null;
  fetched_at: string;
  /** Retention: the record goes after this time (GLEANER_ARCHIVE_TTL_DAYS after the fetch). */
  expires_at: string;
  /** `fetch`: fetched by a crawl; `warc`: read from an uploaded WARC file. */
  origin: 'fetch' | 'warc';
  /** A WARC record that could not be read: its page fails with this, the file's other records count. */
  failure?: { category: 'invalid_request' | 'content_too_large' | 'http_error'; message: string } | null;
  [key: string]: unknown;
}

/**
 * A stored body: one per distinct body per tenant. Written since issue 37 as a document of
 * `archive_pages` itself (`kind: 'body'`, `_id` = `body:<tenant>:<sha256>`), so a page record and its
 * body's reference are one write command; the compressed bytes inline (`data`) up to
 * `PageArchiveSettings.inlineMaxBytes`, in the blob store (`blob_id`) above it. Bodies written before
 * are records of `archive_blobs` (`_id` = `<tenant>:<sha256>`, no `kind`, bytes always in the blob store):
 * still read, referenced and deleted the same way (docs/archive.md "Where it is kept").
 */
export interface ArchiveBlobRecord {
  _id: string;
  /** `body` for a body document of `archive_pages`; absent on an `archive_blobs` record. */
  kind?: 'body';
  user_id: string;
  sha256: string;
  /** The blob store's id of the bytes (a new one each time the body is stored anew); absent when inline. */
  blob_id?: string;
  /** The compressed bytes, base64, when kept inline. */
  data?: string;
  /** Body bytes, uncompressed. */
  size: number;
  /** Bytes as stored (compressed). */
  stored_size: number;
  encoding: string;
  /** The bytes are in the blob store (false between the record and the write). */
  stored: boolean;
  /** Changed by every page that references the body: a delete is conditional on it (body-references.ts). */
  touch: string;
  touched_at: string;
  created_at: string;
  [key: string]: unknown;
}

/** Per-tenant totals (`archive_usage`, `_id` = the tenant): the size cap is checked against them. */
export interface ArchiveUsageRecord {
  _id: string;
  stored_bytes: number;
  blobs: number;
  [key: string]: unknown;
}

/** An uploaded WARC file waiting to be read by its job (`archive_uploads`, `_id` = its blob id). */
export interface ArchiveUploadRecord {
  _id: string;
  user_id: string;
  bytes: number;
  created_at: string;
  [key: string]: unknown;
}

/** What a page worker hands the archive after a fetch. */
export interface PageCapture {
  url: string;
  finalUrl: string;
  status: number;
  headers: Record<string, string>;
  redirects: string[];
  mode: 'static' | 'dynamic';
  contentType: string;
  charset: string;
  /** The body as received; for a browser fetch the document's own response body when the browser kept it. */
  body: Buffer;
  /** A browser fetch: the rendered HTML. */
  rendered?: string;
  fetchedAt: string;
}

/** An archived page read back: the record and its bodies. */
export interface ArchivedPage {
  record: ArchivedPageRecord;
  body: Buffer;
  rendered: Buffer | null;
}

/** What keeping a page did (for the metrics and the tests). */
export type KeepOutcome = 'stored' | 'deduplicated' | 'refused_cap' | 'disabled';

/** What the archive reports to its metrics (archive-metrics.ts). */
export interface ArchiveEvents {
  kept(outcome: KeepOutcome): void;
  written(storedBytes: number): void;
  deleted(storedBytes: number): void;
}
