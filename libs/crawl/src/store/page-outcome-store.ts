import { DuplicateKeyError } from '@app/core';
import type { DeliveryLedgerPort } from '@app/queue';
import type { Collection } from '@app/storage';
import type { OutcomeRecord } from '../crawl.types';
import type { StoredPageOutcome } from '../stored-outcome';

/** What a page task's delivery found: its deliveries and runs alone so far, and whether its outcome is stored already. */
export interface DeliveryMarker {
  deliveries: number;
  alone_runs: number;
  done: boolean;
}

/**
 * Page tasks' deliveries and outcomes. A delivery is counted in the delivery ledger (`@app/queue`: Redis in a
 * cluster, no store write per page; the store embedded) before the page runs; an outcome is stored once in
 * `crawl_outcomes` (the first worker to finish wins) and the owner's dispatcher reads the done ones.
 */
export class PageOutcomeStore {
  constructor(
    private readonly outcomes: Collection<OutcomeRecord>,
    private readonly ledger: DeliveryLedgerPort,
  ) {}

  /**
   * Counts a delivery of a page task (a worker that dies mid-page leaves the count up). Whether its outcome is
   * stored already is read only when it may be: an earlier delivery is known, or the owner sent the task again
   * (`maybeDone`: adopted after a takeover, or re-sent after REDISPATCH_AFTER_MS). A first delivery is one read-free
   * ledger write.
   */
  async delivered(taskId: string, jobId: string, maybeDone = false): Promise<DeliveryMarker> {
    const deliveries = await this.ledger.count(jobId, taskId);
    const done = deliveries > 1 || maybeDone ? await this.isDone(taskId) : false;
    return { deliveries, alone_runs: 0, done };
  }

  /** A delivery of a suspect runs alone in its process: counted among its runs alone (read again: it may be done by now). */
  async ranAlone(taskId: string, jobId: string): Promise<DeliveryMarker> {
    const counts = await this.ledger.ranAlone(jobId, taskId);
    return { deliveries: counts.deliveries, alone_runs: counts.aloneRuns, done: await this.isDone(taskId) };
  }

  /** A delivery handed back on shutdown did not crash its worker. */
  async undeliver(taskId: string, jobId: string, alone = false): Promise<void> {
    await this.ledger.uncount(jobId, taskId, alone);
  }

  /** The tasks' pages are committed: their delivery counts can go (a commit batch's, in one ledger call). */
  async forget(jobId: string, taskIds: readonly string[]): Promise<void> {
    await this.ledger.forget(jobId, taskIds);
  }

  async isDone(taskId: string): Promise<boolean> {
    return (await this.outcomes.findOne({ _id: taskId }))?.done === true;
  }

  /** Records the outcome of a task once (the first worker to finish wins); false if it was already done. */
  async finishOutcome(taskId: string, jobId: string, outcome: StoredPageOutcome): Promise<boolean> {
    try {
      await this.outcomes.insertOne(doneRecord(taskId, jobId, outcome));
      return true;
    } catch (error) {
      if (!(error instanceof DuplicateKeyError)) throw error;
    }
    // A record there already: done (another worker won), or a marker an earlier version wrote at the delivery.
    return (await this.outcomes.findOneAndUpdate({ _id: taskId, done: false }, { $set: { done: true, outcome } })) !== null;
  }

  /**
   * finishOutcome for several tasks, of any crawls, in one request (a crawler's outcome write batch,
   * worker/outcome-write-batch.ts): per task, true when this call recorded its outcome (the first writer wins).
   */
  async finishOutcomes(items: ReadonlyArray<{ taskId: string; jobId: string; outcome: StoredPageOutcome }>): Promise<boolean[]> {
    if (items.length === 0) return [];
    // A task named twice in one call (two deliveries finished together): its first item is the one written.
    const first = new Map<string, number>();
    items.forEach((i, n) => first.has(i.taskId) || first.set(i.taskId, n));
    const unique = [...first.values()].map((n) => items[n]);
    const { duplicates } = await this.outcomes.insertMany(unique.map((i) => doneRecord(i.taskId, i.jobId, i.outcome)));
    // A record there already: done (another worker won), or a marker an earlier version wrote at the delivery.
    const taken = new Set(duplicates);
    const recorded = new Map<string, boolean>(
      await Promise.all(
        unique.map(async (i): Promise<[string, boolean]> => [
          i.taskId,
          !taken.has(i.taskId) ||
            (await this.outcomes.findOneAndUpdate({ _id: i.taskId, done: false }, { $set: { done: true, outcome: i.outcome } })) !== null,
        ]),
      ),
    );
    return items.map((i, n) => first.get(i.taskId) === n && recorded.get(i.taskId) === true);
  }

  /**
   * Records the outcomes of several tasks in one request (an owner's commit batch, for the outcomes its own
   * process's page workers handed over: local-outcomes.ts); each only if its task is not done yet (the first
   * writer wins, as finishOutcome). Returns how many were recorded.
   */
  async storeOutcomes(jobId: string, items: ReadonlyArray<{ taskId: string; outcome: StoredPageOutcome }>): Promise<number> {
    if (items.length === 0) return 0;
    const { inserted, duplicates } = await this.outcomes.insertMany(items.map((i) => doneRecord(i.taskId, jobId, i.outcome)));
    if (duplicates.length === 0) return inserted;
    // Records there already: done ones stay; an earlier version's delivery markers get their outcome.
    const taken = new Set(duplicates);
    const legacy = items.filter((i) => taken.has(i.taskId));
    return (
      inserted +
      (await this.outcomes.updateEach(
        legacy.map((i) => ({ filter: { _id: i.taskId, done: false }, update: { $set: { done: true, outcome: i.outcome } } })),
      ))
    );
  }

  doneOutcomes(taskIds: string[]): Promise<OutcomeRecord[]> {
    if (taskIds.length === 0) return Promise.resolve([]);
    return this.outcomes.find({ _id: { $in: taskIds }, done: true });
  }

  outcome(taskId: string): Promise<OutcomeRecord | null> {
    return this.outcomes.findOne({ _id: taskId });
  }

  /** A job's outcomes and delivery counts (its crawl ended, or the job is deleted). */
  async dropOutcomes(jobId: string): Promise<void> {
    await this.outcomes.deleteMany({ job_id: jobId });
    await this.ledger.drop(jobId);
  }
}

function doneRecord(taskId: string, jobId: string, outcome: StoredPageOutcome): OutcomeRecord {
  return { _id: taskId, job_id: jobId, done: true, outcome };
}
