import { In } from 'typeorm';
import type { TenantTx } from '../../database/tenant-db.js';
import { CommentEntity, CommentKind } from './comment.entity.js';

/**
 * Soft delete by reference (docs/architecture.md) for the modules that own comment ancestors: call these in
 * the same transaction as the ancestor's own delete / undelete.
 *
 * Deleting ancestors marks their live comments `Deleted` and `DeletedByRef`; comments deleted
 * before stay as they were. Undeleting ancestors restores exactly the comments taken down by
 * reference. Both answer the number of comments changed.
 */
export function deleteCommentsByRef(tx: TenantTx, kind: CommentKind, ancestorIds: readonly string[]): Promise<number> {
  if (ancestorIds.length === 0) return Promise.resolve(0);
  return tx
    .repo(CommentEntity, 'Comment')
    .updateWhere({ ancestorType: kind, ancestorId: In([...ancestorIds]), deleted: false }, { deleted: true, deletedByRef: true });
}

export function undeleteCommentsByRef(tx: TenantTx, kind: CommentKind, ancestorIds: readonly string[]): Promise<number> {
  if (ancestorIds.length === 0) return Promise.resolve(0);
  return tx
    .repo(CommentEntity, 'Comment')
    .updateWhere({ ancestorType: kind, ancestorId: In([...ancestorIds]), deletedByRef: true }, { deleted: false, deletedByRef: false });
}
