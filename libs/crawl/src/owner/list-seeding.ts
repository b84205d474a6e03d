import type { CrawlStorePort } from '../crawl.repository';
import type { ListSource } from '../crawl-input';
import type { CrawlRun } from './crawl-run';
import { BackgroundReading, recordProgress } from './background-reading';
import type { Frontier } from './frontier';
import type { SeedSource } from './seed-source';

export type ListSeedingStore = CrawlStorePort<{ states: 'state' | 'updateState'; lists: 'listChunk' | 'dropList' }>;

/**
 * A batch's URLs (docs/crawl.md "Batches"): the list stored at intake (canonical, distinct, in chunks)
 * goes into the frontier chunk by chunk, as `via: list` entries at depth 0 in list order. The first chunk
 * is stored before the crawl starts; the others while it runs, so a 100,000-URL list starts at once.
 * Progress is a fenced counter in the crawl state: a new owner goes on from the first chunk not
 * recorded, and a chunk stored twice (a crash between the two writes) adds nothing, the frontier
 * knowing its URLs. The list is dropped once every chunk is in.
 */
export class ListSeeding implements SeedSource {
  private readonly background = new BackgroundReading(() => this.run.wake());

  constructor(
    private readonly run: CrawlRun,
    private readonly source: ListSource,
    private readonly store: ListSeedingStore,
    private readonly frontier: Pick<Frontier, 'offerListUrls'>,
  ) {}

  async ingest(): Promise<void> {
    const state = await this.store.states.state(this.run.jobId);
    if (state?.seed_done) return;
    const next = state?.list_chunks_done ?? 0;
    if (!(await this.storeChunk(next))) return this.done();
    this.background.start(() => this.storeFrom(next + 1));
  }

  get busy(): boolean {
    return this.background.busy;
  }

  settled(): Promise<void> {
    return this.background.settled();
  }

  private async storeFrom(first: number): Promise<void> {
    for (let chunk = first; ; chunk++) {
      this.run.throwIfStopped();
      if (!(await this.storeChunk(chunk))) break;
    }
    await this.done();
  }

  /** Stores chunk `n` in the frontier and records it; false past the list's end. */
  private async storeChunk(n: number): Promise<boolean> {
    const chunk = await this.store.lists.listChunk(this.source.list_id, n);
    if (!chunk) return false;
    await this.frontier.offerListUrls(chunk.urls, chunk.start);
    await recordProgress(this.run, this.store.states, { list_chunks_done: n + 1 });
    return true;
  }

  private async done(): Promise<void> {
    if (await this.store.states.updateState(this.run.jobId, this.run.epoch, { $set: { seed_done: true } }))
      await this.store.lists.dropList(this.source.list_id);
  }
}
