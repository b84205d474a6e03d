import { Inject, Injectable, type OnModuleInit } from '@nestjs/common';
import { DuplicateKeyError, nowIso } from '@app/core';
import { DOCUMENT_STORE, type Collection, type DocumentStore, type Filter, type Update } from '@app/storage';
import type { ReextractOnly } from './crawl-input';
import {
  LIST_CHUNK_SIZE,
  type CrawlEntry,
  type CrawlStateRecord,
  type EntryStatus,
  type ListChunkRecord,
  type OutcomeRecord,
} from './crawl.types';
import type { StoredPageOutcome } from './stored-outcome';

export interface Owner {
  userId: string;
}

const iso = (ms: number) => new Date(ms).toISOString();

/**
 * The only code that touches a crawl's store state: `crawl_state` (ownership, admission),
 * `crawl_entries` (the map and the frontier) and `crawl_outcomes` (what page workers report).
 * Every write of the owning actor is conditional on its ownership epoch, so a stale owner's
 * writes are refused; entry admission is fenced by the unique ticket index.
 */
@Injectable()
export class CrawlRepository implements OnModuleInit {
  private states!: Collection<CrawlStateRecord>;
  private entries!: Collection<CrawlEntry>;
  private outcomes!: Collection<OutcomeRecord>;
  private lists!: Collection<ListChunkRecord>;

  constructor(@Inject(DOCUMENT_STORE) private readonly store: DocumentStore) {}

  async onModuleInit(): Promise<void> {
    this.states = await this.store.collection<CrawlStateRecord>({ name: 'crawl_state', indexes: [] });
    this.entries = await this.store.collection<CrawlEntry>({
      name: 'crawl_entries',
      indexes: [
        { fields: { job_id: 1, seq: 1 } },
        { fields: { job_id: 1, status: 1, seq: 1 } },
        // The crawl map's per-method counts of completed pages, without reading every completed entry.
        { fields: { job_id: 1, status: 1, method: 1 } },
        { fields: { job_id: 1, ticket: 1 }, unique: true },
        { fields: { job_id: 1, event_done: 1, status: 1 } },
        // The crawl map's has_rate_limit count, without scanning a big crawl's entries.
        { fields: { job_id: 1, rate_limited: 1 } },
        // The crawl map's pages with ungrounded values (count and `ungrounded=true`).
        { fields: { job_id: 1, ungrounded_fields: 1 } },
        // The crawl map's pages with incomplete lists (count and `list_incomplete=true`).
        { fields: { job_id: 1, items_missing: 1 } },
      ],
    });
    this.outcomes = await this.store.collection<OutcomeRecord>({ name: 'crawl_outcomes', indexes: [{ fields: { job_id: 1 } }] });
    this.lists = await this.store.collection<ListChunkRecord>({ name: 'batch_lists', indexes: [{ fields: { list_id: 1, chunk: 1 } }] });
  }

  // ---- batch URL lists ----

  /** Stores a batch's URL list (canonical, distinct) in chunks, before its job exists; returns the chunk count. */
  async storeList(listId: string, userId: string, urls: string[]): Promise<number> {
    const now = nowIso();
    const chunks: ListChunkRecord[] = [];
    for (let start = 0, chunk = 0; start < urls.length; start += LIST_CHUNK_SIZE, chunk++) {
      chunks.push({
        _id: `${listId}:${chunk}`,
        list_id: listId,
        user_id: userId,
        chunk,
        start,
        urls: urls.slice(start, start + LIST_CHUNK_SIZE),
        created_at: now,
      });
    }
    for (let i = 0; i < chunks.length; i += 20) await this.lists.insertMany(chunks.slice(i, i + 20));
    return chunks.length;
  }

  /** Chunk `chunk` of a list, or null past its end. */
  listChunk(listId: string, chunk: number): Promise<ListChunkRecord | null> {
    return this.lists.findOne({ _id: `${listId}:${chunk}` });
  }

  /** A list every URL of which is in the crawl's frontier: no longer needed. */
  async dropList(listId: string): Promise<void> {
    await this.lists.deleteMany({ list_id: listId });
  }

  /** Every URL list of the owner, also one whose batch never got a job (its deletion). */
  deleteListsOf(owner: { userId: string }): Promise<number> {
    return this.lists.deleteMany({ user_id: owner.userId });
  }

  // ---- state and ownership ----

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

  // ---- entries ----

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

  /**
   * A re-extraction's source pages: entries of `jobId` that were fetched (completed, or failed: their
   * fetch or their extraction; `only` failed: those; `only` ungrounded: those with a value not found on
   * the page, docs/provenance.md), after `afterSeq` in discovery order (owner/archive-seeding.ts).
   */
  fetchedAfter(
    jobId: string,
    only: ReextractOnly,
    afterSeq: number,
    limit: number,
  ): Promise<Array<Pick<CrawlEntry, '_id' | 'url' | 'seq'>>> {
    return this.entries.find({ ...sourceFilter(jobId, only), seq: { $gt: afterSeq } }, { sort: { seq: 1 }, limit, fields: ['url', 'seq'] });
  }

  /** How many pages fetchedAfter gives in all. */
  countFetched(jobId: string, only: ReextractOnly): Promise<number> {
    return this.entries.count(sourceFilter(jobId, only));
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

  /** Usage of done entries (recounts of the job's counters), streamed in discovery order (as iterateKeys). */
  iterateDone(jobId: string): AsyncIterable<CrawlEntry> {
    return this.entries.iterate(
      { job_id: jobId, status: { $in: ['completed', 'failed'] } },
      {
        sort: { seq: 1 },
        fields: [
          'status',
          'error_category',
          'token_usage_input',
          'token_usage_output',
          'cost_usd',
          'result_id',
          'rate_limited',
          'method',
          'model_call',
          'ungrounded_fields',
        ],
        batchSize: 2000,
      },
    );
  }

  countEntries(jobId: string, status?: EntryStatus | EntryStatus[]): Promise<number> {
    const filter: Filter = { job_id: jobId };
    if (typeof status === 'string') filter.status = status;
    else if (status) filter.status = { $in: status };
    return this.entries.count(filter);
  }

  /** Completed pages extracted by `method` (`model`, or `selectors` and `mixed` under extraction_mode auto). */
  countByMethod(jobId: string, method: 'model' | 'selectors' | 'mixed' | 'scrape'): Promise<number> {
    return this.entries.count({ job_id: jobId, status: 'completed', method });
  }

  /**
   * A job's pages skipped as duplicates after their fetch, by reason, and those of them that would have been extracted
   * (a model call saved when the job calls a model; a redirect's page was extracted before it was found). docs/dedup.md.
   */
  async countDuplicates(jobId: string): Promise<{ byReason: Record<string, number>; beforeModel: number }> {
    const byReason: Record<string, number> = {};
    for (const reason of ['canonical', 'exact', 'near', 'redirect'])
      byReason[reason] = await this.entries.count({ job_id: jobId, status: 'skipped', duplicate_reason: reason });
    const beforeModel = await this.entries.count({
      job_id: jobId,
      status: 'skipped',
      duplicate_reason: { $in: ['canonical', 'exact', 'near'] },
      extract: true,
    });
    return { byReason, beforeModel };
  }

  /** A job's pages skipped as duplicates of another of its pages (`copy_duplicates`: docs/dedup.md), streamed. */
  iterateDuplicates(jobId: string): AsyncIterable<CrawlEntry> {
    return this.entries.iterate(
      { job_id: jobId, status: 'skipped', duplicate_reason: { $in: ['canonical', 'exact', 'near', 'redirect'] } },
      { sort: { seq: 1 }, batchSize: 500 },
    );
  }

  countUnadmittedPending(jobId: string): Promise<number> {
    return this.entries.count({ job_id: jobId, status: 'pending', admitted: false });
  }

  countRateLimited(jobId: string): Promise<number> {
    return this.entries.count({ job_id: jobId, rate_limited: true });
  }

  /** Pages with at least one value not found on the page (docs/provenance.md). */
  countUngrounded(jobId: string): Promise<number> {
    return this.entries.count({ job_id: jobId, ungrounded_fields: { $gt: 0 } });
  }

  countListIncomplete(jobId: string): Promise<number> {
    return this.entries.count({ job_id: jobId, items_missing: { $gt: 0 } });
  }

  /** The crawl map's entries in discovery order, streamed (owner-scoped). */
  iterateMap(
    owner: Owner,
    jobId: string,
    options: { status?: EntryStatus; ungrounded?: boolean; listIncomplete?: boolean; skip?: number; limit?: number },
  ): AsyncIterable<CrawlEntry> {
    const filter: Filter = { job_id: jobId, user_id: owner.userId };
    if (options.status) filter.status = options.status;
    if (options.ungrounded) filter.ungrounded_fields = { $gt: 0 };
    if (options.listIncomplete) filter.items_missing = { $gt: 0 };
    return this.entries.iterate(filter, { sort: { seq: 1 }, skip: options.skip, limit: options.limit, batchSize: 500 });
  }

  // ---- page outcomes ----

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

  doneOutcomes(taskIds: string[]): Promise<OutcomeRecord[]> {
    if (taskIds.length === 0) return Promise.resolve([]);
    return this.outcomes.find({ _id: { $in: taskIds }, done: true });
  }

  outcome(taskId: string): Promise<OutcomeRecord | null> {
    return this.outcomes.findOne({ _id: taskId });
  }

  async dropOutcome(taskId: string): Promise<void> {
    await this.outcomes.deleteOne({ _id: taskId });
  }

  async dropOutcomes(jobId: string): Promise<void> {
    await this.outcomes.deleteMany({ job_id: jobId });
  }

  /** Everything the crawl engine keeps of a finished job (DELETE /jobs/{id}): its map, state, outcomes. */
  async deleteJob(jobId: string): Promise<void> {
    await this.entries.deleteMany({ job_id: jobId });
    await this.outcomes.deleteMany({ job_id: jobId });
    await this.states.deleteOne({ _id: jobId });
  }
}

/** The entries of a job a re-extraction with `only` reads (one definition for the count and the seeding). */
function sourceFilter(jobId: string, only: ReextractOnly): Filter {
  const filter: Filter = { job_id: jobId, status: { $in: only === 'failed' ? ['failed'] : ['completed', 'failed'] }, extract: true };
  if (only === 'ungrounded') filter.ungrounded_fields = { $gt: 0 };
  return filter;
}

/** The counts a page task's run changes: its deliveries, and its runs alone when it ran alone. */
function runCounts(alone: boolean, by: 1 | -1): Record<string, number> {
  return alone ? { deliveries: by, alone_runs: by } : { deliveries: by };
}
