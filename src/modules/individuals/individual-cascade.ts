import { In } from 'typeorm';
import type { TenantTx } from '../../database/tenant-db.js';
import { deleteCommentsByRef, undeleteCommentsByRef } from '../comments/comment-cascade.js';
import { deleteListItemsByRef, undeleteListItemsByRef } from '../list-items/list-item-cascade.js';
import { INDIVIDUAL_KINDS } from '../list-items/list-item-kinds.js';
import { OrganizationEntity } from '../organizations/organization.entity.js';
import { OrganizationMemberEntity } from '../organizations/organization-member.entity.js';

/**
 * A table whose rows belong to an individual and follow it into soft deletion (DESIGN §5). Both
 * calls run inside the transaction of the individual's own delete / undelete.
 */
export interface OwnedByIndividual {
  /** What the rows are (for readers and logs). */
  readonly name: string;
  /** Marks the live rows the individual owns as deleted by reference. */
  takeDown(tx: TenantTx, individualId: string): Promise<void>;
  /** Restores the rows a take-down marked. */
  restore(tx: TenantTx, individualId: string): Promise<void>;
}

/**
 * Memberships have no Deleted flag of their own. A restore revives only the memberships whose
 * organization is live: a department's deletion marks its memberships by reference too, and
 * undeleting the individual must not bring those back (the organizations module does the mirror).
 */
const memberships: OwnedByIndividual = {
  name: 'organization_members',
  async takeDown(tx, individualId) {
    await tx.repo(OrganizationMemberEntity).updateWhere({ individualId, deletedByRef: false }, { deletedByRef: true });
  },
  async restore(tx, individualId) {
    const repo = tx.repo(OrganizationMemberEntity);
    const rows = await repo
      .qb('m')
      .select('m.id', 'id')
      .innerJoin(OrganizationEntity, 'o', 'o.id = m.organizationId AND o.siteId = m.siteId AND o.deleted = :no', { no: false })
      .andWhere('m.individualId = :individualId', { individualId })
      .andWhere('m.deletedByRef = :yes', { yes: true })
      .getRawMany<{ id: string }>();
    if (rows.length > 0) await repo.updateWhere({ id: In(rows.map((r) => r.id)) }, { deletedByRef: false });
  },
};

/** Comments written on the individual (`/individuals/{id}/comments`). */
const comments: OwnedByIndividual = {
  name: 'comments',
  async takeDown(tx, individualId) {
    await deleteCommentsByRef(tx, 'individuals', [individualId]);
  },
  async restore(tx, individualId) {
    await undeleteCommentsByRef(tx, 'individuals', [individualId]);
  },
};

/** The individual's accountabilities, evaluation criteria and supervisory scopes. */
const listItems: OwnedByIndividual = {
  name: 'list_items',
  async takeDown(tx, individualId) {
    await deleteListItemsByRef(tx, INDIVIDUAL_KINDS, [individualId]);
  },
  async restore(tx, individualId) {
    await undeleteListItemsByRef(tx, INDIVIDUAL_KINDS, [individualId]);
  },
};

/**
 * Every table owned by an individual. A new one (list items, basic roles, goals…) is one more
 * entry here; delete and undelete of the individual pick it up.
 */
export const OWNED_BY_INDIVIDUAL: readonly OwnedByIndividual[] = [memberships, comments, listItems];

/** Takes down (`down`) or restores by reference everything the individual owns. */
export async function cascadeIndividualDeletion(tx: TenantTx, individualId: string, down: boolean): Promise<void> {
  for (const owned of OWNED_BY_INDIVIDUAL) {
    if (down) await owned.takeDown(tx, individualId);
    else await owned.restore(tx, individualId);
  }
}
