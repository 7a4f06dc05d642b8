import { Injectable } from '@nestjs/common';
import { assertAccess } from '../../auth/auth.guard.js';
import { RequestContext } from '../../common/context/request-context.js';
import { NotFoundError, ValidationError } from '../../common/errors/errors.js';
import { isGuid } from '../../http/wire/wire.js';
import { KeysetPage, QueriedPage } from '../../http/wire/pagination.js';
import { asksQuery, ListQueries } from '../../http/wire/list-query.js';
import { decodeChanges, type FieldChange } from '../../database/journal.js';
import { countQueried, readPageKeys } from '../../database/list-query-sql.js';
import { AuditLogEntity, AuditLogMysqlEntity } from '../../database/entities/audit-log.entity.js';
import { auditEntriesBySeq, auditPage, instantOf, type AuditRow } from '../../database/queries/audit.js';
import { TenantDb } from '../../database/tenant-db.js';
import {
  AUDIT_MAX_LIMIT,
  AUDIT_OWN_PARAMS,
  AuditEntry,
  type AuditEntryDto,
  type AuditEntryRow,
  type AuditFieldChangeRow,
  type AuditQuery,
  type HistoryQuery,
} from './dto/audit.dto.js';
import { RecordKinds } from '../../database/registries/record-kinds.js';

/** The trail's own order for a queried list without sort=: newest first, by Seq. */
const NEWEST_FIRST = [{ field: AuditEntry.queryable.get('seq')!, desc: true }] as const;

/** A value of the trail as text (docs/audit.md): null stays null, everything else its string form. */
const text = (v: unknown): string | null => (v === null || v === undefined ? null : typeof v === 'string' ? v : JSON.stringify(v));

/** A stored audit row as the service holds it (`fields`: its changes, when the caller has decoded them already). */
export function entryOf(r: AuditRow, fields: readonly FieldChange[] = decodeChanges(r.changes)): AuditEntryRow {
  const changes = fields.map((c): AuditFieldChangeRow => ({
    Field: c.Field,
    Before: text(c.Before),
    After: text(c.After),
    Secret: c.Secret === true,
  }));
  return {
    seq: Number(r.seq),
    kind: r.kind,
    rowId: r.row_id,
    action: r.action,
    changes,
    actorId: r.actor_id,
    actorKind: r.actor_kind,
    actorName: r.actor_name,
    requestId: r.request_id,
    at: instantOf(r.at),
  };
}

/** The audit trail's reads (docs/audit.md). The trail is written by the data layer (src/database/journal.ts). */
@Injectable()
export class AuditService {
  constructor(
    private readonly db: TenantDb,
    private readonly kinds: RecordKinds,
    private readonly queries: ListQueries,
  ) {}

  /** A stored audit row as an entry (webhook payloads carry the same fields). */
  static entryOf(r: AuditRow, fields?: readonly FieldChange[]): AuditEntryRow {
    return entryOf(r, fields);
  }

  /** GET /audit: the site's trail, newest first, keyset-paged (administrators); or queried (docs/queries.md). */
  async list(ctx: RequestContext, q: AuditQuery): Promise<KeysetPage<AuditEntryDto> | QueriedPage<AuditEntryDto>> {
    if (asksQuery(q)) return this.queried(ctx, q);
    if (q.since && q.until && q.since >= q.until) throw new ValidationError([{ field: 'until', message: 'until must be after since' }]);
    const limit = q.limit ?? AUDIT_MAX_LIMIT;
    const rows = await auditPage(this.db, ctx, {
      rowId: q.rowid?.toLowerCase(),
      kind: q.kind,
      actor: q.actor,
      since: q.since,
      until: q.until,
      before: q.before,
      offset: q.offset,
      limit,
    });
    return this.page(rows, limit, q.offset);
  }

  /**
   * GET /audit with filter=, sort=, fields= or cursor= (docs/queries.md): the site's entries (the
   * route is for administrators: nothing of the trail is hidden from them), filtered on the indexed
   * fields of audit_log; without sort= newest first. The trail's own filters and `before` are not
   * taken with them (400): the same conditions are written in the filter. A page is at most
   * AUDIT_MAX_LIMIT entries, an export's batch too (an entry is heavy to render).
   */
  private async queried(ctx: RequestContext, q: AuditQuery): Promise<QueriedPage<AuditEntryDto>> {
    const own = AUDIT_OWN_PARAMS.find((p) => q[p] !== undefined);
    if (own)
      throw new ValidationError([
        {
          field: own,
          message: `${own}= is not taken with filter=, sort=, fields= or cursor=: write it in the filter (RowID eq, Kind eq, ActorID eq, At ge, At lt, Seq lt)`,
        },
      ]);
    const query = this.queries.read(ctx, AuditEntry, q);
    const take = Math.min(q.limit ?? AUDIT_MAX_LIMIT, AUDIT_MAX_LIMIT);
    const skip = q.offset ?? 0;
    const entity = this.db.isSqlite ? AuditLogEntity : AuditLogMysqlEntity;
    const [keys, total] = await Promise.all([
      readPageKeys<number>(this.db, ctx, entity, {}, query, NEWEST_FIRST, take, skip),
      query.cursor === null ? countQueried(this.db, ctx, entity, {}, query) : Promise.resolve(-1),
    ]);
    const rows = await auditEntriesBySeq(this.db, ctx, keys.ids.map(Number));
    const next = query.cursor === null ? undefined : this.queries.next(query, keys.next);
    return new QueriedPage(
      rows.map((r) => AuditEntry.toWire(entryOf(r))),
      total,
      take,
      skip,
      query.fields,
      next,
    );
  }

  /** GET /{kind}/{id}/history: the record's trail, for whoever may read the record (its own GET decides). */
  async history(ctx: RequestContext, path: string, id: string, q: HistoryQuery): Promise<KeysetPage<AuditEntryDto>> {
    const k = this.kinds.ofPath(path);
    if (!k) throw new NotFoundError('Resource', path);
    assertAccess(ctx.user, k.access);
    if (k.intId ? !/^\d{1,10}$/.test(id) : !isGuid(id))
      throw new ValidationError([{ field: 'id', message: k.intId ? 'id must be a whole number' : 'id must be a UUID' }]);
    const rowId = k.intId ? String(Number(id)) : id.toLowerCase();
    await k.read(ctx, rowId);
    const limit = q.limit ?? AUDIT_MAX_LIMIT;
    const rows = await auditPage(this.db, ctx, { rowId, kind: k.kind, before: q.before, offset: q.offset, limit });
    return this.page(rows, limit, q.offset);
  }

  /** A page, whose next one continues below its last entry (an `offset` asked for is spent: the next link sets it to 0). */
  private page(rows: AuditRow[], limit: number, offset: number | undefined): KeysetPage<AuditEntryDto> {
    const items = rows.map((r) => AuditEntry.toWire(entryOf(r)));
    const last = rows[rows.length - 1];
    const next = rows.length === limit && last ? { before: String(last.seq), limit: String(limit), ...(offset ? { offset: '0' } : {}) } : null;
    return new KeysetPage(items, limit, next);
  }
}
