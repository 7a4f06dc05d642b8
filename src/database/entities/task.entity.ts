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
@Index('ix_tasks_site_assigned', ['siteId', 'assignedToId', 'deleted', 'dueDate'])
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
