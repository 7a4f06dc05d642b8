import { Injectable } from '@nestjs/common';
import { RequestContext } from '../../common/context/request-context.js';
import { AppError, GoneError, NotFoundError, ValidationError } from '../../common/errors/errors.js';
import { parseInputDate } from '../../common/http/dates.js';
import { DEFAULT_LIMIT, KeysetPage } from '../../common/pagination/pagination.js';
import { changesAfter, currentSequence, instantOf, sequenceBefore, type AuditRow } from '../../database/queries/audit.js';
import { TenantDb } from '../../database/tenant-db.js';
import { SyncEntry, type SyncEntryDto, type SyncQuery } from './dto/sync.dto.js';
import { RecordKinds } from './record-kinds.js';

const CURSOR = /^seq-(\d{1,15})$/;
export const SYNC_CURSOR_HEADER = 'X-Sync-Cursor';

/**
 * Delta sync (docs/delta-sync.md). A cursor is a position in the site's change sequence, which is
 * assigned under a per-site lock as each write transaction commits: sequence order is commit
 * order, so a page "after n" never skips a change that commits later with an earlier `Updated`.
 * A page reads at most `limit` changes of the kind (index `(site_id, kind, seq)`), keeps the newest
 * per record, and answers each as its GET does, or as a tombstone; its cost grows with the page,
 * not with the site.
 */
@Injectable()
export class SyncService {
  constructor(
    private readonly db: TenantDb,
    private readonly kinds: RecordKinds,
  ) {}

  /** The cursor that continues after everything committed so far (also for a full read taken now). */
  async cursorNow(ctx: RequestContext): Promise<string> {
    return `seq-${await currentSequence(this.db, ctx)}`;
  }

  async page(ctx: RequestContext, path: string, q: SyncQuery): Promise<KeysetPage<SyncEntryDto>> {
    const k = this.kinds.ofPath(path);
    if (!k) throw new NotFoundError('Resource', path);
    const limit = q.limit ?? DEFAULT_LIMIT;
    // Read before the changes: every change numbered up to it has committed and is in the read below.
    const committed = await currentSequence(this.db, ctx);
    const after = await this.position(ctx, q.updatedSince);
    const rows = await changesAfter(this.db, ctx, [k.kind], after, limit);
    const full = rows.length === limit;
    const next = full ? Number(rows[rows.length - 1].seq) : Math.max(committed, after, rows.length ? Number(rows[rows.length - 1].seq) : 0);
    // The newest change of each record in the page, in sequence order.
    const newest = new Map<string, AuditRow>();
    for (const r of rows) {
      newest.delete(r.row_id);
      newest.set(r.row_id, r);
    }
    const items: SyncEntryDto[] = [];
    for (const r of newest.values()) {
      const entry = await this.entry(ctx, k.read, r);
      if (entry) items.push(SyncEntry.toWire(entry));
    }
    const cursor = `seq-${next}`;
    return new KeysetPage(items, limit, full ? { updatedSince: cursor, limit: String(limit) } : null, { [SYNC_CURSOR_HEADER]: cursor });
  }

  /** The sequence number a client's `updatedSince` stands for. */
  private async position(ctx: RequestContext, since: string): Promise<number> {
    const m = CURSOR.exec(since.trim());
    if (m) {
      const n = Number(m[1]);
      if (n > (await currentSequence(this.db, ctx)))
        throw new ValidationError([{ field: 'updatedSince', message: 'updatedSince is a cursor this site has not reached' }]);
      return n;
    }
    const instant = parseInputDate(since);
    if (!instant) throw new ValidationError([{ field: 'updatedSince', message: 'updatedSince must be a cursor (seq-<n>) or an ISO 8601 date-time' }]);
    const seq = await sequenceBefore(this.db, ctx, instant);
    if (seq === null) throw new GoneError('The change log no longer reaches back to updatedSince: read the list in full, then sync from its X-Sync-Cursor');
    return seq;
  }

  private async entry(ctx: RequestContext, read: (ctx: RequestContext, id: string) => Promise<object>, r: AuditRow) {
    const base = { seq: Number(r.seq), id: r.row_id, updated: instantOf(r.at) };
    const tombstone = { ...base, deleted: true, record: null };
    if (r.gone === true || Number(r.gone) === 1) return tombstone;
    try {
      const record = await read(ctx, r.row_id);
      if ((record as { Deleted?: boolean }).Deleted === true) return tombstone;
      const updated = (record as { Updated?: Date }).Updated;
      return { ...base, updated: updated instanceof Date ? updated : base.updated, deleted: false, record };
    } catch (e) {
      // Not of this list (e.g. a department on /organizations) or not readable by the caller: not answered.
      if (e instanceof AppError && (e.status === 404 || e.status === 403)) return null;
      throw e;
    }
  }
}
