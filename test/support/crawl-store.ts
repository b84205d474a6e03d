/**
 * The crawl engine's collections on the embedded store (SQLite in a temporary directory), for the fast specs
 * of the repository's parts (libs/crawl/src/store/*.spec.ts), and a stored entry to put in them.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SqliteDocumentStore } from '@app/storage';
import type { CrawlEntry } from '../../libs/crawl/src/crawl.types';
import { newEntry } from '../../libs/crawl/src/owner/crawl-entry';
import { openCrawlCollections, type CrawlCollections } from '../../libs/crawl/src/store/crawl-collections';

export interface CrawlStoreFixture {
  store: SqliteDocumentStore;
  collections: CrawlCollections;
  close(): Promise<void>;
}

export async function crawlStoreFixture(): Promise<CrawlStoreFixture> {
  const dir = mkdtempSync(join(tmpdir(), 'gleaner-crawl-store-'));
  const store = SqliteDocumentStore.open({ file: join(dir, 'store.db') });
  const collections = await openCrawlCollections(store);
  return {
    store,
    collections,
    async close() {
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** A pending entry of `jobId` for `https://a.test<path>`, discovered `seq`-th, owned by `u1` (or `extra.user_id`). */
export function entryOf(jobId: string, path: string, seq: number, extra: Partial<CrawlEntry> = {}): CrawlEntry {
  return newEntry(
    { jobId, userId: 'u1' },
    { key: `a.test${path}`, url: `https://a.test${path}`, host: 'a.test' },
    { depth: 0, parentUrl: null, via: 'seed', seq, now: new Date().toISOString() },
    extra,
  );
}
