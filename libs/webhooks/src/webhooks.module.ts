import { Module } from '@nestjs/common';
import { WebhooksRepository } from './webhooks.repository';
import { WebhooksService } from './webhooks.service';

@Module({ providers: [WebhooksRepository, WebhooksService], exports: [WebhooksService, WebhooksRepository] })
export class WebhooksModule {}
