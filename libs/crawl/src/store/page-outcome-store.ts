import { DuplicateKeyError } from '@app/core';
import type { Collection } from '@app/storage';
import type { OutcomeRecord } from '../crawl.types';
import type { StoredPageOutcome } from '../stored-outcome';

/**
 * Page tasks' delivery markers and outcomes (`crawl_outcomes`): the page worker counts a delivery and records
 * the outcome once (the first worker to finish wins); the owner's dispatcher reads the done ones.
 */
export class PageOutcomeStore {
  constructor(private readonly outcomes: Collection<OutcomeRecord>) {}

  /**
   * Counts a delivery of a page task (a worker that dies mid-page leaves the count up); a run `alone` in its
   * process (a suspect's) counts in `alone_runs` too.
   */
  async delivered(taskId: string, jobId: string, alone = false): Promise<OutcomeRecord> {
    try {
      const record = await this.outcomes.findOneAndUpdate(
        { _id: taskId },
        { $inc: runCounts(alone, 1), $setOnInsert: { job_id: jobId, done: false, outcome: null } },
        { upsert: true, returnDocument: 'after' },
      );
      if (record) return record;
    } catch (error) {
      if (!(error instanceof DuplicateKeyError)) throw error;
    }
    return this.delivered(taskId, jobId, alone);
  }

  /** A delivery of a suspect runs alone in its process: counted among its runs alone (null: no marker). */
  ranAlone(taskId: string): Promise<OutcomeRecord | null> {
    return this.outcomes.findOneAndUpdate({ _id: taskId }, { $inc: { alone_runs: 1 } }, { returnDocument: 'after' });
  }

  /** A delivery handed back on shutdown did not crash its worker. */
  async undeliver(taskId: string, alone = false): Promise<void> {
    await this.outcomes.findOneAndUpdate({ _id: taskId, deliveries: { $gt: 0 } }, { $inc: runCounts(alone, -1) });
  }

  /** Records the outcome of a task once (the first worker to finish wins); false if it was already done. */
  async finishOutcome(taskId: string, outcome: StoredPageOutcome): Promise<boolean> {
    return (await this.outcomes.findOneAndUpdate({ _id: taskId, done: false }, { $set: { done: true, outcome } })) !== null;
  }

  /**
   * Records the outcomes of several tasks in one request (an owner's commit batch, for the outcomes its own
   * process's page workers handed over: local-outcomes.ts); each only if its task is not done yet (the first
   * writer wins, as finishOutcome). Returns how many were recorded.
   */
  storeOutcomes(items: ReadonlyArray<{ taskId: string; outcome: StoredPageOutcome }>): Promise<number> {
    if (items.length === 0) return Promise.resolve(0);
    return this.outcomes.updateEach(
      items.map((i) => ({ filter: { _id: i.taskId, done: false }, update: { $set: { done: true, outcome: i.outcome } } })),
    );
  }

  doneOutcomes(taskIds: string[]): Promise<OutcomeRecord[]> {
    if (taskIds.length === 0) return Promise.resolve([]);
    return this.outcomes.find({ _id: { $in: taskIds }, done: true });
  }

  outcome(taskId: string): Promise<OutcomeRecord | null> {
    return this.outcomes.findOne({ _id: taskId });
  }

  async dropOutcomes(jobId: string): Promise<void> {
    await this.outcomes.deleteMany({ job_id: jobId });
  }
}

/** The counts a page task's run changes: its deliveries, and its runs alone when it ran alone. */
function runCounts(alone: boolean, by: 1 | -1): Record<string, number> {
  return alone ? { deliveries: by, alone_runs: by } : { deliveries: by };
}
