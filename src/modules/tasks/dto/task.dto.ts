import { LIMITS, field, resource, trim } from '../../../http/wire/resource.js';
import { RECORD_KINDS, type RecordKind } from '../../../database/entities/dialog.entity.js';
import type { TaskEntity } from '../../../database/entities/task.entity.js';
import { declareExamples, exampleDate } from '../../../http/wire/examples.js';

/**
 * The follow-up Task, every field declared once
 * (docs/dialogs-tasks-roles-assessments.md). Kind and AncestorID are not update inputs; the
 * service keeps CompletedDate.
 */
export const Task = resource<TaskEntity>()('Task', {
  audit: 'softDelete',
  // Lists may filter on Deleted (docs/queries.md); the fields say their own.
  auditQuery: { Deleted: { filter: true } },
  fields: {
    ID: { ...field.id(), query: { filter: true } },
    DialogID: field.guid('-', {
      query: { filter: true },
      nullable: true,
      description: 'The dialog the task follows up, or null: a live dialog of the site.',
      update: { description: 'Absent keeps the current value; null detaches the task from its dialog.' },
    }),
    Kind: field.fixed.string<RecordKind>(
      'What the task is about: organization, department, project or individual (lower case). Ignored on update.',
      'organization, department, project or individual.',
      { enum: RECORD_KINDS, query: { filter: true } },
    ),
    AncestorID: field.fixed.guid(
      'The organization (RowType 4), department (RowType 56), project or individual the task is about, matching Kind. Ignored on update.',
      'A live record of the site matching Kind.',
      { query: { filter: true } },
    ),
    AssignedToID: field.guid('ReqCre', {
      query: { filter: true },
      description: 'The individual who is to do the task: a live individual of the site.',
      create: { description: 'A live individual of the site.' },
      update: { description: 'Absent keeps the current value; null is 400 (a task is always assigned).' },
    }),
    Name: field.string('Req', { query: { filter: true, sort: true }, max: LIMITS.name, min: 1, write: trim, description: 'Must not be blank.' }),
    // Then creation, as the plain list orders them.
    DueDate: field.optional.date({ query: { filter: true, sort: true, then: ['created'] } }),
    Completed: { ...field.flag(false, 'Default false.', { null: 'keeps' }), query: { filter: true } },
    CompletedDate: field.date('RO', { nullable: true, description: 'Set by the service to the time Completed turned true; cleared when it turns false.' }),
    SiteID: field.guid('RO'),
  },
});

export const { Response: TaskDto, Create: CreateTaskDto, Update: UpdateTaskDto } = Task;
export type TaskDto = InstanceType<typeof TaskDto>;
export type CreateTaskDto = InstanceType<typeof CreateTaskDto>;
export type UpdateTaskDto = InstanceType<typeof UpdateTaskDto>;

/** The request-body examples of the OpenAPI document (docs/openapi.md), executed by the examples test. */
declareExamples({
  PatchTaskDto: { body: { Completed: true } },
  CreateTaskDto: {
    body: {
      Kind: 'individual',
      AncestorID: 'INDIVIDUAL_ID',
      AssignedToID: 'INDIVIDUAL_ID',
      Name: 'Write the project plan',
      DueDate: exampleDate('2027-04-30'),
    },
  },
  UpdateTaskDto: { body: { ID: 'PATH_ID', Name: 'Write the project plan', DueDate: exampleDate('2027-04-30'), Completed: true } },
});
