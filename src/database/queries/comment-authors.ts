import type { RequestContext } from '../../common/context/request-context.js';
import type { TenantDb, TenantTx } from '../tenant-db.js';
import { CommentEntity } from '../entities/comment.entity.js';
import { family, sql } from '../statements.js';

/** An individual's names, read with a shared lock on MySQL/MariaDB (SQLite runs one transaction at a time). */
const NAMES_LOCKED = family(
  'comment-authors.names-locked',
  (dialect: 'mysql' | 'sqlite') =>
    `SELECT first_name, last_name FROM individuals WHERE site_id = ? AND id = ?${dialect === 'mysql' ? ' LOCK IN SHARE MODE' : ''}`,
  [['mysql'], ['sqlite']],
).rows<{ first_name: string; last_name: string }>();
const KEEP_NAMES = sql('comment-authors.keep-names', 'UPDATE comments SET author_first_name = ?, author_last_name = ? WHERE site_id = ? AND author_id = ?');

/** The author's name a comment keeps (CommentEntity.authorFirstName/authorLastName). */
export interface AuthorNames {
  authorFirstName: string | null;
  authorLastName: string | null;
}

/**
 * The names a new comment by `authorId` keeps (docs/comments.md, "The author's name"): its
 * individual's in the caller's site, or both null when it is none (a global administrator acting
 * in another site). Read with a shared lock (MySQL/MariaDB) held to the end of the comment's
 * transaction, so a concurrent rename of the author either commits first (and this reads the new
 * names) or waits for the comment to commit (and then rewrites it with the others, see
 * keepAuthorNames). Call it inside the comment's transaction.
 */
export async function authorNamesFor(db: TenantDb, ctx: RequestContext, authorId: string | null): Promise<AuthorNames> {
  if (authorId === null) return { authorFirstName: null, authorLastName: null };
  db.assertInTransaction(ctx, 'authorNamesFor');
  const [row] = await db.sql(ctx, NAMES_LOCKED.of(db.isSqlite ? 'sqlite' : 'mysql'), [ctx.siteId, authorId]);
  return { authorFirstName: row?.first_name ?? null, authorLastName: row?.last_name ?? null };
}

/**
 * After a change of an individual's first or last name, in the transaction of that change (which
 * holds the individual's row): every comment it wrote in its site takes the new names, in one
 * statement through `ix_comments_site_author`. Call it only when a name changed.
 */
export async function keepAuthorNames(db: TenantDb, ctx: RequestContext, individualId: string, firstName: string, lastName: string): Promise<void> {
  db.assertInTransaction(ctx, 'keepAuthorNames');
  await db.sql(ctx, KEEP_NAMES, [firstName, lastName, ctx.siteId, individualId]);
}

/**
 * A comment written in `tx` with the name of its author, as the API's create writes it, for
 * writers of the service's own data (the demo site). The caller keeps the individual's newest
 * comment (refreshLastComments) as every comment writer must.
 */
export async function writeComment(tx: TenantTx, values: Pick<CommentEntity, 'ancestorType' | 'ancestorId' | 'authorId' | 'body'>): Promise<CommentEntity> {
  return tx.repo(CommentEntity).insert({ ...values, ...(await authorNamesFor(tx.db, tx.ctx, values.authorId)) });
}
