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
