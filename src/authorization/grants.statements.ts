import type { Grant, RequestContext } from '../common/context/request-context.js';
import type { TenantDb } from '../database/tenant-db.js';
import { family, placeholders, sql } from '../database/statements.js';

/**
 * The authorization engine's reads (docs/authorization.md): the Permission records that apply to
 * a caller or a principal, security group memberships, and the units and projects a grant on a
 * unit reaches. Every statement filters by the context's site.
 */

interface GrantRow {
  id: string;
  row_id: string;
  row_type: number | string;
  child_type: number | string;
  principal_id: string;
  principal_type: number | string;
  create_state: number | string;
  read_state: number | string;
  update_state: number | string;
  delete_state: number | string;
  delegate_state: number | string;
}

const toGrant = (r: GrantRow): Grant =>
  Object.freeze({
    id: r.id,
    rowId: r.row_id,
    rowType: Number(r.row_type),
    childType: Number(r.child_type),
    principalId: r.principal_id,
    principalType: Number(r.principal_type),
    states: Object.freeze([
      Number(r.create_state),
      Number(r.read_state),
      Number(r.update_state),
      Number(r.delete_state),
      Number(r.delegate_state),
    ]) as Grant['states'],
  });

const GRANT_COLUMNS =
  'p.id, p.row_id, p.row_type, p.child_type, p.principal_id, p.principal_type, p.create_state, p.read_state, p.update_state, p.delete_state, p.delegate_state';

/** The records naming an account, and (`groups`) those naming the security groups its individual belongs to. */
const OF_USER = family(
  'grants.of-user',
  (groups: boolean) =>
    `SELECT ${GRANT_COLUMNS} FROM permissions p WHERE p.site_id = ? AND (p.principal_id = ?` +
    (groups ? ' OR p.principal_id IN (SELECT g.group_id FROM security_group_members g WHERE g.site_id = ? AND g.individual_id = ?))' : ')'),
  [[true], [false]],
).rows<GrantRow>();
const OF_PRINCIPAL = sql<GrantRow>('grants.of-principal', `SELECT ${GRANT_COLUMNS} FROM permissions p WHERE p.site_id = ? AND p.principal_id = ?`);
const GROUPS_OF = sql<{ id: string }>('grants.groups-of', 'SELECT group_id AS id FROM security_group_members WHERE site_id = ? AND individual_id = ?');
const ROW_TYPE_OF = sql<{ t: number | string }>(
  'grants.row-type-of',
  `SELECT 39 AS t FROM individuals WHERE site_id = ? AND id = ?
   UNION ALL SELECT row_type AS t FROM organizations WHERE site_id = ? AND id = ?
   UNION ALL SELECT 15 AS t FROM projects WHERE site_id = ? AND id = ?
   UNION ALL SELECT 9 AS t FROM dialogs WHERE site_id = ? AND id = ?
   UNION ALL SELECT 7 AS t FROM metrics WHERE site_id = ? AND id = ?`,
);
/** The units at and below `n` roots. */
const UNITS_BELOW = family(
  'grants.units-below',
  (n: number) => `WITH RECURSIVE tree(root, id, row_type) AS (
     SELECT o.id, o.id, o.row_type FROM organizations o WHERE o.site_id = ? AND o.id IN (${placeholders(n)})
     UNION
     SELECT tree.root, o.id, o.row_type FROM tree CROSS JOIN organizations o WHERE o.site_id = ? AND o.parent_id = tree.id
   ) SELECT root, id, row_type FROM tree`,
  [[1], [3]],
).rows<{ root: string; id: string; row_type: number | string }>();
const UNIT_CHAIN = sql<{ id: string; manager_id: string | null; depth: number | string }>(
  'grants.unit-chain',
  `WITH RECURSIVE up(id, manager_id, parent_id, depth) AS (
     SELECT o.id, o.manager_id, o.parent_id, 0 FROM organizations o WHERE o.site_id = ? AND o.id = ?
     UNION
     SELECT o.id, o.manager_id, o.parent_id, up.depth + 1 FROM up CROSS JOIN organizations o
     WHERE o.site_id = ? AND o.id = up.parent_id AND up.depth < 256
   ) SELECT id, manager_id, depth FROM up ORDER BY depth`,
);
/** The projects of `n` units. */
const PROJECTS_OF_UNITS = family(
  'grants.projects-of-units',
  (n: number) => `SELECT id FROM projects WHERE site_id = ? AND organization_id IN (${placeholders(n)})`,
  [[1], [3]],
).rows<{ id: string }>();

/**
 * Every Permission record that applies to a user: those naming the account itself and those naming
 * a security group its individual belongs to. One statement, read once per caller (and kept with
 * the caller for CALLER_CACHE_MS).
 */
export async function grantsOfUser(db: TenantDb, ctx: RequestContext, userId: string, individualId: string | null): Promise<Grant[]> {
  const rows = await db.sql(ctx, OF_USER.of(individualId !== null), individualId ? [ctx.siteId, userId, ctx.siteId, individualId] : [ctx.siteId, userId]);
  return rows.map(toGrant);
}

/** The Permission records of one principal (a security group, for the effective-rights view). */
export async function grantsOfPrincipal(db: TenantDb, ctx: RequestContext, principalId: string): Promise<Grant[]> {
  const rows = await db.sql(ctx, OF_PRINCIPAL, [ctx.siteId, principalId]);
  return rows.map(toGrant);
}

/** The ids of the security groups an individual belongs to. */
export async function groupIdsOf(db: TenantDb, ctx: RequestContext, individualId: string): Promise<string[]> {
  const rows = await db.sql(ctx, GROUPS_OF, [ctx.siteId, individualId]);
  return rows.map((r) => r.id);
}

/**
 * What a secured row id names: its RowType (39 individual, 4/56 organization/department, 15
 * project, 9 dialog, 7 metric), or null when it is no such record of the site. One statement.
 */
export async function rowTypeOf(db: TenantDb, ctx: RequestContext, id: string): Promise<number | null> {
  const s = ctx.siteId;
  const rows = await db.sql(ctx, ROW_TYPE_OF, [s, id, s, id, s, id, s, id, s, id]);
  return rows.length ? Number(rows[0].t) : null;
}

/**
 * The units at and below each of `rootIds` with their RowType (deleted ones included: a
 * permission keeps applying to a unit that is restored). One recursive statement for all roots.
 */
export async function unitsBelow(db: TenantDb, ctx: RequestContext, rootIds: readonly string[]): Promise<{ root: string; id: string; rowType: number }[]> {
  if (rootIds.length === 0) return [];
  const rows = await db.sql(ctx, UNITS_BELOW.of(rootIds.length), [ctx.siteId, ...rootIds, ctx.siteId]);
  return rows.map((r) => ({ root: r.root, id: r.id, rowType: Number(r.row_type) }));
}

/** The units above a unit with their manager (parent first, bounded), one statement. */
export async function unitChain(db: TenantDb, ctx: RequestContext, unitId: string): Promise<{ id: string; managerId: string | null }[]> {
  const rows = await db.sql(ctx, UNIT_CHAIN, [ctx.siteId, unitId, ctx.siteId]);
  return rows.map((r) => ({ id: r.id, managerId: r.manager_id }));
}

/** The projects of these units (ids), one statement. */
export async function projectIdsOfUnits(db: TenantDb, ctx: RequestContext, unitIds: readonly string[]): Promise<string[]> {
  if (unitIds.length === 0) return [];
  const rows = await db.sql(ctx, PROJECTS_OF_UNITS.of(unitIds.length), [ctx.siteId, ...unitIds]);
  return rows.map((r) => r.id);
}
