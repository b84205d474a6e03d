/**
 * Where a crawl's first URLs come from (owner/seeding.ts: the seed and its sitemaps; owner/list-seeding.ts:
 * a batch's URL list). The actor runs one; the parts see only whether it may still bring URLs.
 */
export interface SeedSource {
  /** Stores what must be in the frontier before the crawl starts; may go on reading in the background. */
  ingest(): Promise<void>;
  /** More URLs may come (the crawl is not finished while this is true). */
  readonly busy: boolean;
  /** Waits for the background reading; its failure is the crawl's. */
  settled(): Promise<void>;
}
