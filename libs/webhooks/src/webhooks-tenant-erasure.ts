import { Inject, Injectable, type OnModuleInit } from '@nestjs/common';
import { TENANT_ERASERS, type TenantErasers } from '@app/core';
import { OutboxRepository } from './delivery/outbox.repository';
import { WebhooksRepository } from './webhooks.repository';

/**
 * A tenant's webhooks in its deletion (docs/api.md "Users"): its pending deliveries first (the outbox and
 * its streams, so the delivery engine finds nothing more to send), then its saved webhooks, then the
 * recorded delivery attempts.
 */
@Injectable()
export class WebhooksTenantErasure implements OnModuleInit {
  constructor(
    @Inject(TENANT_ERASERS) private readonly erasers: TenantErasers,
    private readonly outbox: OutboxRepository,
    private readonly webhooks: WebhooksRepository,
  ) {}

  onModuleInit(): void {
    this.erasers.register({ name: 'webhook_outbox', phase: 'data', run: (userId) => this.outbox.deleteAllOf({ userId }) });
    this.erasers.register({ name: 'webhooks', phase: 'data', run: (userId) => this.webhooks.deleteAllOf({ userId }) });
    this.erasers.register({ name: 'webhook_deliveries', phase: 'data', run: (userId) => this.webhooks.deleteDeliveriesOf({ userId }) });
  }
}
