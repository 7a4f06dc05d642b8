import { In } from 'typeorm';
import { markByRef, type ByRefChange, type OwnedRows } from '../../database/soft-delete.js';
import { refreshLastComments } from '../../database/queries/last-comment.js';
import type { TenantTx } from '../../database/tenant-db.js';
import { CommentEntity, type CommentKind } from '../../database/entities/comment.entity.js';

/**
 * Soft delete by reference (docs/architecture.md) for the modules that own comment ancestors: call these in
 * the same transaction as the ancestor's own delete / undelete.
 *
 * Deleting ancestors marks their live comments `Deleted` and `DeletedByRef`; comments deleted
 * before stay as they were. Undeleting ancestors restores exactly the comments taken down by
 * reference. Both answer the number of comments changed. On individuals, both also keep each
 * individual's newest comment (Individual.LastComment*) right.
 */
export function deleteCommentsByRef(tx: TenantTx, kind: CommentKind, ancestorIds: readonly string[]): Promise<number> {
  return markCommentsByRef(tx, kind, ancestorIds, 'takeDown');
}

export function undeleteCommentsByRef(tx: TenantTx, kind: CommentKind, ancestorIds: readonly string[]): Promise<number> {
  return markCommentsByRef(tx, kind, ancestorIds, 'restore');
}

async function markCommentsByRef(tx: TenantTx, kind: CommentKind, ancestorIds: readonly string[], change: ByRefChange): Promise<number> {
  if (ancestorIds.length === 0) return 0;
  const changed = await markByRef(tx.repo(CommentEntity, 'Comment'), { ancestorType: kind, ancestorId: In([...ancestorIds]) }, change);
  if (kind === 'individuals' && changed > 0) await refreshLastComments(tx.db, tx.ctx, ancestorIds);
  return changed;
}

/** The comments written on records of these path kinds, as an entry of the by-reference registry. */
export function commentsOn(...kinds: CommentKind[]): OwnedRows {
  return {
    name: `comments on ${kinds.join(', ')}`,
    async takeDown(tx, ids) {
      for (const kind of kinds) await deleteCommentsByRef(tx, kind, ids);
    },
    async restore(tx, ids) {
      for (const kind of kinds) await undeleteCommentsByRef(tx, kind, ids);
    },
  };
}
