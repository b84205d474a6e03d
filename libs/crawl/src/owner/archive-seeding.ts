import type { CrawlStorePort } from '../crawl.repository';
import type { ArchiveSource } from '../crawl-input';
import type { CrawlRun } from './crawl-run';
import { BackgroundReading, recordProgress } from './background-reading';
import type { Frontier } from './frontier';
import type { SeedSource } from './seed-source';

export type ArchiveSeedingStore = CrawlStorePort<{ states: 'state' | 'updateState'; map: 'fetchedAfter' }>;

/** Source pages stored in the frontier per step. */
const STEP = 1000;

/**
 * A re-extraction's pages (docs/archive.md "Re-extraction"): the fetched pages of the source job, in
 * its discovery order, become `via: list` entries at depth 0 (`list_index` = their place in that
 * order). The first step is stored before the crawl starts, the rest while it runs. Progress (the last
 * source seq stored) is a fenced write in the crawl state, so a new owner goes on from there and a step
 * stored twice adds nothing. The page workers then read each page from the archive: nothing is fetched.
 * A one-page source (an extract) offers its one page instead.
 */
export class ArchiveSeeding implements SeedSource {
  private readonly background = new BackgroundReading(() => this.run.wake());

  constructor(
    private readonly run: CrawlRun,
    private readonly source: ArchiveSource,
    private readonly store: ArchiveSeedingStore,
    private readonly frontier: Pick<Frontier, 'offerListUrls'>,
  ) {}

  async ingest(): Promise<void> {
    const state = await this.store.states.state(this.run.jobId);
    if (state?.seed_done) return;
    if (this.source.single_page) {
      // A one-page source (an extract) has no crawl entries: its page is the list. Offered again by a new
      // owner before seed_done, it is a URL the frontier knows already.
      await this.frontier.offerListUrls([this.source.single_page.url], 0);
      return this.done();
    }
    const position = { seq: state?.archive_seq_done ?? 0, offered: state?.archive_offered ?? 0 };
    if (!(await this.step(position))) return this.done();
    this.background.start(() => this.stepAll(position));
  }

  get busy(): boolean {
    return this.background.busy;
  }

  settled(): Promise<void> {
    return this.background.settled();
  }

  private async stepAll(position: { seq: number; offered: number }): Promise<void> {
    for (;;) {
      this.run.throwIfStopped();
      if (!(await this.step(position))) break;
    }
    await this.done();
  }

  /** Stores the next source pages in the frontier and records how far it got; false past the end. */
  private async step(position: { seq: number; offered: number }): Promise<boolean> {
    const entries = await this.store.map.fetchedAfter(this.source.source_job_id, this.source.only, position.seq, STEP);
    if (entries.length === 0) return false;
    await this.frontier.offerListUrls(
      entries.map((e) => e.url),
      position.offered,
    );
    position.seq = entries[entries.length - 1].seq;
    position.offered += entries.length;
    await recordProgress(this.run, this.store.states, { archive_seq_done: position.seq, archive_offered: position.offered });
    return entries.length === STEP;
  }

  private async done(): Promise<void> {
    await this.store.states.updateState(this.run.jobId, this.run.epoch, { $set: { seed_done: true } });
  }
}
