import { DuplicateKeyError, nowIso } from '@app/core';
import type { Collection, Update } from '@app/storage';
import type { CrawlStateRecord } from '../crawl.types';

const iso = (ms: number) => new Date(ms).toISOString();

/**
 * A crawl's state (`crawl_state`): its ownership lease and epoch, its admission counter (the tickets) and its
 * flags and counters. Every write of the owning actor is conditional on its epoch, so a stale owner's writes
 * are refused.
 */
export class CrawlStateStore {
  constructor(private readonly states: Collection<CrawlStateRecord>) {}

  async ensureState(jobId: string, userId: string): Promise<void> {
    const now = nowIso();
    try {
      await this.states.findOneAndUpdate(
        { _id: jobId },
        {
          $setOnInsert: {
            job_id: jobId,
            user_id: userId,
            owner: null,
            epoch: 0,
            lease_until: '',
            admitted: 0,
            seed_done: false,
            sitemap_done: false,
            list_chunks_done: 0,
            met_rate_limit: false,
            budget_stopped: false,
            errors_by_category: {},
            skipped_by_reason: {},
            skipped_recorded: 0,
            finalized: false,
            created_at: now,
            updated_at: now,
          },
        },
        { upsert: true },
      );
    } catch (error) {
      if (!(error instanceof DuplicateKeyError)) throw error; // lost an upsert race: it exists
    }
  }

  state(jobId: string): Promise<CrawlStateRecord | null> {
    return this.states.findOne({ _id: jobId });
  }

  /**
   * Takes ownership when the lease is free or expired (or already ours), with a new epoch. Returns the
   * state as it was before (its `epoch` + 1 is the new owner's epoch, its `owner` the previous one);
   * null when another live owner holds it.
   */
  async acquire(jobId: string, worker: string, leaseMs: number, nowMs = Date.now()): Promise<CrawlStateRecord | null> {
    const update: Update = { $inc: { epoch: 1 }, $set: { owner: worker, lease_until: iso(nowMs + leaseMs), updated_at: iso(nowMs) } };
    return (
      (await this.states.findOneAndUpdate({ _id: jobId, lease_until: { $lt: iso(nowMs) } }, update, { returnDocument: 'before' })) ??
      (await this.states.findOneAndUpdate({ _id: jobId, owner: worker }, update, { returnDocument: 'before' }))
    );
  }

  /** Extends the lease; false when the epoch moved on (someone took over). */
  async renew(jobId: string, epoch: number, leaseMs: number, nowMs = Date.now()): Promise<boolean> {
    const renewed = await this.states.findOneAndUpdate(
      { _id: jobId, epoch },
      { $set: { lease_until: iso(nowMs + leaseMs), updated_at: iso(nowMs) } },
    );
    return renewed !== null;
  }

  /** Gives the crawl up at once (shutdown hand-back): the next worker need not wait for the lease to run out. */
  async release(jobId: string, epoch: number): Promise<void> {
    await this.states.findOneAndUpdate({ _id: jobId, epoch }, { $set: { lease_until: '', owner: null, updated_at: nowIso() } });
  }

  /**
   * Reserves `count` more admission tickets (max_pages): true when the counter moved, false when fewer than
   * `count` are left or the epoch is stale. Which numbers they are, the owner knows: it is the counter's only
   * writer (fenced by its epoch). The post-image is not used for that: a store may return one post-image to
   * two concurrent increments (the MongoDB-wire test server does), while the increments stay atomic.
   */
  async reserveTickets(jobId: string, epoch: number, count: number, max: number): Promise<boolean> {
    const state = await this.states.findOneAndUpdate(
      { _id: jobId, epoch, admitted: { $lte: max - count } },
      { $inc: { admitted: count } },
      { returnDocument: 'before' },
    );
    return state !== null;
  }

  /** Fenced update of the crawl state (flags, counters): false when the epoch is stale. */
  async updateState(jobId: string, epoch: number, update: Update): Promise<boolean> {
    const done = await this.states.findOneAndUpdate(
      { _id: jobId, epoch },
      { ...update, $set: { ...(update.$set ?? {}), updated_at: nowIso() } },
    );
    return done !== null;
  }

  /** Unfenced state update (the clean-up of a crawl that ended; counters only). */
  async bumpState(jobId: string, update: Update): Promise<void> {
    await this.states.findOneAndUpdate({ _id: jobId }, update);
  }

  /** Marks the crawl finalized once (any owner, or the cleanup of a crawl whose owner died). */
  async markFinalized(jobId: string): Promise<boolean> {
    await this.states.findOneAndUpdate({ _id: jobId }, { $unset: { sealed_secrets: true } });
    return (
      (await this.states.findOneAndUpdate({ _id: jobId, finalized: false }, { $set: { finalized: true, updated_at: nowIso() } })) !== null
    );
  }

  /** Keeps the crawl's sealed request secrets for later owners (the first owner that has them stores them). */
  async keepSecrets(jobId: string, sealed: string): Promise<void> {
    await this.states.findOneAndUpdate(
      { _id: jobId, finalized: false, sealed_secrets: { $exists: false } },
      { $set: { sealed_secrets: sealed } },
    );
  }

  /** The crawl's state, when the job is deleted (DELETE /jobs/{id}). */
  async deleteState(jobId: string): Promise<void> {
    await this.states.deleteOne({ _id: jobId });
  }
}
