import type { RequestContext } from '../../common/context/request-context.js';
import { fullName } from '../../common/names.js';
import { dateOf, placeholders } from '../raw-reader.js';
import type { TenantDb } from '../tenant-db.js';

export interface LastComment {
  body: string;
  created: Date;
  authorId: string | null;
  /** "First Last" of the author, null when the author is gone. */
  authorName: string | null;
}

/**
 * The id of the newest live comment on the individual `alias` (SQL, correlated on `alias`). It is
 * the first entry of `ix_comments_site_ancestor_last` (…, deleted, created, id) read newest first:
 * one index descent, the same cost with one comment or a hundred thousand (docs/comments.md).
 */
export const lastCommentIdOf = (alias: string) =>
  `(SELECT lc.id FROM comments lc WHERE lc.site_id = ${alias}.site_id AND lc.ancestor_type = 'individuals' AND lc.ancestor_id = ${alias}.id` +
  ` AND lc.deleted = 0 ORDER BY lc.created DESC, lc.id DESC LIMIT 1)`;

/** The columns of the newest comment `c` and its author `a`, joined with {@link LAST_COMMENT_JOINS}. */
export const LAST_COMMENT_COLUMNS = 'c.body AS lc_body, c.created AS lc_created, c.author_id AS lc_author_id, a.first_name AS lc_first, a.last_name AS lc_last';
/**
 * Joins the newest comment `c` and its author `a` by the comment id `idColumn`, which a derived
 * table computes with {@link lastCommentIdOf}: `FROM (SELECT x.*, <lastCommentIdOf('x')> AS lc_id
 * FROM individuals x WHERE … LIMIT …) x <lastCommentJoins('x.lc_id')>`. The subquery must not sit
 * in the join condition itself: MariaDB then runs it far more often than once per row (a page of
 * 500 took 112 ms instead of 9 ms, docs/performance.md).
 */
export const lastCommentJoins = (idColumn: string) =>
  `LEFT JOIN comments c ON c.id = ${idColumn} LEFT JOIN individuals a ON a.id = c.author_id AND a.site_id = c.site_id`;

export interface LastCommentColumns {
  lc_body: string | null;
  lc_created: Date | string | null;
  lc_author_id: string | null;
  lc_first: string | null;
  lc_last: string | null;
}

/** The LastComment of a row read with {@link LAST_COMMENT_COLUMNS}, null when there is none. */
export function lastCommentOf(r: LastCommentColumns): LastComment | null {
  if (r.lc_body === null || r.lc_body === undefined) return null;
  return {
    body: r.lc_body,
    created: dateOf(r.lc_created)!,
    authorId: r.lc_author_id,
    authorName: r.lc_first !== null || r.lc_last !== null ? fullName(r.lc_first, r.lc_last) : null,
  };
}

/**
 * The newest live comment on each of the given individuals (Individual.LastComment*), in one
 * query whatever the number of individuals (no N+1 on lists), each found by one index descent.
 */
export async function lastCommentsFor(db: TenantDb, ctx: RequestContext, individualIds: readonly string[]): Promise<Map<string, LastComment>> {
  const out = new Map<string, LastComment>();
  const ids = [...new Set(individualIds)];
  if (ids.length === 0) return out;
  const rows = await db
    .reader(ctx)
    .rows<LastCommentColumns & { ancestorId: string }>(
      `SELECT x.id AS ancestorId, ${LAST_COMMENT_COLUMNS}` +
        ` FROM (SELECT x.id, ${lastCommentIdOf('x')} AS lc_id FROM individuals x WHERE x.site_id = ? AND x.id IN (${placeholders(ids.length)})) x` +
        ` ${lastCommentJoins('x.lc_id')} WHERE c.id IS NOT NULL`,
      [ctx.siteId, ...ids],
      { prepare: ids.length === 1 },
    );
  for (const r of rows) {
    const last = lastCommentOf(r);
    if (last) out.set(r.ancestorId, last);
  }
  return out;
}
