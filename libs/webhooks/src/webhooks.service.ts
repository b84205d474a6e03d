import { Inject, Injectable } from '@nestjs/common';
import type { Caller } from '@app/auth';
import { DuplicateKeyError, Errors, newId, nowIso, SECRET_SEALER, type SecretSealer } from '@app/core';
import { CLIENT_WEBHOOK_ID, type WebhookBodyDto } from './dto/webhook.dto';
import { WebhooksRepository, type DeliveryFields, type DeliveryRecord, type WebhookData, type WebhookRecord } from './webhooks.repository';

export interface WebhookView {
  id: string;
  name: string;
  url: string;
  events: string[];
  headers: Array<{ name: string; value: string }>;
  is_active: boolean;
  has_secret: boolean;
  created_at: string;
  updated_at: string;
}

export interface DeliveryView extends DeliveryFields {
  id: string;
}

const toView = (r: WebhookData): WebhookView => ({
  id: r.id,
  name: r.name,
  url: r.url,
  events: r.events,
  headers: r.headers,
  is_active: r.is_active,
  has_secret: r.secret !== null,
  created_at: r.created_at,
  updated_at: r.updated_at,
});

export const toDeliveryView = (d: DeliveryRecord): DeliveryView => ({
  id: d._id,
  webhook_id: d.webhook_id,
  url: d.url,
  event_type: d.event_type,
  status: d.status,
  status_code: d.status_code,
  attempt_number: d.attempt_number,
  max_attempts: d.max_attempts,
  response_time_ms: d.response_time_ms,
  error_message: d.error_message,
  created_at: d.created_at,
  delivered_at: d.delivered_at,
});

@Injectable()
export class WebhooksService {
  constructor(
    private readonly repository: WebhooksRepository,
    @Inject(SECRET_SEALER) private readonly sealer: SecretSealer,
  ) {}

  /** PUT /webhooks/{id}: creates (201) when the id is new, replaces (200) otherwise. */
  async put(caller: Caller, id: string, dto: WebhookBodyDto): Promise<{ created: boolean; webhook: WebhookView }> {
    if (!CLIENT_WEBHOOK_ID.test(id)) {
      throw Errors.validation([{ location: 'path.id', message: 'must be 1-64 letters, digits, "-" or "_"', value: id }]);
    }
    const existing = await this.repository.findOwn({ userId: caller.userId }, id);
    const webhook = await this.save(caller, id, dto, existing);
    return { created: existing === null, webhook };
  }

  async create(caller: Caller, dto: WebhookBodyDto): Promise<WebhookView> {
    return this.save(caller, newId(), dto, null);
  }

  async list(caller: Caller): Promise<{ webhooks: WebhookView[] }> {
    return { webhooks: (await this.repository.listOwn({ userId: caller.userId })).map(toView) };
  }

  async get(caller: Caller, id: string): Promise<WebhookView> {
    return toView(await this.getRecord(caller, id));
  }

  async remove(caller: Caller, id: string): Promise<{ success: true }> {
    if (!(await this.repository.deleteOwn({ userId: caller.userId }, id))) throw Errors.notFound('Webhook');
    return { success: true };
  }

  async deliveries(caller: Caller, id: string, limit = 100): Promise<{ webhook_id: string; deliveries: DeliveryView[] }> {
    await this.getRecord(caller, id);
    const deliveries = await this.repository.deliveriesOfWebhook({ userId: caller.userId }, id, limit);
    return { webhook_id: id, deliveries: deliveries.map(toDeliveryView) };
  }

  async deliveriesOfJob(owner: { userId: string }, jobId: string): Promise<DeliveryView[]> {
    return (await this.repository.deliveriesOfJob(owner, jobId)).map(toDeliveryView);
  }

  /** For job requests naming `webhook_id`: the caller's own webhook, or a 422 at that field. */
  async resolveForJob(caller: { userId: string }, id: string, location: string): Promise<WebhookRecord> {
    const webhook = await this.repository.findOwn(caller, id);
    if (!webhook) throw Errors.validation([{ location, message: 'no such webhook', value: id }]);
    return webhook;
  }

  openSecret(record: { secret: string | null }): string | null {
    return record.secret === null ? null : this.sealer.open(record.secret);
  }

  private async save(caller: Caller, id: string, dto: WebhookBodyDto, existing: WebhookRecord | null): Promise<WebhookView> {
    const now = nowIso();
    const record: WebhookData = {
      id,
      user_id: caller.userId,
      organization_id: caller.organizationId,
      name: dto.name,
      url: dto.url,
      events: [...new Set(dto.events ?? [])],
      headers: (dto.headers ?? []).map((h) => ({ name: h.name, value: h.value })),
      is_active: dto.is_active,
      secret: dto.secret ? this.sealer.seal(dto.secret) : null,
      created_at: existing?.created_at ?? now,
      updated_at: now,
    };
    try {
      await this.repository.save(record);
    } catch (error) {
      if (error instanceof DuplicateKeyError) throw Errors.conflict(`A webhook named "${dto.name}" already exists.`);
      throw error;
    }
    return toView(record);
  }

  private async getRecord(caller: Caller, id: string): Promise<WebhookRecord> {
    const webhook = await this.repository.findOwn({ userId: caller.userId }, id);
    if (!webhook) throw Errors.notFound('Webhook');
    return webhook;
  }
}
