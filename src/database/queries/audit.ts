import type { RequestContext } from '../../common/context/request-context.js';
import type { TenantDb } from '../tenant-db.js';
import { sqlInstant } from '../journal.js';

/**
 * Reads of the audit trail and change log (docs/audit.md, docs/delta-sync.md). Every statement
 * filters by the context's site first and walks an index that leads with `site_id`, so the cost
 * of a page grows with the page, not with the site.
 */
export interface AuditRow {
  site_id: string;
  seq: number;
  kind: string;
  row_id: string;
  action: string;
  gone: number | boolean;
  changes: string;
  actor_id: string | null;
  actor_kind: string;
  actor_name: string | null;
  request_id: string | null;
  at: Date | string;
}

export interface AuditFilter {
  rowId?: string;
  kind?: string;
  actor?: string;
  since?: Date;
  until?: Date;
  /** Keyset cursor: only entries numbered below it (newest first). */
  before?: number;
  limit: number;
}

/** An instant as either driver answers a datetime(3) column (SQLite: UTC text without a zone). */
export const instantOf = (v: Date | string): Date => (v instanceof Date ? v : new Date(`${v.replace(' ', 'T')}Z`));

const COLUMNS = 'site_id, seq, kind, row_id, action, gone, changes, actor_id, actor_kind, actor_name, request_id, at';

/** A page of the site's trail, newest first. */
export function auditPage(db: TenantDb, ctx: RequestContext, f: AuditFilter): Promise<AuditRow[]> {
  const where = ['site_id = ?'];
  const params: unknown[] = [ctx.siteId];
  const and = (condition: string, value: unknown) => {
    where.push(condition);
    params.push(value);
  };
  if (f.rowId !== undefined) and('row_id = ?', f.rowId);
  if (f.kind !== undefined) and('kind = ?', f.kind);
  if (f.actor !== undefined) and('actor_id = ?', f.actor);
  if (f.since !== undefined) and('at >= ?', sqlInstant(f.since));
  if (f.until !== undefined) and('at < ?', sqlInstant(f.until));
  if (f.before !== undefined) and('seq < ?', f.before);
  return db.sql<AuditRow>(ctx, `SELECT ${COLUMNS} FROM audit_log WHERE ${where.join(' AND ')} ORDER BY seq DESC LIMIT ${Number(f.limit)}`, params);
}

/**
 * The changes of some kinds after sequence number `after`, oldest first (delta sync, the
 * dispatcher). Reads a prefix of the committed sequence: a number is taken under the site's
 * counter lock at commit, so no smaller number can still commit later.
 */
export function changesAfter(db: TenantDb, ctx: RequestContext, kinds: readonly string[] | null, after: number, limit: number): Promise<AuditRow[]> {
  const byKind = kinds ? ` AND kind IN (${kinds.map(() => '?').join(', ')})` : '';
  return db.sql<AuditRow>(ctx, `SELECT ${COLUMNS} FROM audit_log WHERE site_id = ?${byKind} AND seq > ? ORDER BY seq LIMIT ${Number(limit)}`, [
    ctx.siteId,
    ...(kinds ?? []),
    after,
  ]);
}

/** The site's newest committed change sequence number (0 before its first change). */
export async function currentSequence(db: TenantDb, ctx: RequestContext): Promise<number> {
  const rows = await db.sql<{ seq: number }>(ctx, 'SELECT seq FROM change_seqs WHERE site_id = ?', [ctx.siteId]);
  return rows.length ? Number(rows[0].seq) : 0;
}

/**
 * The sequence number just before the first change recorded at or after `instant` (an
 * `updatedSince` instant as a cursor); null when the trail no longer reaches back that far.
 */
export async function sequenceBefore(db: TenantDb, ctx: RequestContext, instant: Date): Promise<number | null> {
  const [oldest] = await db.sql<{ seq: number; at: Date | string }>(ctx, 'SELECT seq, at FROM audit_log WHERE site_id = ? ORDER BY seq LIMIT 1', [ctx.siteId]);
  const first = await db.sql<{ seq: number }>(ctx, 'SELECT MIN(seq) AS seq FROM audit_log WHERE site_id = ? AND at >= ?', [ctx.siteId, sqlInstant(instant)]);
  const seq = first[0]?.seq;
  if (seq === null || seq === undefined) return currentSequence(db, ctx);
  if (oldest && Number(oldest.seq) > 1 && Number(seq) === Number(oldest.seq)) return null;
  return Number(seq) - 1;
}

/**
 * Removes up to `batch` of the site's entries recorded before `cutoff` and numbered at most
 * `upTo` (the webhooks' undelivered events and those the dashboard summaries have not read stay), oldest first, in one short statement pair;
 * answers how many went. Each batch commits on its own, so writes never wait on the sweep for
 * long.
 */
export async function pruneBatch(db: TenantDb, ctx: RequestContext, cutoff: Date, batch: number): Promise<number> {
  const [held] = await db.sql<{ seq: number | null }>(ctx, 'SELECT MIN(cursor_seq) AS seq FROM webhooks WHERE site_id = ? AND active = ?', [ctx.siteId, true]);
  // The dashboard summaries' cursor too (docs/dashboards.md, "Summaries"); -1, a whole build pending, reads no trail.
  const [built] = await db.sql<{ seq: number | null }>(ctx, 'SELECT built_seq AS seq FROM dashboard_summary_state WHERE site_id = ? AND built_seq >= 0', [
    ctx.siteId,
  ]);
  const upTo = Math.min(...[held?.seq, built?.seq].map((s) => (s === null || s === undefined ? Number.MAX_SAFE_INTEGER : Number(s))));
  const rows = await db.sql<{ seq: number }>(ctx, `SELECT seq FROM audit_log WHERE site_id = ? AND seq <= ? AND at < ? ORDER BY seq LIMIT ${Number(batch)}`, [
    ctx.siteId,
    upTo,
    sqlInstant(cutoff),
  ]);
  if (rows.length === 0) return 0;
  const last = Number(rows[rows.length - 1].seq);
  await db.housekeeping((m) => m.query('DELETE FROM audit_log WHERE site_id = ? AND seq <= ? AND at < ?', [ctx.siteId, last, sqlInstant(cutoff)]));
  return rows.length;
}
