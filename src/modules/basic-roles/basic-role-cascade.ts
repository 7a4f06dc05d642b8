import { In } from 'typeorm';
import { markByRef, type ByRefChange, type OwnedRows } from '../../database/soft-delete.js';
import type { TenantTx } from '../../database/tenant-db.js';
import { BasicRoleEntity } from '../../database/entities/basic-role.entity.js';

/**
 * Soft delete by reference for the individuals who own basic roles (an entry of the by-reference
 * registry, src/database/by-reference.ts, registered by BasicRolesModule): deleting individuals
 * marks their live roles Deleted and DeletedByRef (roles deleted before stay as they were);
 * undeleting them restores exactly the roles so marked.
 */
function markBasicRolesByRef(tx: TenantTx, individualIds: readonly string[], change: ByRefChange): Promise<number> {
  if (individualIds.length === 0) return Promise.resolve(0);
  return markByRef(tx.repo(BasicRoleEntity, 'BasicRole'), { individualId: In([...individualIds]) }, change);
}

/** The basic roles of the owning individuals, as an entry of the by-reference registry. */
export const basicRolesOf: OwnedRows = {
  name: 'basic roles',
  takeDown: (tx, ids) => markBasicRolesByRef(tx, ids, 'takeDown'),
  restore: (tx, ids) => markBasicRolesByRef(tx, ids, 'restore'),
};
