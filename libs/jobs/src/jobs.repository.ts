import { Inject, Injectable, type OnModuleInit } from '@nestjs/common';
import { DuplicateKeyError, nowIso, type ErrorCategory } from '@app/core';
import { DOCUMENT_STORE, type Collection, type DocumentStore, type Filter, type Update } from '@app/storage';
import {
  ALL_JOB_TYPES,
  JOB_STATUSES,
  sourcesOf,
  typesOfClass,
  type JobClass,
  type JobEventName,
  type JobEventRecord,
  type JobRecord,
  type JobStatus,
} from './job.types';

/** Running-slot counter id: the user id for single-page jobs (as before crawls existed), `<user>:crawl` for crawls. */
function slotId(userId: string, jobClass: JobClass): string {
  return jobClass === 'crawl' ? `${userId}:crawl` : userId;
}

export interface Owner {
  userId: string;
}

/** The only code that touches jobs, job events and running-slot counters in the store. */
@Injectable()
export class JobsRepository implements OnModuleInit {
  private jobs!: Collection<JobRecord>;
  private events!: Collection<JobEventRecord>;
  private slots!: Collection<{ _id: string; running: number }>;

  constructor(@Inject(DOCUMENT_STORE) private readonly store: DocumentStore) {}

  async onModuleInit(): Promise<void> {
    this.jobs = await this.store.collection<JobRecord>({
      name: 'jobs',
      indexes: [
        { fields: { user_id: 1, created_at: -1 } },
        { fields: { status: 1, type: 1 } },
        // Parked jobs are looked up on every job finish: most jobs have no `parked` field, so this stays tiny.
        { fields: { parked: 1, user_id: 1, created_at: 1 } },
        { fields: { parked: 1, created_at: 1 } },
      ],
    });
    this.events = await this.store.collection<JobEventRecord>({
      name: 'job_events',
      indexes: [
        { fields: { job_id: 1, seq: 1 }, unique: true },
        // Every event has a dedupe key (its own seq unless the emitter names one): an event re-emitted
        // after a crash (a crawl page's result) is stored once.
        { fields: { job_id: 1, dedupe_key: 1 }, unique: true },
      ],
    });
    this.slots = await this.store.collection({ name: 'user_slots', indexes: [] });
  }

  insert(job: JobRecord): Promise<void> {
    return this.jobs.insertOne(job);
  }

  /**
   * The owner's job; a deleted job (DELETE /jobs/{id}) is not found. `deleted_at` is checked on the record,
   * not in the filter: a filter of string equalities is the embedded store's point lookup by key (a null
   * condition would make SQLite extract the fields from the document text), and it is one document either way.
   */
  async findOwn(owner: Owner, jobId: string): Promise<JobRecord | null> {
    const job = await this.jobs.findOne({ _id: jobId, user_id: owner.userId });
    return job && (job.deleted_at === null || job.deleted_at === undefined) ? job : null;
  }

  /** Worker-side read: the worker acts for the job's owner, whose id is on the job itself. */
  findForWorker(jobId: string): Promise<JobRecord | null> {
    return this.jobs.findOne({ _id: jobId });
  }

  listOwn(owner: Owner, limit: number, offset: number, filter: JobListFilter = {}): Promise<JobRecord[]> {
    return this.jobs.find(ownListFilter(owner, filter), { sort: { created_at: -1, _id: -1 }, limit, skip: offset });
  }

  countOwn(owner: Owner, filter: JobListFilter = {}): Promise<number> {
    return this.jobs.count(ownListFilter(owner, filter));
  }

  /** Streams the owner's jobs created in [from, to) (for usage reports; never all in memory). */
  iterateOwnCreatedBetween(owner: Owner, from: string, to: string): AsyncIterable<JobRecord> {
    return this.jobs.iterate({ user_id: owner.userId, created_at: { $gte: from, $lt: to } }, { sort: { created_at: 1 }, batchSize: 1000 });
  }

  /**
   * The one place job status changes: an atomic compare-and-set from any status that may move to
   * `to`. Returns the job before the move, or null when the move was not allowed (already terminal,
   * already running, ...).
   */
  transition(
    jobId: string,
    to: JobStatus,
    patch: Record<string, unknown> = {},
    from?: JobStatus[],
    drawEvents = 0,
    inc: Record<string, number | undefined> = {},
  ): Promise<JobRecord | null> {
    const allowed = (from ?? sourcesOf(to)).filter((s) => sourcesOf(to).includes(s));
    // `drawEvents` event seqs are drawn in the same write (the move's own events: storeDrawnEvents after it),
    // and counters `inc` added (a run's last usage, with its job's completion).
    const counters = Object.fromEntries(Object.entries(inc).filter((entry): entry is [string, number] => entry[1] !== undefined));
    if (drawEvents > 0) counters.event_seq = drawEvents;
    return this.jobs.findOneAndUpdate(
      { _id: jobId, status: { $in: allowed } },
      { $set: { ...patch, status: to }, ...(Object.keys(counters).length > 0 ? { $inc: counters } : {}) },
      { returnDocument: 'before' },
    );
  }

  update(jobId: string, update: Update): Promise<JobRecord | null> {
    return this.jobs.findOneAndUpdate({ _id: jobId }, update, { returnDocument: 'after' });
  }

  countByTypeAndStatus(): Promise<Array<{ type: string; status: string; count: number }>> {
    // Small fixed matrix of indexed counts: cheap enough at scrape time.
    return Promise.all(
      ALL_JOB_TYPES.flatMap((type) =>
        JOB_STATUSES.map(async (status) => ({ type, status, count: await this.jobs.count({ type, status }) })),
      ),
    );
  }

  /**
   * Allocates the next event sequence number of a job and stores the event under it. With
   * `onlyWhileRunning` the allocation is conditional on the job still running (one atomic step on the
   * job document, ordered against the terminal transition), and returns null otherwise. With a
   * `dedupeKey` an event already stored under that key is not stored again (null; the allocated seq
   * stays a gap, which readers skip). The key is looked up before a seq is drawn, so that a repeat
   * leaves no gap, unless the caller says it is the `firstTime` (a repeat is then refused by the
   * unique key after the draw: one read less on the hot path, a gap in the rare case).
   */
  /** Whether an event is stored under this dedupe key (it was announced, perhaps by a run whose answer was lost). */
  async hasEvent(jobId: string, dedupeKey: string): Promise<boolean> {
    return (await this.events.findOne({ job_id: jobId, dedupe_key: dedupeKey })) !== null;
  }

  async appendEvent(
    jobId: string,
    event: JobEventName,
    data: Record<string, unknown>,
    options: { dedupeKey?: string; onlyWhileRunning?: boolean; firstTime?: boolean } = {},
  ): Promise<JobEventRecord | null> {
    if (options.dedupeKey && !options.firstTime && (await this.events.findOne({ job_id: jobId, dedupe_key: options.dedupeKey })))
      return null;
    const filter: Filter = options.onlyWhileRunning ? { _id: jobId, status: 'running' } : { _id: jobId };
    for (let attempt = 1; ; attempt++) {
      const job = await this.jobs.findOneAndUpdate(filter, { $inc: { event_seq: 1 } }, { returnDocument: 'after' });
      if (!job) {
        if (options.onlyWhileRunning) return null;
        throw new Error(`job ${jobId} vanished`);
      }
      const record = eventRecord(jobId, job.event_seq, { event, data, dedupeKey: options.dedupeKey }, nowIso());
      try {
        await this.events.insertOne(record);
        return record;
      } catch (error) {
        if (!(error instanceof DuplicateKeyError)) throw error;
        // Stored under this key by another writer meanwhile: already announced.
        if (options.dedupeKey && (await this.events.findOne({ job_id: jobId, dedupe_key: options.dedupeKey }))) return null;
        // Otherwise the seq was handed out twice (a store whose counter is not atomic under concurrency,
        // such as the test stand-in): never take that for "already stored"; draw another (a gap stays).
        if (attempt >= 20) throw new Error(`no free event seq for job ${jobId} after ${attempt} attempts`);
      }
    }
  }

  /**
   * appendEvent for several events at once (a crawl owner's commit batch): the seqs of all of them drawn in
   * one write of the job, the events stored in one insert. Same rules as appendEvent, per event: with
   * `onlyWhileRunning` nothing is stored once the job is not running; an event whose `dedupeKey` is stored
   * already is not stored again (null in its place; looked up first in one read, unless every such event is
   * `firstTime`). A drawn seq found taken is never taken for "stored": the event is appended under a seq
   * drawn anew. Every writer of `event_seq` (this draw, appendEvent, a transition, a counter update) only moves
   * the counter, and every event is stored under the unique (job_id, seq) index: a post-image a store handed
   * to two concurrent draws (the test stand-in can) costs a redraw, never two events with one seq.
   */
  async appendEvents(
    jobId: string,
    events: ReadonlyArray<{ event: JobEventName; data: Record<string, unknown>; dedupeKey?: string; firstTime?: boolean }>,
    options: { onlyWhileRunning?: boolean } = {},
  ): Promise<Array<JobEventRecord | null>> {
    const out: Array<JobEventRecord | null> = events.map(() => null);
    const lookup = events.filter((e) => e.dedupeKey && !e.firstTime).map((e) => e.dedupeKey as string);
    const stored =
      lookup.length > 0
        ? new Set(
            (await this.events.find({ job_id: jobId, dedupe_key: { $in: lookup } }, { fields: ['dedupe_key'] })).map((e) => e.dedupe_key),
          )
        : new Set<string>();
    const todo = [...events.keys()].filter((i) => !(events[i].dedupeKey && stored.has(events[i].dedupeKey)));
    if (todo.length === 0) return out;
    const filter: Filter = options.onlyWhileRunning ? { _id: jobId, status: 'running' } : { _id: jobId };
    const job = await this.jobs.findOneAndUpdate(filter, { $inc: { event_seq: todo.length } }, { returnDocument: 'after' });
    if (!job) {
      if (options.onlyWhileRunning) return out;
      throw new Error(`job ${jobId} vanished`);
    }
    const first = job.event_seq - todo.length + 1;
    const now = nowIso();
    const records = todo.map((i, n) => eventRecord(jobId, first + n, events[i], now));
    const { duplicates } = await this.events.insertMany(records);
    const refused = new Set(duplicates);
    for (const [n, i] of todo.entries()) {
      const record = records[n];
      if (!refused.has(record._id)) {
        out[i] = record;
        continue;
      }
      const { event, data, dedupeKey } = events[i];
      // Stored under its key by another writer meanwhile (already announced), or its seq was taken: drawn anew.
      if (dedupeKey && (await this.events.findOne({ job_id: jobId, dedupe_key: dedupeKey }))) continue;
      out[i] = await this.appendEvent(jobId, event, data, { dedupeKey, onlyWhileRunning: options.onlyWhileRunning, firstTime: true });
    }
    return out;
  }

  /**
   * Stores events under seqs the caller drew in its own write of the job (the job's insert, a transition, a
   * counter update: `firstSeq`, `firstSeq + 1`, …), one write less per event than appendEvent. A seq found
   * taken (a store whose counter is not atomic under concurrency hands one out twice) is never taken for
   * "stored": the event is appended under a seq drawn anew; an event whose dedupe key is already stored is
   * not stored again (null in its place).
   */
  async storeDrawnEvents(
    jobId: string,
    firstSeq: number,
    events: Array<{ event: JobEventName; data: Record<string, unknown>; dedupeKey?: string }>,
  ): Promise<Array<JobEventRecord | null>> {
    const stored: Array<JobEventRecord | null> = [];
    for (const [i, { event, data, dedupeKey }] of events.entries()) {
      const seq = firstSeq + i;
      const record = eventRecord(jobId, seq, { event, data, dedupeKey }, nowIso());
      try {
        await this.events.insertOne(record);
        stored.push(record);
      } catch (error) {
        if (!(error instanceof DuplicateKeyError)) throw error;
        if (dedupeKey && (await this.events.findOne({ job_id: jobId, dedupe_key: dedupeKey }))) stored.push(null);
        else stored.push(await this.appendEvent(jobId, event, data, { dedupeKey, firstTime: true }));
      }
    }
    return stored;
  }

  /** Conditional update of a running job (counters of a crawl page): null once the job is terminal. */
  updateRunning(jobId: string, update: Update): Promise<JobRecord | null> {
    return this.jobs.findOneAndUpdate({ _id: jobId, status: 'running' }, update, { returnDocument: 'after' });
  }

  /**
   * A deleted job keeps its record (usage reports still count what it cost) without its input, marked
   * deleted: it is no longer found or listed. Its events go.
   */
  async markDeleted(jobId: string): Promise<void> {
    await this.events.deleteMany({ job_id: jobId });
    await this.jobs.findOneAndUpdate({ _id: jobId }, { $set: { deleted_at: nowIso(), input: {} } });
  }

  /** The owner's pending and running jobs (a tenant deletion cancels them). */
  unfinishedOf(owner: Owner, limit: number): Promise<JobRecord[]> {
    return this.jobs.find({ user_id: owner.userId, status: { $in: ['pending', 'running'] } }, { sort: { created_at: 1 }, limit });
  }

  /** Some of the owner's jobs, deleted ones (DELETE /jobs/{id}) included: a tenant deletion erases them all. */
  anyOf(owner: Owner, limit: number): Promise<JobRecord[]> {
    return this.jobs.find({ user_id: owner.userId }, { limit });
  }

  /** Erases a job for good, its events first (a tenant deletion; DELETE /jobs/{id} keeps the record for usage). */
  async erase(jobId: string): Promise<void> {
    await this.events.deleteMany({ job_id: jobId });
    await this.jobs.deleteOne({ _id: jobId });
  }

  /** The owner's running-slot counters (both job classes). */
  async eraseSlots(owner: Owner): Promise<number> {
    let erased = 0;
    for (const jobClass of ['single', 'crawl'] as const) if (await this.slots.deleteOne({ _id: slotId(owner.userId, jobClass) })) erased++;
    return erased;
  }

  eventsAfter(jobId: string, afterSeq: number, limit = 500): Promise<JobEventRecord[]> {
    return this.events.find({ job_id: jobId, seq: { $gt: afterSeq } }, { sort: { seq: 1 }, limit });
  }

  /** Takes one of the user's running slots of a job class unless `cap` are taken. Atomic on both backends. */
  async acquireSlot(userId: string, cap: number, jobClass: JobClass = 'single'): Promise<boolean> {
    try {
      const slot = await this.slots.findOneAndUpdate(
        { _id: slotId(userId, jobClass), running: { $lt: cap } },
        { $inc: { running: 1 } },
        { upsert: true, returnDocument: 'after' },
      );
      return slot !== null;
    } catch (error) {
      if (error instanceof DuplicateKeyError) return false; // the counter exists and is at the cap
      throw error;
    }
  }

  async releaseSlot(userId: string, jobClass: JobClass = 'single'): Promise<void> {
    await this.slots.findOneAndUpdate({ _id: slotId(userId, jobClass), running: { $gt: 0 } }, { $inc: { running: -1 } });
  }

  park(jobId: string): Promise<JobRecord | null> {
    return this.jobs.findOneAndUpdate({ _id: jobId, status: 'pending' }, { $set: { parked: true } });
  }

  /** Un-parks the oldest parked jobs (of one user, or of anyone; of one class, or of all) so they can be enqueued again. */
  async unparkOldest(userId: string | null, limit: number, jobClass?: JobClass): Promise<JobRecord[]> {
    const filter: Filter = userId ? { parked: true, user_id: userId, status: 'pending' } : { parked: true, status: 'pending' };
    if (jobClass) filter.type = { $in: typesOfClass(jobClass) };
    const candidates = await this.jobs.find(filter, { sort: { created_at: 1 }, limit });
    const woken: JobRecord[] = [];
    for (const candidate of candidates) {
      // Unset rather than false: un-parked jobs leave the parked indexes entirely.
      const job = await this.jobs.findOneAndUpdate({ _id: candidate._id, parked: true }, { $unset: { parked: true } });
      if (job) woken.push(job);
    }
    return woken;
  }

  /** Unfinished, unparked jobs created before `beforeIso` (the watchdog re-sends their queue messages). */
  unfinishedBefore(beforeIso: string, limit: number): Promise<JobRecord[]> {
    return this.jobs.find(
      { status: { $in: ['pending', 'running'] }, parked: { $ne: true }, created_at: { $lt: beforeIso } },
      { sort: { created_at: 1 }, limit },
    );
  }

  async runningSlots(userId: string, jobClass: JobClass = 'single'): Promise<number> {
    return (await this.slots.findOne({ _id: slotId(userId, jobClass) }))?.running ?? 0;
  }
}

/** What `GET /jobs` narrows the caller's jobs by (docs/api.md "Jobs"). */
export interface JobListFilter {
  status?: JobStatus;
  type?: string;
  siteId?: string;
  /** Created at or after (RFC 3339, compared as the stored UTC text). */
  since?: string;
  errorCategory?: ErrorCategory;
}

function ownListFilter(owner: Owner, filter: JobListFilter): Filter {
  return {
    user_id: owner.userId,
    deleted_at: null,
    ...(filter.status ? { status: filter.status } : {}),
    ...(filter.type ? { type: filter.type } : {}),
    // Every job type that takes a saved site keeps its id in its input.
    ...(filter.siteId ? { 'input.site_id': filter.siteId } : {}),
    ...(filter.since ? { created_at: { $gte: new Date(filter.since).toISOString() } } : {}),
    ...(filter.errorCategory ? { error_category: filter.errorCategory } : {}),
  };
}

/** A job's event record: stored under the job and its seq (zero-padded, so ids sort as seqs do); without a dedupe key, the seq is its key. */
function eventRecord(
  jobId: string,
  seq: number,
  { event, data, dedupeKey }: { event: JobEventName; data: Record<string, unknown>; dedupeKey?: string },
  createdAt: string,
): JobEventRecord {
  return {
    _id: `${jobId}:${String(seq).padStart(10, '0')}`,
    job_id: jobId,
    seq,
    event,
    data,
    dedupe_key: dedupeKey ?? `#${seq}`,
    created_at: createdAt,
  };
}
