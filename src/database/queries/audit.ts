import type { RequestContext } from '../../common/context/request-context.js';
import type { TenantDb } from '../tenant-db.js';
import { sqlInstant } from '../journal.js';
import { family, placeholders, sql } from '../statements.js';

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
  /** Entries skipped after the cursor. */
  offset?: number;
  limit: number;
}

/** An instant as either driver answers a datetime(3) column (SQLite: UTC text without a zone). */
export const instantOf = (v: Date | string): Date => (v instanceof Date ? v : new Date(`${v.replace(' ', 'T')}Z`));

const COLUMNS = 'site_id, seq, kind, row_id, action, gone, changes, actor_id, actor_kind, actor_name, request_id, at';

/** The conditions of a page of the trail, in the order of its parameters. */
const CONDITIONS = [
  ['rowId', 'row_id = ?'],
  ['kind', 'kind = ?'],
  ['actor', 'actor_id = ?'],
  ['since', 'at >= ?'],
  ['until', 'at < ?'],
  ['before', 'seq < ?'],
] as const;
type Condition = (typeof CONDITIONS)[number][0];

/** A page of the trail with some of its conditions (a bit each, in CONDITIONS' order). */
const PAGE = family(
  'audit.page',
  (conditions: number) =>
    `SELECT ${COLUMNS} FROM audit_log WHERE ${['site_id = ?', ...CONDITIONS.filter((_, k) => conditions & (1 << k)).map(([, c]) => c)].join(' AND ')}` +
    ' ORDER BY seq DESC LIMIT ? OFFSET ?',
  [[0], [0b000001], [0b111111]],
).rows<AuditRow>();

/** A page of the site's trail, newest first. */
export function auditPage(db: TenantDb, ctx: RequestContext, f: AuditFilter): Promise<AuditRow[]> {
  const values: Record<Condition, unknown> = {
    rowId: f.rowId,
    kind: f.kind,
    actor: f.actor,
    since: f.since && sqlInstant(f.since),
    until: f.until && sqlInstant(f.until),
    before: f.before,
  };
  const params: unknown[] = [ctx.siteId];
  let conditions = 0;
  CONDITIONS.forEach(([name], k) => {
    if (f[name] === undefined) return;
    conditions |= 1 << k;
    params.push(values[name]);
  });
  return db.sql(ctx, PAGE.of(conditions), [...params, Number(f.limit), Number(f.offset ?? 0)]);
}

/** Entries of the site by sequence number (a queried page's rows, its keys read by list-query-sql.ts), in no order. */
const BY_SEQS = family('audit.by-seqs', (n: number) => `SELECT ${COLUMNS} FROM audit_log WHERE site_id = ? AND seq IN (${placeholders(n)})`, [
  [1],
  [3],
]).rows<AuditRow>();

/** The site's entries of these sequence numbers, in the order of `seqs` (one missing meanwhile is left out). */
export async function auditEntriesBySeq(db: TenantDb, ctx: RequestContext, seqs: readonly number[]): Promise<AuditRow[]> {
  if (!seqs.length) return [];
  const rows = await db.sql(ctx, BY_SEQS.of(seqs.length), [ctx.siteId, ...seqs]);
  const bySeq = new Map(rows.map((r) => [Number(r.seq), r]));
  return seqs.map((s) => bySeq.get(Number(s))).filter((r): r is AuditRow => r !== undefined);
}

/** `kinds`: how many kinds the changes are of (null: any). */
const CHANGES_AFTER = family(
  'audit.changes-after',
  (kinds: number | null) =>
    `SELECT ${COLUMNS} FROM audit_log WHERE site_id = ?${kinds === null ? '' : ` AND kind IN (${placeholders(kinds)})`} AND seq > ? ORDER BY seq LIMIT ?`,
  [[null], [1], [3]],
).rows<AuditRow>();
const CURRENT_SEQUENCE = sql<{ seq: number }>('audit.current-sequence', 'SELECT seq FROM change_seqs WHERE site_id = ?');
const OLDEST = sql<{ seq: number; at: Date | string }>('audit.oldest', 'SELECT seq, at FROM audit_log WHERE site_id = ? ORDER BY seq LIMIT 1');
const FIRST_SINCE = sql<{ seq: number | null }>('audit.first-since', 'SELECT MIN(seq) AS seq FROM audit_log WHERE site_id = ? AND at >= ?');
const WEBHOOKS_CURSOR = sql<{ seq: number | null }>('audit.webhooks-cursor', 'SELECT MIN(cursor_seq) AS seq FROM webhooks WHERE site_id = ? AND active = ?');
const SUMMARIES_CURSOR = sql<{ seq: number | null }>(
  'audit.summaries-cursor',
  'SELECT built_seq AS seq FROM dashboard_summary_state WHERE site_id = ? AND built_seq >= 0',
);
const PRUNABLE = sql<{ seq: number }>('audit.prunable', 'SELECT seq FROM audit_log WHERE site_id = ? AND seq <= ? AND at < ? ORDER BY seq LIMIT ?');
const PRUNE = sql('audit.prune', 'DELETE FROM audit_log WHERE site_id = ? AND seq <= ? AND at < ?');

/**
 * The changes of some kinds after sequence number `after`, oldest first (delta sync, the
 * dispatcher). Reads a prefix of the committed sequence: a number is taken under the site's
 * counter lock at commit, so no smaller number can still commit later.
 */
export function changesAfter(db: TenantDb, ctx: RequestContext, kinds: readonly string[] | null, after: number, limit: number): Promise<AuditRow[]> {
  return db.sql(ctx, CHANGES_AFTER.of(kinds ? kinds.length : null), [ctx.siteId, ...(kinds ?? []), after, Number(limit)]);
}

/** The site's newest committed change sequence number (0 before its first change). */
export async function currentSequence(db: TenantDb, ctx: RequestContext): Promise<number> {
  const rows = await db.sql(ctx, CURRENT_SEQUENCE, [ctx.siteId]);
  return rows.length ? Number(rows[0].seq) : 0;
}

/**
 * The sequence number just before the first change recorded at or after `instant` (an
 * `updatedSince` instant as a cursor); null when the trail no longer reaches back that far.
 */
export async function sequenceBefore(db: TenantDb, ctx: RequestContext, instant: Date): Promise<number | null> {
  const [oldest] = await db.sql(ctx, OLDEST, [ctx.siteId]);
  const first = await db.sql(ctx, FIRST_SINCE, [ctx.siteId, sqlInstant(instant)]);
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
  const [held] = await db.sql(ctx, WEBHOOKS_CURSOR, [ctx.siteId, true]);
  // The dashboard summaries' cursor too (docs/dashboards.md, "Summaries"); -1, a whole build pending, reads no trail.
  const [built] = await db.sql(ctx, SUMMARIES_CURSOR, [ctx.siteId]);
  const upTo = Math.min(...[held?.seq, built?.seq].map((s) => (s === null || s === undefined ? Number.MAX_SAFE_INTEGER : Number(s))));
  const rows = await db.sql(ctx, PRUNABLE, [ctx.siteId, upTo, sqlInstant(cutoff), Number(batch)]);
  if (rows.length === 0) return 0;
  const last = Number(rows[rows.length - 1].seq);
  await db.housekeeping((h) => h.write(PRUNE, [ctx.siteId, last, sqlInstant(cutoff)]));
  return rows.length;
}
