export * from './webhook-events';
export * from './dto/webhook.dto';
export * from './webhooks.repository';
export * from './webhooks.service';
export * from './webhooks.module';
