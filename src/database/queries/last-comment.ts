import type { RequestContext } from '../../common/context/request-context.js';
import { fullName } from '../../common/names.js';
import { dateOf } from '../raw-reader.js';
import { inChunks } from '../soft-delete.js';
import type { TenantDb } from '../tenant-db.js';
import { family, placeholders } from '../statements.js';

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
 * Reads do not run it: they join the `last_comment_id` it keeps (see refreshLastComments).
 *
 * MySQL/MariaDB are told the index (`FORCE INDEX`): left to choose, MariaDB may take an index that
 * matches only the ORDER BY and walk every comment of the site backwards until one is on this
 * individual, 20,000 rows for an individual whose only comment is old. SQLite plans it right.
 */
export const lastCommentIdOf = (alias: string, dialect: 'mysql' | 'sqlite') =>
  `(SELECT lc.id FROM comments lc${dialect === 'mysql' ? ' FORCE INDEX (ix_comments_site_ancestor_last)' : ''} WHERE lc.site_id = ${alias}.site_id AND lc.ancestor_type = 'individuals' AND lc.ancestor_id = ${alias}.id` +
  ` AND lc.deleted = 0 ORDER BY lc.created DESC, lc.id DESC LIMIT 1)`;

/**
 * Sets `last_comment_id` of some individuals to their newest live comment. Unaliased, so SQLite
 * runs it too; the migration that added the column fills it with this same statement (without the
 * WHERE), and docs/operations.md gives it to those who write comments around the API.
 */
type Dialect = 'mysql' | 'sqlite';
const dialectOf = (db: TenantDb): Dialect => (db.isSqlite ? 'sqlite' : 'mysql');

/** That statement for `n` individuals of a site. */
export const REFRESH_LAST_COMMENTS = family(
  'last-comment.refresh',
  (dialect: Dialect, n: number) =>
    `UPDATE individuals SET last_comment_id = ${lastCommentIdOf('individuals', dialect)} WHERE site_id = ? AND id IN (${placeholders(n)})`,
  [
    ['mysql', 1],
    ['sqlite', 3],
  ],
);

/** Locks `n` individuals of a site in id order (MySQL/MariaDB), before refreshing more than one. */
const LOCK_INDIVIDUALS = family(
  'last-comment.lock-individuals',
  (n: number) => `SELECT id FROM individuals WHERE site_id = ? AND id IN (${placeholders(n)}) ORDER BY id FOR UPDATE`,
  [[3]],
);

/**
 * The columns of the newest comment `c`, joined with {@link lastCommentJoins}, with the author's
 * name the comment keeps (docs/comments.md, "The author's name").
 */
export const LAST_COMMENT_COLUMNS =
  'c.body AS lc_body, c.created AS lc_created, c.author_id AS lc_author_id, c.author_first_name AS lc_first, c.author_last_name AS lc_last';
/**
 * Joins the newest comment `c` of the individual `alias`: one primary-key lookup through the kept
 * `last_comment_id`, whatever the number of comments. The comment must
 * still be a live comment on that individual of that site, so an id left stale by a write around
 * the API shows no comment rather than a deleted or foreign one.
 */
export const lastCommentJoins = (alias: string) =>
  `LEFT JOIN comments c ON c.id = ${alias}.last_comment_id AND c.site_id = ${alias}.site_id AND c.ancestor_type = 'individuals'` +
  ` AND c.ancestor_id = ${alias}.id AND c.deleted = 0`;

/**
 * Keeps `individuals.last_comment_id` right for these individuals of the caller's site: call it in
 * the transaction of every write that creates, deletes or restores comments on individuals, after
 * that write. It locks the individuals first (on MySQL/MariaDB; SQLite runs one transaction at a
 * time) and then reads their comments in a statement of its own, which under READ COMMITTED sees
 * everything committed before the lock was granted. Every writer does the same, so the last one to
 * hold an individual's lock writes the value that counts all of them (docs/comments.md).
 */
export async function refreshLastComments(db: TenantDb, ctx: RequestContext, individualIds: readonly string[]): Promise<void> {
  db.assertInTransaction(ctx, 'refreshLastComments');
  await inChunks([...new Set(individualIds)].sort(), async (chunk) => {
    // Several rows are locked in id order first, so two refreshes cannot deadlock; one row is
    // locked by the UPDATE itself.
    if (!db.isSqlite && chunk.length > 1) await db.sql(ctx, LOCK_INDIVIDUALS.of(chunk.length), [ctx.siteId, ...chunk]);
    await db.sql(ctx, REFRESH_LAST_COMMENTS.of(dialectOf(db), chunk.length), [ctx.siteId, ...chunk]);
  });
}

/**
 * refreshLastComments for one individual whose row the transaction has locked already (a
 * comment's create, delete and undelete lock the individual it is on first): the UPDATE is sent
 * with the COMMIT (TenantDb.sqlAtCommit), one round trip less. Nothing later in the transaction
 * may read that individual's `last_comment_id`.
 */
export function refreshLastCommentAtCommit(db: TenantDb, ctx: RequestContext, individualId: string): void {
  db.sqlAtCommit(ctx, REFRESH_LAST_COMMENTS.of(dialectOf(db), 1), [ctx.siteId, individualId]);
}

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

/** The newest live comment of `n` individuals, worked out from the comments (lastCommentsFor). */
const NEWEST_COMMENTS = family(
  'last-comment.newest-of',
  (dialect: Dialect, n: number) =>
    `SELECT x.id AS ancestorId, ${LAST_COMMENT_COLUMNS}` +
    ` FROM (SELECT x.id, ${lastCommentIdOf('x', dialect)} AS lc_id FROM individuals x WHERE x.site_id = ? AND x.id IN (${placeholders(n)})) x` +
    ` JOIN comments c ON c.id = x.lc_id`,
  [
    ['mysql', 1],
    ['sqlite', 3],
  ],
  // One individual's statement is kept prepared; a list's varying IN list is prepared for its call only.
  { prepared: (_dialect, n) => n === 1 },
).rows<LastCommentColumns & { ancestorId: string }>();

/**
 * The newest live comment on each of the given individuals, worked out from the comments
 * themselves (not from the kept `last_comment_id`): what the kept id must point to, for tests.
 */
export async function lastCommentsFor(db: TenantDb, ctx: RequestContext, individualIds: readonly string[]): Promise<Map<string, LastComment>> {
  const out = new Map<string, LastComment>();
  const ids = [...new Set(individualIds)];
  if (ids.length === 0) return out;
  const rows = await db.reader(ctx).rows(NEWEST_COMMENTS.of(dialectOf(db), ids.length), [ctx.siteId, ...ids]);
  for (const r of rows) {
    const last = lastCommentOf(r);
    if (last) out.set(r.ancestorId, last);
  }
  return out;
}
