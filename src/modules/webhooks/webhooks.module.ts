import { Module } from '@nestjs/common';
import { AuditModule } from '../audit/audit.module.js';
import { DeliveryRetention } from './delivery-retention.js';
import { WebhookDispatcher } from './webhook-dispatcher.js';
import { WebhookEvents } from './webhook-events.js';
import { WebhooksController } from './webhooks.controller.js';
import { WebhooksService } from './webhooks.service.js';
import { WebhookEventsDocument } from './webhooks-openapi.js';

/** Webhook endpoints and the delivery of the outbox (docs/events.md). */
@Module({
  imports: [AuditModule],
  controllers: [WebhooksController],
  providers: [WebhooksService, WebhookEvents, WebhookDispatcher, DeliveryRetention, WebhookEventsDocument],
  exports: [WebhooksService],
})
export class WebhooksModule {}
