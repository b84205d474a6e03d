import { Inject, Injectable } from '@nestjs/common';
import { DuplicateKeyError } from '@app/core';
import { DOCUMENT_STORE, type Collection, type DocumentStore } from '@app/storage';
import { bandsOf, fingerprintOf, NEAR_SIMILARITY, similarity } from './fingerprint';
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

/** One record of the index (`crawl_duplicates`): a verdict (`v:`), an original's text hash (`h:`) or one of its LSH bands (`b:`). */
interface IndexDoc {
  _id: string;
  job_id: string;
  /** The job's tenant (absent on records stored before). */
  user_id?: string;
  key: string;
  url: string;
  /** `b:` records: `<band>:<minima>`. */
  band?: string;
  fp?: string;
  /** `b:` records: the original's text hash (a candidate with the same text is an `exact` duplicate). */
  hash?: string;
  /** `v:` records: the page's verdict (null: an original). */
  verdict?: DuplicateVerdict | null;
  [key: string]: unknown;
}

/**
 * A job's index of its pages' texts (docs/dedup.md "Where the index lives"), in the store, so that every page worker of
 * every crawler replica asks the same index and the owner's memory holds none of it (bounded whatever the crawl's size).
 *
 * The rule for which page is the original, the same after a takeover and when two workers finish copies at once:
 * - only originals are in the index (their text hash, their bands), so a page is only ever a copy of an original;
 * - `exact`: an original's text hash is recorded by an insert the store refuses for a second page (a unique `_id`): of
 *   two pages with one text finishing at once, exactly one is the original, and a page run again finds its own record;
 * - `near`: a page's verdict is recorded once (`v:`), before it is acted on, and read back by a later run of the page;
 *   two near-duplicates checked at the same moment may both find no original: each then enters the index and asks again
 *   for an original with a lower key; the higher steps back (its records go) and is the lower's copy, never both skipped.
 */
@Injectable()
export class DuplicateIndex {
  private docs?: Promise<Collection<IndexDoc>>;

  constructor(@Inject(DOCUMENT_STORE) private readonly store: DocumentStore) {}

  /** The page's verdict: a copy of an earlier page of the job, or null (an original, now in the index). */
  async check(job: IndexedJob, page: { key: string; url: string; text: string }, mode: DedupeCheck): Promise<DuplicateVerdict | null> {
    const docs = await this.collection();
    const jobId = job.id;
    const owner = { job_id: jobId, user_id: job.userId };
    if (mode === 'exact') return this.claimText(docs, owner, page);
    const decided = await docs.findOne({ _id: `v:${jobId}:${page.key}` });
    if (decided) return decided.verdict ?? null;
    const fp = fingerprintOf(page.text);
    const hash = textHash(page.text);
    let verdict = (fp ? await this.nearest(docs, jobId, page.key, fp, hash) : null) ?? (await this.claimText(docs, owner, page));
    if (!verdict && fp) {
      const bands = bandsOf(fp).map((band) => `b:${jobId}:${band}:${page.key}`);
      await docs.insertMany(bandsOf(fp).map((band, i) => ({ _id: bands[i], ...owner, key: page.key, url: page.url, band, fp, hash })));
      // Two near-duplicates checked at the same moment both found no original: the lower key is the original. Asked
      // again with this page's bands in (so of two such pages at least the higher sees the lower), it steps back.
      verdict = await this.nearest(docs, jobId, page.key, fp, hash, page.key);
      if (verdict) {
        await docs.deleteMany({ _id: { $in: [...bands, `h:${jobId}:${hash}`] }, key: page.key });
      }
    }
    try {
      await docs.insertOne({ _id: `v:${jobId}:${page.key}`, ...owner, key: page.key, url: page.url, verdict });
      return verdict;
    } catch (error) {
      if (!(error instanceof DuplicateKeyError)) throw error;
      // Another run of this page decided first: its verdict stands.
      return (await docs.findOne({ _id: `v:${jobId}:${page.key}` }))?.verdict ?? null;
    }
  }

  /** Drops a job's index (its crawl ended, or the job is deleted). */
  async forget(jobId: string): Promise<void> {
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
   * The most similar original sharing an LSH band with `fp`, when at least NEAR_SIMILARITY alike (ties: the lowest key);
   * `below`: only originals whose key sorts before it.
   */
  private async nearest(
    docs: Collection<IndexDoc>,
    jobId: string,
    key: string,
    fp: string,
    hash: string,
    below?: string,
  ): Promise<DuplicateVerdict | null> {
    const candidates = await docs.find({ job_id: jobId, band: { $in: bandsOf(fp) } }, { fields: ['key', 'url', 'fp', 'hash'] });
    let best: DuplicateVerdict | null = null;
    for (const c of candidates) {
      if (c.key === key || !c.fp || (below !== undefined && c.key >= below)) continue;
      const alike = similarity(fp, c.fp);
      if (alike < NEAR_SIMILARITY) continue;
      if (!best || alike > best.similarity || (alike === best.similarity && c.key < best.original.key)) {
        best = { original: { key: c.key, url: c.url }, reason: c.hash === hash ? 'exact' : 'near', similarity: alike };
      }
    }
    return best;
  }

  /** The page's text hash for it, unless an original holds it already (then the page is that original's copy). */
  private async claimText(
    docs: Collection<IndexDoc>,
    owner: { job_id: string; user_id: string },
    page: { key: string; url: string; text: string },
  ): Promise<DuplicateVerdict | null> {
    const id = `h:${owner.job_id}:${textHash(page.text)}`;
    try {
      await docs.insertOne({ _id: id, ...owner, key: page.key, url: page.url });
      return null;
    } catch (error) {
      if (!(error instanceof DuplicateKeyError)) throw error;
    }
    const holder = await docs.findOne({ _id: id });
    if (!holder || holder.key === page.key) return null;
    return { original: { key: holder.key, url: holder.url }, reason: 'exact', similarity: 1 };
  }

  private collection(): Promise<Collection<IndexDoc>> {
    this.docs ??= this.store.collection<IndexDoc>({
      name: 'crawl_duplicates',
      indexes: [{ fields: { job_id: 1, band: 1 } }, { fields: { user_id: 1 } }],
    });
    return this.docs;
  }
}
