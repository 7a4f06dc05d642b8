import type { RequestContext } from '../../common/context/request-context.js';
import { sqlInstant } from '../../database/journal.js';
import type { Housekeeper, TenantDb } from '../../database/tenant-db.js';
import { instantOf } from '../../database/queries/audit.js';
import { family, placeholders, sql } from '../../database/statements.js';

/**
 * The statements of the dashboard summaries (docs/dashboards.md, "Summaries"): the builder's
 * claims and writes, the lookups that map a change to the rows it reaches, and the reader's two
 * reads. Every statement filters by site first (the tables' primary keys lead with `site_id`).
 */

export interface SummaryState {
  /** The change sequence number the summaries reflect; -1 while a whole build is pending. */
  builtSeq: number;
  /** The instant the time-dependent figures were computed at. */
  timeAt: Date | null;
  /** The next instant at which time alone changes a figure (a follow-up or project falling due, a period ending). */
  validUntil: Date | null;
  /** The site's newest committed change sequence number. */
  currentSeq: number;
}

const date = (v: unknown): Date | null => (v === null || v === undefined ? null : instantOf(v as Date | string));

// Either row may be missing: a site without recorded changes (imported in SQL) can have summaries.
// The caller's newest change (`mine`): read-your-writes (docs/dashboards.md, "How fresh").
const SITE_SEQUENCE = sql<{ cur: number | null; mine: number | null; built_seq: number | null; time_at: unknown; valid_until: unknown }>(
  'dashboard-summaries.site-sequence',
  `SELECT (SELECT c.seq FROM change_seqs c WHERE c.site_id = ?) AS cur,
          (SELECT MAX(a.seq) FROM audit_log a WHERE a.site_id = ? AND a.actor_id = ?) AS mine,
          st.built_seq, st.time_at, st.valid_until
   FROM (SELECT 1 AS one) x LEFT JOIN dashboard_summary_state st ON st.site_id = ?`,
);
const COMMITTED_SEQUENCE = sql<{ seq: number }>('dashboard-summaries.committed-sequence', 'SELECT seq FROM change_seqs WHERE site_id = ?');

/** The stored summaries of some rows of a period: `sizes`, how many ids of each row type. */
const SUMMARIES = family(
  'dashboard-summaries.read',
  (sizes: readonly number[]) =>
    `SELECT row_type, row_id, sums FROM dashboard_summaries WHERE site_id = ? AND period_id = ? AND (${sizes.map((n) => `(row_type = ? AND row_id IN (${placeholders(n)}))`).join(' OR ')})`,
  [[[2]], [[1, 3]]],
).rows<{ row_type: number; row_id: string; sums: string }>();

/**
 * Sites with changes the summaries have not reflected (or none built yet), and sites marked for a
 * whole build (built_seq -1: docs/operations.md, "After a bulk import") even without any change
 * recorded (a site imported in SQL), that no replica leases: the look for work (`?` the limit).
 */
const DUE = sql<{ id: string; built_seq: number | null; time_at: unknown; valid_until: unknown; cur: number }>(
  'dashboard-summaries.due',
  `SELECT u.id, u.built_seq, u.time_at, u.valid_until, u.cur FROM (
     SELECT c.site_id AS id, st.built_seq, st.time_at, st.valid_until, c.seq AS cur FROM change_seqs c LEFT JOIN dashboard_summary_state st ON st.site_id = c.site_id
     WHERE (st.site_id IS NULL OR st.built_seq < 0 OR st.built_seq < c.seq OR st.valid_until <= ?) AND (st.lease_until IS NULL OR st.lease_until < ?)
     UNION
     SELECT st.site_id AS id, st.built_seq, st.time_at, st.valid_until, COALESCE(c.seq, 0) AS cur FROM dashboard_summary_state st LEFT JOIN change_seqs c ON c.site_id = st.site_id
     WHERE st.built_seq < 0 AND (st.lease_until IS NULL OR st.lease_until < ?)
   ) u LIMIT ?`,
);
/** A site's state row, for a whole build, unless it has one. */
const NEW_STATE = family(
  'dashboard-summaries.new-state',
  (dialect: 'mysql' | 'sqlite') => `INSERT ${dialect === 'sqlite' ? 'OR IGNORE' : 'IGNORE'} INTO dashboard_summary_state (site_id, built_seq) VALUES (?, -1)`,
  [['mysql'], ['sqlite']],
);
const LEASE = sql(
  'dashboard-summaries.lease',
  'UPDATE dashboard_summary_state SET lease_owner = ?, lease_until = ? WHERE site_id = ? AND (lease_until IS NULL OR lease_until < ?)',
);
const RENEW = sql('dashboard-summaries.renew', 'UPDATE dashboard_summary_state SET lease_owner = ?, lease_until = ? WHERE site_id = ? AND lease_owner = ?');
const RELEASE = sql(
  'dashboard-summaries.release',
  'UPDATE dashboard_summary_state SET lease_owner = NULL, lease_until = NULL WHERE site_id = ? AND lease_owner = ?',
);
const MOVE_CURSOR = sql(
  'dashboard-summaries.move-cursor',
  'UPDATE dashboard_summary_state SET built_seq = ?, time_at = ?, valid_until = ?, lease_owner = NULL, lease_until = NULL WHERE site_id = ? AND lease_owner = ?',
);
/** `n` summaries of one period and row type. */
const DELETE_SUMMARIES = family(
  'dashboard-summaries.delete',
  (n: number) => `DELETE FROM dashboard_summaries WHERE site_id = ? AND period_id = ? AND row_type = ? AND row_id IN (${placeholders(n)})`,
  [[3]],
);
/** `n` summaries in one INSERT (at most 200). */
const INSERT_SUMMARIES = family(
  'dashboard-summaries.insert',
  (n: number) =>
    `INSERT INTO dashboard_summaries (site_id, period_id, row_type, row_id, sums) VALUES ${Array.from({ length: n }, () => '(?, ?, ?, ?, ?)').join(', ')}`,
  [[2]],
);
const BUILT = sql('dashboard-summaries.built', 'UPDATE dashboard_summary_state SET built_seq = ?, time_at = ?, valid_until = ? WHERE site_id = ?');
/** The site's summaries but those of `n` periods. */
const DROP_OTHER_PERIODS = family(
  'dashboard-summaries.drop-other-periods',
  (n: number) => `DELETE FROM dashboard_summaries WHERE site_id = ?${n ? ` AND period_id NOT IN (${placeholders(n)})` : ''}`,
  [[0], [2]],
);

/** The site's change sequence number and its summary state (null when it has none yet). */
export interface SiteSequence {
  currentSeq: number;
  state: SummaryState | null;
  /** The newest change the caller made in the site (0 for none, or for no caller): read-your-writes. */
  callerSeq: number;
}

/**
 * The site's change sequence number with its summary state and the newest change made by the
 * caller (`actorId`, as the change log names them; null: no caller), in one statement — 0 and null
 * for a site without changes. The caller's newest change is one dive into ix_audit_log_actor.
 */
export async function siteSequence(db: TenantDb, ctx: RequestContext, actorId: string | null): Promise<SiteSequence> {
  const [row] = await db.sql(ctx, SITE_SEQUENCE, [ctx.siteId, ctx.siteId, actorId, ctx.siteId]);
  if (!row) return { currentSeq: 0, state: null, callerSeq: 0 };
  const currentSeq = Number(row.cur ?? 0);
  const callerSeq = actorId === null ? 0 : Number(row.mine ?? 0);
  if (row.built_seq === null || row.built_seq === undefined) return { currentSeq, state: null, callerSeq };
  return { currentSeq, state: { builtSeq: Number(row.built_seq), timeAt: date(row.time_at), validUntil: date(row.valid_until), currentSeq }, callerSeq };
}

/**
 * The site's committed change sequence number, read where no request transaction is half done: on
 * SQLite the pool's reads share the one connection with a request's open transaction and would see
 * its sequence number moved on before its audit rows are written (or before it rolls back), so the
 * builder would move its cursor past changes it has not read. A housekeeping transaction waits its
 * turn with the request transactions there. On MySQL/MariaDB a read on the pool sees committed rows
 * only.
 */
export async function committedSequence(db: TenantDb, siteId: string): Promise<number> {
  // MySQL/MariaDB connections read committed rows (READ COMMITTED): one read on the pool will do.
  const rows = db.isSqlite ? await db.housekeeping((h) => h.rows(COMMITTED_SEQUENCE, [siteId])) : await db.pollRead(COMMITTED_SEQUENCE, [siteId]);
  return rows.length ? Number(rows[0].seq) : 0;
}

/** One stored summary: the row and its sums (JSON, see summary-store.ts). */
export interface StoredSummary {
  rowType: number;
  rowId: string;
  sums: string;
}

/** The stored summaries of some rows of one period (`keys`: row type → ids), one statement. */
export async function readSummaries(
  db: TenantDb,
  ctx: RequestContext,
  periodId: number,
  keys: ReadonlyMap<number, readonly string[]>,
): Promise<StoredSummary[]> {
  const sizes: number[] = [];
  const params: unknown[] = [ctx.siteId, periodId];
  for (const [rowType, ids] of keys) {
    if (!ids.length) continue;
    sizes.push(ids.length);
    params.push(rowType, ...ids);
  }
  if (!sizes.length) return [];
  const rows = await db.sql(ctx, SUMMARIES.of(sizes), params);
  return rows.map((r) => ({ rowType: Number(r.row_type), rowId: r.row_id, sums: r.sums }));
}

/**
 * A site this replica holds the lease of, with its state as the look for work read it just before
 * (another replica may have moved it on since: building from an older cursor only computes some
 * rows again).
 */
export interface ClaimedSite {
  siteId: string;
  state: SummaryState;
}

/**
 * Claims up to `limit` sites whose summaries need work — none built yet, behind the site's change
 * sequence, or past the instant time alone changes a figure — and no other replica's lease, for
 * `leaseMs`. A site never seen gets its state row (built_seq -1: a whole build). The lease is one
 * conditional UPDATE per site, so two replicas never both hold one.
 *
 * The sites are found from `change_seqs` (every site's trail starts with its creation), never from
 * `sites`: this poll runs every half second, and a statement of the service must not sit waiting
 * on a lock someone holds on the sites table (docs/operations.md, "When the database is slow or gone").
 */
export async function claimSummarySites(db: TenantDb, owner: string, leaseMs: number, limit: number, sqlite: boolean): Promise<ClaimedSite[]> {
  const now = new Date();
  // The look for work outside a transaction (most polls find none); the lease below checks again.
  const due = await db.pollRead(DUE, [sqlInstant(now), sqlInstant(now), sqlInstant(now), Number(limit)]);
  const claimed: ClaimedSite[] = [];
  for (const row of due) {
    const fresh = row.built_seq === null || row.built_seq === undefined;
    if (fresh) await db.housekeepingWrite(NEW_STATE.of(sqlite ? 'sqlite' : 'mysql'), [row.id]);
    // One conditional UPDATE: of two replicas, one changes the row.
    const took = await db.housekeepingWrite(LEASE, [owner, sqlInstant(new Date(now.getTime() + leaseMs)), row.id, sqlInstant(now)]);
    if (took > 0)
      claimed.push({
        siteId: row.id,
        state: fresh
          ? { builtSeq: -1, timeAt: null, validUntil: null, currentSeq: Number(row.cur) }
          : { builtSeq: Number(row.built_seq), timeAt: date(row.time_at), validUntil: date(row.valid_until), currentSeq: Number(row.cur) },
      });
  }
  return claimed;
}

/** Renews the site's lease inside a transaction; answers whether this replica still holds it. */
async function renewed(h: Housekeeper, siteId: string, owner: string, leaseMs: number): Promise<boolean> {
  return (await h.write(RENEW, [owner, sqlInstant(new Date(Date.now() + leaseMs)), siteId, owner])) > 0;
}

/** Gives the site's lease back (after a build, or a failed one: another replica or wake may try). */
export async function releaseSummarySite(db: TenantDb, siteId: string, owner: string): Promise<void> {
  await db.housekeepingWrite(RELEASE, [siteId, owner]);
}

/**
 * Moves the site's cursor on when its new changes counted nowhere (a comment, a name) and gives
 * the lease back, in one statement; answers false when this replica no longer held it.
 */
export async function moveSummaryCursor(
  db: TenantDb,
  siteId: string,
  owner: string,
  done: { builtSeq: number; timeAt: Date; validUntil: Date | null },
): Promise<boolean> {
  const took = await db.housekeepingWrite(MOVE_CURSOR, [
    done.builtSeq,
    sqlInstant(done.timeAt),
    done.validUntil ? sqlInstant(done.validUntil) : null,
    siteId,
    owner,
  ]);
  return took > 0;
}

/** One summary to write: its sums, or null to remove it (the row is gone or deleted). */
export interface SummaryWrite {
  periodId: number;
  rowType: number;
  rowId: string;
  sums: string | null;
}

/**
 * Writes a batch of summaries in one short transaction, and with `done` moves the site's state on
 * (its sequence number, the instant of its time-dependent figures and the next such instant), as
 * long as this replica still holds the lease (answers false otherwise: nothing is written).
 */
export function writeSummaries(
  db: TenantDb,
  siteId: string,
  owner: string,
  leaseMs: number,
  writes: readonly SummaryWrite[],
  done: { builtSeq: number; timeAt: Date; validUntil: Date | null } | null,
): Promise<boolean> {
  return db.housekeeping(async (h) => {
    if (!(await renewed(h, siteId, owner, leaseMs))) return false;
    const byKey = new Map<string, SummaryWrite[]>();
    for (const w of writes) {
      const key = `${w.periodId}:${w.rowType}`;
      const list = byKey.get(key);
      if (list) list.push(w);
      else byKey.set(key, [w]);
    }
    for (const list of byKey.values()) {
      const { periodId, rowType } = list[0];
      await h.write(DELETE_SUMMARIES.of(list.length), [siteId, periodId, rowType, ...list.map((w) => w.rowId)]);
      const kept = list.filter((w) => w.sums !== null);
      for (let i = 0; i < kept.length; i += 200) {
        const chunk = kept.slice(i, i + 200);
        await h.write(
          INSERT_SUMMARIES.of(chunk.length),
          chunk.flatMap((w) => [siteId, periodId, rowType, w.rowId, w.sums]),
        );
      }
    }
    if (done) {
      await h.write(BUILT, [done.builtSeq, sqlInstant(done.timeAt), done.validUntil ? sqlInstant(done.validUntil) : null, siteId]);
    }
    return true;
  });
}

/** Removes the site's summaries of periods that no longer exist. */
export function dropOtherPeriods(db: TenantDb, siteId: string, keep: readonly number[]): Promise<void> {
  return db.housekeeping(async (h) => {
    await h.write(DROP_OTHER_PERIODS.of(keep.length), [siteId, ...keep]);
  });
}

/** The tables and counted columns (by wire name) of the kinds whose current rows the builder reads. */
const CURRENT: Readonly<Record<string, { table: string; columns: Readonly<Record<string, string>> }>> = {
  individual: { table: 'individuals', columns: {} },
  'organization-member': { table: 'organization_members', columns: { IndividualID: 'individual_id', OrganizationID: 'organization_id' } },
  project: { table: 'projects', columns: { OwnerID: 'owner_id', OrganizationID: 'organization_id' } },
  commitment: { table: 'commitments', columns: { Type: 'type', AncestorID: 'ancestor_id' } },
  dialog: { table: 'dialogs', columns: { Kind: 'kind', AncestorID: 'ancestor_id' } },
  task: { table: 'tasks', columns: { Kind: 'kind', AncestorID: 'ancestor_id' } },
  metric: { table: 'metrics', columns: { Kind: 'kind', AncestorID: 'ancestor_id' } },
  'metric-value': { table: 'metric_values', columns: { MetricID: 'metric_id' } },
  goal: { table: 'goals', columns: { IndividualID: 'individual_id' } },
  assessment: { table: 'assessments', columns: { SubjectID: 'subject_id' } },
  'assessment-rating': { table: 'assessment_ratings', columns: { AssessmentID: 'assessment_id' } },
  'basic-role': { table: 'basic_roles', columns: { IndividualID: 'individual_id' } },
  'basic-role-dialog': { table: 'basic_role_dialogs', columns: { BasicRoleID: 'basic_role_id', DialogID: 'dialog_id' } },
  'project-due-date-change': { table: 'project_due_date_changes', columns: { ProjectID: 'project_id' } },
};

/** The current rows of `n` records of one kind, their counted columns by wire name. */
const CURRENT_STATES = family(
  'dashboard-summaries.current-states',
  (kind: string, n: number) => {
    const spec = CURRENT[kind];
    const cols = Object.entries(spec.columns);
    return `SELECT id${cols.map(([wire, col]) => `, ${col} AS ${wire}`).join('')} FROM ${spec.table} WHERE site_id = ? AND id IN (${placeholders(n)})`;
  },
  [
    ['individual', 2],
    ['commitment', 2],
    ['basic-role-dialog', 2],
  ],
).rows<Record<string, unknown>>();
/** The people whose basic roles are rated in `n` dialogs. */
const DIALOG_ROLE_PEOPLE = family(
  'dashboard-summaries.dialog-role-people',
  (n: number) => `SELECT DISTINCT br.individual_id AS id FROM basic_role_dialogs x JOIN basic_roles br ON br.site_id = x.site_id AND br.id = x.basic_role_id
   WHERE x.site_id = ? AND x.dialog_id IN (${placeholders(n)})`,
  [[2]],
).rows<{ id: string }>();
const SITE_UNITS = sql<{ id: string; parent_id: string | null }>('dashboard-summaries.site-units', 'SELECT id, parent_id FROM organizations WHERE site_id = ?');
/** The memberships of `n` people. */
const MEMBERSHIPS = family(
  'dashboard-summaries.memberships',
  (n: number) => `SELECT individual_id, organization_id FROM organization_members WHERE site_id = ? AND individual_id IN (${placeholders(n)})`,
  [[2]],
).rows<{ individual_id: string; organization_id: string }>();
/** The live people whose primary unit is one of `n` units. */
const PRIMARY_MEMBERS = family(
  'dashboard-summaries.primary-members',
  (n: number) => `SELECT id, primary_organization_id FROM individuals WHERE site_id = ? AND deleted = 0 AND primary_organization_id IN (${placeholders(n)})`,
  [[2]],
).rows<{ id: string; primary_organization_id: string }>();
/** The live rows of a table with their row type: `n` of them, or (null) all of the site's. */
const LIVE_ROWS = family(
  'dashboard-summaries.live-rows',
  (table: 'individuals' | 'organizations', n: number | null) =>
    `SELECT id, ${table === 'individuals' ? '39' : 'row_type'} AS rt FROM ${table} WHERE site_id = ? AND deleted = 0` +
    (n === null ? ' ORDER BY id' : ` AND id IN (${placeholders(n)})`),
  [
    ['individuals', null],
    ['organizations', 2],
  ],
).rows<{ id: string; rt: number }>();
const SITE_PERIODS = sql<{ id: number; start_date: unknown; end_date: unknown }>(
  'dashboard-summaries.site-periods',
  'SELECT id, start_date, end_date FROM periods WHERE site_id = ? ORDER BY id',
);
const TASKS_FALLEN_DUE = sql<{ kind: string; ancestor_id: string }>(
  'dashboard-summaries.tasks-fallen-due',
  'SELECT DISTINCT kind, ancestor_id FROM tasks WHERE site_id = ? AND deleted = 0 AND due_date >= ? AND due_date <= ?',
);
const PROJECTS_FALLEN_DUE = sql<{ id: string }>(
  'dashboard-summaries.projects-fallen-due',
  'SELECT id FROM projects WHERE site_id = ? AND deleted = 0 AND completed_date IS NULL AND due_date >= ? AND due_date <= ?',
);
const PERIODS_ENDED = sql<{ n: number }>(
  'dashboard-summaries.periods-ended',
  'SELECT COUNT(*) AS n FROM periods WHERE site_id = ? AND end_date >= ? AND end_date <= ?',
);
const NEXT_TASK_DUE = sql<{ v: unknown }>(
  'dashboard-summaries.next-task-due',
  'SELECT MIN(due_date) AS v FROM tasks WHERE site_id = ? AND deleted = 0 AND due_date > ?',
);
const NEXT_PROJECT_DUE = sql<{ v: unknown }>(
  'dashboard-summaries.next-project-due',
  'SELECT MIN(due_date) AS v FROM projects WHERE site_id = ? AND deleted = 0 AND completed_date IS NULL AND due_date >= ?',
);
const NEXT_PERIOD_END = sql<{ v: unknown }>('dashboard-summaries.next-period-end', 'SELECT MIN(end_date) AS v FROM periods WHERE site_id = ? AND end_date > ?');

/** The current rows of some records of one kind, their counted columns by wire name (ids as text: goals and commitments have integer ids). */
export async function currentStates(db: TenantDb, ctx: RequestContext, kind: string, ids: readonly string[]): Promise<Map<string, Record<string, unknown>>> {
  const spec = CURRENT[kind];
  const out = new Map<string, Record<string, unknown>>();
  if (!spec || !ids.length) return out;
  const rows = await inChunks(ids, (chunk) => db.sql(ctx, CURRENT_STATES.of(kind, chunk.length), [ctx.siteId, ...chunk]));
  for (const r of rows) out.set(String(r.id), r);
  return out;
}

/** The people whose basic roles are rated in some dialogs. */
export async function dialogRolePeople(db: TenantDb, ctx: RequestContext, dialogIds: readonly string[]): Promise<string[]> {
  if (!dialogIds.length) return [];
  const rows = await db.sql(ctx, DIALOG_ROLE_PEOPLE.of(dialogIds.length), [ctx.siteId, ...dialogIds]);
  return rows.map((r) => r.id);
}

/** Every unit of the site (deleted ones too) with its parent. */
export async function siteUnits(db: TenantDb, ctx: RequestContext): Promise<{ id: string; parentId: string | null }[]> {
  const rows = await db.sql(ctx, SITE_UNITS, [ctx.siteId]);
  return rows.map((r) => ({ id: r.id, parentId: r.parent_id }));
}

/** The rows `read` answers for the ids, 500 ids per statement (bounded IN lists). */
async function inChunks<T>(ids: readonly string[], read: (chunk: string[]) => Promise<T[]>): Promise<T[]> {
  const out: T[] = [];
  for (let i = 0; i < ids.length; i += 500) out.push(...(await read(ids.slice(i, i + 500))));
  return out;
}

/** (individual, unit) of every membership of some people. */
export function membershipsOf(db: TenantDb, ctx: RequestContext, people: readonly string[]): Promise<{ individualId: string; unitId: string }[]> {
  return inChunks(people, async (chunk) =>
    (await db.sql(ctx, MEMBERSHIPS.of(chunk.length), [ctx.siteId, ...chunk])).map((r) => ({ individualId: r.individual_id, unitId: r.organization_id })),
  );
}

/** (individual, unit) of the live people whose primary unit is one of `units`. */
export function primaryMembers(db: TenantDb, ctx: RequestContext, units: readonly string[]): Promise<{ individualId: string; unitId: string }[]> {
  return inChunks(units, async (chunk) =>
    (await db.sql(ctx, PRIMARY_MEMBERS.of(chunk.length), [ctx.siteId, ...chunk])).map((r) => ({ individualId: r.id, unitId: r.primary_organization_id })),
  );
}

/**
 * The live rows among `ids` (all of the site's when null): individuals (row type 39), or units
 * with their row type (4 organization, 56 department). A summary is kept for live rows only.
 */
export async function liveRows(
  db: TenantDb,
  ctx: RequestContext,
  table: 'individuals' | 'organizations',
  ids: readonly string[] | null,
): Promise<{ id: string; rowType: number }[]> {
  if (ids === null) {
    const rows = await db.sql(ctx, LIVE_ROWS.of(table, null), [ctx.siteId]);
    return rows.map((r) => ({ id: r.id, rowType: Number(r.rt) }));
  }
  return inChunks(ids, async (chunk) =>
    (await db.sql(ctx, LIVE_ROWS.of(table, chunk.length), [ctx.siteId, ...chunk])).map((r) => ({ id: r.id, rowType: Number(r.rt) })),
  );
}

/** The site's periods with their dates. */
export async function sitePeriods(db: TenantDb, ctx: RequestContext): Promise<{ id: number; start: Date; end: Date }[]> {
  const rows = await db.sql(ctx, SITE_PERIODS, [ctx.siteId]);
  return rows.map((r) => ({ id: Number(r.id), start: date(r.start_date)!, end: date(r.end_date)! }));
}

/**
 * What time alone changed between `from` and `to` (docs/dashboards.md, "Summaries"): the live
 * follow-ups that fell due (counted as overdue from their DueDate on), the open live projects whose
 * DueDate passed (no longer on time), and whether a period ended (its running follow-ups without a
 * DueDate become overdue; its figures are judged at its end from then on). The window is taken a
 * second wider on the left, which only recomputes a few rows more.
 */
export async function fallenDue(
  db: TenantDb,
  ctx: RequestContext,
  from: Date,
  to: Date,
): Promise<{ tasks: { kind: string; ancestorId: string }[]; projects: string[]; periodEnded: boolean }> {
  const a = sqlInstant(new Date(from.getTime() - 1000));
  const b = sqlInstant(to);
  const [tasks, projects, periods] = await Promise.all([
    db.sql(ctx, TASKS_FALLEN_DUE, [ctx.siteId, a, b]),
    db.sql(ctx, PROJECTS_FALLEN_DUE, [ctx.siteId, a, b]),
    db.sql(ctx, PERIODS_ENDED, [ctx.siteId, a, b]),
  ]);
  return {
    tasks: tasks.map((t) => ({ kind: t.kind, ancestorId: t.ancestor_id })),
    projects: projects.map((p) => p.id),
    periodEnded: Number(periods[0]?.n ?? 0) > 0,
  };
}

/**
 * The next instant after `now` at which time alone changes a figure: the soonest DueDate of a live
 * follow-up, a millisecond after the soonest DueDate of an open live project (on time while its
 * DueDate has not passed), or the soonest end of a period; null when there is none.
 */
export async function nextTimeEvent(db: TenantDb, ctx: RequestContext, now: Date): Promise<Date | null> {
  const t = sqlInstant(now);
  const [[task], [project], [period]] = await Promise.all([
    db.sql(ctx, NEXT_TASK_DUE, [ctx.siteId, t]),
    db.sql(ctx, NEXT_PROJECT_DUE, [ctx.siteId, t]),
    db.sql(ctx, NEXT_PERIOD_END, [ctx.siteId, t]),
  ]);
  const candidates = [date(task?.v), date(project?.v) && new Date(date(project?.v)!.getTime() + 1), date(period?.v)].filter((d): d is Date => !!d);
  return candidates.length ? new Date(Math.min(...candidates.map((d) => d.getTime()))) : null;
}
