import { Inject, Injectable, type OnModuleInit } from '@nestjs/common';
import { DuplicateKeyError } from '@app/core';
import { DOCUMENT_STORE, type Collection, type DocumentStore } from '@app/storage';
import { WEBHOOK_DELIVERIES, type DeliveryRecord } from '../webhooks.repository';

/** One event to deliver to one target of one job; attempts are DeliveryRecords. */
export interface OutboxItem {
  /** `<job_id>:<target_key>:<seq>`: also the Standard Webhooks message id. */
  _id: string;
  stream: string;
  job_id: string;
  user_id: string;
  target_key: string;
  webhook_id: string | null;
  seq: number;
  /** Unique per stream: the event's dedupe key (a crawl page) or its own seq. */
  dedupe_key: string;
  event_type: string;
  body: string;
  status: 'pending' | 'retrying' | 'success' | 'failed';
  attempts: number;
  next_at: string;
  created_at: string;
  [key: string]: unknown;
}

/** A delivery stream = the events of one job for one target, delivered strictly in order. */
interface StreamRecord {
  _id: string;
  next_seq: number;
  locked_until: string;
  [key: string]: unknown;
}

@Injectable()
export class OutboxRepository implements OnModuleInit {
  private outbox!: Collection<OutboxItem>;
  private streams!: Collection<StreamRecord>;
  private deliveries!: Collection<DeliveryRecord>;

  constructor(@Inject(DOCUMENT_STORE) private readonly store: DocumentStore) {}

  async onModuleInit(): Promise<void> {
    this.outbox = await this.store.collection<OutboxItem>({
      name: 'webhook_outbox',
      indexes: [
        { fields: { stream: 1, seq: 1 } },
        { fields: { status: 1, next_at: 1 } },
        { fields: { stream: 1, dedupe_key: 1 }, unique: true },
      ],
    });
    this.streams = await this.store.collection<StreamRecord>({ name: 'webhook_streams', indexes: [] });
    this.deliveries = await this.store.collection<DeliveryRecord>(WEBHOOK_DELIVERIES);
  }

  /** Next sequence number of a stream (atomic). */
  async nextSeq(stream: string): Promise<number> {
    try {
      const doc = await this.streams.findOneAndUpdate(
        { _id: stream },
        { $inc: { next_seq: 1 }, $setOnInsert: { locked_until: '' } },
        { upsert: true, returnDocument: 'after' },
      );
      return doc!.next_seq;
    } catch (error) {
      if (error instanceof DuplicateKeyError) return this.nextSeq(stream); // lost an upsert race
      throw error;
    }
  }

  /** Stores an item; false when the stream already holds its dedupe key (a page announced again after a crash). */
  async insertOnce(item: OutboxItem): Promise<boolean> {
    try {
      await this.outbox.insertOne(item);
      return true;
    } catch (error) {
      if (error instanceof DuplicateKeyError) return false;
      throw error;
    }
  }

  async hasKey(stream: string, dedupeKey: string): Promise<boolean> {
    return (await this.outbox.findOne({ stream, dedupe_key: dedupeKey })) !== null;
  }

  /** The stream's lock (a lease): one pump delivers a stream at a time, so events go out in order. */
  async lock(stream: string, untilIso: string, nowIso: string): Promise<boolean> {
    const locked = await this.streams.findOneAndUpdate(
      { _id: stream, locked_until: { $lt: nowIso } },
      { $set: { locked_until: untilIso } },
    );
    return locked !== null;
  }

  async renew(stream: string, untilIso: string): Promise<void> {
    await this.streams.findOneAndUpdate({ _id: stream }, { $set: { locked_until: untilIso } });
  }

  /** When the current lease of a stream ends (ms since epoch), or 0 when it is free. */
  async lockedUntil(stream: string): Promise<number> {
    const doc = await this.streams.findOne({ _id: stream });
    return doc?.locked_until ? Date.parse(doc.locked_until) : 0;
  }

  async unlock(stream: string): Promise<void> {
    await this.streams.findOneAndUpdate({ _id: stream }, { $set: { locked_until: '' } });
  }

  /** The oldest undelivered item of the stream (the head of the line). */
  head(stream: string): Promise<OutboxItem | null> {
    return this.outbox.findOne({ stream, status: { $in: ['pending', 'retrying'] } }, { sort: { seq: 1 } });
  }

  updateItem(id: string, set: Partial<OutboxItem>): Promise<OutboxItem | null> {
    return this.outbox.findOneAndUpdate({ _id: id }, { $set: set });
  }

  /** Items whose turn has come but whose pump message may have been lost (safety sweep). */
  due(beforeIso: string, limit: number): Promise<OutboxItem[]> {
    return this.outbox.find({ status: { $in: ['pending', 'retrying'] }, next_at: { $lte: beforeIso } }, { sort: { next_at: 1 }, limit });
  }

  insertAttempt(record: DeliveryRecord): Promise<void> {
    return this.deliveries.insertOne(record);
  }

  updateAttempt(id: string, set: Partial<DeliveryRecord>): Promise<void> {
    return this.deliveries.findOneAndUpdate({ _id: id }, { $set: set }).then(() => undefined);
  }

  /** Attempts left `pending` by a process that died mid-request. */
  interruptedAttempts(outboxId: string): Promise<DeliveryRecord[]> {
    return this.deliveries.find({ outbox_id: outboxId, status: 'pending' });
  }

  /**
   * Every outbox item of the owner and the streams they belong to (its deletion), batch by batch: a stream's
   * record goes before its items, so a deletion that stops half way still finds the stream through them.
   */
  async deleteAllOf(owner: { userId: string }, batch = 500): Promise<number> {
    let deleted = 0;
    for (;;) {
      const items = await this.outbox.find({ user_id: owner.userId }, { limit: batch, fields: ['stream'] });
      if (items.length === 0) return deleted;
      const streams = [...new Set(items.map((item) => item.stream))];
      await this.streams.deleteMany({ _id: { $in: streams } });
      for (const stream of streams) deleted += await this.outbox.deleteMany({ stream, user_id: owner.userId });
    }
  }
}
