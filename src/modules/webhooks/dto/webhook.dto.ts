import { field, resource } from '../../../http/wire/resource.js';
import type { WebhookEntity } from '../../../database/entities/webhook.entity.js';
import type { WebhookDeliveryColumns } from '../../../database/entities/webhook-delivery.entity.js';
import { declareExamples } from '../../../http/wire/examples.js';
import { EVENT_TYPES_PATTERN } from '../event-types.js';

const TYPES =
  'Space- or comma-separated event types: `{kind}.{created|updated|deleted|undeleted}` (e.g. `individual.updated`), a named event (`dialog.held`, `task.completed`, `task.reopened`, `period.closed`, `period.reopened`, `individual.moved`, `organization.moved`, `permission.changed`, `membership.changed`, `settings.changed`), `{kind}.*`, or `*` for every event (docs/events.md).';

/** What a webhook's answer shows beyond its row: the secret, only in the answers of its create and its rotation. */
export interface WebhookShown {
  secret: string | null;
}

/** A webhook endpoint (docs/events.md). */
export const Webhook = resource<WebhookEntity, WebhookShown | undefined>()('Webhook', {
  audit: 'audit',
  // Lists may filter and sort on Created, their own order (docs/queries.md). The secrets are never queryable.
  auditQuery: { Created: { filter: true, sort: true } },
  fields: {
    ID: { ...field.id(), query: { filter: true } },
    URL: field.string('Req', {
      column: 'url',
      max: 2000,
      min: 1,
      description:
        'Where events are POSTed: an absolute http(s) URL. Refused (400) when it names or resolves to a loopback, private, link-local or metadata address, unless the service runs with WEBHOOK_ALLOW_PRIVATE=true. Redirects are not followed.',
    }),
    EventTypes: field.string('Req', { max: 2000, min: 1, description: TYPES, pattern: EVENT_TYPES_PATTERN, example: 'individual.updated dialog.held goal.*' }),
    Secret: field.string('-', {
      max: 100,
      nullable: true,
      column: 'secret',
      from: (_e: WebhookEntity, x: WebhookShown | undefined) => x?.secret ?? null,
      description:
        'The signing secret, `whsec_` + base64 of 24 to 64 random bytes (Standard Webhooks). Write-only: shown once, in the answer of the create and of POST /webhooks/{id}/rotate-secret, and null in every other answer (reads, lists, delta sync, history, XML). Keep it when it is shown; a lost secret is replaced by a rotation (docs/security.md, "Secrets").',
      nullIsAbsent: true,
      create: { description: 'Generated when absent or null; the answer shows it once.' },
      update: {
        description:
          'Absent or null keeps it; a new value replaces it (null in the answer: the caller knows it). Rotate it with POST /webhooks/{id}/rotate-secret to keep the old one valid for an overlap window.',
      },
    }),
    Description: field.string('-', { max: 500, nullable: true, description: 'A note for the administrator.' }),
    Active: field.bool('-', {
      query: { filter: true },
      description:
        'Deliveries go out while true. Default true. Setting it true again re-enables an endpoint the service disabled (DisabledReason), and its queued events are delivered.',
      nullIsAbsent: true,
      createDefault: true,
    }),
    DisabledReason: field.string('RO', {
      nullable: true,
      description: 'Why the service switched the endpoint off (deliveries failed for the whole retry window); null otherwise.',
    }),
    FailingSince: field.dateTimeOffset('RO', {
      nullable: true,
      description: 'When the event at the head of the queue first failed; null while deliveries succeed.',
    }),
    PreviousSecretExpires: field.dateTimeOffset('RO', {
      nullable: true,
      description: 'After a rotation: until when messages are also signed with the previous secret.',
    }),
    SiteID: field.guid('RO', { description: 'The site the webhook belongs to.' }),
  },
});
export const { Response: WebhookDto, Create: CreateWebhookDto, Update: UpdateWebhookDto } = Webhook;
export type WebhookDto = InstanceType<typeof WebhookDto>;
export type CreateWebhookDto = InstanceType<typeof CreateWebhookDto>;
export type UpdateWebhookDto = InstanceType<typeof UpdateWebhookDto>;

/** One delivery attempt (docs/events.md, "Delivery log"). */
export const WebhookDelivery = resource<WebhookDeliveryColumns>()('WebhookDelivery', {
  fields: {
    ID: field.guid('RO', { query: { filter: true }, description: 'The attempt’s ID (for redelivery).' }),
    WebhookID: field.guid('RO', { description: 'The webhook.' }),
    EventID: field.string('RO', {
      query: { filter: true },
      description: 'The message id (`webhook-id` header), the same on every attempt of one event: receivers deduplicate by it.',
    }),
    EventType: field.string('RO', { query: { filter: true }, description: 'The event type, or `webhook.ping`.' }),
    Seq: field.int('RO', { description: 'The site change sequence number of the event (0 for a ping).' }),
    Attempt: field.int('RO', { description: '1 for the first attempt of the event.' }),
    Status: field.string('RO', { query: { filter: true }, enum: ['delivered', 'failed'], description: '`delivered` (a 2xx answer) or `failed`.' }),
    ResponseCode: field.int('RO', { nullable: true, description: 'The receiver’s HTTP status; null when it did not answer.' }),
    DurationMs: field.int('RO', { description: 'Milliseconds from sending to the end of the answer.' }),
    Error: field.string('RO', { nullable: true, description: 'Why the attempt failed; null when delivered.' }),
    Payload: field.string('RO', { description: 'The JSON body that was signed and sent.' }),
    // Then the attempt: the log's own order (newest first) is Created, Attempt and ID.
    Created: field.dateTimeOffset('RO', { query: { filter: true, sort: true, then: ['attempt'] }, description: 'When the attempt was made.' }),
  },
});
export const WebhookDeliveryDto = WebhookDelivery.Response;
export type WebhookDeliveryDto = InstanceType<typeof WebhookDeliveryDto>;

/** The request-body examples of the OpenAPI document (docs/openapi.md), executed by the examples test. */
declareExamples({
  PatchWebhookDto: { body: { EventTypes: 'dialog.held period.closed task.completed' } },
  CreateWebhookDto: { body: { URL: 'https://hooks.example.com/pms', EventTypes: 'dialog.held period.closed', Description: 'HRIS sync' } },
  UpdateWebhookDto: { body: { ID: 'PATH_ID', URL: 'https://hooks.example.com/pms/v2', EventTypes: 'dialog.held period.closed individual.*', Active: true } },
});
