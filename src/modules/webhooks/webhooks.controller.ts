import { Body, Query } from '@nestjs/common';
import { Admin } from '../../auth/access.decorators.js';
import { Ctx } from '../../common/context/ctx.decorator.js';
import { RequestContext } from '../../common/context/request-context.js';
import { type MergePatch, PatchRoute } from '../../http/pipeline/merge-patch.js';
import { QueriedPageQuery } from '../../http/wire/pagination.js';
import { queryNotes } from '../../http/wire/list-query.js';
import { GuidParam } from '../../http/wire/ids.js';
import { CreateWebhookDto, UpdateWebhookDto, Webhook, WebhookDelivery, WebhookDeliveryDto, WebhookDto } from './dto/webhook.dto.js';
import { WebhooksService } from './webhooks.service.js';
import { ApiController, ListRoute, GetRoute, PostRoute, PostAction, PutRoute, DeleteRoute } from '../../http/pipeline/routes.js';
import { changesRefused, CREDENTIALS_NOT_SYNCED } from '../../http/pipeline/delta-list.js';

const EVENTS =
  'Events are delivered at least once, in commit order per endpoint, signed as Standard Webhooks says (webhook-id, webhook-timestamp, webhook-signature); failed deliveries are retried with exponential backoff and jitter for 24 h, then the endpoint is disabled (DisabledReason). See docs/events.md.';

@ApiController('Webhook', undefined, {
  description:
    'Endpoints that receive signed events (Standard Webhooks) after each committed change, with their delivery log, redelivery, ping and secret rotation (administrators).',
})
export class WebhooksController {
  constructor(private readonly webhooks: WebhooksService) {}

  @ListRoute(Admin, 'webhooks', WebhookDto, changesRefused(CREDENTIALS_NOT_SYNCED), {
    summary: 'List the webhooks of the caller’s site (Admin)',
    description: `Ordered by creation; paged with limit/offset. Secret is null in every record. ${EVENTS} ${queryNotes(Webhook)}`,
  })
  list(@Ctx() ctx: RequestContext, @Query() q: QueriedPageQuery) {
    return this.webhooks.list(ctx, q);
  }

  @GetRoute(Admin, 'webhooks/:id', WebhookDto, {
    summary: 'Read a webhook (Admin)',
    description: 'With its secret, and, when the service switched it off, DisabledReason.',
  })
  get(@Ctx() ctx: RequestContext, @GuidParam() id: string) {
    return this.webhooks.get(ctx, id);
  }

  @PostRoute(Admin, 'webhooks', WebhookDto, {
    summary: 'Create a webhook (Admin)',
    description: `It receives the events committed from its creation on. ${EVENTS}`,
  })
  create(@Ctx() ctx: RequestContext, @Body() dto: CreateWebhookDto) {
    return this.webhooks.create(ctx, dto);
  }

  @PutRoute(Admin, 'webhooks/:id', WebhookDto, {
    summary: 'Update a webhook (Admin)',
    description: 'Active: true re-enables an endpoint the service disabled; its queued events are then delivered.',
  })
  update(@Ctx() ctx: RequestContext, @GuidParam() id: string, @Body() dto: UpdateWebhookDto) {
    return this.webhooks.update(ctx, id, dto);
  }

  @PatchRoute(Admin, 'webhooks/:id', UpdateWebhookDto, WebhookDto, {
    summary: 'Change some fields of a webhook (Admin)',
    description: 'Active: true re-enables an endpoint the service disabled.',
  })
  patch(@Ctx() ctx: RequestContext, @GuidParam() id: string, @Body() patch: MergePatch<UpdateWebhookDto>) {
    return this.webhooks.patch(ctx, id, patch);
  }

  @DeleteRoute(Admin, 'webhooks/:id', null, {
    summary: 'Delete a webhook and its delivery log (Admin)',
    description: 'Events it had not been sent yet are not sent.',
  })
  remove(@Ctx() ctx: RequestContext, @GuidParam() id: string) {
    return this.webhooks.remove(ctx, id);
  }

  @PostAction(Admin, 'webhooks/:id/rotate-secret', WebhookDto, {
    summary: 'Rotate the signing secret of a webhook (Admin)',
    description:
      'A new secret is generated; messages carry signatures with both the new and the previous secret for WEBHOOK_SECRET_OVERLAP_HOURS (24 by default).',
  })
  rotate(@Ctx() ctx: RequestContext, @GuidParam() id: string) {
    return this.webhooks.rotateSecret(ctx, id);
  }

  @PostAction(Admin, 'webhooks/:id/ping', WebhookDeliveryDto, {
    summary: 'Send a test event to a webhook (Admin)',
    description: 'Sends a signed `webhook.ping` now and answers the attempt, delivered or failed.',
  })
  ping(@Ctx() ctx: RequestContext, @GuidParam() id: string) {
    return this.webhooks.ping(ctx, id);
  }

  @GetRoute(
    Admin,
    'webhooks/:id/deliveries',
    WebhookDeliveryDto,
    {
      summary: 'List the delivery attempts of a webhook, newest first (Admin)',
      description: `Each attempt with its status, the receiver’s response code, its duration and the payload sent; newest first (Created, then Attempt); paged with limit/offset. 404 for a webhook not of the caller’s site. ${queryNotes(WebhookDelivery)}`,
    },
    { collection: true },
  )
  deliveries(@Ctx() ctx: RequestContext, @GuidParam() id: string, @Query() q: QueriedPageQuery) {
    return this.webhooks.deliveries(ctx, id, q);
  }

  @PostAction(Admin, 'webhooks/:id/deliveries/:deliveryid/redeliver', WebhookDeliveryDto, {
    summary: 'Send a logged event again (Admin)',
    description: 'The same message (same webhook-id, re-signed with a new timestamp), now; answers the new attempt.',
  })
  redeliver(@Ctx() ctx: RequestContext, @GuidParam() id: string, @GuidParam('deliveryid') deliveryId: string) {
    return this.webhooks.redeliver(ctx, id, deliveryId);
  }
}
