import type { EntityManager } from 'typeorm';

/**
 * Walks of the organization tree, one recursive query each (SQLite 3.8.3+ and MySQL 8 / MariaDB
 * 10.2+ both run `WITH RECURSIVE`). `UNION` drops rows already found, so even a cycle in stored
 * data cannot make a walk loop. Every step is restricted to the site.
 */

/** Which descendants a walk follows. */
export type SubtreeState =
  /** Live records (Deleted = false): what a DELETE takes down by reference. */
  | 'live'
  /** Records deleted by reference (Deleted and DeletedByRef): what an undelete restores. */
  | 'byRef';

const STATE_SQL: Record<SubtreeState, string> = {
  live: 'o.deleted = 0',
  byRef: 'o.deleted = 1 AND o.deleted_by_ref = 1',
};

/**
 * Ids of the descendants of `rootId` (the root itself excluded) reachable through records in
 * `state`: the walk stops at a record in another state, so a sub-department deleted on its own
 * keeps its subtree out of both a cascade and a restore of its parent.
 */
export async function descendantIds(manager: EntityManager, siteId: string, rootId: string, state: SubtreeState): Promise<string[]> {
  const cond = STATE_SQL[state];
  const rows: { id: string }[] = await manager.query(
    `WITH RECURSIVE sub(id) AS (
       SELECT o.id FROM organizations o WHERE o.site_id = ? AND o.parent_id = ? AND ${cond}
       UNION
       SELECT o.id FROM organizations o JOIN sub ON o.parent_id = sub.id WHERE o.site_id = ? AND ${cond}
     ) SELECT id FROM sub`,
    [siteId, rootId, siteId],
  );
  return rows.map((r) => r.id).filter((id) => id !== rootId);
}

/** Ids of every ancestor of `id` (parent, grandparent, …), nearest first is not guaranteed. */
export async function ancestorIds(manager: EntityManager, siteId: string, id: string): Promise<string[]> {
  const rows: { id: string | null }[] = await manager.query(
    `WITH RECURSIVE up(id) AS (
       SELECT o.parent_id FROM organizations o WHERE o.site_id = ? AND o.id = ?
       UNION
       SELECT o.parent_id FROM organizations o JOIN up ON o.id = up.id WHERE o.site_id = ?
     ) SELECT id FROM up WHERE id IS NOT NULL`,
    [siteId, id, siteId],
  );
  return rows.map((r) => r.id).filter((v): v is string => v !== null);
}

/** Runs `fn` on slices of `ids` small enough for any driver's bound-parameter limit. */
export async function inChunks(ids: readonly string[], fn: (chunk: string[]) => Promise<unknown>, size = 500): Promise<void> {
  for (let i = 0; i < ids.length; i += size) await fn(ids.slice(i, i + size));
}
