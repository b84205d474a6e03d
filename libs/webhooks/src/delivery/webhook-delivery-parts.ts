import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '@app/config';
import { JobsRepository } from '@app/jobs';
import { LOGGER, METRICS, type AppLogger, type Metrics } from '@app/observability';
import { WebhooksRepository } from '../webhooks.repository';
import { OutboxRepository } from './outbox.repository';

/*
 * What the delivery engine (WebhookPumpService) is built from besides its queue, dispatcher and sealer, in two named
 * groups instead of a long positional constructor. Both are providers of WebhookDeliveryModule.
 */

/** The records a delivery reads and writes: the outbox (items, attempts, stream leases), saved webhooks, and the jobs whose targets it sends to. */
@Injectable()
export class WebhookRecords {
  constructor(
    readonly outbox: OutboxRepository,
    readonly webhooks: WebhooksRepository,
    readonly jobs: JobsRepository,
  ) {}
}

/** The delivery engine's config, log and metrics. */
@Injectable()
export class WebhookRuntime {
  constructor(
    @Inject(APP_CONFIG) readonly config: AppConfig,
    @Inject(LOGGER) readonly logger: AppLogger,
    @Inject(METRICS) readonly metrics: Metrics,
  ) {}
}
