import { Entity, Index } from 'typeorm';
import { GuidTenantEntity } from './base.entity.js';
import { DateCol, GuidRef } from '../columns.js';
import { ProjectEntity } from './project.entity.js';

/**
 * One move of a project's DueDate: `created` is when it moved and `created_by` who moved it, so a
 * dashboard counts the moves within a period (docs/periods-projects.md "date changes") with one indexed query.
 */
@Entity('project_due_date_changes')
@Index('ix_project_due_changes_site_project', ['siteId', 'projectId', 'created'])
@Index('ix_project_due_changes_site_created', ['siteId', 'created'])
export class ProjectDueDateChangeEntity extends GuidTenantEntity {
  @GuidRef(() => ProjectEntity, 'fk_project_due_changes_project', 'project_id')
  projectId: string;

  @DateCol('previous_due_date')
  previousDueDate: Date | null;

  @DateCol('new_due_date')
  newDueDate: Date | null;
}
