import { Inject, Injectable, type OnModuleInit } from '@nestjs/common';
import { DuplicateKeyError } from '@app/core';
import { DOCUMENT_STORE, type Collection, type DocumentStore } from '@app/storage';
import type { MonitorRunRecord, RunStatus } from './monitor.types';

/**
 * A lock is a document whose `_id` is the thing locked: inserting it is the acquisition, on both stores
 * (a unique `_id` is the one guarantee both give under concurrency; a findOneAndUpdate on the test
 * MongoDB may hand one post-image to two writers). `until` lets a lock of a dead replica be broken.
 */
interface LockRecord {
  _id: string;
  monitor_id: string;
  run_id: string;
  until: string;
  [key: string]: unknown;
}

export const activeLockId = (monitorId: string) => `active:${monitorId}`;
export const finishLockId = (runId: string) => `finish:${runId}`;

/** The only code that touches `monitor_runs` and `monitor_locks`. */
@Injectable()
export class MonitorRunsRepository implements OnModuleInit {
  private runs!: Collection<MonitorRunRecord>;
  private locks!: Collection<LockRecord>;

  constructor(@Inject(DOCUMENT_STORE) private readonly store: DocumentStore) {}

  async onModuleInit(): Promise<void> {
    this.runs = await this.store.collection<MonitorRunRecord>({
      name: 'monitor_runs',
      indexes: [{ fields: { monitor_id: 1, created_at: -1 } }, { fields: { status: 1 } }, { fields: { job_id: 1 } }],
    });
    this.locks = await this.store.collection<LockRecord>({ name: 'monitor_locks', indexes: [{ fields: { monitor_id: 1 } }] });
  }

  /** The claim of a run: false when this run (`<monitor>:<slot>`) exists already. */
  async claim(run: MonitorRunRecord): Promise<boolean> {
    try {
      await this.runs.insertOne(run);
      return true;
    } catch (error) {
      if (error instanceof DuplicateKeyError) return false;
      throw error;
    }
  }

  find(id: string): Promise<MonitorRunRecord | null> {
    return this.runs.findOne({ _id: id });
  }

  findByJob(jobId: string): Promise<MonitorRunRecord | null> {
    return this.runs.findOne({ job_id: jobId });
  }

  list(monitorId: string, limit: number, offset: number): Promise<MonitorRunRecord[]> {
    return this.runs.find({ monitor_id: monitorId }, { sort: { created_at: -1, _id: -1 }, limit, skip: offset });
  }

  count(monitorId: string): Promise<number> {
    return this.runs.count({ monitor_id: monitorId });
  }

  withStatus(status: RunStatus, limit: number): Promise<MonitorRunRecord[]> {
    return this.runs.find({ status }, { sort: { created_at: 1 }, limit });
  }

  set(id: string, set: Partial<MonitorRunRecord>): Promise<MonitorRunRecord | null> {
    return this.runs.findOneAndUpdate({ _id: id }, { $set: set });
  }

  /** Takes a lock for `untilIso`; false when someone holds it. */
  async lock(id: string, monitorId: string, runId: string, untilIso: string): Promise<boolean> {
    try {
      await this.locks.insertOne({ _id: id, monitor_id: monitorId, run_id: runId, until: untilIso });
      return true;
    } catch (error) {
      if (error instanceof DuplicateKeyError) return false;
      throw error;
    }
  }

  lockHolder(id: string): Promise<LockRecord | null> {
    return this.locks.findOne({ _id: id });
  }

  /** Releases a lock only if `runId` still holds it. */
  unlock(id: string, runId: string): Promise<boolean> {
    return this.locks.deleteOne({ _id: id, run_id: runId });
  }

  async deleteMonitor(monitorId: string): Promise<void> {
    await this.runs.deleteMany({ monitor_id: monitorId });
    await this.locks.deleteMany({ monitor_id: monitorId });
  }
}
