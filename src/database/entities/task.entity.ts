import { Entity, Index } from 'typeorm';
import { GuidTenantEntity } from './base.entity.js';
import { BoolCol, DateCol, GuidCol, StrCol } from '../columns.js';
import { LIMITS } from '../../common/limits.js';
import type { RecordKind } from './dialog.entity.js';

/**
 * A follow-up task: about an organization, department, project or individual (Kind +
 * AncestorID), optionally coming out of a dialog, assigned to an individual. CompletedDate is
 * the service's: set when Completed turns true, cleared when it turns false.
 */
@Entity('tasks')
// ix_tasks_site_assigned ends with created since migration 1732000002620: the lists' order (DueDate, then creation).
@Index('ix_tasks_site_assigned', ['siteId', 'assignedToId', 'deleted', 'dueDate', 'created'])
// Behind the fields lists may be filtered and sorted on (docs/queries.md; migration 1732000002620).
@Index('ix_tasks_site_assigned_name', ['siteId', 'assignedToId', 'deleted', 'name'])
@Index('ix_tasks_site_assigned_completed', ['siteId', 'assignedToId', 'deleted', 'completed', 'dueDate'])
@Index('ix_tasks_site_due', ['siteId', 'deleted', 'dueDate', 'created'])
@Index('ix_tasks_site_name', ['siteId', 'deleted', 'name'])
@Index('ix_tasks_site_completed', ['siteId', 'deleted', 'completed', 'dueDate'])
@Index('ix_tasks_site_dialog', ['siteId', 'dialogId'])
@Index('ix_tasks_site_ancestor', ['siteId', 'kind', 'ancestorId'])
@Index('ix_tasks_site_created', ['siteId', 'created'])
export class TaskEntity extends GuidTenantEntity {
  @GuidCol('dialog_id', { nullable: true })
  dialogId: string | null;

  @StrCol('kind', 20, { nullable: false })
  kind: RecordKind;

  @GuidCol('ancestor_id')
  ancestorId: string;

  @GuidCol('assigned_to_id')
  assignedToId: string;

  @StrCol('name', LIMITS.name, { nullable: false })
  name: string;

  @DateCol('due_date')
  dueDate: Date | null;

  @BoolCol('completed', false)
  completed: boolean;

  @DateCol('completed_date')
  completedDate: Date | null;

  @BoolCol('deleted', false)
  deleted: boolean;

  @BoolCol('deleted_by_ref', false)
  deletedByRef: boolean;
}
