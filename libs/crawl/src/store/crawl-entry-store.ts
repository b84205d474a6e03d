import { DuplicateKeyError } from '@app/core';
import type { Collection, Filter } from '@app/storage';
import type { CrawlEntry, EntryStatus } from '../crawl.types';

/**
 * The owner's side of a crawl's entries (`crawl_entries`): the frontier's inserts and refills, admission's
 * claims (fenced by the unique ticket index), the committer's settles (fenced by the owner's epoch), the
 * closer's last writes and the announcements' markers. Reads for counts and the crawl map are CrawlMapReads'.
 */
export class CrawlEntryStore {
  constructor(private readonly entries: Collection<CrawlEntry>) {}

  /** Inserts new entries; returns the ids that were already there (another spelling of a known URL, a replay). */
  async insertEntries(entries: CrawlEntry[]): Promise<Set<string>> {
    if (entries.length === 0) return new Set();
    const { duplicates } = await this.entries.insertMany(entries);
    return new Set(duplicates);
  }

  entry(id: string): Promise<CrawlEntry | null> {
    return this.entries.findOne({ _id: id });
  }

  /**
   * pending → running for this owner. `ticket` admits it (a number); a ticket already taken by
   * another owner raises 'ticket-taken' (this owner is stale). Null when the entry is no longer pending.
   */
  async claim(id: string, epoch: number, set: Partial<CrawlEntry>): Promise<CrawlEntry | 'ticket-taken' | null> {
    try {
      return await this.entries.findOneAndUpdate(
        { _id: id, status: 'pending' },
        { $set: { ...set, status: 'running', lease_epoch: epoch } },
      );
    } catch (error) {
      if (error instanceof DuplicateKeyError) return 'ticket-taken';
      throw error;
    }
  }

  /**
   * claim for several entries in one request (owner/claim-batch.ts): each pending → running for this owner with its
   * fields. Per entry: true when this call claimed it, false when it was no longer pending. When fewer than all
   * matched, the entries are read back to tell which (a claimed one is running under `epoch` with the ticket asked
   * for). Throws DuplicateKeyError when a ticket is another entry's (this owner is stale; which of the others were
   * claimed is then not defined).
   */
  async claimMany(epoch: number, items: ReadonlyArray<{ id: string; set: Partial<CrawlEntry> }>): Promise<boolean[]> {
    if (items.length === 0) return [];
    const matched = await this.entries.updateEach(
      items.map((i) => ({
        filter: { _id: i.id, status: 'pending' },
        update: { $set: { ...i.set, status: 'running', lease_epoch: epoch } },
      })),
    );
    if (matched === items.length) return items.map(() => true);
    const now = new Map((await this.entries.find({ _id: { $in: items.map((i) => i.id) } })).map((e) => [e._id, e]));
    return items.map((i) => {
      const e = now.get(i.id);
      return (
        e !== undefined && e.status === 'running' && e.lease_epoch === epoch && (i.set.ticket === undefined || e.ticket === i.set.ticket)
      );
    });
  }

  /** Takeover: every running entry now belongs to this epoch (a stale owner's commits on them fail). */
  adoptRunning(jobId: string, epoch: number): Promise<number> {
    return this.entries.updateMany({ job_id: jobId, status: 'running' }, { $set: { lease_epoch: epoch } });
  }

  /** running → another status (completed, failed, pending again), only for the owner of `epoch`. */
  settle(
    id: string,
    epoch: number,
    status: EntryStatus,
    set: Partial<CrawlEntry>,
    inc?: Record<string, number>,
  ): Promise<CrawlEntry | null> {
    return this.entries.findOneAndUpdate(
      { _id: id, status: 'running', lease_epoch: epoch },
      { $set: { ...set, status }, ...(inc ? { $inc: inc } : {}) },
      { returnDocument: 'after' },
    );
  }

  /**
   * settle for several entries in one request (a commit batch, owner/commit-batch.ts): each running (this
   * epoch) → its status; returns how many were settled (fewer than asked: this owner is stale).
   */
  settleMany(epoch: number, items: ReadonlyArray<{ id: string; status: EntryStatus; set: Partial<CrawlEntry> }>): Promise<number> {
    return this.entries.updateEach(
      items.map((i) => ({
        filter: { _id: i.id, status: 'running', lease_epoch: epoch },
        update: { $set: { ...i.set, status: i.status } },
      })),
    );
  }

  /** pending → skipped (a pending entry the crawl will not fetch: duplicate of a redirect target, robots). */
  skipPending(id: string, set: Partial<CrawlEntry>): Promise<CrawlEntry | null> {
    return this.entries.findOneAndUpdate({ _id: id, status: 'pending' }, { $set: { ...set, status: 'skipped' } });
  }

  /** Changes a skipped entry: why it was skipped (a URL recorded as too deep, then fetched as a redirect target), a copied result. */
  relabelSkipped(id: string, set: Partial<CrawlEntry>): Promise<CrawlEntry | null> {
    return this.entries.findOneAndUpdate({ _id: id, status: 'skipped' }, { $set: set });
  }

  /** Closes every entry of these statuses (end of a crawl, cancel): returns how many. */
  closeAll(jobId: string, statuses: EntryStatus[], set: Partial<CrawlEntry>, onlyUnadmitted = false): Promise<number> {
    const filter: Filter = { job_id: jobId, status: { $in: statuses } };
    if (onlyUnadmitted) filter.admitted = false;
    return this.entries.updateMany(filter, { $set: { ...set, status: 'skipped' } });
  }

  markAnnounced(id: string): Promise<unknown> {
    return this.entries.findOneAndUpdate({ _id: id }, { $set: { event_done: true } });
  }

  /** Entries done but not yet announced (a crash between the commit and the events). */
  unannounced(jobId: string): Promise<CrawlEntry[]> {
    return this.entries.find({ job_id: jobId, event_done: false, status: { $in: ['completed', 'failed'] } }, { sort: { seq: 1 } });
  }

  pendingAfter(jobId: string, afterSeq: number, limit: number): Promise<CrawlEntry[]> {
    return this.entries.find({ job_id: jobId, status: 'pending', seq: { $gt: afterSeq } }, { sort: { seq: 1 }, limit });
  }

  /**
   * Pending entries wherever they sit in discovery order (the last look before a crawl ends);
   * `admittedOnly` once max_pages is reached (the others will never be fetched).
   */
  pendingAnywhere(jobId: string, admittedOnly: boolean, limit: number): Promise<CrawlEntry[]> {
    return this.entries.find(
      { job_id: jobId, status: 'pending', ...(admittedOnly ? { admitted: true } : {}) },
      { sort: { seq: 1 }, limit },
    );
  }

  /** How many entries pendingAnywhere could find (the owner's look behind its window, owner/frontier.ts lookBehind). */
  countPending(jobId: string, admittedOnly: boolean): Promise<number> {
    return this.entries.count({ job_id: jobId, status: 'pending', ...(admittedOnly ? { admitted: true } : {}) });
  }

  running(jobId: string): Promise<CrawlEntry[]> {
    return this.entries.find({ job_id: jobId, status: 'running' }, { sort: { seq: 1 } });
  }

  /**
   * Keys, statuses and tickets of every entry (takeover: the seen-set and the tickets in use), streamed in
   * discovery order: the (job_id, seq) index's order, which each batch seeks into. Unsorted (the store's own
   * order), the embedded store sorted every batch of a big crawl anew (bench:takeover). The key is the entry's
   * id past `<job id>:` (owner/crawl-entry.ts `entryId`), so no field is read from the documents' text.
   */
  async *iterateKeys(jobId: string): AsyncIterable<Pick<CrawlEntry, '_id' | 'key' | 'status' | 'ticket' | 'seq'>> {
    const prefix = `${jobId}:`;
    const entries = this.entries.iterate({ job_id: jobId }, { sort: { seq: 1 }, fields: ['status', 'ticket', 'seq'], batchSize: 2000 });
    for await (const e of entries as AsyncIterable<Pick<CrawlEntry, '_id' | 'key' | 'status' | 'ticket' | 'seq'>>) {
      if (!e._id.startsWith(prefix)) throw new Error(`crawl entry ${e._id} of job ${jobId}: its id is not <job id>:<key>`);
      e.key = e._id.slice(prefix.length);
      yield e;
    }
  }

  /** Every entry of a job (its deletion, DELETE /jobs/{id}). */
  async deleteEntries(jobId: string): Promise<void> {
    await this.entries.deleteMany({ job_id: jobId });
  }
}
