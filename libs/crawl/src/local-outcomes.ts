import { Injectable } from '@nestjs/common';
import type { PageOutcome } from './crawl.types';

/**
 * Page outcomes handed from a page worker to its crawl's owner when both run in this process (always in
 * the embedded deployment; in a cluster, when the task landed on the owner's replica). The worker offers an
 * outcome once it is stored (finishOutcome resolved, so it is durable): the owner takes it as it was
 * stored, without the bus message and the store read that carry it between processes. An outcome no one
 * here waits for goes by bus as before; an owner that missed one still finds it in the store.
 */
@Injectable()
export class LocalOutcomes {
  private readonly waiting = new Map<string, (outcome: PageOutcome) => void>();

  /** The owner waits for this task's outcome (until `forget`). */
  expect(taskId: string, take: (outcome: PageOutcome) => void): void {
    this.waiting.set(taskId, take);
  }

  forget(taskId: string): void {
    this.waiting.delete(taskId);
  }

  /** A stored outcome: true when an owner in this process took it. */
  offer(taskId: string, outcome: PageOutcome): boolean {
    const take = this.waiting.get(taskId);
    if (!take) return false;
    this.waiting.delete(taskId);
    take(outcome);
    return true;
  }

  get size(): number {
    return this.waiting.size;
  }
}
