import { In } from 'typeorm';
import type { TenantTx } from '../../database/tenant-db.js';
import { deleteCommentsByRef, undeleteCommentsByRef } from '../comments/comment-cascade.js';
import { IndividualEntity } from '../individuals/individual.entity.js';
import { OrganizationEntity } from './organization.entity.js';
import { OrganizationMemberEntity } from './organization-member.entity.js';
import { descendantIds, inChunks } from './organization-tree.js';

/**
 * Soft delete of organizations and departments (DESIGN §5): what an organization owns is taken
 * down by reference with it and restored by its undelete. Each owned table is one entry of
 * OWNED_BY_ORGANIZATION; a module whose rows hang off a department (its commitments, dialogs,
 * projects, …) adds an entry here and nothing else changes.
 */
export interface OwnedByOrganization {
  /** What the rows are (for readers and logs). */
  readonly name: string;
  /** Marks the rows owned by these organizations `deleted_by_ref`. */
  takeDown(tx: TenantTx, organizationIds: string[]): Promise<void>;
  /** Restores the rows of these organizations that a take-down marked. */
  restore(tx: TenantTx, organizationIds: string[]): Promise<void>;
}

/**
 * Memberships have no Deleted flag of their own (removing one deletes it). A restore revives only
 * memberships whose individual is live: an individual's deletion marks their memberships by
 * reference too, and undeleting the department must not bring those back.
 */
const memberships: OwnedByOrganization = {
  name: 'organization_members',
  async takeDown(tx, organizationIds) {
    const repo = tx.repo(OrganizationMemberEntity);
    await inChunks(organizationIds, (ids) => repo.updateWhere({ organizationId: In(ids), deletedByRef: false }, { deletedByRef: true }));
  },
  async restore(tx, organizationIds) {
    const repo = tx.repo(OrganizationMemberEntity);
    const revive: string[] = [];
    await inChunks(organizationIds, async (ids) => {
      const rows = await repo
        .qb('m')
        .select('m.id', 'id')
        .innerJoin(IndividualEntity, 'i', 'i.id = m.individualId AND i.siteId = m.siteId AND i.deleted = :no', { no: false })
        .andWhere('m.organizationId IN (:...ids)', { ids })
        .andWhere('m.deletedByRef = :yes', { yes: true })
        .getRawMany<{ id: string }>();
      revive.push(...rows.map((r) => r.id));
    });
    await inChunks(revive, (ids) => repo.updateWhere({ id: In(ids) }, { deletedByRef: false }));
  },
};

/** Comments on the record, whichever of its two path words (departments, organizations) they were written under. */
const comments: OwnedByOrganization = {
  name: 'comments',
  async takeDown(tx, organizationIds) {
    await inChunks(organizationIds, async (ids) => {
      await deleteCommentsByRef(tx, 'departments', ids);
      await deleteCommentsByRef(tx, 'organizations', ids);
    });
  },
  async restore(tx, organizationIds) {
    await inChunks(organizationIds, async (ids) => {
      await undeleteCommentsByRef(tx, 'departments', ids);
      await undeleteCommentsByRef(tx, 'organizations', ids);
    });
  },
};

/** Every table whose rows belong to an organization or department. */
export const OWNED_BY_ORGANIZATION: readonly OwnedByOrganization[] = [memberships, comments];

/**
 * Deletes `org`: the record itself is Deleted; its live sub-organizations, at any depth, become
 * Deleted and DeletedByRef; every owned row of all of them is marked by reference. Run inside
 * the caller's transaction. Answers the ids taken down (the record first).
 */
export async function cascadeDelete(tx: TenantTx, org: OrganizationEntity, subtree: readonly string[]): Promise<void> {
  const orgs = tx.repo(OrganizationEntity);
  await orgs.update(org, { deleted: true, deletedByRef: false });
  await inChunks(subtree, (ids) => orgs.updateWhere({ id: In(ids) }, { deleted: true, deletedByRef: true }));
  for (const owned of OWNED_BY_ORGANIZATION) await owned.takeDown(tx, [org.id, ...subtree]);
}

/**
 * Undeletes `org` and what its deletion took down by reference: sub-organizations marked
 * DeletedByRef (a sub-department deleted on its own stays deleted, with its subtree) and the
 * owned rows of all of them.
 */
export async function cascadeUndelete(tx: TenantTx, org: OrganizationEntity): Promise<OrganizationEntity> {
  const orgs = tx.repo(OrganizationEntity);
  const subtree = await descendantIds(tx.manager, org.siteId, org.id, 'byRef');
  const saved = await orgs.update(org, { deleted: false, deletedByRef: false });
  await inChunks(subtree, (ids) => orgs.updateWhere({ id: In(ids) }, { deleted: false, deletedByRef: false }));
  for (const owned of OWNED_BY_ORGANIZATION) await owned.restore(tx, [org.id, ...subtree]);
  return saved;
}
