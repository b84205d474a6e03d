import { Inject, Injectable } from '@nestjs/common';
import { DuplicateKeyError } from '@app/core';
import { DOCUMENT_STORE, type Collection, type DocumentStore } from '@app/storage';
import { bandsOf, fingerprintOf, type Fingerprint } from './fingerprint';
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
  /** `n:` records: `<job>:<band>:<minima>` for each band and `<job>:h:<hash>`. */
  elements?: string[];
  /**
   * `n:` records: absent while the page's check runs and after it found the page an original; `original` once another
   * page pinned it as one (it can then never become a copy); `copy` when two pages checked at once settled it a copy.
   */
  state?: 'original' | 'copy';
  /** `copy` records: the page's verdict. */
  verdict?: DuplicateVerdict;
  [key: string]: unknown;
}

/** What a page's check reads of the records of its candidates. */
const CANDIDATE_FIELDS = ['key', 'url', 'fp', 'hash', 'state', 'verdict'];

/**
 * A job's index of its pages' texts (docs/dedup.md "Where the index lives"), in the store, so that every page worker of
 * every crawler replica asks the same index, with the originals this process knows (KnownOriginals) in front of it.
 *
 * `near`, a page unknown to this process: one insert of its record, then one query of the records sharing one of its
 * elements (its own among them). None alike: the page is an original (two statements). Alike pages found: it is a copy,
 * or two pages were checked at once; either way the store settles it by conditional updates of single records:
 * - a page is a copy of a LOWER-keyed alike page once it has pinned that page as an original (`state: original`, refused
 *   when that page is a copy) and then marked itself a copy (refused when it was pinned itself: then it stays an original);
 * - alike pages only of HIGHER keys: the page marks itself a copy first, then pins the other.
 * So of two alike pages checked at once, in any order and interleaving, exactly one is the original: the later query
 * sees both records; when both see both, both updates go to the lower page's record and the first decides. A page never
 * becomes a copy of a page that became a copy itself but through the other's verdict, and the pages of one race are
 * never all copies (a copy's original was pinned, or marked itself a copy of a higher one: chains end). An `original`
 * is never marked a copy: a page once found an original stays one, after a takeover too (its record answers its re-run).
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
    const elements = [...(fp ? bandsOf(fp) : []), `h:${hash}`];
    const mine = { key: page.key, url: page.url, hash, ...(fp ? { fp } : {}) };
    if (this.known.has(job.id, page.key)) return null;
    const cached = this.known.nearest(job.id, { key: page.key, fp, hash }, elements);
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
    const alike: Array<Likeness & { id: string }> = [];
    for (const doc of found) {
      if (doc._id === id || doc.state === 'copy' || typeof doc.hash !== 'string') continue;
      const original: KnownOriginal = { key: doc.key, url: doc.url, hash: doc.hash, ...(doc.fp ? { fp: doc.fp } : {}) };
      if (doc.state === 'original') this.known.add(job.id, original, elementsOf(original));
      const like = likeness({ fp, hash }, original);
      if (like) alike.push({ ...like, id: doc._id });
    }
    // A page whose record was there before this run keeps the verdict it had: an original (pages may name it already).
    const verdict = alike.length === 0 || rerun || own?.state === 'original' ? null : await this.settle(docs, id, page.key, alike);
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

  /**
   * A page alike to others in the index: a copy of the most alike page that stays an original, or an original (null) when
   * every alike page became a copy of it or of another, or it was pinned as an original itself (class comment).
   */
  private async settle(
    docs: Collection<IndexDoc>,
    id: string,
    key: string,
    alike: Array<Likeness & { id: string }>,
  ): Promise<DuplicateVerdict | null> {
    const ordered = [...alike].sort((a, b) => (better(a, b) ? -1 : 1));
    for (const other of ordered.filter((o) => o.original.key < key)) {
      if (!(await this.pin(docs, other.id))) continue; // it became a copy
      return (await this.markCopy(docs, id, verdictOf(other))) ? verdictOf(other) : null;
    }
    for (const other of ordered.filter((o) => o.original.key > key)) {
      const verdict = verdictOf(other);
      if (!(await this.markCopy(docs, id, verdict))) return null; // pinned as an original
      if (await this.pin(docs, other.id)) return verdict;
      // It became a copy meanwhile (of a page it pinned): this page is a copy of that page's original.
      const onward = (await docs.findOne({ _id: other.id }))?.verdict;
      if (!onward) return verdict;
      const follow = { ...onward, similarity: verdict.similarity };
      await docs.updateMany({ _id: id }, { $set: { verdict: follow } });
      return follow;
    }
    return null;
  }

  /** Pins a page as an original (it can no longer become a copy); false when it is a copy already. */
  private async pin(docs: Collection<IndexDoc>, id: string): Promise<boolean> {
    return (await docs.findOneAndUpdate({ _id: id, state: { $ne: 'copy' } }, { $set: { state: 'original' } })) !== null;
  }

  /** Marks the page a copy with its verdict; false when it was pinned as an original. */
  private async markCopy(docs: Collection<IndexDoc>, id: string, verdict: DuplicateVerdict): Promise<boolean> {
    return (await docs.findOneAndUpdate({ _id: id, state: { $exists: false } }, { $set: { state: 'copy', verdict } })) !== null;
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
