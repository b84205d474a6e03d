import type { Collection, DocumentStore } from '@app/storage';
import type { CrawlEntry, CrawlStateRecord, ListChunkRecord, OutcomeRecord } from '../crawl.types';

/** The crawl engine's four collections, each opened once per process (CrawlRepository) and shared by its parts. */
export interface CrawlCollections {
  states: Collection<CrawlStateRecord>;
  entries: Collection<CrawlEntry>;
  outcomes: Collection<OutcomeRecord>;
  lists: Collection<ListChunkRecord>;
}

/** Opens the crawl's collections with their indexes (the one place they are declared). */
export async function openCrawlCollections(store: DocumentStore): Promise<CrawlCollections> {
  const states = await store.collection<CrawlStateRecord>({ name: 'crawl_state', indexes: [] });
  const entries = await store.collection<CrawlEntry>({
    name: 'crawl_entries',
    indexes: [
      { fields: { job_id: 1, seq: 1 } },
      { fields: { job_id: 1, status: 1, seq: 1 } },
      // The crawl map's per-method counts of completed pages, without reading every completed entry.
      { fields: { job_id: 1, status: 1, method: 1 } },
      { fields: { job_id: 1, ticket: 1 }, unique: true },
      { fields: { job_id: 1, event_done: 1, status: 1 } },
      // The crawl map's has_rate_limit count, without scanning a big crawl's entries.
      { fields: { job_id: 1, rate_limited: 1 } },
      // The crawl map's pages with ungrounded values (count and `ungrounded=true`).
      { fields: { job_id: 1, ungrounded_fields: 1 } },
      // The crawl map's pages with incomplete lists (count and `list_incomplete=true`).
      { fields: { job_id: 1, items_missing: 1 } },
    ],
  });
  const outcomes = await store.collection<OutcomeRecord>({ name: 'crawl_outcomes', indexes: [{ fields: { job_id: 1 } }] });
  const lists = await store.collection<ListChunkRecord>({ name: 'batch_lists', indexes: [{ fields: { list_id: 1, chunk: 1 } }] });
  return { states, entries, outcomes, lists };
}
