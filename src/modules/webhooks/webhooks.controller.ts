import { Body, Delete, Get, HttpCode, Param, Post, Put, Query } from '@nestjs/common';
import { ApiOperation } from '@nestjs/swagger';
import { Admin } from '../../common/auth/access.decorators.js';
import { Ctx } from '../../common/context/ctx.decorator.js';
import { RequestContext } from '../../common/context/request-context.js';
import { type MergePatch, PatchRoute } from '../../common/http/merge-patch.js';
import { ApiBodyTypes, ApiResult } from '../../common/http/wire.js';
import { PageQuery } from '../../common/pagination/pagination.js';
import { GuidPipe } from '../../common/validation/ids.js';
import { CreateWebhookDto, UpdateWebhookDto, WebhookDeliveryDto, WebhookDto } from './dto/webhook.dto.js';
import { WebhooksService } from './webhooks.service.js';
import { ApiController, ListRoute } from '../../common/http/routes.js';
import { changesOf } from '../../common/http/delta-list.js';

const EVENTS =
  'Events are delivered at least once, in commit order per endpoint, signed as Standard Webhooks says (webhook-id, webhook-timestamp, webhook-signature); failed deliveries are retried with exponential backoff and jitter for 24 h, then the endpoint is disabled (DisabledReason). See docs/events.md.';

@ApiController('Webhook')
export class WebhooksController {
  constructor(private readonly webhooks: WebhooksService) {}

  @ListRoute(Admin, 'webhooks', WebhookDto, changesOf('webhooks'), { summary: 'List the webhooks of the caller’s site (Admin)', description: EVENTS })
  list(@Ctx() ctx: RequestContext, @Query() q: PageQuery) {
    return this.webhooks.list(ctx, q);
  }

  @Get('webhooks/:id')
  @Admin()
  @ApiOperation({ summary: 'Read a webhook (Admin)', description: 'With its secret, and, when the service switched it off, DisabledReason.' })
  @ApiResult(WebhookDto)
  get(@Ctx() ctx: RequestContext, @Param('id', GuidPipe) id: string) {
    return this.webhooks.get(ctx, id);
  }

  @Post('webhooks')
  @Admin()
  @ApiOperation({ summary: 'Create a webhook (Admin)', description: `It receives the events committed from its creation on. ${EVENTS}` })
  @ApiBodyTypes()
  @ApiResult(WebhookDto)
  create(@Ctx() ctx: RequestContext, @Body() dto: CreateWebhookDto) {
    return this.webhooks.create(ctx, dto);
  }

  @Put('webhooks/:id')
  @Admin()
  @ApiOperation({
    summary: 'Update a webhook (Admin)',
    description: 'Active: true re-enables an endpoint the service disabled; its queued events are then delivered.',
  })
  @ApiBodyTypes()
  @ApiResult(WebhookDto)
  update(@Ctx() ctx: RequestContext, @Param('id', GuidPipe) id: string, @Body() dto: UpdateWebhookDto) {
    return this.webhooks.update(ctx, id, dto);
  }

  @PatchRoute(Admin, 'webhooks/:id', UpdateWebhookDto, WebhookDto, {
    summary: 'Change some fields of a webhook (Admin)',
    description: 'Active: true re-enables an endpoint the service disabled.',
  })
  patch(@Ctx() ctx: RequestContext, @Param('id', GuidPipe) id: string, @Body() patch: MergePatch<UpdateWebhookDto>) {
    return this.webhooks.patch(ctx, id, patch);
  }

  @Delete('webhooks/:id')
  @Admin()
  @ApiOperation({ summary: 'Delete a webhook and its delivery log (Admin)', description: 'Events it had not been sent yet are not sent.' })
  @ApiResult(null)
  remove(@Ctx() ctx: RequestContext, @Param('id', GuidPipe) id: string) {
    return this.webhooks.remove(ctx, id);
  }

  @Post('webhooks/:id/rotate-secret')
  @Admin()
  @HttpCode(200)
  @ApiOperation({
    summary: 'Rotate the signing secret of a webhook (Admin)',
    description:
      'A new secret is generated; messages carry signatures with both the new and the previous secret for WEBHOOK_SECRET_OVERLAP_HOURS (24 by default).',
  })
  @ApiResult(WebhookDto)
  rotate(@Ctx() ctx: RequestContext, @Param('id', GuidPipe) id: string) {
    return this.webhooks.rotateSecret(ctx, id);
  }

  @Post('webhooks/:id/ping')
  @Admin()
  @HttpCode(200)
  @ApiOperation({
    summary: 'Send a test event to a webhook (Admin)',
    description: 'Sends a signed `webhook.ping` now and answers the attempt, delivered or failed.',
  })
  @ApiResult(WebhookDeliveryDto)
  ping(@Ctx() ctx: RequestContext, @Param('id', GuidPipe) id: string) {
    return this.webhooks.ping(ctx, id);
  }

  @Get('webhooks/:id/deliveries')
  @Admin()
  @ApiOperation({
    summary: 'List the delivery attempts of a webhook, newest first (Admin)',
    description: 'Each attempt with its status, the receiver’s response code, its duration and the payload sent.',
  })
  @ApiResult(WebhookDeliveryDto, { collection: true })
  deliveries(@Ctx() ctx: RequestContext, @Param('id', GuidPipe) id: string, @Query() q: PageQuery) {
    return this.webhooks.deliveries(ctx, id, q);
  }

  @Post('webhooks/:id/deliveries/:deliveryid/redeliver')
  @Admin()
  @HttpCode(200)
  @ApiOperation({
    summary: 'Send a logged event again (Admin)',
    description: 'The same message (same webhook-id, re-signed with a new timestamp), now; answers the new attempt.',
  })
  @ApiResult(WebhookDeliveryDto)
  redeliver(@Ctx() ctx: RequestContext, @Param('id', GuidPipe) id: string, @Param('deliveryid', GuidPipe) deliveryId: string) {
    return this.webhooks.redeliver(ctx, id, deliveryId);
  }
}
