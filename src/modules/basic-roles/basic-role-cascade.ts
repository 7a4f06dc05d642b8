import { In } from 'typeorm';
import type { TenantTx } from '../../database/tenant-db.js';
import { BasicRoleEntity } from '../../database/entities/basic-role.entity.js';

/**
 * Soft delete by reference for the individuals who own basic roles (the by-reference registry,
 * `by-reference.ts`): deleting individuals marks their live roles Deleted and DeletedByRef (roles
 * deleted before stay as they were); undeleting them restores exactly the roles so marked.
 */
export function deleteBasicRolesByRef(tx: TenantTx, individualIds: readonly string[]): Promise<number> {
  if (individualIds.length === 0) return Promise.resolve(0);
  return tx.repo(BasicRoleEntity, 'BasicRole').updateWhere({ individualId: In([...individualIds]), deleted: false }, { deleted: true, deletedByRef: true });
}

export function undeleteBasicRolesByRef(tx: TenantTx, individualIds: readonly string[]): Promise<number> {
  if (individualIds.length === 0) return Promise.resolve(0);
  return tx
    .repo(BasicRoleEntity, 'BasicRole')
    .updateWhere({ individualId: In([...individualIds]), deletedByRef: true }, { deleted: false, deletedByRef: false });
}
