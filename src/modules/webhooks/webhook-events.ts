import { Inject, Injectable } from '@nestjs/common';
import { RequestContext } from '../../common/context/request-context.js';
import { WireCodec } from '../../http/wire/codec.js';
import { UTC } from '../../common/dates.js';
import { APP_CONFIG, type AppConfig } from '../../config/config.js';
import type { FieldChange } from '../../database/journal.js';
import { WebhookDeliveryEntity, WebhookDeliveryMysqlEntity } from '../../database/entities/webhook-delivery.entity.js';
import type { AuditRow } from '../../database/queries/audit.js';
import { logDelivery, type DeliveryRecord } from './outbox.statements.js';
import { TenantDb } from '../../database/tenant-db.js';
import { AuditService } from '../audit/audit.service.js';
import { RecordKinds } from '../../database/registries/record-kinds.js';
import { eventType } from './event-types.js';
import { send, type SendResult } from './sender.js';
import { signedHeaders } from './signing.js';

/** The secrets a message is signed with: the current one, and the previous one while its overlap lasts. */
export function secretsOf(w: { secret: string; previousSecret: string | null; previousSecretExpires: Date | null }, now = new Date()): string[] {
  return w.previousSecret && w.previousSecretExpires && w.previousSecretExpires > now ? [w.secret, w.previousSecret] : [w.secret];
}

/** The message id of an event: stable over every attempt (receivers deduplicate by it). */
export const messageId = (siteId: string, seq: number) => `msg_${siteId.replace(/-/g, '')}_${seq}`;

/** Where a message goes and what signs it. */
export interface Endpoint {
  id: string;
  siteId: string;
  url: string;
  secret: string;
  previousSecret: string | null;
  previousSecretExpires: Date | null;
}

/** A message ready to sign and send. */
export interface Message {
  id: string;
  type: string;
  seq: number;
  body: string;
}

/**
 * Builds, signs, sends and logs messages (docs/events.md, "Payload"): the body is
 * `{ type, id, timestamp, data }`, `data` the change (kind, ID, action, fields before and after,
 * actor, sequence number) and `Record`, the record as its GET answers it at delivery time (null
 * when it no longer exists or its kind has no GET).
 */
@Injectable()
export class WebhookEvents {
  constructor(
    private readonly db: TenantDb,
    private readonly kinds: RecordKinds,
    private readonly codec: WireCodec,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  /** `fields`: the row's changes, decoded (the dispatcher decodes them once, for its subscription check too). */
  async message(row: AuditRow, fields: readonly FieldChange[]): Promise<Message> {
    const entry = AuditService.entryOf(row, fields);
    const type = eventType(entry.kind, entry.action, fields);
    const id = messageId(row.site_id, entry.seq);
    const record = row.gone ? null : await this.record(row.site_id, entry.kind, entry.rowId);
    const data = {
      Kind: entry.kind,
      ID: entry.rowId,
      Action: entry.action,
      Seq: entry.seq,
      Changes: entry.changes,
      Actor: { ID: entry.actorId, Kind: entry.actorKind, Name: entry.actorName },
      RequestID: entry.requestId,
      Record: record,
    };
    return { id, type, seq: entry.seq, body: JSON.stringify({ type, id, timestamp: entry.at.toISOString(), data }) };
  }

  ping(webhookId: string): Message {
    const now = new Date();
    const id = `msg_ping_${webhookId.replace(/-/g, '')}_${now.getTime()}`;
    return {
      id,
      type: 'webhook.ping',
      seq: 0,
      body: JSON.stringify({ type: 'webhook.ping', id, timestamp: now.toISOString(), data: { WebhookID: webhookId } }),
    };
  }

  /** Signs and sends one message, and logs the attempt; answers the result and the log entry's id. */
  async deliver(w: Endpoint, m: Message, attempt: number): Promise<SendResult & { deliveryId: string }> {
    const { result, log } = await this.attempt(w, m, attempt);
    return { ...result, deliveryId: await logDelivery(this.db, log) };
  }

  /** Signs and sends one message; answers the result and its log entry, for the caller to write (the dispatcher writes a wave's at once). */
  async attempt(w: Endpoint, m: Message, attempt: number): Promise<{ result: SendResult; log: DeliveryRecord }> {
    const cfg = this.config.webhooks;
    const result = await send(w.url, signedHeaders(secretsOf(w), m.id, m.body), m.body, cfg.timeoutMs, this.config.egressAllowPrivate);
    const log: DeliveryRecord = {
      webhookId: w.id,
      siteId: w.siteId,
      eventId: m.id,
      eventType: m.type,
      seq: m.seq,
      attempt,
      status: result.ok ? 'delivered' : 'failed',
      responseCode: result.status,
      durationMs: result.durationMs,
      error: result.error,
      payload: m.body,
    };
    return { result, log };
  }

  /** The delivery log's entity in this database's dialect. */
  get deliveryEntity() {
    return this.db.isSqlite ? WebhookDeliveryEntity : WebhookDeliveryMysqlEntity;
  }

  private async record(siteId: string, kind: string, id: string): Promise<unknown> {
    const k = this.kinds.ofKind(kind);
    if (!k) return null;
    try {
      const dto = await k.read(RequestContext.system(siteId), id);
      return JSON.parse(this.codec.encode(dto, 'json', UTC, { type: dto.constructor as never, collection: false, root: '' }));
    } catch {
      return null;
    }
  }
}
