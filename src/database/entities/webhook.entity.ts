import { Entity, Index } from 'typeorm';
import { GuidTenantEntity } from './base.entity.js';
import { BoolCol, DateCol, IntCol, StrCol, TextCol } from '../columns.js';

/**
 * A webhook endpoint of a site (docs/events.md). The administrator's columns (URL, event types,
 * secret, active) are written through the scoped data path and so appear in the audit trail (the
 * secrets only as "changed"). The delivery state below them is the dispatcher's: written with
 * plain statements (src/modules/webhooks/outbox.statements.ts) that move neither the row version nor the
 * trail.
 */
@Entity('webhooks')
@Index('ix_webhooks_site', ['siteId', 'id'])
@Index('ix_webhooks_site_created', ['siteId', 'created'])
@Index('ix_webhooks_site_active', ['siteId', 'active', 'created'])
export class WebhookEntity extends GuidTenantEntity {
  @StrCol('url', 2000, { nullable: false })
  url: string;

  /** The event types delivered, space-separated (`*` for all). */
  @TextCol('event_types', { nullable: false })
  eventTypes: string;

  /** `whsec_` + base64 of the signing key (Standard Webhooks). */
  @StrCol('secret', 100, { nullable: false })
  secret: string;

  /** After a rotation, the former secret also signs until `previousSecretExpires`. */
  @StrCol('previous_secret', 100)
  previousSecret: string | null;

  @DateCol('previous_secret_expires')
  previousSecretExpires: Date | null;

  @StrCol('description', 500)
  description: string | null;

  @BoolCol('active', true)
  active: boolean;

  /** Why the dispatcher switched the endpoint off (24 h of failures), null when it did not. */
  @StrCol('disabled_reason', 500)
  disabledReason: string | null;

  // ---- delivery state (the dispatcher's)

  /** The site change sequence number of the last event handled (delivered or not subscribed). */
  @IntCol('cursor_seq', { default: 0 })
  cursorSeq: number;

  /** When the event at the head of the queue first failed; null while deliveries succeed. */
  @DateCol('failing_since')
  failingSince: Date | null;

  /** Failed attempts of the event at the head of the queue. */
  @IntCol('attempts', { default: 0 })
  attempts: number;

  /** Not before this instant is the next attempt made (backoff). */
  @DateCol('next_attempt')
  nextAttempt: Date | null;

  /** The replica delivering for this webhook, and until when its claim holds. */
  @StrCol('lease_owner', 64)
  leaseOwner: string | null;

  @DateCol('lease_until')
  leaseUntil: Date | null;
}
