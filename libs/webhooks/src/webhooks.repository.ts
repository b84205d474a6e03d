import { Inject, Injectable, type OnModuleInit } from '@nestjs/common';
import { DOCUMENT_STORE, type Collection, type CollectionSpec, type DocumentStore } from '@app/storage';

export interface WebhookData {
  id: string;
  user_id: string;
  organization_id: string;
  name: string;
  url: string;
  events: string[];
  headers: Array<{ name: string; value: string }>;
  is_active: boolean;
  /** Sealed (encrypted) signing secret, or null for unsigned deliveries. */
  secret: string | null;
  created_at: string;
  updated_at: string;
}

export interface WebhookRecord extends WebhookData {
  /** `<user_id>:<id>`: client-chosen ids are unique per user only. */
  _id: string;
  [key: string]: unknown;
}

/** A delivery attempt's fields, as stored and as shown (DeliveryView). */
export interface DeliveryFields {
  webhook_id: string | null;
  url: string;
  event_type: string;
  status: 'pending' | 'retrying' | 'success' | 'failed';
  status_code: number | null;
  attempt_number: number;
  max_attempts: number;
  response_time_ms: number | null;
  error_message: string | null;
  created_at: string;
  delivered_at: string | null;
}

export interface DeliveryRecord extends DeliveryFields {
  _id: string;
  user_id: string;
  job_id: string;
  [key: string]: unknown;
}

const key = (userId: string, id: string) => `${userId}:${id}`;

/** Delivery attempts: written by the delivery engine, read by the API. */
export const WEBHOOK_DELIVERIES: CollectionSpec = {
  name: 'webhook_deliveries',
  indexes: [{ fields: { job_id: 1, created_at: 1 } }, { fields: { user_id: 1, webhook_id: 1, created_at: -1 } }],
};

/** The only code that touches saved webhooks and delivery records; scoped by owner. */
@Injectable()
export class WebhooksRepository implements OnModuleInit {
  private webhooks!: Collection<WebhookRecord>;
  private deliveries!: Collection<DeliveryRecord>;

  constructor(@Inject(DOCUMENT_STORE) private readonly store: DocumentStore) {}

  async onModuleInit(): Promise<void> {
    this.webhooks = await this.store.collection<WebhookRecord>({
      name: 'webhooks',
      indexes: [{ fields: { user_id: 1, name: 1 }, unique: true }, { fields: { user_id: 1, created_at: -1 } }],
    });
    this.deliveries = await this.store.collection<DeliveryRecord>(WEBHOOK_DELIVERIES);
  }

  findOwn(owner: { userId: string }, id: string): Promise<WebhookRecord | null> {
    return this.webhooks.findOne({ _id: key(owner.userId, id), user_id: owner.userId });
  }

  listOwn(owner: { userId: string }): Promise<WebhookRecord[]> {
    return this.webhooks.find({ user_id: owner.userId }, { sort: { created_at: -1 }, limit: 1000 });
  }

  /** Insert or replace; throws DuplicateKeyError when another webhook of the user has the name. */
  save(record: WebhookData): Promise<void> {
    return this.webhooks.replaceOne({ ...record, _id: key(record.user_id, record.id) });
  }

  deleteOwn(owner: { userId: string }, id: string): Promise<boolean> {
    return this.webhooks.deleteOne({ _id: key(owner.userId, id), user_id: owner.userId });
  }

  deliveriesOfWebhook(owner: { userId: string }, webhookId: string, limit: number): Promise<DeliveryRecord[]> {
    return this.deliveries.find({ user_id: owner.userId, webhook_id: webhookId }, { sort: { created_at: -1 }, limit });
  }

  deliveriesOfJob(owner: { userId: string }, jobId: string): Promise<DeliveryRecord[]> {
    return this.deliveries.find({ user_id: owner.userId, job_id: jobId }, { sort: { created_at: 1 }, limit: 10_000 });
  }

  /** Every saved webhook of the owner (its deletion). */
  deleteAllOf(owner: { userId: string }): Promise<number> {
    return this.webhooks.deleteMany({ user_id: owner.userId });
  }

  /** Every delivery attempt recorded for the owner (its deletion). */
  deleteDeliveriesOf(owner: { userId: string }): Promise<number> {
    return this.deliveries.deleteMany({ user_id: owner.userId });
  }
}
