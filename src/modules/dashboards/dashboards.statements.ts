import type { RequestContext } from '../../common/context/request-context.js';
import type { TenantDb } from '../../database/tenant-db.js';
import { family, familyWithParams, placeholders } from '../../database/statements.js';

/**
 * The aggregate SQL of the dashboards (docs/dashboards.md). A batch of dashboards of one kind of
 * row — individuals, or organization units (organizations or departments) — is computed by ONE
 * statement, whatever the number of rows in the batch and the size of their subtrees:
 *
 * - common table expressions name each row's scope: `people` (the individuals whose records count),
 *   `depts` and `orgs` (the units whose department- and organization-level records count), `projs`
 *   (the projects whose records count). A unit's scope comes from one recursive walk down the
 *   organization tree (`tree`), the organization above a department or an individual from one
 *   recursive walk up (`up`);
 * - each source (commitments, dialogs, follow-ups, goals, metrics, projects, due-date changes,
 *   assessment ratings, self-assessment ratings, basic-role ratings) is joined to those sets through its (site, kind,
 *   ancestor, period) index and grouped by row: counts and sums only, no row is sent back;
 * - the explain view runs the same row sources, unpivoted per figure, and answers the first 100
 *   record ids of each figure with the figure's total count (window functions: SQLite 3.25+,
 *   MariaDB 10.2+, MySQL 8).
 *
 * Kinds are compared with literals only (never a CTE column with a table column), which keeps
 * MariaDB's collation rules out of the joins. Dates are passed as 'YYYY-MM-DD HH:MM:SS.SSS' UTC
 * text, the form SQLite stores and MariaDB compares with DATETIME columns. Every table is read
 * with `site_id = ?`.
 */

export const ROW_TYPE = { organization: 4, department: 56, individual: 39 } as const;

/**
 * The people among `ids` with their names and, when their primary unit is a department, that
 * department (an individual's dashboard shows its project figures): one statement.
 */
export function dashboardPeople(
  db: TenantDb,
  ctx: RequestContext,
  ids: readonly string[],
): Promise<{ id: string; first_name: string | null; last_name: string | null; department_id: string | null }[]> {
  return db.sql(ctx, PEOPLE.of(ids.length), [ctx.siteId, ...ids]);
}

/** `n` people with their names and primary department (see dashboardPeople). */
const PEOPLE = family(
  'dashboards.people',
  (n: number) => `SELECT i.id, i.first_name, i.last_name, o.id AS department_id FROM individuals i
   LEFT JOIN organizations o ON o.site_id = i.site_id AND o.id = i.primary_organization_id AND o.row_type = ${ROW_TYPE.department}
   WHERE i.site_id = ? AND i.id IN (${placeholders(n)})`,
  [[1], [3]],
).rows<{ id: string; first_name: string | null; last_name: string | null; department_id: string | null }>();

/** What one batch is made of. */
export type DashboardBatchKind = 'individual' | 'organization' | 'department';

export interface DashboardWindow {
  periodId: number;
  from: Date;
  to: Date;
  /** "today" of the on-time rule. */
  now: Date;
  thresholds: readonly [number, number, number];
}

/** One grouped row of the aggregate statement; what n and a…e mean depends on `src` (see `SOURCES`). */
export interface AggregateRow {
  root: string;
  src: SourceName;
  grp: string;
  grp2: string;
  n: number;
  a: number;
  b: number;
  c: number;
  d: number;
  e: number;
  /** A decimal sum (metrics' capped attainment). */
  s: number;
}

export type SourceName = 'commitments' | 'dialogs' | 'tasks' | 'goals' | 'metrics' | 'projects' | 'changes' | 'ratings' | 'selfratings' | 'roleratings';

/** One record of the explain view: the figure it is counted in, its id and what it contributes. */
export interface ExplainRow {
  fig: string;
  rid: string;
  val: number | null;
  total: number;
}

/** The first records of each figure the explain view lists. */
export const EXPLAIN_CAP = 100;

/** `?` placeholders collected in text order. */
class Params {
  readonly values: unknown[] = [];
  p(v: unknown): string {
    this.values.push(v);
    return '?';
  }
  list(vs: readonly unknown[]): string {
    this.values.push(...vs);
    return placeholders(vs.length);
  }
}

/** A DATETIME(3) value as both databases compare it: 'YYYY-MM-DD HH:MM:SS.SSS' in UTC. */
export function sqlInstant(d: Date): string {
  return d.toISOString().replace('T', ' ').replace('Z', '');
}

/** The four levels dialogs, follow-ups and commitments are about (their Kind). */
export type Level = 'organization' | 'department' | 'project' | 'individual';

/**
 * The levels whose dialogs and follow-ups count in a row's completion rates
 * (DialogsCompletedPercent, FollowUpsCompletedPercent; docs/dashboards.md): what the row answers
 * for — the row itself and what is below it, never a level above it. An individual's rates are
 * their own records only (not their organization's or department's, nor their projects'); a
 * department's leave out the organization above it; an organization's take every level, all of
 * which lie within it.
 */
export const RATE_LEVELS: Readonly<Record<DashboardBatchKind, readonly Level[]>> = {
  individual: ['individual'],
  department: ['department', 'project', 'individual'],
  organization: ['organization', 'department', 'project', 'individual'],
};

const LEVEL_SOURCES = [
  ['people', 'individual'],
  ['depts', 'department'],
  ['orgs', 'organization'],
  ['projs', 'project'],
] as const;

/**
 * The scope CTEs of a batch: people (individual level), depts (department level), orgs
 * (organization level) and projs (project level), each (root, id) per row of the batch.
 */
function scopeCte(b: Params, site: string, kind: DashboardBatchKind, roots: readonly string[]): string {
  if (kind === 'individual') {
    return (
      `WITH RECURSIVE people(root, id) AS (SELECT i.id, i.id FROM individuals i WHERE i.site_id = ${b.p(site)} AND i.id IN (${b.list(roots)})),` +
      // Up from the primary unit (depth 0): the department level is that unit when it is a
      // department, the organization level the nearest organization at or above it.
      ` up(root, id, row_type, parent_id, depth) AS (` +
      `SELECT i.id, o.id, o.row_type, o.parent_id, 0 FROM individuals i JOIN organizations o ON o.site_id = i.site_id AND o.id = i.primary_organization_id` +
      ` WHERE i.site_id = ${b.p(site)} AND i.id IN (${b.list(roots)})` +
      ` UNION ALL SELECT up.root, o.id, o.row_type, o.parent_id, up.depth + 1 FROM up JOIN organizations o ON o.site_id = ${b.p(site)} AND o.id = up.parent_id` +
      ` WHERE up.depth < 64),` +
      ` depts(root, id) AS (SELECT root, id FROM up WHERE depth = 0 AND row_type = ${ROW_TYPE.department}),` +
      ` orgs(root, id) AS (SELECT u.root, u.id FROM up u WHERE u.row_type = ${ROW_TYPE.organization}` +
      ` AND u.depth = (SELECT MIN(u2.depth) FROM up u2 WHERE u2.root = u.root AND u2.row_type = ${ROW_TYPE.organization})),` +
      ` projs(root, id) AS (SELECT p.owner_id, p.id FROM projects p WHERE p.site_id = ${b.p(site)} AND p.owner_id IN (${b.list(roots)}) AND p.deleted = 0)`
    );
  }
  const orgs = () =>
    kind === 'organization'
      ? `orgs(root, id) AS (SELECT root, id FROM scope WHERE kind = 1 AND rt = ${ROW_TYPE.organization}),`
      : // A department's organization level: the nearest organization above it.
        ` up(root, id, row_type, parent_id, depth) AS (SELECT o.id, o.id, o.row_type, o.parent_id, 0 FROM organizations o` +
        ` WHERE o.site_id = ${b.p(site)} AND o.id IN (${b.list(roots)})` +
        ` UNION ALL SELECT up.root, o.id, o.row_type, o.parent_id, up.depth + 1 FROM up JOIN organizations o ON o.site_id = ${b.p(site)} AND o.id = up.parent_id` +
        ` WHERE up.depth < 64),` +
        ` orgs(root, id) AS (SELECT u.root, u.id FROM up u WHERE u.row_type = ${ROW_TYPE.organization}` +
        ` AND u.depth = (SELECT MIN(u2.depth) FROM up u2 WHERE u2.root = u.root AND u2.row_type = ${ROW_TYPE.organization})),`;
  return (
    // One recursive walk names the whole scope of every row of the batch, as (root, kind, id, rt):
    // kind 1 the unit itself (even when deleted: its dashboard can still be read) and its live
    // descendants (rt = RowType), 2 the live members (primary or not) of those units, 5 the live
    // projects of those units and of those members. UNION drops repeated rows (a member of two
    // sub-units, a project found twice), and MariaDB materializes a recursive CTE once for all
    // the statement's references to it (a plain CTE would be computed again at each reference).
    `WITH RECURSIVE scope(root, kind, id, rt) AS (SELECT o.id, 1, o.id, o.row_type FROM organizations o` +
    ` WHERE o.site_id = ${b.p(site)} AND o.id IN (${b.list(roots)})` +
    ` UNION SELECT s.root, 1, o.id, o.row_type FROM scope s JOIN organizations o ON o.site_id = ${b.p(site)} AND o.parent_id = s.id AND o.deleted = 0 WHERE s.kind = 1` +
    ` UNION SELECT s.root, 2, m.individual_id, 0 FROM scope s JOIN organization_members m ON m.site_id = ${b.p(site)} AND m.organization_id = s.id` +
    ` JOIN individuals i ON i.site_id = m.site_id AND i.id = m.individual_id AND i.deleted = 0 WHERE s.kind = 1` +
    ` UNION SELECT s.root, 5, p.id, 0 FROM scope s JOIN projects p ON p.site_id = ${b.p(site)} AND p.organization_id = s.id AND p.deleted = 0 WHERE s.kind = 1` +
    ` UNION SELECT s.root, 5, p.id, 0 FROM scope s JOIN projects p ON p.site_id = ${b.p(site)} AND p.owner_id = s.id AND p.deleted = 0 WHERE s.kind = 2),` +
    ` people(root, id) AS (SELECT root, id FROM scope WHERE kind = 2),` +
    ` depts(root, id) AS (SELECT root, id FROM scope WHERE kind = 1 AND rt = ${ROW_TYPE.department}),` +
    ` ${orgs()}` +
    ` projs(root, id) AS (SELECT root, id FROM scope WHERE kind = 5)`
  );
}

/**
 * The row sources: each a SELECT of (root, id, …flags) over the scope, the records one figure
 * group counts. The aggregate groups them; the explain view lists them.
 */
const rows = {
  /** Commitments of the period per level: lvl, done. */
  commitments: (b: Params, site: string, w: DashboardWindow) =>
    LEVEL_SOURCES.filter(([, lvl]) => lvl !== 'project')
      .map(
        ([set, lvl]) =>
          `SELECT s.root AS root, CAST(c.id AS CHAR(36)) AS id, '${lvl}' AS lvl, CASE WHEN c.completed = 1 THEN 1 ELSE 0 END AS done` +
          ` FROM ${set} s JOIN commitments c ON c.site_id = ${b.p(site)} AND c.type = '${lvl}' AND c.ancestor_id = s.id AND c.period_id = ${b.p(w.periodId)}`,
      )
      .join(' UNION ALL '),
  /** Live dialogs of the period per level: lvl, held. */
  dialogs: (b: Params, site: string, w: DashboardWindow) =>
    LEVEL_SOURCES.map(
      ([set, lvl]) =>
        `SELECT s.root AS root, CAST(d.id AS CHAR(36)) AS id, '${lvl}' AS lvl, CASE WHEN d.occurred_date IS NOT NULL THEN 1 ELSE 0 END AS done` +
        ` FROM ${set} s JOIN dialogs d ON d.site_id = ${b.p(site)} AND d.kind = '${lvl}' AND d.ancestor_id = s.id AND d.period_id = ${b.p(w.periodId)} AND d.deleted = 0`,
    ).join(' UNION ALL '),
  /**
   * Live follow-ups created in the period per level: lvl, done (completed by the period's end),
   * rated (counted in the completion rate: done, or its due date — the period's end when it has
   * none — come by the period's end or, in a running period, by now; an open follow-up not yet due
   * counts in neither).
   */
  tasks: (b: Params, site: string, w: DashboardWindow) => {
    const asOf = w.now < w.to ? w.now : w.to;
    const done = (p: string) => `t.completed = 1 AND t.completed_date <= ${p}`;
    return LEVEL_SOURCES.map(
      ([set, lvl]) =>
        `SELECT s.root AS root, CAST(t.id AS CHAR(36)) AS id, '${lvl}' AS lvl,` +
        ` CASE WHEN ${done(b.p(sqlInstant(w.to)))} THEN 1 ELSE 0 END AS done,` +
        ` CASE WHEN (${done(b.p(sqlInstant(w.to)))}) OR t.due_date <= ${b.p(sqlInstant(asOf))}` +
        ` OR (t.due_date IS NULL AND ${b.p(asOf === w.to ? 1 : 0)} = 1) THEN 1 ELSE 0 END AS rated` +
        ` FROM ${set} s JOIN tasks t ON t.site_id = ${b.p(site)} AND t.kind = '${lvl}' AND t.ancestor_id = s.id AND t.deleted = 0` +
        ` AND t.created >= ${b.p(sqlInstant(w.from))} AND t.created <= ${b.p(sqlInstant(w.to))}`,
    ).join(' UNION ALL ');
  },
  /** Goals of the period of the people: done. */
  goals: (b: Params, site: string, w: DashboardWindow) =>
    `SELECT s.root AS root, CAST(g.id AS CHAR(36)) AS id, CASE WHEN g.completed = 1 THEN 1 ELSE 0 END AS done` +
    ` FROM people s JOIN goals g ON g.site_id = ${b.p(site)} AND g.individual_id = s.id AND g.period_id = ${b.p(w.periodId)}`,
  /**
   * Live metrics of the people and projects with a value in the period and a measurable
   * attainment: num/den × 100 is the attainment (actual/target, or target/actual when lower is
   * better); is8020.
   */
  metrics: (b: Params, site: string, w: DashboardWindow) =>
    (
      [
        ['people', 'individual'],
        ['projs', 'project'],
      ] as const
    )
      .map(
        ([set, kind]) =>
          `SELECT s.root AS root, CAST(m.id AS CHAR(36)) AS id, CASE WHEN m.is_8020 = 1 THEN 1 ELSE 0 END AS is8020,` +
          ` CASE WHEN m.higher_is_better = 1 THEN v.actual ELSE m.target END AS num, CASE WHEN m.higher_is_better = 1 THEN m.target ELSE v.actual END AS den` +
          ` FROM ${set} s JOIN metrics m ON m.site_id = ${b.p(site)} AND m.kind = '${kind}' AND m.ancestor_id = s.id AND m.deleted = 0` +
          ` JOIN metric_values v ON v.site_id = ${b.p(site)} AND v.metric_id = m.id AND v.period_id = ${b.p(w.periodId)}` +
          ` WHERE m.target > 0 AND (m.higher_is_better = 1 OR v.actual > 0)`,
      )
      .join(' UNION ALL '),
  /** The projects of the scope: active, ontime (of the active or completed ones), done (completed in the period). */
  projects: (b: Params, site: string, w: DashboardWindow) => {
    const from = sqlInstant(w.from);
    const to = sqlInstant(w.to);
    return (
      `SELECT x.root AS root, x.id AS id, x.active AS active, x.done AS done,` +
      ` CASE WHEN (x.active = 1 OR x.done = 1) AND x.ontime = 1 THEN 1 ELSE 0 END AS ontime FROM (` +
      `SELECT s.root AS root, CAST(p.id AS CHAR(36)) AS id,` +
      ` CASE WHEN COALESCE(p.start_date, p.created) <= ${b.p(to)} AND (p.completed_date IS NULL OR p.completed_date >= ${b.p(from)}) THEN 1 ELSE 0 END AS active,` +
      ` CASE WHEN p.completed_date >= ${b.p(from)} AND p.completed_date <= ${b.p(to)} THEN 1 ELSE 0 END AS done,` +
      ` CASE WHEN p.due_date IS NULL OR (p.completed_date IS NOT NULL AND p.completed_date <= p.due_date)` +
      ` OR (p.completed_date IS NULL AND p.due_date >= ${b.p(sqlInstant(w.now))}) THEN 1 ELSE 0 END AS ontime` +
      ` FROM projs s JOIN projects p ON p.site_id = ${b.p(site)} AND p.id = s.id) x`
    );
  },
  /** Due-date moves of the scope's projects made within the period. */
  changes: (b: Params, site: string, w: DashboardWindow) =>
    `SELECT s.root AS root, CAST(ch.id AS CHAR(36)) AS id FROM projs s JOIN project_due_date_changes ch ON ch.site_id = ${b.p(site)} AND ch.project_id = s.id` +
    ` AND ch.created >= ${b.p(sqlInstant(w.from))} AND ch.created <= ${b.p(sqlInstant(w.to))}`,
  /** Ratings of the people's leader and team assessments of the period: akind, ikind, rating. */
  ratings: (b: Params, site: string, w: DashboardWindow) =>
    (['leader', 'team'] as const)
      .map(
        (akind) =>
          `SELECT s.root AS root, CAST(r.id AS CHAR(36)) AS id, '${akind}' AS akind,` +
          ` CASE WHEN r.item_kind = 'evaluationcriteria' THEN 1 WHEN r.item_kind = 'corevalue' THEN 2 ELSE 0 END AS ikind, r.rating AS rating` +
          ` FROM people s JOIN assessments a ON a.site_id = ${b.p(site)} AND a.subject_id = s.id AND a.period_id = ${b.p(w.periodId)} AND a.kind = '${akind}'` +
          ` JOIN assessment_ratings r ON r.site_id = ${b.p(site)} AND r.assessment_id = a.id`,
      )
      .join(' UNION ALL '),
  /** Ratings of the people's self assessments of the period (kept apart: they count in no score but their own): rating. */
  selfratings: (b: Params, site: string, w: DashboardWindow) =>
    `SELECT s.root AS root, CAST(r.id AS CHAR(36)) AS id, r.rating AS rating` +
    ` FROM people s JOIN assessments a ON a.site_id = ${b.p(site)} AND a.subject_id = s.id AND a.period_id = ${b.p(w.periodId)} AND a.kind = 'self'` +
    ` JOIN assessment_ratings r ON r.site_id = ${b.p(site)} AND r.assessment_id = a.id`,
  /** Ratings of the people's basic roles in live dialogs of the period: rating. */
  roleratings: (b: Params, site: string, w: DashboardWindow) =>
    `SELECT s.root AS root, CAST(x.id AS CHAR(36)) AS id, x.rating AS rating FROM people s` +
    ` JOIN basic_roles br ON br.site_id = ${b.p(site)} AND br.individual_id = s.id` +
    ` JOIN basic_role_dialogs x ON x.site_id = ${b.p(site)} AND x.basic_role_id = br.id AND x.rating IS NOT NULL` +
    ` JOIN dialogs d ON d.site_id = ${b.p(site)} AND d.id = x.dialog_id AND d.period_id = ${b.p(w.periodId)} AND d.deleted = 0`,
};

/** At 6 decimals, so that SQLite's binary floating point and MariaDB's decimals agree at the thresholds. */
const atLeast = (b: Params, threshold: number) => `ROUND(x.num * 100, 6) >= ROUND(x.den * ${b.p(threshold)}, 6)`;

/** The aggregate of each source: (root, src, grp, grp2, n, a, b, c, d, e, s). */
/** One aggregate branch with its columns named (a derived table needs unique names). */
const agg = (cols: readonly [string, string, string, string, string, string, string, string, string, string, string], from: string, groupBy: string) =>
  `SELECT ${cols.map((c, k) => `${c} AS ${AGG_COLUMNS[k]}`).join(', ')} FROM (${from}) x GROUP BY ${groupBy}`;
const AGG_COLUMNS = ['root', 'src', 'grp', 'grp2', 'n', 'a', 'b', 'c', 'd', 'e', 's'] as const;

/** The aggregate of each source: (root, src, grp, grp2, n, a, b, c, d, e, s). */
const aggregates: Record<SourceName, (b: Params, site: string, w: DashboardWindow) => string> = {
  commitments: (b, site, w) =>
    agg(['x.root', "'commitments'", 'x.lvl', "''", 'COUNT(*)', 'SUM(x.done)', '0', '0', '0', '0', '0'], rows.commitments(b, site, w), 'x.root, x.lvl'),
  dialogs: (b, site, w) =>
    agg(['x.root', "'dialogs'", 'x.lvl', "''", 'COUNT(*)', 'SUM(x.done)', '0', '0', '0', '0', '0'], rows.dialogs(b, site, w), 'x.root, x.lvl'),
  tasks: (b, site, w) =>
    agg(['x.root', "'tasks'", 'x.lvl', "''", 'COUNT(*)', 'SUM(x.done)', 'SUM(x.rated)', '0', '0', '0', '0'], rows.tasks(b, site, w), 'x.root, x.lvl'),
  goals: (b, site, w) => agg(['x.root', "'goals'", "''", "''", 'COUNT(*)', 'SUM(x.done)', '0', '0', '0', '0', '0'], rows.goals(b, site, w), 'x.root'),
  metrics: (b, site, w) => {
    const [t1, t2, t3] = w.thresholds;
    // a: ≥ T3; b: ≥ T2 and < T3; c: ≥ T1 and < T2; d: 80/20 metrics; e: 80/20 at ≥ T2; s: 80/20 attainment capped at 100.
    // The select list's parameters come before the FROM's in the text: build them first.
    const cols = [
      'x.root',
      "'metrics'",
      "''",
      "''",
      'COUNT(*)',
      `SUM(CASE WHEN ${atLeast(b, t3)} THEN 1 ELSE 0 END)`,
      `SUM(CASE WHEN ${atLeast(b, t2)} AND NOT ${atLeast(b, t3)} THEN 1 ELSE 0 END)`,
      `SUM(CASE WHEN ${atLeast(b, t1)} AND NOT ${atLeast(b, t2)} THEN 1 ELSE 0 END)`,
      'SUM(x.is8020)',
      `SUM(CASE WHEN x.is8020 = 1 AND ${atLeast(b, t2)} THEN 1 ELSE 0 END)`,
      'SUM(CASE WHEN x.is8020 = 0 THEN 0 WHEN x.num >= x.den THEN 100 ELSE x.num * 100.0 / x.den END)',
    ] as const;
    return agg(cols, rows.metrics(b, site, w), 'x.root');
  },
  projects: (b, site, w) =>
    agg(['x.root', "'projects'", "''", "''", 'COUNT(*)', 'SUM(x.active)', 'SUM(x.ontime)', 'SUM(x.done)', '0', '0', '0'], rows.projects(b, site, w), 'x.root'),
  changes: (b, site, w) => agg(['x.root', "'changes'", "''", "''", 'COUNT(*)', '0', '0', '0', '0', '0', '0'], rows.changes(b, site, w), 'x.root'),
  ratings: (b, site, w) =>
    agg(
      ['x.root', "'ratings'", 'x.akind', 'CAST(x.ikind AS CHAR(2))', 'COUNT(*)', 'SUM(x.rating)', '0', '0', '0', '0', '0'],
      rows.ratings(b, site, w),
      'x.root, x.akind, x.ikind',
    ),
  selfratings: (b, site, w) =>
    agg(['x.root', "'selfratings'", "''", "''", 'COUNT(*)', 'SUM(x.rating)', '0', '0', '0', '0', '0'], rows.selfratings(b, site, w), 'x.root'),
  roleratings: (b, site, w) =>
    agg(['x.root', "'roleratings'", "''", "''", 'COUNT(*)', 'SUM(x.rating)', '0', '0', '0', '0', '0'], rows.roleratings(b, site, w), 'x.root'),
};

export const ALL_SOURCES = Object.keys(aggregates) as SourceName[];

type RawAggregate = { root: string; src: SourceName; grp: string | null; grp2: string | null } & Record<
  'n' | 'a' | 'b' | 'c' | 'd' | 'e' | 's',
  number | string | null
>;

/** A sample of the dashboards' window, for the snapshot of their statements. */
const SAMPLE_WINDOW: DashboardWindow = {
  periodId: 1,
  from: new Date('2026-01-01T00:00:00Z'),
  to: new Date('2026-12-31T23:59:59.999Z'),
  now: new Date('2026-06-30T00:00:00Z'),
  thresholds: [70, 90, 110],
};

/** The aggregate statement of a batch (see dashboardAggregates); its text varies with the kind, the batch's size and the sources. */
const AGGREGATES = familyWithParams(
  'dashboards.aggregates',
  (site: string, kind: DashboardBatchKind, roots: readonly string[], w: DashboardWindow, sources: readonly SourceName[]) => {
    const b = new Params();
    const cte = scopeCte(b, site, kind, roots);
    const body = sources.map((src) => aggregates[src](b, site, w)).join(' UNION ALL ');
    return { text: `${cte} ${body}`, params: b.values };
  },
  [
    ['site', 'individual', ['a', 'b'], SAMPLE_WINDOW, ALL_SOURCES],
    ['site', 'individual', ['a'], SAMPLE_WINDOW, ['projects', 'changes']],
    ['site', 'department', ['a', 'b'], SAMPLE_WINDOW, ALL_SOURCES],
    ['site', 'organization', ['a'], SAMPLE_WINDOW, ALL_SOURCES],
  ],
).rows<RawAggregate>();

/**
 * The grouped counts and sums of a batch of dashboards of one kind: one statement for the whole
 * batch. `sources` limits it to some sources (an individual's Dept… project figures need only
 * `projects` and `changes` of their departments).
 */
export async function dashboardAggregates(
  db: TenantDb,
  ctx: RequestContext,
  kind: DashboardBatchKind,
  roots: readonly string[],
  w: DashboardWindow,
  sources: readonly SourceName[] = ALL_SOURCES,
): Promise<AggregateRow[]> {
  if (roots.length === 0 || sources.length === 0) return [];
  const { statement, params } = AGGREGATES.of(ctx.siteId, kind, roots, w, sources);
  const raw = await db.sql(ctx, statement, params);
  return raw.map((x) => {
    return {
      root: x.root,
      src: x.src,
      grp: x.grp ?? '',
      grp2: String(x.grp2 ?? '').trim(),
      n: Number(x.n ?? 0),
      a: Number(x.a ?? 0),
      b: Number(x.b ?? 0),
      c: Number(x.c ?? 0),
      d: Number(x.d ?? 0),
      e: Number(x.e ?? 0),
      s: Number(x.s ?? 0),
    };
  });
}

/**
 * The explain view's branches: per figure (the Dashboard field it explains), the source rows it
 * counts and what each contributes (null for a plain count).
 */
const LEVEL_PREFIX = { organization: 'Org', department: 'Dept', project: 'Proj', individual: 'Ind' } as const;
const COMMITMENT_PREFIX = { organization: 'Organization', department: 'Department', individual: 'Individual' } as const;

/** One figure's records: its statement's body, written with the Params of that statement. */
type ExplainBranch = (b: Params, site: string, w: DashboardWindow) => string;
type Source = (b: Params, site: string, w: DashboardWindow) => string;

/** The explain view's figures of a batch kind, in the order the view lists them, with the statement body of each. */
function explainBranches(kind: DashboardBatchKind): Map<string, ExplainBranch> {
  const out = new Map<string, ExplainBranch>();
  const branch = (fig: string, source: Source, val: string, where = '') =>
    out.set(fig, (b, site, w) => `SELECT '${fig}' AS fig, x.id AS rid, ${val} AS val FROM (${source(b, site, w)}) x${where}`);
  for (const lvl of ['organization', 'department', 'individual'] as const) {
    const p = COMMITMENT_PREFIX[lvl];
    branch(`${p}CommitmentsTotal`, rows.commitments, 'NULL', ` WHERE x.lvl = '${lvl}'`);
    branch(`${p}CommitmentsCompleted`, rows.commitments, 'NULL', ` WHERE x.lvl = '${lvl}' AND x.done = 1`);
    branch(`${p}CommitmentsColorValue`, rows.commitments, 'x.done', ` WHERE x.lvl = '${lvl}'`);
  }
  const metricValue = 'x.num * 100.0 / x.den';
  for (const fig of ['MetricsExceedsPercent', 'MetricsMeetsPercent', 'MetricsMinimumPercent', 'MetricsBelowPercent']) branch(fig, rows.metrics, metricValue);
  branch('Metrics8020Percent', rows.metrics, metricValue, ' WHERE x.is8020 = 1');
  branch('Metrics8020CompositePercent', rows.metrics, metricValue, ' WHERE x.is8020 = 1');
  branch('ProjectsActive', rows.projects, 'NULL', ' WHERE x.active = 1');
  branch('ProjectsOnTime', rows.projects, 'NULL', ' WHERE x.ontime = 1');
  branch('ProjectsCompleted', rows.projects, 'NULL', ' WHERE x.done = 1');
  branch('ProjectsDateChanges', rows.changes, 'NULL');
  branch('EvaluationCriteriaPercent', rows.ratings, 'x.rating', ' WHERE x.ikind = 1');
  branch('LeaderAssessmentPercent', rows.ratings, 'x.rating', " WHERE x.akind = 'leader'");
  branch('TeamAssessmentPercent', rows.ratings, 'x.rating', " WHERE x.akind = 'team'");
  branch('SelfAssessmentPercent', rows.selfratings, 'x.rating');
  branch('IndividualCoreValuesPercent', rows.ratings, 'x.rating', ' WHERE x.ikind = 2');
  branch('IndividualBasicRolePercent', rows.roleratings, 'x.rating');
  const rated = ` WHERE x.lvl IN (${RATE_LEVELS[kind].map((lvl) => `'${lvl}'`).join(', ')})`;
  branch('DialogsCompletedPercent', rows.dialogs, 'x.done', rated);
  branch('FollowUpsCompletedPercent', rows.tasks, 'x.done', `${rated} AND x.rated = 1`);
  branch('PersonalGoalsTotal', rows.goals, 'NULL');
  branch('PersonalGoalsCompleted', rows.goals, 'NULL', ' WHERE x.done = 1');
  for (const lvl of ['organization', 'department', 'project', 'individual'] as const) {
    const p = LEVEL_PREFIX[lvl];
    branch(`${p}DialogsExpected`, rows.dialogs, 'NULL', ` WHERE x.lvl = '${lvl}'`);
    branch(`${p}DialogsOccurred`, rows.dialogs, 'NULL', ` WHERE x.lvl = '${lvl}' AND x.done = 1`);
    branch(`${p}FollowUpsCreated`, rows.tasks, 'NULL', ` WHERE x.lvl = '${lvl}'`);
    branch(`${p}FollowUpsCompleted`, rows.tasks, 'NULL', ` WHERE x.lvl = '${lvl}' AND x.done = 1`);
  }
  return out;
}

const BRANCHES: Readonly<Record<DashboardBatchKind, Map<string, ExplainBranch>>> = {
  individual: explainBranches('individual'),
  department: explainBranches('department'),
  organization: explainBranches('organization'),
};

/** The records behind one figure of one dashboard (see dashboardRecords): its text varies with the kind and the figure. */
const RECORDS = familyWithParams(
  'dashboards.records',
  (site: string, kind: DashboardBatchKind, root: string, w: DashboardWindow, fig: string) => {
    const b = new Params();
    const cte = scopeCte(b, site, kind, [root]);
    const body = BRANCHES[kind].get(fig)!(b, site, w);
    const text =
      `${cte} SELECT w.fig AS fig, w.rid AS rid, w.val AS val, w.total AS total FROM (` +
      `SELECT u.fig, u.rid, u.val, COUNT(*) OVER () AS total, ROW_NUMBER() OVER (ORDER BY u.rid) AS rn FROM (${body}) u` +
      `) w WHERE w.rn <= ${b.p(EXPLAIN_CAP)} ORDER BY w.rid`;
    return { text, params: b.values };
  },
  [
    ['site', 'individual', 'a', SAMPLE_WINDOW, 'IndividualCommitmentsCompleted'],
    ['site', 'individual', 'a', SAMPLE_WINDOW, 'FollowUpsCompletedPercent'],
    ['site', 'department', 'a', SAMPLE_WINDOW, 'MetricsExceedsPercent'],
    ['site', 'organization', 'a', SAMPLE_WINDOW, 'ProjectsOnTime'],
  ],
).rows<{ fig: string; rid: string | number; val: number | string | null; total: number | string }>();

/**
 * The records behind each figure of one dashboard (the explain view): for every figure its first
 * EXPLAIN_CAP record ids (by id) with what each contributes, and the figure's total count. One
 * statement per figure: in one statement of all ~57 figures MariaDB spent 3.8 GB of memory on a
 * department of a few records (each figure's reference to the scope CTEs is planned anew), and
 * a full test run on MariaDB ran the server out of memory. The metric figures list every measured metric with its attainment (%); rating
 * figures each rating (1–5); completion rates each record with 1 (done) or 0.
 */
export async function dashboardRecords(db: TenantDb, ctx: RequestContext, kind: DashboardBatchKind, root: string, w: DashboardWindow): Promise<ExplainRow[]> {
  const out: ExplainRow[] = [];
  for (const fig of BRANCHES[kind].keys()) {
    const { statement, params } = RECORDS.of(ctx.siteId, kind, root, w, fig);
    const raw = await db.sql(ctx, statement, params);
    for (const r of raw) out.push({ fig: r.fig, rid: String(r.rid), val: r.val === null ? null : Number(r.val), total: Number(r.total) });
  }
  return out;
}
