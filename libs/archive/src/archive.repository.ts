import { DuplicateKeyError, newId, nowIso } from '@app/core';
import type { Collection, DocumentStore, UpsertEntry, UpsertManyResult } from '@app/storage';
import type { ArchiveBlobRecord, ArchivedPageRecord, ArchiveUploadRecord, ArchiveUsageRecord } from './archive.types';

/** The `_id` of a body document in `archive_pages`. */
export const bodyId = (userId: string, sha256: string): string => `body:${userId}:${sha256}`;

/** Where a body's record is: a body document of `archive_pages` (since issue 37) or an `archive_blobs` record (before). */
export type BodyPlace = 'pages' | 'legacy';
export const placeOf = (record: ArchiveBlobRecord): BodyPlace => (record.kind === 'body' ? 'pages' : 'legacy');

/** A body's reference written with its page (see keepPage). */
export interface BodyReference {
  sha256: string;
  /** The record to create when the body has none (then the page's write stores it); null: touch only, never create. */
  create: Omit<ArchiveBlobRecord, '_id' | 'touch' | 'touched_at' | 'created_at' | 'user_id' | 'sha256'> | null;
}

/** What keepPage did: whether the page record was new, per body whether this write created its record, and which touches found none. */
export interface KeptPage {
  pageInserted: boolean;
  created: boolean[];
  /** Bodies referenced without `create` whose record was gone (indexes into the references); [] when all were found. */
  missing: number[];
}

/** One page to keep (ArchiveRepository.keepPages): its record and its bodies' references. */
export interface PageWrite {
  record: ArchivedPageRecord;
  userId: string;
  bodies: readonly BodyReference[];
}

/**
 * The entries of the one `upsertMany` that keeps these pages, and how to read each page's result from it. A
 * record or a body named twice (two pages of one body, a page kept twice at once) is one entry: its first
 * occurrence with `create` creates it and is told so, the others find it (a touch-only reference named with
 * a creating one is never missing). The command tells how many entries found nothing, not which: when any
 * did, every page's touch-only references are reported missing (their pages then create them: rare, safe).
 */
export function keepCommand(
  pages: readonly PageWrite[],
  now: string,
  token: () => string,
): { entries: UpsertEntry[]; results: (result: UpsertManyResult) => KeptPage[] } {
  const entries: UpsertEntry[] = [];
  const at = new Map<string, number>();
  const records = pages.map(({ record }) => {
    const known = at.get(record._id);
    if (known !== undefined) return { entry: known, first: false };
    const { _id, ...fields } = record;
    at.set(_id, entries.push({ _id, update: { $setOnInsert: fields } }) - 1);
    return { entry: entries.length - 1, first: true };
  });
  /** Per body entry, the page and reference whose `create` it carries. */
  const creator = new Map<number, [number, number]>();
  const references = pages.map(({ userId, bodies }, page) =>
    bodies.map((body, i) => {
      const _id = bodyId(userId, body.sha256);
      let entry = at.get(_id);
      if (entry === undefined) {
        entry = entries.push({ _id, update: { $set: { touch: token(), touched_at: now } }, upsert: false }) - 1;
        at.set(_id, entry);
      }
      if (body.create && !creator.has(entry)) {
        creator.set(entry, [page, i]);
        entries[entry] = {
          _id,
          update: {
            $set: { touch: token(), touched_at: now },
            $setOnInsert: { kind: 'body', user_id: userId, sha256: body.sha256, ...body.create, created_at: now },
          },
        };
      }
      return entry;
    }),
  );
  return {
    entries,
    results: ({ inserted, matched }) => {
      // Entries that found their document: every one not inserted, but a touch-only entry may have found none.
      const missed = inserted.filter((x) => !x).length - matched > 0;
      return pages.map((_, page) => ({
        pageInserted: records[page].first && inserted[records[page].entry] === true,
        created: references[page].map((entry, i) => {
          const by = creator.get(entry);
          return by !== undefined && by[0] === page && by[1] === i && inserted[entry] === true;
        }),
        missing: missed ? references[page].flatMap((entry, i) => (creator.has(entry) ? [] : [i])) : [],
      }));
    },
  };
}

/** Page records only (body documents share the collection). */
const PAGES_ONLY = { kind: null } as const;

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
        // Body documents nobody referenced for long (the retention's stale sweep).
        { fields: { touched_at: 1 } },
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

  /** One page's record and its bodies' references in ONE write command (see keepPages). */
  async keepPage(record: ArchivedPageRecord, userId: string, bodies: readonly BodyReference[]): Promise<KeptPage> {
    return (await this.keepPages([{ record, userId, bodies }]))[0];
  }

  /**
   * Pages' records and their bodies' references in ONE write command (docs/archive.md "Where it is kept"),
   * a result per page: every record first (inserted unless the job has it: a task run twice), then per body a
   * new touch token, creating the body document from `create` when it has none. Same order as ever, for every
   * page of the command: a release that counted the references before the page existed finds the touch changed,
   * or its delete is undone by the create.
   */
  async keepPages(pages: readonly PageWrite[]): Promise<KeptPage[]> {
    const command = keepCommand(pages, nowIso(), newId);
    const result = await this.retryingDuplicates(() => this.pages.upsertMany(command.entries));
    return command.results(result);
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
    return this.pages.find({ user_id: userId, ...PAGES_ONLY }, { limit });
  }

  /** Whether any page of the tenant still references this body. */
  async referenced(userId: string, sha256: string): Promise<boolean> {
    if ((await this.pages.count({ user_id: userId, body_sha256: sha256 })) > 0) return true;
    return (await this.pages.count({ user_id: userId, rendered_sha256: sha256 })) > 0;
  }

  /** The body's record where it is: its body document, else (a body stored before issue 37) its `archive_blobs` record. */
  async blob(userId: string, sha256: string): Promise<ArchiveBlobRecord | null> {
    return (await this.bodyIn('pages', userId, sha256)) ?? this.bodyIn('legacy', userId, sha256);
  }

  bodyIn(place: BodyPlace, userId: string, sha256: string): Promise<ArchiveBlobRecord | null> {
    return place === 'pages'
      ? (this.pages.findOne({ _id: bodyId(userId, sha256), user_id: userId }) as unknown as Promise<ArchiveBlobRecord | null>)
      : this.blobs.findOne({ _id: `${userId}:${sha256}`, user_id: userId });
  }

  /**
   * Marks the body as referenced now (a new touch token), creating its record when it has none.
   * Returns the record as it was before (null: this call created it with `created`).
   */
  async touchBlob(
    place: BodyPlace,
    userId: string,
    sha256: string,
    created: Pick<ArchiveBlobRecord, 'blob_id' | 'size' | 'stored_size' | 'encoding'>,
  ): Promise<ArchiveBlobRecord | null> {
    const now = nowIso();
    const $set = { touch: newId(), touched_at: now };
    const $setOnInsert = { user_id: userId, sha256, ...created, stored: false, created_at: now };
    return this.retryingDuplicates(() =>
      place === 'pages'
        ? (this.pages.findOneAndUpdate(
            { _id: bodyId(userId, sha256) },
            { $set, $setOnInsert: { kind: 'body', ...$setOnInsert } },
            { upsert: true, returnDocument: 'before' },
          ) as unknown as Promise<ArchiveBlobRecord | null>)
        : this.blobs.findOneAndUpdate({ _id: `${userId}:${sha256}` }, { $set, $setOnInsert }, { upsert: true, returnDocument: 'before' }),
    );
  }

  /** Two first references at once: one inserted, the other, refused, updates the record it made. */
  private async retryingDuplicates<R>(write: () => Promise<R>): Promise<R> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await write();
      } catch (error) {
        if (!(error instanceof DuplicateKeyError) || attempt >= 3) throw error;
      }
    }
  }

  /** Marks the bytes of this blob id stored; true for the one call that did (it counts them). */
  async markStored(userId: string, sha256: string, blobId: string, storedSize: number): Promise<boolean> {
    const before = await this.pages.findOneAndUpdate(
      { _id: bodyId(userId, sha256), blob_id: blobId, stored: false },
      { $set: { stored: true, stored_size: storedSize } },
      { returnDocument: 'before' },
    );
    return before !== null;
  }

  /** Deletes the body's record (where it is) only if nobody referenced the body since `touch` was read. */
  deleteBlobIfUntouched(record: ArchiveBlobRecord): Promise<boolean> {
    const filter = { _id: record._id, touch: record.touch };
    return placeOf(record) === 'pages' ? this.pages.deleteOne({ ...filter, kind: 'body' }) : this.blobs.deleteOne(filter);
  }

  /** Bodies not referenced since `before` (orphans of a crash, bodies of deleted pages), oldest first, from both places. */
  async staleBlobs(before: string, limit: number): Promise<ArchiveBlobRecord[]> {
    const filter = { touched_at: { $lt: before } };
    const bodies = (await this.pages.find(
      { ...filter, kind: 'body' },
      { sort: { touched_at: 1 }, limit },
    )) as unknown as ArchiveBlobRecord[];
    const legacy = bodies.length < limit ? await this.blobs.find(filter, { sort: { touched_at: 1 }, limit: limit - bodies.length }) : [];
    return [...bodies, ...legacy];
  }

  async tenantBlobs(userId: string, limit: number): Promise<ArchiveBlobRecord[]> {
    const bodies = (await this.pages.find({ user_id: userId, kind: 'body' }, { limit })) as unknown as ArchiveBlobRecord[];
    return bodies.length < limit ? [...bodies, ...(await this.blobs.find({ user_id: userId }, { limit: limit - bodies.length }))] : bodies;
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
