import { Injectable } from '@nestjs/common';
import type { PageOutcome } from './crawl.types';
import type { StoredPageOutcome } from './stored-outcome';

/** How an outcome handed over here is to be kept: its stored form, written by the owner with its commit batch. */
export type LocalTake = (outcome: PageOutcome, unstored: StoredPageOutcome) => void;

/**
 * Page outcomes handed from a page worker to its crawl's owner when both run in this process (always in
 * the embedded deployment; in a cluster, when the task landed on the owner's replica). The worker offers an
 * outcome instead of storing it: the owner takes it without the bus message, the store read and the
 * worker's own outcome write, and writes the outcome with its commit batch, before the batch's results
 * (docs/crawl.md "What a crash between a page's fetch and its batch costs"). An outcome no one here waits
 * for is stored by the worker and goes by bus as before; an owner that missed one still finds it in the store.
 */
@Injectable()
export class LocalOutcomes {
  private readonly waiting = new Map<string, LocalTake>();

  /** The owner waits for this task's outcome (until `forget`). */
  expect(taskId: string, take: LocalTake): void {
    this.waiting.set(taskId, take);
  }

  forget(taskId: string): void {
    this.waiting.delete(taskId);
  }

  /** An outcome, not stored yet (`stored`: its stored form): true when an owner in this process took it (and keeps it). */
  offer(taskId: string, outcome: PageOutcome, stored: StoredPageOutcome): boolean {
    const take = this.waiting.get(taskId);
    if (!take) return false;
    this.waiting.delete(taskId);
    take(outcome, stored);
    return true;
  }

  get size(): number {
    return this.waiting.size;
  }
}
