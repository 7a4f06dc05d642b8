import { Entity, Index } from 'typeorm';
import { GuidTenantEntity } from './base.entity.js';
import { BoolCol, DateCol, GuidCol, IntCol, StrCol, TextCol } from '../columns.js';
import { LIMITS } from '../../common/limits.js';

/** A project (docs/periods-projects.md): owned by an individual, optionally under an organization/department. */
@Entity('projects')
@Index('ix_projects_site_name', ['siteId', 'deleted', 'name'])
@Index('ix_projects_site_owner', ['siteId', 'ownerId', 'deleted', 'name'])
@Index('ix_projects_site_org', ['siteId', 'organizationId'])
// Behind the fields lists may be filtered and sorted on (docs/queries.md; migration 1732000002620).
@Index('ix_projects_site_due', ['siteId', 'deleted', 'dueDate'])
@Index('ix_projects_site_completed', ['siteId', 'deleted', 'completedDate'])
@Index('ix_projects_site_owner_due', ['siteId', 'ownerId', 'deleted', 'dueDate'])
@Index('ix_projects_site_owner_completed', ['siteId', 'ownerId', 'deleted', 'completedDate'])
export class ProjectEntity extends GuidTenantEntity {
  @StrCol('name', LIMITS.name, { nullable: false })
  name: string;

  @TextCol('description')
  description: string | null;

  @GuidCol('owner_id')
  ownerId: string;

  @GuidCol('organization_id', { nullable: true })
  organizationId: string | null;

  @DateCol('start_date')
  startDate: Date | null;

  @DateCol('due_date')
  dueDate: Date | null;

  @DateCol('completed_date')
  completedDate: Date | null;

  /** How many times DueDate moved (one row each in project_due_date_changes). */
  @IntCol('due_date_changes', { default: 0 })
  dueDateChanges: number;

  @BoolCol('deleted', false)
  deleted: boolean;

  @BoolCol('deleted_by_ref', false)
  deletedByRef: boolean;
}
