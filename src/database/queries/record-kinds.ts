import type { RequestContext } from '../../common/context/request-context.js';
import type { FieldError } from '../../common/errors/errors.js';
import type { TenantDb } from '../tenant-db.js';
import { IndividualEntity } from '../entities/individual.entity.js';
import { OrganizationEntity, ROW_TYPE_DEPARTMENT, ROW_TYPE_ORGANIZATION } from '../entities/organization.entity.js';
import { ProjectEntity } from '../entities/project.entity.js';
import type { RecordKind } from '../entities/dialog.entity.js';

/**
 * The record a dialog or task is about (Kind + AncestorID): an organization (RowType 4), a
 * department (RowType 56), a project or an individual of the caller's site. An organization id
 * given as a department (or the other way round) does not count.
 */
export interface RecordOfKind {
  deleted: boolean;
  /** Who manages the record: the individual itself, the unit's manager, the project's owner (null: nobody). */
  managerId: string | null;
}

export async function recordOfKind(db: TenantDb, ctx: RequestContext, kind: RecordKind, id: string): Promise<RecordOfKind | null> {
  switch (kind) {
    case 'individual': {
      const row = await db.repo(ctx, IndividualEntity, 'Individual').findById(id);
      return row && { deleted: row.deleted, managerId: row.id };
    }
    case 'project': {
      const row = await db.repo(ctx, ProjectEntity, 'Project').findById(id);
      return row && { deleted: row.deleted, managerId: row.ownerId };
    }
    case 'organization':
    case 'department': {
      const rowType = kind === 'organization' ? ROW_TYPE_ORGANIZATION : ROW_TYPE_DEPARTMENT;
      const row = await db.repo(ctx, OrganizationEntity, 'Organization').findOne({ id, rowType });
      return row && { deleted: row.deleted, managerId: row.managerId };
    }
  }
}

/** 400 naming `field` unless `id` is a live record of `kind` in the caller's site. */
export async function liveRecordErrors(db: TenantDb, ctx: RequestContext, kind: RecordKind, id: string, field = 'AncestorID'): Promise<FieldError[]> {
  const row = await recordOfKind(db, ctx, kind, id);
  if (!row) return [{ field, message: `${field} ${id} is not a live ${kind} of this site` }];
  if (row.deleted) return [{ field, message: `${field} ${id} is a deleted ${kind}; not a live ${kind} of this site` }];
  return [];
}

/** 400 naming `field` unless `id` is a live individual of the caller's site. */
export async function liveIndividualErrors(db: TenantDb, ctx: RequestContext, id: string, field: string): Promise<FieldError[]> {
  const row = await db.repo(ctx, IndividualEntity, 'Individual').findById(id);
  if (!row) return [{ field, message: `${field} ${id} is not an individual of this site` }];
  if (row.deleted) return [{ field, message: `${field} ${id} is a deleted individual` }];
  return [];
}
