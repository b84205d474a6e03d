import { NEAR_SIMILARITY, similarity, type Fingerprint } from './fingerprint';
import { differentRecords, type RecordValues } from './record-values';

/** An original page of a job as the index holds it. */
export interface KnownOriginal {
  key: string;
  url: string;
  fp?: Fingerprint;
  hash: string;
  /** Its record values (record-values.ts); absent on records stored before the guard. */
  values?: RecordValues;
}

/** How alike a page is to an original: the original, the similarity and whether the texts are the same. */
export interface Likeness {
  original: KnownOriginal;
  similarity: number;
  exact: boolean;
}

/** Pages whose originals this process remembers, across its jobs (~1 kB each: bounded at some 10 MB). */
export const KNOWN_ORIGINALS_MAX = 10_000;

/**
 * The originals a process knows to be final (docs/dedup.md "Where the index lives"), per job: most copies are found here
 * without a store read. Only pages that can no longer become copies are held (a page whose check here found it an
 * original, or one pinned as an original in the store), so a page found a copy here is a copy of a page that stays an
 * original. Bounded: past KNOWN_ORIGINALS_MAX pages the job remembered longest ago is forgotten (its pages are then read
 * from the store, as another process's are).
 */
export class KnownOriginals {
  /** Job → its originals by their index elements (LSH bands and text hash); a Map keeps the jobs in insertion order. */
  private readonly jobs = new Map<string, { byElement: Map<string, KnownOriginal[]>; keys: Set<string> }>();
  private size = 0;

  constructor(private readonly max = KNOWN_ORIGINALS_MAX) {}

  add(jobId: string, original: KnownOriginal, elements: readonly string[]): void {
    let job = this.jobs.get(jobId);
    if (!job) {
      job = { byElement: new Map(), keys: new Set() };
      this.jobs.set(jobId, job);
    }
    if (job.keys.has(original.key)) return;
    job.keys.add(original.key);
    for (const element of elements) {
      const list = job.byElement.get(element);
      if (list) list.push(original);
      else job.byElement.set(element, [original]);
    }
    this.size++;
    while (this.size > this.max && this.jobs.size > 0) {
      const [oldest, dropped] = this.jobs.entries().next().value!;
      this.size -= dropped.keys.size;
      this.jobs.delete(oldest);
    }
  }

  /** Whether the page is a known original of the job. */
  has(jobId: string, key: string): boolean {
    return this.jobs.get(jobId)?.keys.has(key) ?? false;
  }

  /** The known original most like the page (≥ NEAR_SIMILARITY, ties: the lowest key), other than the page itself. */
  nearest(
    jobId: string,
    page: { key: string; fp: Fingerprint | null; hash: string; values?: RecordValues },
    elements: readonly string[],
  ): Likeness | null {
    const job = this.jobs.get(jobId);
    if (!job) return null;
    let best: Likeness | null = null;
    for (const element of elements) {
      for (const original of job.byElement.get(element) ?? []) {
        if (original.key === page.key) continue;
        const alike = likeness(page, original);
        if (alike && better(alike, best)) best = alike;
      }
    }
    return best;
  }

  forget(jobId: string): void {
    const job = this.jobs.get(jobId);
    if (!job) return;
    this.size -= job.keys.size;
    this.jobs.delete(jobId);
  }
}

/**
 * How alike a page is to an original when it is a copy of it (same text, or fingerprints ≥ NEAR_SIMILARITY and the same
 * record: the record-value guard, record-values.ts), else null. Symmetric, so two pages decide alike in either order.
 */
export function likeness(page: { fp: Fingerprint | null; hash: string; values?: RecordValues }, original: KnownOriginal): Likeness | null {
  if (original.hash === page.hash) return { original, similarity: 1, exact: true };
  if (!page.fp || !original.fp) return null;
  const alike = similarity(page.fp, original.fp);
  if (alike < NEAR_SIMILARITY || differentRecords(page.values, original.values)) return null;
  return { original, similarity: alike, exact: false };
}

/** The more similar first; of two as similar, the lower key. */
export function better(a: Likeness, b: Likeness | null): boolean {
  if (!b) return true;
  if (a.similarity !== b.similarity) return a.similarity > b.similarity;
  return a.original.key < b.original.key;
}
