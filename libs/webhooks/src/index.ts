export { CLIENT_WEBHOOK_ID, WebhookBodyDto, WebhookListResponse, WebhookResponse } from './dto/webhook.dto';
export { JobWebhookFields } from './dto/job-webhook.dto';
export { WebhooksService } from './webhooks.service';
export { WebhookDeliveryModule, WebhooksModule } from './webhooks.module';
export { WebhookTargetsService } from './delivery/webhook-targets.service';
