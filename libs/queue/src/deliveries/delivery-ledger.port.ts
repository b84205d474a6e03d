/**
 * How often each task was handed to a worker (docs/crawl.md "A page that kills its worker"): counted before the
 * task runs, so a worker that dies mid-task leaves its count up and the next delivery knows it is a suspect.
 * Tasks are counted per scope (a crawl's job id) so a whole scope is dropped at once.
 *
 * Two adapters, one contract (`test/contract/delivery-ledger.contract.ts`): Redis in a cluster (a hash per scope:
 * no store write per page, docs/capacity.md), the document store embedded (the process that runs the tasks is the
 * only one, and its store outlives it).
 */
export interface DeliveryCount {
  /** Deliveries counted and not handed back (a run in flight counts one). */
  deliveries: number;
  /** Runs started alone in their process (a suspect's): the deaths that can be blamed on the task. */
  aloneRuns: number;
}

export interface DeliveryLedgerPort {
  /** Counts a delivery of the task before it runs; returns its deliveries after it (1: no earlier one is known). */
  count(scope: string, taskId: string): Promise<number>;
  /** Counts a run of the task alone in its process (after its delivery was counted); returns the counts after it. */
  ranAlone(scope: string, taskId: string): Promise<DeliveryCount>;
  /** Takes back a delivery handed back on shutdown (not a crash), and its run alone when it was one; never below 0. */
  uncount(scope: string, taskId: string, alone: boolean): Promise<void>;
  /** The tasks are finished for good (their outcomes committed): their counts may go. */
  forget(scope: string, taskIds: readonly string[]): Promise<void>;
  /** Every count of the scope (its crawl ended, or its job was deleted). */
  drop(scope: string): Promise<void>;
  close(): Promise<void>;
}

export const DELIVERY_LEDGER = Symbol('DELIVERY_LEDGER');
