import { Module } from '@nestjs/common';
import { AuditModule } from '../audit/audit.module.js';
import { WebhookDispatcher } from './webhook-dispatcher.js';
import { WebhookEvents } from './webhook-events.js';
import { WebhooksController } from './webhooks.controller.js';
import { WebhooksService } from './webhooks.service.js';

/** Webhook endpoints and the delivery of the outbox (docs/events.md). */
@Module({
  imports: [AuditModule],
  controllers: [WebhooksController],
  providers: [WebhooksService, WebhookEvents, WebhookDispatcher],
  exports: [WebhooksService],
})
export class WebhooksModule {}
