import { Injectable } from '@nestjs/common';
import type { OpenAPIObject } from '@nestjs/swagger';
import { ContributesToDocument, type DocumentContribution } from '../../http/pipeline/document-contributor.js';
import { NAMED_CHANGES } from './event-types.js';

/** The events webhooks receive, in the document's `webhooks` (found by the document builder). */
@Injectable()
@ContributesToDocument()
export class WebhookEventsDocument implements DocumentContribution {
  complete(document: OpenAPIObject): void {
    addEventWebhooks(document);
  }
}

/**
 * The events the service POSTs to webhooks (docs/events.md), as OpenAPI 3.1 `webhooks`: one entry
 * per named event, one for the plain `{kind}.{created|updated|deleted|undeleted}` events and the
 * ping, all with the one payload schema, `WebhookEvent`.
 */
function addEventWebhooks(document: OpenAPIObject): void {
  const schemas = (document.components ??= {}).schemas ?? (document.components.schemas = {});
  schemas.WebhookEventActor = {
    type: 'object',
    required: ['ID', 'Kind', 'Name'],
    properties: {
      ID: { type: ['string', 'null'], description: 'The individual (or API client principal) who made the change; null for the service.' },
      Kind: { type: 'string', description: '`user`, an API client principal kind, or `system`.' },
      Name: { type: ['string', 'null'], description: 'The user or API client name.' },
    },
  };
  schemas.WebhookEventData = {
    type: 'object',
    required: ['Kind', 'ID', 'Action', 'Seq', 'Changes', 'Actor', 'RequestID', 'Record'],
    properties: {
      Kind: { type: 'string', description: 'The kind of record, as the audit trail names it (`task`, `organization-member`, …).' },
      ID: { type: 'string', description: 'The record’s ID (an integer ID as text).' },
      Action: { type: 'string', enum: ['create', 'update', 'delete', 'undelete'] },
      Seq: { type: 'integer', description: 'The site change sequence number: events of a site are sent in its order.' },
      Changes: {
        type: 'array',
        items: { $ref: '#/components/schemas/AuditFieldChange' },
        description: 'The changed fields, before and after (as in the audit trail).',
      },
      Actor: { $ref: '#/components/schemas/WebhookEventActor' },
      RequestID: { type: ['string', 'null'], description: 'The X-Request-Id of the request that made the change.' },
      Record: {
        type: ['object', 'null'],
        description:
          'The record as `GET /v4/{collection}/{id}` answers it at delivery time (the schema of that collection’s record); null when it no longer exists.',
      },
    },
  };
  schemas.WebhookEvent = {
    type: 'object',
    required: ['type', 'id', 'timestamp', 'data'],
    properties: {
      type: { type: 'string', description: 'The event type, e.g. `task.completed`, `individual.updated`, `webhook.ping`.' },
      id: { type: 'string', description: 'The message id, also the `webhook-id` header: the same on every attempt; deduplicate by it.' },
      timestamp: { type: 'string', format: 'date-time', description: 'When the change was committed.' },
      data: { $ref: '#/components/schemas/WebhookEventData' },
    },
  };
  const header = (description: string) => ({ required: true, schema: { type: 'string' }, description });
  const entry = (name: string, description: string) => ({
    post: {
      operationId: `event_${name.replace(/[^a-z0-9]+/gi, '_')}`,
      summary: `The ${name} event`,
      description: `${description} Signed as Standard Webhooks says; delivered at least once, in commit order per endpoint (docs/events.md).`,
      tags: ['Webhook'],
      // The receiver authenticates the service by the signature, not by a bearer token.
      security: [],
      parameters: [
        { name: 'webhook-id', in: 'header', ...header('The message id (deduplicate by it).') },
        { name: 'webhook-timestamp', in: 'header', ...header('Unix seconds when the message was signed.') },
        { name: 'webhook-signature', in: 'header', ...header('`v1,<base64 HMAC-SHA256>`, space-separated while a rotated secret overlaps.') },
      ],
      requestBody: { required: true, content: { 'application/json': { schema: { $ref: '#/components/schemas/WebhookEvent' } } } },
      responses: { '200': { description: 'Any 2xx: delivered. Anything else, no answer, or a redirect: retried with backoff, for 24 h.' } },
    },
  });
  const hooks: Record<string, unknown> = {
    'record.changed': entry(
      '{kind}.{created|updated|deleted|undeleted}',
      'Every change of a record: `individual.created`, `dialog.updated`, `project.deleted`, `comment.undeleted`, … (subscribe to one, to `{kind}.*`, or to `*`).',
    ),
    'webhook.ping': entry('webhook.ping', 'Sent by POST /v4/webhooks/{id}/ping; `data` is `{ "WebhookID": … }`.'),
  };
  for (const n of NAMED_CHANGES) if (!hooks[n.name]) hooks[n.name] = entry(n.name, n.doc);
  (document as unknown as { webhooks?: Record<string, unknown> }).webhooks = hooks;
}
