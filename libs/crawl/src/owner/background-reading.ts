import type { CrawlStateStore } from '../store/crawl-state-store';
import type { CrawlStateRecord } from '../crawl.types';
import type { CrawlRun } from './crawl-run';

/**
 * What a seed source (seed-source.ts) goes on reading while the crawl runs: sitemaps, the rest of a
 * batch's list, a re-extraction's source pages, a WARC file. While it runs the crawl is not finished
 * (`busy`); when it ends the actor is woken to look again; its failure is the crawl's (`settled`).
 */
export class BackgroundReading {
  private reading: Promise<void> | null = null;
  private active = false;
  private failure: { error: unknown } | null = null;

  constructor(private readonly onEnd: () => void) {}

  start(work: () => Promise<void>): void {
    this.active = true;
    this.reading = work()
      .catch((error: unknown) => {
        this.failure = { error };
      })
      .finally(() => {
        this.active = false;
        this.onEnd();
      });
  }

  get busy(): boolean {
    return this.active;
  }

  /** Waits for the reading (if one started); throws its failure. */
  async settled(): Promise<void> {
    await this.reading;
    if (this.failure) throw this.failure.error;
  }
}

/**
 * Records a seed source's progress in the crawl state, fenced by the owner's epoch: a refusal means
 * another owner took the crawl over, so this one stops (it goes on from the recorded progress).
 */
export async function recordProgress(
  run: Pick<CrawlRun, 'jobId' | 'epoch' | 'halt' | 'throwIfStopped'>,
  store: Pick<CrawlStateStore, 'updateState'>,
  set: Partial<CrawlStateRecord>,
): Promise<void> {
  if (await store.updateState(run.jobId, run.epoch, { $set: set })) return;
  run.halt('lease-lost');
  run.throwIfStopped();
}
