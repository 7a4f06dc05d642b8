import { GuidTenantEntity } from './base.entity.js';
import { DialectTable, GuidCol, IntCol, LongTextCol, StrCol } from '../columns.js';

/**
 * One attempt to deliver one event to one webhook (docs/events.md, "Delivery log"): kept so the
 * administrator sees what was sent, what the receiver answered and how long it took, and can
 * send it again. The payload is what was signed and sent.
 */
export abstract class WebhookDeliveryColumns extends GuidTenantEntity {
  @GuidCol('webhook_id')
  webhookId: string;

  /** The Standard Webhooks message id (`webhook-id`), the same on every attempt of one event. */
  @StrCol('event_id', 80, { nullable: false })
  eventId: string;

  @StrCol('event_type', 60, { nullable: false })
  eventType: string;

  /** The site change sequence number of the event (0 for a ping). */
  @IntCol('seq', { default: 0 })
  seq: number;

  /** 1 for the first attempt of the event. */
  @IntCol('attempt', { default: 1 })
  attempt: number;

  /** `delivered` (2xx) or `failed`. */
  @StrCol('status', 20, { nullable: false })
  status: string;

  @IntCol('response_code', { nullable: true })
  responseCode: number | null;

  @IntCol('duration_ms', { default: 0 })
  durationMs: number;

  /** Why an attempt failed (network error, refused address, status), null when delivered. */
  @StrCol('error', 500)
  error: string | null;

  abstract payload: string;
}

const WEBHOOK_DELIVERIES = DialectTable('webhook_deliveries', [
  ['ix_webhook_deliveries_webhook', ['siteId', 'webhookId', 'created']],
  ['ix_webhook_deliveries_webhook_order', ['siteId', 'webhookId', 'created', 'attempt']],
  ['ix_webhook_deliveries_webhook_status', ['siteId', 'webhookId', 'status', 'created']],
  ['ix_webhook_deliveries_webhook_type', ['siteId', 'webhookId', 'eventType', 'created']],
  ['ix_webhook_deliveries_webhook_event', ['siteId', 'webhookId', 'eventId']],
]);

@WEBHOOK_DELIVERIES
export class WebhookDeliveryEntity extends WebhookDeliveryColumns {
  @LongTextCol('payload', true)
  payload: string;
}

@WEBHOOK_DELIVERIES
export class WebhookDeliveryMysqlEntity extends WebhookDeliveryColumns {
  @LongTextCol('payload', false)
  payload: string;
}
