import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import { Inject, Injectable } from '@nestjs/common';
import { RequestContext } from '../../common/context/request-context.js';
import { NotFoundError, ValidationError, type FieldError } from '../../common/errors/errors.js';
import type { MergePatch } from '../../http/pipeline/merge-patch.js';
import { Page, pageOf, QueriedPage, type QueriedPageQuery } from '../../http/wire/pagination.js';
import { asksQuery, ListQueries } from '../../http/wire/list-query.js';
import { readQueriedRows } from '../../database/list-query-sql.js';
import { assertBodyId } from '../../http/wire/ids.js';
import { APP_CONFIG, type AppConfig } from '../../config/config.js';
import { WebhookEntity } from '../../database/entities/webhook.entity.js';
import { patchResource } from '../../database/patch-record.js';
import { currentSequence } from '../../database/queries/audit.js';
import { deleteDeliveries } from './outbox.statements.js';
import { TenantDb } from '../../database/tenant-db.js';
import { parseTypes, TYPE_PATTERN } from './event-types.js';
import { egressUrlProblem, refusedRange } from '../../common/egress/egress-guard.js';
import { newSecret, SECRET_PATTERN } from './signing.js';
import { Webhook, WebhookDelivery, type CreateWebhookDto, type UpdateWebhookDto, type WebhookDeliveryDto, type WebhookDto } from './dto/webhook.dto.js';
import { WebhookEvents } from './webhook-events.js';

import { DeclaresRecordKind } from '../../database/registries/record-kinds.js';

const LABEL = 'Webhook';
/** The order of a queried list without sort=, the plain lists' own: webhooks by creation, the delivery log newest first (then the attempt). */
const BY_CREATED = [{ field: Webhook.queryable.get('created')!, desc: false }] as const;
const NEWEST_FIRST = [{ field: WebhookDelivery.queryable.get('created')!, desc: true }] as const;

/** Webhook endpoints, their delivery log, redelivery, ping and secret rotation (docs/events.md). */
@Injectable()
@DeclaresRecordKind<WebhooksService>({
  path: 'webhooks',
  kind: 'webhook',
  access: 'admin',
  // Its events carry no record, and sync does not serve it: the record holds the signing secret.
  inEvents: false,
  credential: true,
  read: (s, ctx, id) => s.get(ctx, id),
})
export class WebhooksService {
  constructor(
    private readonly db: TenantDb,
    private readonly events: WebhookEvents,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly queries: ListQueries,
  ) {}

  private readonly repo = this.db.scoped(WebhookEntity, LABEL);

  async list(ctx: RequestContext, q: QueriedPageQuery): Promise<Page<WebhookDto>> {
    const { take, skip } = pageOf(q);
    if (asksQuery(q)) {
      // Queried (docs/queries.md): the site's webhooks; no filter, sort or field reads a secret (Secret answers null, as in every list).
      const query = this.queries.read(ctx, Webhook, q);
      const page = await readQueriedRows(this.db, ctx, WebhookEntity, {}, query, BY_CREATED, take, skip);
      const next = query.cursor === null ? undefined : this.queries.next(query, page.next);
      return new QueriedPage(this.repo(ctx).answers(page.rows, Webhook), page.total, take, skip, query.fields, next);
    }
    const [rows, total] = await this.repo(ctx).findAndCount({ order: { created: 'ASC', id: 'ASC' }, take, skip });
    return Page.of(this.repo(ctx).answers(rows, Webhook), total, q);
  }

  async get(ctx: RequestContext, id: string): Promise<WebhookDto> {
    return Webhook.toWire(await this.repo(ctx).get(id));
  }

  async create(ctx: RequestContext, dto: CreateWebhookDto): Promise<WebhookDto> {
    await this.check(dto.URL, dto.EventTypes, dto.Secret);
    return this.db.transaction(ctx, async () => {
      const cols = Webhook.toColumns(dto, 'create');
      // A new endpoint receives the events committed from now on, not the site's history.
      const row = await this.repo(ctx).insert({ ...cols, secret: dto.Secret ?? newSecret(), cursorSeq: await currentSequence(this.db, ctx) });
      // The one answer that shows the secret, besides a rotation's (docs/security.md, "Secrets").
      return Webhook.toWire(row, { secret: row.secret });
    });
  }

  async update(ctx: RequestContext, id: string, dto: UpdateWebhookDto): Promise<WebhookDto> {
    assertBodyId(id, dto.ID);
    await this.check(dto.URL, dto.EventTypes, dto.Secret);
    return this.db.transaction(ctx, async () => {
      const repo = this.repo(ctx);
      const row = await repo.lock(id);
      const cols: Partial<WebhookEntity> = Webhook.toColumns(dto, 'update');
      delete cols.id;
      // Switching an endpoint on again clears why it was switched off; its queue is delivered.
      if (cols.active === true && !row.active) Object.assign(cols, { disabledReason: null, attempts: 0, failingSince: null, nextAttempt: null });
      // The commit wakes the dispatcher (TenantDb.onCommit): a re-enabled endpoint's queue goes out.
      return Webhook.toWire(await repo.update(id, cols, { ifMatch: true }));
    });
  }

  patch(ctx: RequestContext, id: string, patch: MergePatch): Promise<WebhookDto> {
    return patchResource(this.db, ctx, patch, Webhook, this.repo(ctx), id, (dto) => this.update(ctx, id, dto));
  }

  /** Removes the webhook and its delivery log; what it had not delivered is not sent. */
  async remove(ctx: RequestContext, id: string): Promise<Record<string, never>> {
    await this.db.transaction(ctx, async () => {
      await this.repo(ctx).lock(id);
      await deleteDeliveries(this.db, ctx, id);
      await this.repo(ctx).remove(id, { ifMatch: true });
    });
    return {};
  }

  /**
   * A new secret; the previous one keeps signing (messages carry both signatures) for
   * WEBHOOK_SECRET_OVERLAP_HOURS, so receivers can switch without losing a message.
   */
  async rotateSecret(ctx: RequestContext, id: string): Promise<WebhookDto> {
    return this.db.transaction(ctx, async () => {
      const repo = this.repo(ctx);
      const row = await repo.lock(id);
      const expires = new Date(Date.now() + this.config.webhooks.secretOverlapHours * 3600_000);
      const secret = newSecret();
      return Webhook.toWire(await repo.update(id, { secret, previousSecret: row.secret, previousSecretExpires: expires }), { secret });
    });
  }

  /** The delivery log of a webhook, newest first. */
  async deliveries(ctx: RequestContext, id: string, q: QueriedPageQuery): Promise<Page<WebhookDeliveryDto>> {
    await this.repo(ctx).get(id);
    const { take, skip } = pageOf(q);
    const deliveries = this.db.repo(ctx, this.events.deliveryEntity, 'Delivery');
    if (asksQuery(q)) {
      // Queried (docs/queries.md): the webhook of the site was found (404 otherwise); its attempts only.
      const query = this.queries.read(ctx, WebhookDelivery, q);
      const page = await readQueriedRows(this.db, ctx, this.events.deliveryEntity, { equal: { webhookId: id } }, query, NEWEST_FIRST, take, skip);
      const next = query.cursor === null ? undefined : this.queries.next(query, page.next);
      return new QueriedPage(deliveries.answers(page.rows, WebhookDelivery), page.total, take, skip, query.fields, next);
    }
    const [rows, total] = await deliveries.findAndCount({ where: { webhookId: id }, order: { created: 'DESC', attempt: 'DESC', id: 'DESC' }, take, skip });
    return Page.of(deliveries.answers(rows, WebhookDelivery), total, q);
  }

  /** Sends a logged message again, as it was (same `webhook-id`), now; answers the new attempt. */
  async redeliver(ctx: RequestContext, id: string, deliveryId: string): Promise<WebhookDeliveryDto> {
    const w = await this.repo(ctx).get(id);
    const deliveries = this.db.repo(ctx, this.events.deliveryEntity, 'Delivery');
    const d = await deliveries.findOne({ id: deliveryId, webhookId: id });
    if (!d) throw new NotFoundError('Delivery', deliveryId);
    const attempts = await deliveries.count({ webhookId: id, eventId: d.eventId });
    const sent = await this.events.deliver(w, { id: d.eventId, type: d.eventType, seq: d.seq, body: d.payload }, attempts + 1);
    return WebhookDelivery.toWire((await deliveries.get(sent.deliveryId))!);
  }

  /** Sends a `webhook.ping` now; answers the attempt (delivered or failed, with the receiver's answer). */
  async ping(ctx: RequestContext, id: string): Promise<WebhookDeliveryDto> {
    const w = await this.repo(ctx).get(id);
    const sent = await this.events.deliver(w, this.events.ping(w.id), 1);
    return WebhookDelivery.toWire(await this.db.repo(ctx, this.events.deliveryEntity, 'Delivery').get(sent.deliveryId));
  }

  /** 400 for a URL the guard refuses, an unknown event type pattern, or a malformed secret. */
  private async check(url: string | undefined, types: string | undefined, secret: string | null | undefined): Promise<void> {
    const errors: FieldError[] = [];
    const allowPrivate = this.config.egressAllowPrivate;
    if (url !== undefined) {
      const problem = egressUrlProblem(url, allowPrivate) ?? (allowPrivate ? null : await this.resolvesRefused(url));
      if (problem) errors.push({ field: 'URL', message: `URL ${problem}` });
    }
    if (types !== undefined) {
      const list = parseTypes(types);
      const bad = list.filter((t) => !TYPE_PATTERN.test(t));
      if (list.length === 0) errors.push({ field: 'EventTypes', message: 'EventTypes must name at least one event type (or *)' });
      else if (bad.length) errors.push({ field: 'EventTypes', message: `EventTypes has malformed types: ${bad.slice(0, 5).join(', ')}` });
    }
    if (secret !== undefined && secret !== null && !SECRET_PATTERN.test(secret)) {
      errors.push({ field: 'Secret', message: 'Secret must be whsec_ followed by base64 of 24 to 64 bytes' });
    }
    if (errors.length) throw new ValidationError(errors);
  }

  /** Where the URL's name resolves now, refused already at the write (the guard checks again at every connect). */
  private async resolvesRefused(url: string): Promise<string | null> {
    const host = new URL(url).hostname.replace(/^\[|\]$/g, '');
    if (isIP(host)) return null;
    try {
      const addresses = await lookup(host, { all: true });
      const range = addresses.map((a) => refusedRange(a.address, false)).find((r) => r !== null);
      return range ? `has a host that resolves to a ${range} address, which the service does not call` : null;
    } catch {
      // A name that does not resolve now may later: the guard checks again at every connect.
      return null;
    }
  }
}
