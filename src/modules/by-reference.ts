import { In } from 'typeorm';
import { inChunks, type OwnedRows } from '../database/soft-delete.js';
import type { TenantTx } from '../database/tenant-db.js';
import { deleteBasicRolesByRef, undeleteBasicRolesByRef } from './basic-roles/basic-role-cascade.js';
import { deleteCommentsByRef, undeleteCommentsByRef } from './comments/comment-cascade.js';
import type { CommentKind } from '../database/entities/comment.entity.js';
import { IndividualEntity } from '../database/entities/individual.entity.js';
import { deleteListItemsByRef, undeleteListItemsByRef } from './list-items/list-item-cascade.js';
import type { ListItemKind } from '../database/entities/list-item.entity.js';
import { INDIVIDUAL_KINDS, PROJECT_SCOPE } from './list-items/list-item-kinds.js';
import { OrganizationMemberEntity } from '../database/entities/organization-member.entity.js';
import { OrganizationEntity } from '../database/entities/organization.entity.js';
import { deleteMetricsByRef, undeleteMetricsByRef } from './performance-metrics/metric-cascade.js';
import type { MetricKind } from '../database/entities/metric.entity.js';

/**
 * The one registry of what each kind of record takes down by reference when it is deleted, and
 * restores when it is undeleted (docs/architecture.md, "Soft delete"). A new resource whose rows
 * hang off individuals, organizations, projects, dialogs or tasks adds one entry here; the owners' DELETE and
 * undelete pick it up through `softDelete` / `softUndelete`.
 */
export type Owner = 'individual' | 'organization' | 'project' | 'metric' | 'dialog' | 'task';

/** The comments written on records of these path kinds. */
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

/** The basic roles of the owning individuals. */
export const basicRolesOf: OwnedRows = {
  name: 'basic roles',
  takeDown: (tx, ids) => deleteBasicRolesByRef(tx, ids),
  restore: (tx, ids) => undeleteBasicRolesByRef(tx, ids),
};

/** The list items of these kinds whose AncestorID is the owner. */
export function listItemsOf(kinds: readonly ListItemKind[]): OwnedRows {
  return {
    name: `list items (${kinds.join(', ')})`,
    takeDown: (tx, ids) => deleteListItemsByRef(tx, kinds, ids),
    restore: (tx, ids) => undeleteListItemsByRef(tx, kinds, ids),
  };
}

/**
 * Memberships have no Deleted flag of their own (removing one deletes it): a take-down marks them
 * DeletedByRef. A restore revives only the memberships whose other side is live — an individual's
 * and a department's deletion both mark the memberships between them, and undeleting one must not
 * bring back a membership of the other, still deleted, side.
 */
function memberships(side: 'individual' | 'organization'): OwnedRows {
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

/**
 * The metrics whose AncestorID is the owner, and what each of those metrics owns in turn
 * (`ownedBy('metric')`), restored together.
 */
function metricsOf(kind: MetricKind): OwnedRows {
  return {
    name: `metrics (${kind}) and what they own`,
    async takeDown(tx, ids) {
      const metricIds = await deleteMetricsByRef(tx, kind, ids);
      for (const owned of ownedBy('metric')) await inChunks(metricIds, (chunk) => owned.takeDown(tx, chunk));
    },
    async restore(tx, ids) {
      const metricIds = await undeleteMetricsByRef(tx, kind, ids);
      for (const owned of ownedBy('metric')) await inChunks(metricIds, (chunk) => owned.restore(tx, chunk));
    },
  };
}

/** What each owner's deletion takes down by reference. A function, so import order never matters. */
export function ownedBy(owner: Owner): readonly OwnedRows[] {
  switch (owner) {
    case 'individual':
      return [memberships('individual'), commentsOn('individuals'), listItemsOf(INDIVIDUAL_KINDS), metricsOf('individual'), basicRolesOf];
    case 'organization':
      return [memberships('organization'), commentsOn('departments', 'organizations')];
    case 'project':
      return [listItemsOf([PROJECT_SCOPE.kind]), commentsOn('projects'), metricsOf('project')];
    case 'metric':
      return [commentsOn('metrics')];
    case 'dialog':
      return [commentsOn('dialogs')];
    case 'task':
      return [commentsOn('tasks')];
  }
}
