import { Inject, Injectable } from '@nestjs/common';
import { DuplicateKeyError } from '@app/core';
import { DOCUMENT_STORE, type Collection, type DocumentStore } from '@app/storage';
import { bandsOf, fingerprintOf, type Fingerprint } from './fingerprint';
import { recordValuesOf, type RecordValues } from './record-values';
import { better, KnownOriginals, likeness, type KnownOriginal, type Likeness } from './known-originals';
import { textHash } from './text-hash';

/** What a job takes for copies of its earlier pages (the `dedupe` option; `off`: no index is asked). */
export type DedupeCheck = 'exact' | 'near';

/** A page found to repeat an earlier page of its job: that page (the original), why, and how alike they are. */
export interface DuplicateVerdict {
  original: { key: string; url: string };
  reason: 'exact' | 'near';
  /** `exact`: 1. `near`: the MinHash estimate of the shingle sets' Jaccard similarity (≥ NEAR_SIMILARITY; 1 when no minimum differs). */
  similarity: number;
}

/** The job whose pages are compared, and its tenant (a tenant's erasure drops its records: docs/dedup.md). */
export interface IndexedJob {
  id: string;
  userId: string;
}

/**
 * A record of the index (`crawl_duplicates`):
 * - `n:<job>:<key>`: a page of a `near` job, ONE record per page: its fingerprint, its text hash and `elements` (its LSH
 *   bands and its text hash, each prefixed by the job: a multikey index, so a page's candidates are one query);
 * - `h:<job>:<hash>`: the original of an `exact` job's text.
 */
interface IndexDoc {
  _id: string;
  job_id: string;
  /** The job's tenant (absent on records stored before). */
  user_id?: string;
  key: string;
  url: string;
  fp?: string;
  hash?: string;
  /** `n:` records: the page's record values (record-values.ts: near candidates with other values are not copies). */
  values?: RecordValues;
  /** `n:` records: `<job>:<band>:<minima>` for each band and `<job>:h:<hash>`. */
  elements?: string[];
  /**
   * `n:` records: absent while the page's check runs (or when it died in it); `original` once it marked itself one or an
   * alike page pinned it (it can then never become a copy); `copy` once settled a copy (class comment).
   */
  state?: 'original' | 'copy';
  /** `copy` records: the page's verdict. */
  verdict?: DuplicateVerdict;
  [key: string]: unknown;
}

/** What a page's check reads of the records of its candidates. */
const CANDIDATE_FIELDS = ['key', 'url', 'fp', 'hash', 'values', 'state', 'verdict'];

/**
 * A job's index of its pages' texts (docs/dedup.md "Where the index lives"), in the store, so that every page worker of
 * every crawler replica asks the same index, with the originals this process knows (KnownOriginals) in front of it.
 *
 * `near`, a page unknown to this process: it inserts its record (no `state`: its check is running), queries the records
 * sharing one of its elements (its own among them), and when none is alike marks itself an original (`state: original`,
 * conditional on no state yet): one insert, one query, one update. A record is alike when its text is the same, or its
 * fingerprint is at least NEAR_SIMILARITY and it shows the same record (record-values.ts: its values, computed beside
 * the fingerprint and stored in the same insert, are not replaced ones, its headings not others). Alike records:
 * - one marked an original (an earlier page, settled): the page marks itself its copy (`state: copy` and the verdict);
 * - only pages still checking (checked at the same moment): the lowest key is the original. The lowest marks each other
 *   one its copy (conditional on its having no state yet; one that marked itself an original first wins, and the lowest
 *   becomes its copy); any other marks itself the lowest's copy and pins the lowest as an original (refused if it became a
 *   copy meanwhile: then the lowest's verdict is followed).
 * Every decision is one conditional update of one record, so of two alike pages, in any order and interleaving of their
 * operations, exactly one is the original: the one that finished its check first, and of two checked at once the lower
 * key (both updates then go to the same record and agree). A page whose update was refused reads its record: it was
 * made a copy (its verdict is there) or pinned as an original. A page once an original stays one, after a takeover too
 * (its record answers its run again); a page that died mid-check is settled by the next alike page like any other.
 *
 * `exact`: an original's text hash is an insert the store refuses for a second page (a unique `_id`).
 */
@Injectable()
export class DuplicateIndex {
  private docs?: Promise<Collection<IndexDoc>>;
  private readonly known = new KnownOriginals();

  constructor(@Inject(DOCUMENT_STORE) private readonly store: DocumentStore) {}

  /** The page's verdict: a copy of an earlier page of the job, or null (an original, now in the index). */
  async check(job: IndexedJob, page: { key: string; url: string; text: string }, mode: DedupeCheck): Promise<DuplicateVerdict | null> {
    const hash = textHash(page.text);
    if (mode === 'exact') return this.checkExact(job, page, hash);
    const fp = fingerprintOf(page.text);
    const values = fp ? recordValuesOf(page.text) : undefined;
    const elements = [...(fp ? bandsOf(fp) : []), `h:${hash}`];
    const mine = { key: page.key, url: page.url, hash, ...(fp ? { fp, values } : {}) };
    if (this.known.has(job.id, page.key)) return null;
    const cached = this.known.nearest(job.id, { key: page.key, fp, hash, values }, elements);
    if (cached) return verdictOf(cached);

    const docs = await this.collection();
    const id = `n:${job.id}:${page.key}`;
    const stored = elements.map((e) => `${job.id}:${e}`);
    let rerun = false;
    try {
      await docs.insertOne({ _id: id, job_id: job.id, user_id: job.userId, ...mine, elements: stored });
    } catch (error) {
      if (!(error instanceof DuplicateKeyError)) throw error;
      rerun = true; // a run of this page before (a takeover, a retry): its record answers below
    }
    const found = await docs.find({ elements: { $in: stored } }, { fields: CANDIDATE_FIELDS });
    const own = found.find((d) => d._id === id);
    if (own?.state === 'copy' && own.verdict) return own.verdict;
    const alike: Alike[] = [];
    for (const doc of found) {
      if (doc._id === id || doc.state === 'copy' || typeof doc.hash !== 'string') continue;
      const original: KnownOriginal = {
        key: doc.key,
        url: doc.url,
        hash: doc.hash,
        ...(doc.fp ? { fp: doc.fp } : {}),
        ...(typeof doc.values === 'string' ? { values: doc.values } : {}),
      };
      if (doc.state === 'original') this.known.add(job.id, original, elementsOf(original));
      const like = likeness({ fp, hash, values }, original);
      if (like) alike.push({ ...like, id: doc._id, settled: doc.state === 'original' });
    }
    // A page whose record was there before this run keeps the verdict it had: an original (pages may name it already).
    const verdict =
      own?.state === 'original'
        ? null
        : alike.length === 0 || rerun
          ? await this.markOriginal(docs, id)
          : await this.settle(docs, id, { key: page.key, url: page.url }, alike);
    if (!verdict) this.known.add(job.id, mine, elements);
    return verdict;
  }

  /** Drops a job's index (its crawl ended, or the job is deleted). */
  async forget(jobId: string): Promise<void> {
    this.known.forget(jobId);
    await (await this.collection()).deleteMany({ job_id: jobId });
  }

  /**
   * Drops every record of a tenant's jobs (its deletion, docs/api.md "Users"): also those a page worker still finishing
   * a cancelled crawl wrote after the job's own were dropped. Returns how many went.
   */
  async forgetTenant(userId: string): Promise<number> {
    return (await this.collection()).deleteMany({ user_id: userId });
  }

  /** A page alike to others in the index: a copy of the original among them, or the original (null) (class comment). */
  private async settle(
    docs: Collection<IndexDoc>,
    id: string,
    page: { key: string; url: string },
    alike: Alike[],
  ): Promise<DuplicateVerdict | null> {
    const { key } = page;
    const settled = alike.filter((o) => o.settled).sort((a, b) => (better(a, b) ? -1 : 1))[0];
    if (settled) return this.markCopy(docs, id, verdictOf(settled));
    const racers = [...alike].sort((a, b) => (a.original.key < b.original.key ? -1 : 1));
    const lowest = racers[0];
    if (lowest.original.key < key) {
      const verdict = await this.markCopy(docs, id, verdictOf(lowest));
      if (verdict?.original.key !== lowest.original.key) return verdict; // settled otherwise meanwhile
      if (await this.pin(docs, lowest.id)) return verdict;
      // The lowest became a copy meanwhile: this page is a copy of its original.
      const onward = (await docs.findOne({ _id: lowest.id }))?.verdict;
      if (!onward) return verdict;
      const follow = { ...onward, similarity: verdict.similarity };
      await docs.updateMany({ _id: id }, { $set: { verdict: follow } });
      return follow;
    }
    // This page is the lowest: the others are its copies, unless one settled as an original first.
    for (const other of racers) {
      const made = await docs.findOneAndUpdate(
        { _id: other.id, state: { $exists: false } },
        { $set: { state: 'copy', verdict: { ...verdictOf(other), original: page } } },
      );
      if (made) continue;
      const now = await docs.findOne({ _id: other.id });
      if (now?.state === 'original') return this.markCopy(docs, id, verdictOf(other));
    }
    return this.markOriginal(docs, id);
  }

  /** Marks the page an original; null, or the verdict of a page that made it a copy first. */
  private async markOriginal(docs: Collection<IndexDoc>, id: string): Promise<DuplicateVerdict | null> {
    if (await docs.findOneAndUpdate({ _id: id, state: { $exists: false } }, { $set: { state: 'original' } })) return null;
    const now = await docs.findOne({ _id: id });
    return now?.state === 'copy' && now.verdict ? now.verdict : null;
  }

  /** Marks the page a copy with this verdict; the verdict it has, or null (an original), when it was settled first. */
  private async markCopy(docs: Collection<IndexDoc>, id: string, verdict: DuplicateVerdict): Promise<DuplicateVerdict | null> {
    if (await docs.findOneAndUpdate({ _id: id, state: { $exists: false } }, { $set: { state: 'copy', verdict } })) return verdict;
    const now = await docs.findOne({ _id: id });
    return now?.state === 'copy' && now.verdict ? now.verdict : null;
  }

  /** Pins a page as an original (it can no longer become a copy); false when it is a copy already. */
  private async pin(docs: Collection<IndexDoc>, id: string): Promise<boolean> {
    return (await docs.findOneAndUpdate({ _id: id, state: { $ne: 'copy' } }, { $set: { state: 'original' } })) !== null;
  }

  /** `exact`: the page's text hash for it, unless an original holds it already (then the page is that original's copy). */
  private async checkExact(job: IndexedJob, page: { key: string; url: string }, hash: string): Promise<DuplicateVerdict | null> {
    const element = `h:${hash}`;
    const cached = this.known.nearest(job.id, { key: page.key, fp: null, hash }, [element]);
    if (cached) return verdictOf(cached);
    const docs = await this.collection();
    const id = `h:${job.id}:${hash}`;
    let holder: { key: string; url: string } | null = { key: page.key, url: page.url };
    try {
      await docs.insertOne({ _id: id, job_id: job.id, user_id: job.userId, key: page.key, url: page.url });
    } catch (error) {
      if (!(error instanceof DuplicateKeyError)) throw error;
      holder = await docs.findOne({ _id: id });
    }
    if (!holder) return null;
    this.known.add(job.id, { key: holder.key, url: holder.url, hash }, [element]);
    if (holder.key === page.key) return null;
    return { original: { key: holder.key, url: holder.url }, reason: 'exact', similarity: 1 };
  }

  private collection(): Promise<Collection<IndexDoc>> {
    this.docs ??= this.store.collection<IndexDoc>({
      name: 'crawl_duplicates',
      indexes: [{ fields: { elements: 1 }, multikey: 'elements' }, { fields: { job_id: 1 } }, { fields: { user_id: 1 } }],
    });
    return this.docs;
  }
}

/** An alike record: `settled` when it is marked an original. */
type Alike = Likeness & { id: string; settled: boolean };

function verdictOf(like: Likeness): DuplicateVerdict {
  return {
    original: { key: like.original.key, url: like.original.url },
    reason: like.exact ? 'exact' : 'near',
    similarity: like.similarity,
  };
}

/** An original's index elements: its bands and its text hash. */
function elementsOf(original: { fp?: Fingerprint; hash: string }): string[] {
  return [...(original.fp ? bandsOf(original.fp) : []), `h:${original.hash}`];
}
