import type { RequestContext } from '../../common/context/request-context.js';
import type { TenantDb } from '../tenant-db.js';
import { family, placeholders, sql } from '../statements.js';

/**
 * Walks of the reporting chain and of the organization tree, one recursive query each (SQLite
 * 3.8.3+ and MySQL 8 / MariaDB 10.2+ both run `WITH RECURSIVE`). `UNION` drops rows already found,
 * so even a cycle in stored data cannot make a walk loop. Every step is restricted to `ctx.siteId`;
 * each runs on the context's connection, so inside a transaction it sees that transaction's writes.
 * This is the one place SQL on these tenant tables is written (docs/architecture.md).
 */

const SUBORDINATES = sql<{ id: string }>(
  'trees.subordinates',
  `WITH RECURSIVE sub(id) AS (
     SELECT id FROM individuals WHERE site_id = ? AND primary_reports_to = ?
     UNION
     SELECT i.id FROM sub CROSS JOIN individuals i WHERE i.site_id = ? AND i.primary_reports_to = sub.id
   ) SELECT id FROM sub`,
);

const IN_REPORTING_CHAIN = sql<{ id: string }>(
  'trees.in-reporting-chain',
  `WITH RECURSIVE up(id, depth) AS (
     SELECT primary_reports_to, 1 FROM individuals WHERE site_id = ? AND id = ?
     UNION
     SELECT i.primary_reports_to, up.depth + 1 FROM up CROSS JOIN individuals i
     WHERE i.site_id = ? AND i.id = up.id AND up.depth < 256
   ) SELECT id FROM up WHERE id = ?`,
);

/**
 * The ids of everyone reporting to the individual, at any depth. The recursive step names the CTE
 * first with CROSS JOIN, which keeps SQLite's planner from scanning the site's individuals for
 * every row found (33 s → 0.1 s for a team of 10,000); MySQL/MariaDB plan it the same either way.
 */
export async function subordinateIds(db: TenantDb, ctx: RequestContext, individualId: string): Promise<Set<string>> {
  const rows = await db.sql(ctx, SUBORDINATES, [ctx.siteId, individualId, ctx.siteId]);
  const out = new Set(rows.map((r) => r.id));
  out.delete(individualId);
  return out;
}

/** Whether `managerId` is above `individualId` in the reporting chain (walks up, bounded). */
export async function isInReportingChain(db: TenantDb, ctx: RequestContext, individualId: string, managerId: string): Promise<boolean> {
  const rows = await db.sql(ctx, IN_REPORTING_CHAIN, [ctx.siteId, individualId, ctx.siteId, managerId]);
  return rows.length > 0;
}

/** Which descendants an organization walk follows. */
export type SubtreeState =
  /** Live records (Deleted = false): what a DELETE takes down by reference. */
  | 'live'
  /** Records deleted by reference (Deleted and DeletedByRef): what an undelete restores. */
  | 'byRef';

const STATE_SQL: Record<SubtreeState, string> = {
  live: 'o.deleted = 0',
  byRef: 'o.deleted = 1 AND o.deleted_by_ref = 1',
};

const DESCENDANTS = family(
  'trees.organization-descendants',
  (state: SubtreeState) => `WITH RECURSIVE sub(id) AS (
     SELECT o.id FROM organizations o WHERE o.site_id = ? AND o.parent_id = ? AND ${STATE_SQL[state]}
     UNION
     SELECT o.id FROM organizations o JOIN sub ON o.parent_id = sub.id WHERE o.site_id = ? AND ${STATE_SQL[state]}
   ) SELECT id FROM sub`,
  [['live'], ['byRef']],
).rows<{ id: string }>();

const ANCESTORS = sql<{ id: string | null }>(
  'trees.organization-ancestors',
  `WITH RECURSIVE up(id) AS (
     SELECT o.parent_id FROM organizations o WHERE o.site_id = ? AND o.id = ?
     UNION
     SELECT o.parent_id FROM organizations o JOIN up ON o.id = up.id WHERE o.site_id = ?
   ) SELECT id FROM up WHERE id IS NOT NULL`,
);

const SUBTREE = sql<{ id: string; row_type: number | string }>(
  'trees.organization-subtree',
  `WITH RECURSIVE tree(id, row_type) AS (
     SELECT id, row_type FROM organizations WHERE site_id = ? AND id = ?
     UNION
     SELECT o.id, o.row_type FROM organizations o JOIN tree ON o.parent_id = tree.id WHERE o.site_id = ? AND o.deleted = 0
   ) SELECT id, row_type FROM tree`,
);

const NEAREST_OF_TYPE = sql<{ id: string }>(
  'trees.nearest-ancestor-of-type',
  `WITH RECURSIVE up(id, parent_id, row_type, depth) AS (
     SELECT id, parent_id, row_type, 0 FROM organizations WHERE site_id = ? AND id = ?
     UNION
     SELECT o.id, o.parent_id, o.row_type, up.depth + 1 FROM organizations o JOIN up ON o.id = up.parent_id
     WHERE o.site_id = ? AND up.depth < 256
   ) SELECT id FROM up WHERE row_type = ? ORDER BY depth LIMIT 1`,
);

/** `n`: how many units. */
const LIVE_MEMBERS = family(
  'trees.live-members',
  (n: number) => `SELECT DISTINCT i.id AS id FROM organization_members m JOIN individuals i ON i.id = m.individual_id AND i.site_id = m.site_id
   WHERE m.site_id = ? AND m.organization_id IN (${placeholders(n)}) AND i.deleted = 0`,
  [[1], [3]],
).rows<{ id: string }>();

/**
 * Ids of the descendants of `rootId` (the root itself excluded) reachable through records in
 * `state`: the walk stops at a record in another state, so a sub-department deleted on its own
 * keeps its subtree out of both a cascade and a restore of its parent.
 */
export async function organizationDescendantIds(db: TenantDb, ctx: RequestContext, rootId: string, state: SubtreeState): Promise<string[]> {
  const rows = await db.sql(ctx, DESCENDANTS.of(state), [ctx.siteId, rootId, ctx.siteId]);
  return rows.map((r) => r.id).filter((id) => id !== rootId);
}

/** Ids of every ancestor of `id` (parent, grandparent, …), in no guaranteed order. */
export async function organizationAncestorIds(db: TenantDb, ctx: RequestContext, id: string): Promise<string[]> {
  const rows = await db.sql(ctx, ANCESTORS, [ctx.siteId, id, ctx.siteId]);
  return rows.map((r) => r.id).filter((v): v is string => v !== null);
}

/** A unit and its live descendants with their RowType (the unit itself included). */
export async function organizationSubtree(db: TenantDb, ctx: RequestContext, unitId: string): Promise<{ id: string; rowType: number }[]> {
  const rows = await db.sql(ctx, SUBTREE, [ctx.siteId, unitId, ctx.siteId]);
  return rows.map((r) => ({ id: r.id, rowType: Number(r.row_type) }));
}

/** The nearest unit of `rowType` at or above a unit, walking up the parents (bounded). */
export async function nearestAncestorOfType(db: TenantDb, ctx: RequestContext, unitId: string, rowType: number): Promise<string | null> {
  const rows = await db.sql(ctx, NEAREST_OF_TYPE, [ctx.siteId, unitId, ctx.siteId, rowType]);
  return rows[0]?.id ?? null;
}

/** The live individuals with a membership in any of these units (one query). */
export async function liveMemberIds(db: TenantDb, ctx: RequestContext, unitIds: readonly string[]): Promise<string[]> {
  if (unitIds.length === 0) return [];
  const rows = await db.sql(ctx, LIVE_MEMBERS.of(unitIds.length), [ctx.siteId, ...unitIds]);
  return rows.map((r) => r.id);
}
