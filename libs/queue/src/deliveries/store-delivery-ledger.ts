import { DuplicateKeyError } from '@app/core';
import type { Collection, Doc, DocumentStore } from '@app/storage';
import type { DeliveryCount, DeliveryLedgerPort } from './delivery-ledger.port';

/** One task's counts in `task_deliveries` (the embedded deployment's ledger). */
interface DeliveryDoc extends Doc {
  _id: string;
  scope: string;
  deliveries: number;
  alone_runs: number;
}

/**
 * The ledger in the document store: one document per task, one write per delivery (docs/crawl.md "A page that
 * kills its worker"). The embedded deployment's: its one process runs the tasks, and the store outlives it.
 */
export class StoreDeliveryLedger implements DeliveryLedgerPort {
  private constructor(private readonly docs: Collection<DeliveryDoc>) {}

  static async open(store: DocumentStore): Promise<StoreDeliveryLedger> {
    return new StoreDeliveryLedger(await store.collection<DeliveryDoc>({ name: 'task_deliveries', indexes: [{ fields: { scope: 1 } }] }));
  }

  async count(scope: string, taskId: string): Promise<number> {
    return (await this.add(scope, taskId, { deliveries: 1 })).deliveries;
  }

  async ranAlone(scope: string, taskId: string): Promise<DeliveryCount> {
    return this.add(scope, taskId, { alone_runs: 1 });
  }

  async uncount(_scope: string, taskId: string, alone: boolean): Promise<void> {
    await this.docs.findOneAndUpdate({ _id: taskId, deliveries: { $gt: 0 } }, { $inc: { deliveries: -1 } });
    if (alone) await this.docs.findOneAndUpdate({ _id: taskId, alone_runs: { $gt: 0 } }, { $inc: { alone_runs: -1 } });
  }

  async forget(_scope: string, taskIds: readonly string[]): Promise<void> {
    if (taskIds.length > 0) await this.docs.deleteMany({ _id: { $in: [...taskIds] } });
  }

  async drop(scope: string): Promise<void> {
    await this.docs.deleteMany({ scope });
  }

  async close(): Promise<void> {}

  /** One upsert; two first deliveries at once meet on the `_id` and the loser counts again on the document made. */
  private async add(scope: string, taskId: string, by: Record<string, number>): Promise<DeliveryCount> {
    try {
      const fields = { deliveries: 0, alone_runs: 0 };
      for (const name of Object.keys(by)) delete fields[name as keyof typeof fields];
      const doc = await this.docs.findOneAndUpdate(
        { _id: taskId },
        { $inc: by, $setOnInsert: { scope, ...fields } },
        { upsert: true, returnDocument: 'after' },
      );
      if (doc) return { deliveries: doc.deliveries ?? 0, aloneRuns: doc.alone_runs ?? 0 };
    } catch (error) {
      if (!(error instanceof DuplicateKeyError)) throw error;
    }
    return this.add(scope, taskId, by);
  }
}
