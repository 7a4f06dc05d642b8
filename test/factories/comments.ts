import { CommentEntity, CommentKind } from '../../src/database/entities/comment.entity.js';
import { bearer, TestApp } from '../e2e/harness.js';
import { refreshNewestComments } from './individuals.js';

/** The JSON shape of a Comment answer. */
export interface CommentJson {
  ID: string;
  SiteID: string;
  AncestorID: string;
  AncestorType: CommentKind;
  Body: string;
  AuthorID: string | null;
  AuthorName: string | null;
  Deleted: boolean;
  DeletedByRef: boolean;
  Created: string;
  CreatedBy: string | null;
  Updated: string;
  UpdatedBy: string | null;
}

/** Writes a comment through the API as the holder of `token` (the author). */
export async function createComment(t: TestApp, token: string, kind: CommentKind, ancestorId: string, body = 'A comment'): Promise<CommentJson> {
  const res = await t.http().post('/v4/comments').set('Authorization', bearer(token)).send({ AncestorType: kind, AncestorID: ancestorId, Body: body });
  if (res.status !== 200) throw new Error(`createComment failed: ${res.status} ${res.text}`);
  return res.body as CommentJson;
}

/**
 * Sets a comment's Created instant (the API never lets a client write it), for ordering tests, and
 * refreshes its individual's newest comment as a write around the API must (docs/operations.md).
 */
export async function setCommentCreated(t: TestApp, id: string, created: Date): Promise<void> {
  const comments = t.ds.getRepository(CommentEntity);
  await comments.update({ id }, { created });
  const row = await comments.findOneByOrFail({ id });
  if (row.ancestorType === 'individuals') await refreshNewestComments(t, row.siteId, [row.ancestorId]);
}

/** The stored row, read around the API (to prove that a refused request changed nothing). */
export async function commentRow(t: TestApp, id: string): Promise<CommentEntity | null> {
  return t.ds.getRepository(CommentEntity).findOneBy({ id });
}

/**
 * After comments were written or individuals renamed around the API: every comment's author name
 * copied from its individual, with the statement docs/operations.md gives importers.
 */
export async function copyAuthorNames(t: TestApp): Promise<void> {
  await t.ds.query(
    t.ds.options.type === 'better-sqlite3'
      ? 'UPDATE comments SET author_first_name = i.first_name, author_last_name = i.last_name FROM individuals i WHERE i.id = comments.author_id AND i.site_id = comments.site_id'
      : 'UPDATE comments c JOIN individuals i ON i.id = c.author_id AND i.site_id = c.site_id SET c.author_first_name = i.first_name, c.author_last_name = i.last_name',
  );
}
