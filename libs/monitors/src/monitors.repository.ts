import { Inject, Injectable, type OnModuleInit } from '@nestjs/common';
import { DOCUMENT_STORE, type Collection, type DocumentStore } from '@app/storage';
import type { MonitorRecord } from './monitor.types';

type Owner = { userId: string };

/** The only code that touches `monitors`; owner-facing queries are scoped by the owner, the scheduler's by due time. */
@Injectable()
export class MonitorsRepository implements OnModuleInit {
  private monitors!: Collection<MonitorRecord>;

  constructor(@Inject(DOCUMENT_STORE) private readonly store: DocumentStore) {}

  async onModuleInit(): Promise<void> {
    this.monitors = await this.store.collection<MonitorRecord>({
      name: 'monitors',
      indexes: [{ fields: { user_id: 1, created_at: -1 } }, { fields: { next_run_at: 1 } }, { fields: { consecutive_failures: -1 } }],
    });
  }

  insert(monitor: MonitorRecord): Promise<void> {
    return this.monitors.insertOne(monitor);
  }

  findOwn(owner: Owner, id: string): Promise<MonitorRecord | null> {
    return this.monitors.findOne({ _id: id, user_id: owner.userId });
  }

  /** For the scheduler and the run's end: a monitor by id, whoever owns it. */
  findById(id: string): Promise<MonitorRecord | null> {
    return this.monitors.findOne({ _id: id });
  }

  listOwn(owner: Owner, limit: number, offset: number): Promise<MonitorRecord[]> {
    return this.monitors.find({ user_id: owner.userId }, { sort: { created_at: -1, _id: -1 }, limit, skip: offset });
  }

  countOwn(owner: Owner): Promise<number> {
    return this.monitors.count({ user_id: owner.userId });
  }

  updateOwn(owner: Owner, id: string, set: Record<string, unknown>): Promise<MonitorRecord | null> {
    return this.monitors.findOneAndUpdate({ _id: id, user_id: owner.userId }, { $set: set }, { returnDocument: 'after' });
  }

  deleteOwn(owner: Owner, id: string): Promise<boolean> {
    return this.monitors.deleteOne({ _id: id, user_id: owner.userId });
  }

  /** Pauses every monitor of the owner at once (a tenant deletion: the scheduler starts none of them again). */
  pauseAllOf(owner: Owner, at: string): Promise<number> {
    return this.monitors.updateMany(
      { user_id: owner.userId },
      { $set: { paused: true, next_slot_at: null, next_run_at: null, updated_at: at } },
    );
  }

  /** Some of the owner's monitors (a tenant deletion erases them batch by batch). */
  anyOf(owner: Owner, limit: number): Promise<MonitorRecord[]> {
    return this.monitors.find({ user_id: owner.userId }, { limit });
  }

  /** Monitors whose next run is due (paused ones have no next run). */
  due(nowIso: string, limit: number): Promise<MonitorRecord[]> {
    return this.monitors.find({ next_run_at: { $lte: nowIso } }, { sort: { next_run_at: 1 }, limit });
  }

  /** Moves a monitor to its next slot, only from the slot it was on (a replica that lost the race changes nothing). */
  advance(id: string, fromSlot: string, set: { next_slot_at: string; next_run_at: string }): Promise<MonitorRecord | null> {
    return this.monitors.findOneAndUpdate({ _id: id, next_slot_at: fromSlot }, { $set: set });
  }

  /** The most failed runs in a row of any monitor (the alert's series). */
  async maxConsecutiveFailures(): Promise<number> {
    const worst = await this.monitors.findOne({ consecutive_failures: { $gt: 0 } }, { sort: { consecutive_failures: -1 } });
    return worst?.consecutive_failures ?? 0;
  }

  update(id: string, update: { $set?: Record<string, unknown>; $inc?: Record<string, number> }): Promise<MonitorRecord | null> {
    return this.monitors.findOneAndUpdate({ _id: id }, update);
  }
}
