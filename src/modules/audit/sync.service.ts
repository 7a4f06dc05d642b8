import { Injectable } from '@nestjs/common';
import { assertAccess } from '../../auth/auth.guard.js';
import { RequestContext } from '../../common/context/request-context.js';
import { AppError, GoneError, NotFoundError, ValidationError } from '../../common/errors/errors.js';
import { parseInputDate } from '../../common/dates.js';
import { DEFAULT_LIMIT, KeysetPage } from '../../http/wire/pagination.js';
import { isGuid } from '../../http/wire/wire.js';
import { subListOf, subListParents, type SubList } from '../../http/pipeline/delta-list.js';
import { SYNC_ENTRIES, SyncEntry, type SyncEntryDto, type SyncEntryRow } from '../../http/wire/sync-entry.js';
import { decodeChanges } from '../../database/journal.js';
import { changesAfter, currentSequence, instantOf, sequenceBefore, type AuditRow } from '../../database/queries/audit.js';
import { TenantDb } from '../../database/tenant-db.js';
import { RecordKinds, type RecordKind } from '../../database/registries/record-kinds.js';

const CURSOR = /^seq-(\d{1,15})$/;
export const SYNC_CURSOR_HEADER = 'X-Sync-Cursor';

/** Where to continue and how many changes a page reads. */
export interface SyncPosition {
  updatedSince: string;
  limit?: number;
}

/** The sync route's query: where to continue and, for the changes of one sub-list, its parent (`individuals/{id}`, `me`). */
export interface SyncRequest extends SyncPosition {
  parent?: string;
}

/**
 * A sub-list's records (docs/delta-sync.md, "Every list"): those whose `fields` (any of them, by
 * their wire name) hold `value` — the parent's ID, or the caller's individual (null: none).
 */
export interface SyncFilter {
  fields: readonly string[];
  value: string | null;
}

type Change = { Field: string; Before?: unknown; After?: unknown };
const same = (a: unknown, value: string | null) => value !== null && a !== null && a !== undefined && String(a).toLowerCase() === value.toLowerCase();
/** A change that takes a record down: deleted, or by reference (a membership whose individual was deleted). */
const TAKEN_DOWN = new Set(['Deleted', 'DeletedByRef']);

/**
 * Delta sync (docs/delta-sync.md), for `GET /v4/sync/{kind}` and every list asked with
 * `updatedSince`. A cursor is a position in the site's change sequence, which is assigned under a
 * per-site lock as each write transaction commits: sequence order is commit order, so a page
 * "after n" never skips a change that commits later with an earlier `Updated`. A page reads at
 * most `limit` changes of the kind (index `(site_id, kind, seq)`), keeps the newest per record,
 * and answers each as its GET does, or as a tombstone; its cost grows with the page, not with the
 * site.
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

  /**
   * The kind of a collection path, for a caller who meets the access rule of its GET (else 403);
   * 404 for an unknown path and for a collection of credentials, which sync does not serve.
   */
  kind(ctx: RequestContext, path: string): RecordKind {
    const k = this.kinds.ofPath(path);
    if (!k || k.credential) throw new NotFoundError('Resource', path);
    assertAccess(ctx.user, k.access);
    return k;
  }

  /**
   * `GET /v4/sync/{kind}`: the changes of the collection, or with `parent` those of one of its
   * sub-lists as its list route declares them (a person's goals: `parent=individuals/{id}`, the
   * caller's own: `parent=me`), tombstones included.
   */
  async changes(ctx: RequestContext, path: string, q: SyncRequest): Promise<KeysetPage<SyncEntryDto>> {
    if (q.parent === undefined) return this.page(ctx, path, q);
    this.kind(ctx, path);
    const slash = q.parent.indexOf('/');
    const [at, raw] = slash < 0 ? [q.parent, ''] : [q.parent.slice(0, slash), q.parent.slice(slash + 1)];
    const sub = subListOf(path, at);
    if (!sub || (at === 'me') !== slash < 0) {
      const parents = subListParents(path).map((p) => (p === 'me' ? 'me' : `${p}/{id}`));
      throw new ValidationError([
        {
          field: 'parent',
          message: parents.length ? `parent must be one of ${parents.join(', ')} for ${path}` : `${path} has no sub-lists: sync the collection without parent`,
        },
      ]);
    }
    return this.page(ctx, path, q, await this.parentFilter(ctx, sub, raw, 'parent'));
  }

  /**
   * The filter of a sub-list's records: the caller's individual (`me`), or the parent, read first
   * as its GET reads it (404 for another site's, 403 when the caller may not read it); `field`
   * names the parameter that held its ID in a 400.
   */
  async parentFilter(ctx: RequestContext, sub: SubList, raw: string, field: string): Promise<SyncFilter> {
    if (sub.of === 'me') return { fields: sub.fields, value: ctx.user.individualId ?? null };
    const parent = this.kind(ctx, sub.of);
    if (parent.intId ? !/^\d{1,10}$/.test(raw) : !isGuid(raw))
      throw new ValidationError([{ field, message: `${field} must name the ${sub.of} by ${parent.intId ? 'a whole number' : 'a UUID'}` }]);
    const id = parent.intId ? String(Number(raw)) : raw.toLowerCase();
    await parent.read(ctx, id);
    return { fields: sub.fields, value: id };
  }

  async page(ctx: RequestContext, path: string, q: SyncPosition, filter: SyncFilter | null = null): Promise<KeysetPage<SyncEntryDto>> {
    const k = this.kind(ctx, path);
    const limit = q.limit ?? DEFAULT_LIMIT;
    // Read before the changes: every change numbered up to it has committed and is in the read below.
    const committed = await currentSequence(this.db, ctx);
    const after = await this.position(ctx, q.updatedSince);
    const rows = await changesAfter(this.db, ctx, [k.kind], after, limit);
    const full = rows.length === limit;
    const next = full ? Number(rows[rows.length - 1].seq) : Math.max(committed, after, rows.length ? Number(rows[rows.length - 1].seq) : 0);
    // The newest change of each record in the page, in sequence order, and what all its changes in the page say.
    const newest = new Map<string, AuditRow>();
    const tied = new Set<string>();
    const takenDown = new Set<string>();
    for (const r of rows) {
      newest.delete(r.row_id);
      newest.set(r.row_id, r);
      const changes: Change[] = decodeChanges(r.changes);
      if (filter && changes.some((c) => filter.fields.includes(c.Field) && (same(c.Before, filter.value) || same(c.After, filter.value)))) tied.add(r.row_id);
      if (changes.some((c) => TAKEN_DOWN.has(c.Field) && c.After === true)) takenDown.add(r.row_id);
    }
    const items: SyncEntryDto[] = [];
    for (const r of newest.values()) {
      const entry = await this.entry(ctx, k, r, filter, tied.has(r.row_id), takenDown.has(r.row_id));
      if (entry) items.push(SyncEntry.toWire(entry));
    }
    const cursor = `seq-${next}`;
    return new KeysetPage(items, limit, full ? { updatedSince: cursor, limit: String(limit) } : null, { [SYNC_CURSOR_HEADER]: cursor }, SYNC_ENTRIES);
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

  /**
   * One record's entry: as its GET answers it, or a tombstone when it is gone, deleted or taken
   * down; null when it is not answered (not readable by the caller, not of this collection, or not
   * of the sub-list's parent and never was within the page).
   */
  private async entry(
    ctx: RequestContext,
    k: RecordKind,
    r: AuditRow,
    filter: SyncFilter | null,
    tied: boolean,
    takenDown: boolean,
  ): Promise<SyncEntryRow | null> {
    const base = { seq: Number(r.seq), id: r.row_id, updated: instantOf(r.at) };
    const tombstone = { ...base, deleted: true, record: null };
    // Of a sub-list, only what is (or within the page was) the parent's.
    const mayTell = !filter || tied;
    if (r.gone === true || Number(r.gone) === 1) return mayTell ? tombstone : null;
    let record: object;
    try {
      record = await k.read(ctx, r.row_id);
    } catch (e) {
      // Not of this collection (a department on /organizations) or not readable by the caller:
      // not answered, unless its change in the page took it down.
      if (e instanceof AppError && (e.status === 404 || e.status === 403)) return takenDown && mayTell ? tombstone : null;
      throw e;
    }
    // A record the collection does not list (an organization on /departments): not of it.
    if (k.listed && !k.listed(record)) return null;
    const inList = !filter || filter.fields.some((f) => same((record as Record<string, unknown>)[f], filter.value));
    if (!inList) return tied ? tombstone : null;
    if ((record as { Deleted?: boolean }).Deleted === true) return tombstone;
    const updated = (record as { Updated?: Date }).Updated;
    return { ...base, updated: updated instanceof Date ? updated : base.updated, deleted: false, record };
  }
}
