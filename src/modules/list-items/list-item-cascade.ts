import { In } from 'typeorm';
import { markByRef, type ByRefChange, type OwnedRows } from '../../database/soft-delete.js';
import type { TenantTx } from '../../database/tenant-db.js';
import { ListItemEntity, ListItemKind } from '../../database/entities/list-item.entity.js';

/**
 * Soft delete by reference (docs/architecture.md) for the modules that own list items (individuals,
 * projects): call these in the same transaction as the owner's own delete / undelete.
 *
 * Deleting owners marks their live items `Deleted` and `DeletedByRef`; items deleted before stay
 * as they were. Undeleting owners restores exactly the items taken down by reference. Both answer
 * the number of items changed.
 */
export function deleteListItemsByRef(tx: TenantTx, kinds: readonly ListItemKind[], ancestorIds: readonly string[]): Promise<number> {
  return markListItemsByRef(tx, kinds, ancestorIds, 'takeDown');
}

export function undeleteListItemsByRef(tx: TenantTx, kinds: readonly ListItemKind[], ancestorIds: readonly string[]): Promise<number> {
  return markListItemsByRef(tx, kinds, ancestorIds, 'restore');
}

function markListItemsByRef(tx: TenantTx, kinds: readonly ListItemKind[], ancestorIds: readonly string[], change: ByRefChange): Promise<number> {
  if (ancestorIds.length === 0 || kinds.length === 0) return Promise.resolve(0);
  return markByRef(tx.repo(ListItemEntity, 'ListItem'), { kind: In([...kinds]), ancestorId: In([...ancestorIds]) }, change);
}

/** The list items of these kinds whose AncestorID is the owner, as an entry of the by-reference registry. */
export function listItemsOf(kinds: readonly ListItemKind[]): OwnedRows {
  return {
    name: `list items (${kinds.join(', ')})`,
    takeDown: (tx, ids) => deleteListItemsByRef(tx, kinds, ids),
    restore: (tx, ids) => undeleteListItemsByRef(tx, kinds, ids),
  };
}
