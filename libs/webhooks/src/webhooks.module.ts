import { Module } from '@nestjs/common';
import { AuthProfilesModule } from '@app/auth-profiles';
import { JobsModule } from '@app/jobs';
import { AuthProfileAnnouncer } from './delivery/auth-profile-announcer';
import { OutboxRepository } from './delivery/outbox.repository';
import { WebhookRecords, WebhookRuntime } from './delivery/webhook-delivery-parts';
import { WebhookDispatcherService } from './delivery/webhook-dispatcher.service';
import { WebhookPumpService } from './delivery/webhook-pump.service';
import { WebhookTargetsService } from './delivery/webhook-targets.service';
import { WebhooksRepository } from './webhooks.repository';
import { WebhooksService } from './webhooks.service';
import { WebhooksTenantErasure } from './webhooks-tenant-erasure';

/** Saved webhooks, job targets and the dispatcher (every process that changes jobs needs it). */
@Module({
  imports: [JobsModule, AuthProfilesModule],
  providers: [
    AuthProfileAnnouncer,
    WebhooksRepository,
    WebhooksService,
    OutboxRepository,
    WebhookDispatcherService,
    WebhookTargetsService,
    WebhooksTenantErasure,
  ],
  exports: [WebhooksService, WebhooksRepository, OutboxRepository, WebhookDispatcherService, WebhookTargetsService],
})
export class WebhooksModule {}

/** The delivery engine: runs where queues are consumed (crawler, embedded). */
@Module({ imports: [WebhooksModule, JobsModule], providers: [WebhookRecords, WebhookRuntime, WebhookPumpService] })
export class WebhookDeliveryModule {}
