import { Inject, Injectable, type OnModuleInit } from '@nestjs/common';
import { DuplicateKeyError } from '@app/core';
import { DOCUMENT_STORE, type Collection, type DocumentStore, type Filter } from '@app/storage';
import type { CaptureRecord, ResultRecord } from './result.types';

export interface Owner {
  userId: string;
}

/** Rows per store round-trip when exporting: bounds what an export holds in memory at once. */
export const EXPORT_BATCH_SIZE = 200;

/**
 * The only code that touches job results, their per-job sequence counters and debug captures.
 * Reads are scoped by the owner; writes carry the owner taken from the job record.
 */
@Injectable()
export class ResultsRepository implements OnModuleInit {
  private results!: Collection<ResultRecord>;
  private counters!: Collection<{ _id: string; seq: number }>;
  private captures!: Collection<CaptureRecord>;

  constructor(@Inject(DOCUMENT_STORE) private readonly store: DocumentStore) {}

  async onModuleInit(): Promise<void> {
    this.results = await this.store.collection<ResultRecord>({
      name: 'job_results',
      indexes: [
        { fields: { job_id: 1, seq: 1 }, unique: true },
        // The results read, scoped by owner without reading the job (GET /jobs/{id}/results): every field of its
        // filter and its order in one index (and, embedded, in columns: no document text read to filter).
        { fields: { job_id: 1, user_id: 1, seq: 1 } },
        // One item by its public id (GET /jobs/{id}/results/{result_id}/page).
        { fields: { job_id: 1, id: 1 } },
      ],
    });
    this.counters = await this.store.collection({ name: 'job_result_counters', indexes: [] });
    this.captures = await this.store.collection<CaptureRecord>({
      name: 'debug_captures',
      indexes: [{ fields: { job_id: 1, id: 1 } }],
    });
  }

  /** Allocates the next result sequence number of a job (atomic on both backends). */
  async nextSeq(jobId: string): Promise<number> {
    const counter = await this.counters.findOneAndUpdate({ _id: jobId }, { $inc: { seq: 1 } }, { upsert: true, returnDocument: 'after' });
    if (!counter) throw new Error(`result counter of job ${jobId} could not be allocated`);
    return counter.seq;
  }

  /** Allocates the next `count` result sequence numbers of a job in one write; returns the first. */
  async nextSeqs(jobId: string, count: number): Promise<number> {
    const counter = await this.counters.findOneAndUpdate(
      { _id: jobId },
      { $inc: { seq: count } },
      { upsert: true, returnDocument: 'after' },
    );
    if (!counter) throw new Error(`result counter of job ${jobId} could not be allocated`);
    return counter.seq - count + 1;
  }

  /** Inserts records independently; returns the `_id`s refused (the `_id` or the (job_id, seq) taken). */
  async insertMany(records: readonly ResultRecord[]): Promise<Set<string>> {
    return new Set((await this.results.insertMany(records)).duplicates);
  }

  /** The records stored under these `_id`s (the others are not stored). */
  findByIds(ids: readonly string[]): Promise<ResultRecord[]> {
    if (ids.length === 0) return Promise.resolve([]);
    return this.results.find({ _id: { $in: [...ids] } });
  }

  insert(record: ResultRecord): Promise<void> {
    return this.results.insertOne(record);
  }

  findById(id: string): Promise<ResultRecord | null> {
    return this.results.findOne({ _id: id });
  }

  /**
   * Inserts unless a record with this `_id` exists: `inserted`, or the existing record, or `seq-taken`
   * when the collision was on the other unique key (job_id, seq): the caller takes a new seq and tries again.
   */
  async insertOnce(record: ResultRecord): Promise<'inserted' | 'seq-taken' | ResultRecord> {
    try {
      await this.results.insertOne(record);
      return 'inserted';
    } catch (error) {
      if (!(error instanceof DuplicateKeyError)) throw error;
      return (await this.results.findOne({ _id: record._id })) ?? 'seq-taken';
    }
  }

  /**
   * Streams a job's results in sequence order, in batches (never all in memory). `upToSeq` pins the
   * set for multi-pass exports of a job that is still running. Each batch is one query of the next
   * seqs (seq is unique per job: the (job_id, seq) index orders and bounds it), so the usual export,
   * within one batch, is a single plain query (cheaper on SQLite than the store's generic cursor).
   */
  async *iterateOwn(owner: Owner, jobId: string, options: { upToSeq?: number; onlyCompleted?: boolean } = {}): AsyncIterable<ResultRecord> {
    let after: number | null = null;
    for (;;) {
      const seq: Record<string, number> = {};
      if (after !== null) seq.$gt = after;
      if (options.upToSeq !== undefined) seq.$lte = options.upToSeq;
      const filter: Filter = { job_id: jobId, user_id: owner.userId };
      if (Object.keys(seq).length > 0) filter.seq = seq;
      if (options.onlyCompleted) filter.status = 'completed';
      const batch = await this.results.find(filter, { sort: { seq: 1 }, limit: EXPORT_BATCH_SIZE });
      yield* batch;
      if (batch.length < EXPORT_BATCH_SIZE) return;
      after = batch[batch.length - 1].seq;
    }
  }

  /**
   * One page of a job's completed results in sequence order (`skip` results passed over, at most `limit`),
   * and whether more follow: the paged reads of the Firecrawl-compatible API (docs/firecrawl.md "Status").
   */
  async pageOwn(owner: Owner, jobId: string, skip: number, limit: number): Promise<{ records: ResultRecord[]; more: boolean }> {
    const records = await this.results.find(
      { job_id: jobId, user_id: owner.userId, status: 'completed' },
      { sort: { seq: 1 }, skip, limit: limit + 1 },
    );
    return { records: records.slice(0, limit), more: records.length > limit };
  }

  /** One result of the owner's job by its public id. */
  findOwnItem(owner: Owner, jobId: string, resultId: string): Promise<ResultRecord | null> {
    return this.results.findOne({ job_id: jobId, id: resultId, user_id: owner.userId });
  }

  /** Deletes a job's results, their sequence counter and its debug captures (DELETE /jobs/{id}). */
  async deleteJob(jobId: string): Promise<void> {
    await this.results.deleteMany({ job_id: jobId });
    await this.captures.deleteMany({ job_id: jobId });
    await this.counters.deleteOne({ _id: jobId });
  }

  /**
   * The answer of a one-page job: its first completed result, else its first result. A run that failed after
   * storing its page's failure and was retried stores the completed page after it (the retry's seq is later), and
   * the answer is that page, not the failure. Two plain queries rather than one sorted on status: the usual answer
   * is the first query alone, and the store reads only this job's results (the (job_id, user_id, seq) index).
   */
  async firstOwn(owner: Owner, jobId: string): Promise<ResultRecord | null> {
    const filter = { job_id: jobId, user_id: owner.userId };
    const completed = await this.results.findOne({ ...filter, status: 'completed' }, { sort: { seq: 1 } });
    return completed ?? this.results.findOne(filter, { sort: { seq: 1 } });
  }

  insertCapture(record: CaptureRecord): Promise<void> {
    return this.captures.insertOne(record);
  }

  iterateCaptures(owner: Owner, jobId: string): AsyncIterable<CaptureRecord> {
    return this.captures.iterate({ job_id: jobId, user_id: owner.userId }, { sort: { id: 1 }, batchSize: 50 });
  }
}
