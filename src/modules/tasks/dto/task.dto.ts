import { ID_DOC, LIMITS, field, resource, trim } from '../../../common/http/resource.js';
import { DeletedQuery } from '../../../common/pagination/pagination.js';
import { RECORD_KINDS, type RecordKind } from '../../../database/entities/dialog.entity.js';
import type { TaskEntity } from '../../../database/entities/task.entity.js';

/**
 * The follow-up Task, every field declared once
 * (docs/dialogs-tasks-roles-assessments.md). Kind and AncestorID are not update inputs; the
 * service keeps CompletedDate.
 */
export const Task = resource<TaskEntity>()('Task', {
  audit: 'softDelete',
  fields: {
    ID: field.guid('ReqUpd', { create: { description: ID_DOC.create }, update: { description: ID_DOC.update } }),
    DialogID: field.guid('-', {
      nullable: true,
      description: 'The dialog the task follows up, or null: a live dialog of the site.',
      update: { description: 'Absent keeps the current value; null detaches the task from its dialog.' },
    }),
    Kind: field.string<'ReqCre', RecordKind>('ReqCre', {
      enum: RECORD_KINDS,
      description: 'What the task is about: organization, department, project or individual (lower case). Ignored on update.',
      create: { description: 'organization, department, project or individual.' },
      update: false,
    }),
    AncestorID: field.guid('ReqCre', {
      description: 'The organization (RowType 4), department (RowType 56), project or individual the task is about, matching Kind. Ignored on update.',
      create: { description: 'A live record of the site matching Kind.' },
      update: false,
    }),
    AssignedToID: field.guid('ReqCre', {
      description: 'The individual who is to do the task: a live individual of the site.',
      create: { description: 'A live individual of the site.' },
      update: { description: 'Absent keeps the current value; null is 400 (a task is always assigned).' },
    }),
    Name: field.string('Req', { max: LIMITS.name, min: 1, write: trim, description: 'Must not be blank.' }),
    DueDate: field.date('-', { nullable: true, update: { description: 'Absent keeps the current value; null clears it.' } }),
    Completed: field.bool('-', {
      description: 'Default false.',
      createDefault: false,
      nullIsAbsent: true,
      create: { description: 'Default false.' },
      update: { description: 'Absent or null keeps the current value.' },
    }),
    CompletedDate: field.date('RO', { nullable: true, description: 'Set by the service to the time Completed turned true; cleared when it turns false.' }),
    SiteID: field.guid('RO'),
  },
});

export const { Response: TaskDto, Create: CreateTaskDto, Update: UpdateTaskDto } = Task;
export type TaskDto = InstanceType<typeof TaskDto>;
export type CreateTaskDto = InstanceType<typeof CreateTaskDto>;
export type UpdateTaskDto = InstanceType<typeof UpdateTaskDto>;

export class TaskQuery extends DeletedQuery {}
