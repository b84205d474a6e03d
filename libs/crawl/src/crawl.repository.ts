import { Inject, Injectable, type OnModuleInit } from '@nestjs/common';
import { DELIVERY_LEDGER, type DeliveryLedgerPort } from '@app/queue';
import { DOCUMENT_STORE, type DocumentStore } from '@app/storage';
import { BatchListStore } from './store/batch-list-store';
import { openCrawlCollections } from './store/crawl-collections';
import { CrawlEntryStore } from './store/crawl-entry-store';
import { CrawlMapReads } from './store/crawl-map-reads';
import { CrawlStateStore } from './store/crawl-state-store';
import { PageOutcomeStore } from './store/page-outcome-store';

export type { Owner } from './store/crawl-map-reads';

/**
 * The only code that touches a crawl's store state, in five parts along the seams its callers use:
 * `states` (`crawl_state`: ownership, lease, admission tickets, flags), `entries` (the owner's writes and
 * reads of `crawl_entries`: frontier, admission, commits), `map` (reads of the entries: the crawl map, counts,
 * re-extraction sources), `outcomes` (`crawl_outcomes`: what page workers report, and the deliveries they count) and `lists` (a batch's
 * URL list). Every write of the owning actor is conditional on its ownership epoch, so a stale owner's
 * writes are refused; entry admission is fenced by the unique ticket index. The parts exist once the module
 * is initialised (the collections are opened then).
 */
@Injectable()
export class CrawlRepository implements OnModuleInit {
  states!: CrawlStateStore;
  entries!: CrawlEntryStore;
  map!: CrawlMapReads;
  outcomes!: PageOutcomeStore;
  lists!: BatchListStore;

  constructor(
    @Inject(DOCUMENT_STORE) private readonly store: DocumentStore,
    @Inject(DELIVERY_LEDGER) private readonly ledger: DeliveryLedgerPort,
  ) {}

  async onModuleInit(): Promise<void> {
    const collections = await openCrawlCollections(this.store);
    this.states = new CrawlStateStore(collections.states);
    this.entries = new CrawlEntryStore(collections.entries);
    this.map = new CrawlMapReads(collections.entries);
    this.outcomes = new PageOutcomeStore(collections.outcomes, this.ledger);
    this.lists = new BatchListStore(collections.lists);
  }

  /** Everything the crawl engine keeps of a finished job (DELETE /jobs/{id}): its map, state, outcomes. */
  async deleteJob(jobId: string): Promise<void> {
    await this.entries.deleteEntries(jobId);
    await this.outcomes.dropOutcomes(jobId);
    await this.states.deleteState(jobId);
  }
}

type CrawlStoreParts = Pick<CrawlRepository, 'states' | 'entries' | 'map' | 'outcomes' | 'lists'>;

/**
 * A caller's port onto some methods of some parts, e.g. `CrawlStorePort<{ entries: 'settle'; states: 'updateState' }>`:
 * the repository itself satisfies it, a spec's fake names only what the caller uses.
 */
export type CrawlStorePort<M extends { [P in keyof CrawlStoreParts]?: keyof CrawlStoreParts[P] }> = {
  readonly [P in keyof M & keyof CrawlStoreParts]: Pick<CrawlStoreParts[P], M[P] & keyof CrawlStoreParts[P]>;
};
