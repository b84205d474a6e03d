import { Inject, Injectable } from '@nestjs/common';
import { SECRET_SEALER, type SecretSealer } from '@app/core';
import type { JobWebhookFields } from '../dto/job-webhook.dto';
import { WebhooksService } from '../webhooks.service';
import type { JobWebhookTarget } from '@app/jobs';

/** Resolves the webhook fields of a job request into targets stored on the job (422 for an unknown webhook_id). */
@Injectable()
export class WebhookTargetsService {
  constructor(
    private readonly webhooks: WebhooksService,
    @Inject(SECRET_SEALER) private readonly sealer: SecretSealer,
  ) {}

  /** `at`: where the request gave `webhook_id` (a body that is a URL list or a WARC file leaves it to the query). */
  async resolve(caller: { userId: string }, fields: JobWebhookFields, at: 'body' | 'query' = 'body'): Promise<JobWebhookTarget[]> {
    const targets: JobWebhookTarget[] = [];
    if (fields.webhook_id) {
      const saved = await this.webhooks.resolveForJob(caller, fields.webhook_id, `${at}.webhook_id`);
      targets.push({ key: `saved:${saved.id}`, kind: 'saved', webhook_id: saved.id, url: null, secret: null, events: [], headers: [] });
    }
    if (fields.webhook) {
      targets.push({
        key: 'inline',
        kind: 'inline',
        webhook_id: null,
        url: fields.webhook.url,
        secret: fields.webhook.secret ? this.sealer.seal(fields.webhook.secret) : null,
        events: fields.webhook.events ?? [],
        headers: (fields.webhook.headers ?? []).map((h) => ({ name: h.name, value: h.value })),
      });
    }
    if (fields.webhook_url) {
      targets.push({ key: 'url', kind: 'url', webhook_id: null, url: fields.webhook_url, secret: null, events: [], headers: [] });
    }
    return targets;
  }
}
