import { field, resource } from '../../../http/wire/resource.js';
import { InputField } from '../../../http/wire/wire.js';
import { QueriedPageQuery } from '../../../http/wire/pagination.js';
/**
 * The largest page of audit entries: an entry carries every changed field before and after, so a
 * page costs far more to render than a page of records; 200 keep an XML answer's rendering within
 * about 25 ms of the event loop (docs/audit.md, "Reading the trail").
 */
export const AUDIT_MAX_LIMIT = 200;
/** The largest `offset` of the audit trail and a history: deeper pages are read with `before`. */
export const AUDIT_MAX_OFFSET = 10_000;

/** One changed field of an audit entry (XML element `AuditFieldChange`). */
export interface AuditFieldChangeRow {
  Field: string;
  Before: string | null;
  After: string | null;
  Secret: boolean;
}

export const AuditFieldChange = resource<AuditFieldChangeRow>()('AuditFieldChange', {
  fields: {
    Field: field.string('RO', { column: 'Field', description: 'The field’s name as the resource’s GET answers it, e.g. `Name`, `PrimaryReportsTo`.' }),
    Before: field.string('RO', {
      column: 'Before',
      nullable: true,
      description:
        'The value before the change as text (instants in ISO 8601 UTC, booleans `true`/`false`); null when there was none (create) or for a secret.',
    }),
    After: field.string('RO', {
      column: 'After',
      nullable: true,
      description: 'The value after the change as text; null when there is none (delete) or for a secret.',
    }),
    Secret: field.bool('RO', {
      column: 'Secret',
      description: 'A secret (password, webhook secret): only the fact that it changed is recorded, never a value.',
    }),
  },
});
export const AuditFieldChangeDto = AuditFieldChange.Response;

/** One audit entry as the service holds it before rendering. */
export interface AuditEntryRow {
  seq: number;
  kind: string;
  rowId: string;
  action: string;
  changes: AuditFieldChangeRow[];
  actorId: string | null;
  actorKind: string;
  actorName: string | null;
  requestId: string | null;
  at: Date;
}

/**
 * An audit entry (docs/audit.md). The list may filter on Seq, Kind, RowID, ActorID and At, and sort
 * by Seq (its own order, newest first) and At: each has an index of audit_log that starts with
 * site_id (docs/queries.md). The entity properties are those of AuditLogEntity.
 */
export const AuditEntry = resource<AuditEntryRow>()('AuditEntry', {
  fields: {
    Seq: field.int('RO', {
      query: { filter: true, sort: true },
      column: 'seq',
      description: 'The site’s change sequence number: unique per site, in commit order. Page with `before`.',
    }),
    Kind: field.string('RO', {
      query: { filter: true },
      column: 'kind',
      description: 'The kind of record, e.g. `individual`, `dialog`, `organization-member`, `webhook`.',
    }),
    RowID: field.string('RO', { query: { filter: true }, column: 'rowId', description: 'The record’s ID (an integer ID as text).' }),
    Action: field.string('RO', {
      column: 'action',
      enum: ['create', 'update', 'delete', 'undelete'],
      description: 'create, update, delete (soft or hard) or undelete.',
    }),
    Changes: field.array('RO', {
      column: 'changes',
      nested: () => AuditFieldChangeDto,
      description: 'The fields that changed, each with its value before and after.',
    }),
    ActorID: field.string('RO', {
      query: { filter: true },
      column: 'actorId',
      nullable: true,
      description: 'Who changed it: the caller’s individual (else login account) ID, or the API client’s principal ID; null for the service itself.',
    }),
    ActorKind: field.string('RO', { column: 'actorKind', description: '`user`, an API client’s principal kind (e.g. `api-client`), or `system`.' }),
    ActorName: field.string('RO', { column: 'actorName', nullable: true, description: 'The user name or API client name at the time of the change.' }),
    RequestID: field.string('RO', { column: 'requestId', nullable: true, description: 'The X-Request-ID of the request that made the change.' }),
    At: field.dateTimeOffset('RO', { query: { filter: true, sort: true }, column: 'at', description: 'When the change was committed (the service’s clock).' }),
  },
});
export const AuditEntryDto = AuditEntry.Response;
export type AuditEntryDto = InstanceType<typeof AuditEntryDto>;

/**
 * `GET /audit` (docs/audit.md): its own filters and `before` paging, or the shared `filter=`,
 * `sort=`, `fields=` and `cursor=` of every queried list (docs/queries.md), not both at once.
 */
export class AuditQuery extends QueriedPageQuery {
  @InputField('string', { max: 36, description: 'Only changes of the record with this ID.' })
  rowid?: string;

  @InputField('string', { max: 40, description: 'Only changes of records of this kind (e.g. `individual`).' })
  kind?: string;

  @InputField('string', { max: 64, description: 'Only changes made by this actor (ActorID).' })
  actor?: string;

  @InputField('date', { description: 'Only changes committed at or after this instant.' })
  since?: Date;

  @InputField('date', { description: 'Only changes committed before this instant.' })
  until?: Date;

  @InputField('int', { minValue: 1, description: 'Keyset cursor: only entries with a Seq below this (the `Link: rel="next"` of the previous page).' })
  before?: number;

  @InputField('int', { minValue: 1, maxValue: AUDIT_MAX_LIMIT, description: `Page size, default and at most ${AUDIT_MAX_LIMIT}.` })
  override limit?: number;

  @InputField('int', {
    minValue: 0,
    maxValue: AUDIT_MAX_OFFSET,
    description: `Entries to skip (after \`before\` when both are given), at most ${AUDIT_MAX_OFFSET}; the \`Link: rel="next"\` continues with \`before\` (with \`filter=\` and the others, with \`offset\`).`,
  })
  override offset?: number;
}

/** The parameters of the trail's own filters and paging, which a queried request does not take (AuditService.list). */
export const AUDIT_OWN_PARAMS = ['rowid', 'kind', 'actor', 'since', 'until', 'before'] as const;

/** `GET /{kind}/{id}/history` paging. */
export class HistoryQuery {
  @InputField('int', { minValue: 1, description: 'Keyset cursor: only entries with a Seq below this.' })
  before?: number;

  @InputField('int', { minValue: 1, maxValue: AUDIT_MAX_LIMIT, description: `Page size, default and at most ${AUDIT_MAX_LIMIT}.` })
  limit?: number;

  @InputField('int', {
    minValue: 0,
    maxValue: AUDIT_MAX_OFFSET,
    description: `Entries to skip (after \`before\` when both are given), at most ${AUDIT_MAX_OFFSET}; the \`Link: rel="next"\` continues with \`before\`.`,
  })
  offset?: number;
}
