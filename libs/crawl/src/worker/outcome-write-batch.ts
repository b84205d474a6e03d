import { WriteBatch, type WriteBatchLimits } from '@app/core';
import type { EventBusPort } from '@app/events';
import { crawlOutcomeChannel } from '../crawl.types';
import type { PageOutcomeStore } from '../store/page-outcome-store';
import type { StoredPageOutcome } from '../stored-outcome';

/** A page task's outcome for its owner in another process: stored, then announced on the crawl's outcome channel. */
export interface OutcomeWrite {
  taskId: string;
  jobId: string;
  outcome: StoredPageOutcome;
}

/** A batch is written once it holds this many outcomes, */
export const OUTCOME_BATCH_MAX = 64;
/**
 * or once its first outcome has lingered LINGER_GAPS times the recent gap between outcomes within
 * [OUTCOME_BATCH_LINGER_MS, OUTCOME_BATCH_MAX_LINGER_MS], while outcomes come at the same time (one alone is
 * written at once). Shorter than the commit batch's: the page worker's slot stays taken until its outcome is
 * stored, and the owner's commit batch lingers again.
 */
export const OUTCOME_BATCH_LINGER_MS = 5;
export const OUTCOME_BATCH_MAX_LINGER_MS = 50;

const LIMITS: WriteBatchLimits = { max: OUTCOME_BATCH_MAX, minLingerMs: OUTCOME_BATCH_LINGER_MS, maxLingerMs: OUTCOME_BATCH_MAX_LINGER_MS };

/**
 * A crawler's outcome write batch (docs/crawl.md "Outcomes of pages run elsewhere"): the outcomes its page workers
 * finish for owners in other processes, of any crawls, are stored in ONE insert (`PageOutcomeStore.finishOutcomes`,
 * the first writer of a task wins), then each crawl's owner hears of those recorded with ONE message on the crawl's
 * outcome channel (`{task}` for one, `{tasks}` for several; a lost message costs the owner's next poll). A page
 * worker awaits its outcome's write before its task is acknowledged, as with a write of its own: a crash before
 * it costs a delivery again (the page runs once more), never a lost outcome.
 */
export class OutcomeWriteBatch extends WriteBatch<OutcomeWrite, boolean> {
  constructor(
    store: Pick<PageOutcomeStore, 'finishOutcomes'>,
    bus: Pick<EventBusPort, 'publish'>,
    limits: WriteBatchLimits = LIMITS,
    now: () => number = Date.now,
  ) {
    super(
      async (items) => {
        const recorded = await store.finishOutcomes(items);
        const byJob = new Map<string, string[]>();
        items.forEach((item, i) => {
          if (recorded[i]) byJob.set(item.jobId, [...(byJob.get(item.jobId) ?? []), item.taskId]);
        });
        await Promise.all(
          [...byJob].map(([jobId, tasks]) =>
            bus.publish(crawlOutcomeChannel(jobId), tasks.length === 1 ? { task: tasks[0] } : { tasks }).catch(() => undefined),
          ),
        );
        return recorded;
      },
      limits,
      undefined,
      now,
    );
  }
}
