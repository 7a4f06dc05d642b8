import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import { Inject, Injectable, OnModuleInit } from '@nestjs/common';
import { RequestContext } from '../../common/context/request-context.js';
import { NotFoundError, ValidationError, type FieldError } from '../../common/errors/errors.js';
import type { MergePatch } from '../../common/http/merge-patch.js';
import { Page, PageQuery, pageOf } from '../../common/pagination/pagination.js';
import { assertBodyId } from '../../common/validation/ids.js';
import { APP_CONFIG, type AppConfig } from '../../config/config.js';
import { WebhookEntity } from '../../database/entities/webhook.entity.js';
import { patchResource } from '../../database/patch-record.js';
import { currentSequence } from '../../database/queries/audit.js';
import { deleteDeliveries } from '../../database/queries/outbox.js';
import { TenantDb } from '../../database/tenant-db.js';
import { parseTypes, TYPE_PATTERN } from '../../common/events/event-types.js';
import { isPrivateAddress, urlProblem } from './target-guard.js';
import { newSecret, SECRET_PATTERN } from './signing.js';
import { Webhook, WebhookDelivery, type CreateWebhookDto, type UpdateWebhookDto, type WebhookDeliveryDto, type WebhookDto } from './dto/webhook.dto.js';
import { WebhookEvents } from './webhook-events.js';
import { RecordKinds } from '../audit/audit.service.js';

const LABEL = 'Webhook';

/** Webhook endpoints, their delivery log, redelivery, ping and secret rotation (docs/events.md). */
@Injectable()
export class WebhooksService implements OnModuleInit {
  constructor(
    private readonly db: TenantDb,
    private readonly events: WebhookEvents,
    private readonly kinds: RecordKinds,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  /** Webhooks are records of the trail with history and delta sync (administrators); their events carry no record: it holds the secret. */
  onModuleInit(): void {
    this.kinds.register({ path: 'webhooks', kind: 'webhook', intId: false, access: 'admin', read: (ctx, id) => this.get(ctx, id), inEvents: false });
  }

  private readonly repo = this.db.scoped(WebhookEntity, LABEL);

  async list(ctx: RequestContext, q: PageQuery): Promise<Page<WebhookDto>> {
    const { take, skip } = pageOf(q);
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
      return Webhook.toWire(row);
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
      return Webhook.toWire(await repo.update(id, { secret: newSecret(), previousSecret: row.secret, previousSecretExpires: expires }));
    });
  }

  /** The delivery log of a webhook, newest first. */
  async deliveries(ctx: RequestContext, id: string, q: PageQuery): Promise<Page<WebhookDeliveryDto>> {
    await this.repo(ctx).get(id);
    const { take, skip } = pageOf(q);
    const deliveries = this.db.repo(ctx, this.events.deliveryEntity, 'Delivery');
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
    const allowPrivate = this.config.webhooks.allowPrivate;
    if (url !== undefined) {
      const problem = urlProblem(url, allowPrivate) ?? (allowPrivate ? null : await this.resolvesPrivate(url));
      if (problem) errors.push({ field: 'URL', message: problem });
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

  private async resolvesPrivate(url: string): Promise<string | null> {
    const host = new URL(url).hostname.replace(/^\[|\]$/g, '');
    if (isIP(host)) return null;
    try {
      const addresses = await lookup(host, { all: true });
      const bad = addresses.find((a) => isPrivateAddress(a.address));
      return bad ? `URL's host resolves to ${bad.address}, a loopback, private, link-local or metadata address` : null;
    } catch {
      // A name that does not resolve now may later: the guard checks again at every connect.
      return null;
    }
  }
}
