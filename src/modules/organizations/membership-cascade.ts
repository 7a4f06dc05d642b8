import { In } from 'typeorm';
import type { OwnedRows } from '../../database/soft-delete.js';
import type { TenantTx } from '../../database/tenant-db.js';
import { IndividualEntity } from '../../database/entities/individual.entity.js';
import { OrganizationMemberEntity } from '../../database/entities/organization-member.entity.js';
import { OrganizationEntity } from '../../database/entities/organization.entity.js';

/**
 * The memberships of an individual or an organization, as an entry of the by-reference registry
 * (src/database/by-reference.ts, registered by OrganizationsModule). Memberships have no Deleted
 * flag of their own (removing one deletes it): a take-down marks them DeletedByRef. A restore
 * revives only the memberships whose other side is live — an individual's and a department's
 * deletion both mark the memberships between them, and undeleting one must not bring back a
 * membership of the other, still deleted, side.
 */
export function membershipsOf(side: 'individual' | 'organization'): OwnedRows {
  const own = side === 'individual' ? 'individualId' : 'organizationId';
  return {
    name: `memberships (${side} side)`,
    async takeDown(tx, ids) {
      await tx.repo(OrganizationMemberEntity).updateWhere({ [own]: In([...ids]), deletedByRef: false }, { deletedByRef: true });
    },
    async restore(tx: TenantTx, ids) {
      const repo = tx.repo(OrganizationMemberEntity);
      const qb = repo.qb('m').select('m.id', 'id');
      if (side === 'individual') qb.innerJoin(OrganizationEntity, 'o', 'o.id = m.organizationId AND o.siteId = m.siteId AND o.deleted = :no', { no: false });
      else qb.innerJoin(IndividualEntity, 'i', 'i.id = m.individualId AND i.siteId = m.siteId AND i.deleted = :no', { no: false });
      const rows = await qb
        .andWhere(`m.${own} IN (:...ids)`, { ids: [...ids] })
        .andWhere('m.deletedByRef = :yes', { yes: true })
        .getRawMany<{ id: string }>();
      if (rows.length > 0) await repo.updateWhere({ id: In(rows.map((r) => r.id)) }, { deletedByRef: false });
    },
  };
}
