import { Body, Query } from '@nestjs/common';
import { Pm, PmAdmin } from '../../auth/access.decorators.js';
import { Ctx } from '../../common/context/ctx.decorator.js';
import { RequestContext } from '../../common/context/request-context.js';
import { type MergePatch, PatchRoute } from '../../http/pipeline/merge-patch.js';
import { GuidParam } from '../../http/wire/ids.js';
import { CreateTaskDto, Task, TaskDto, UpdateTaskDto } from './dto/task.dto.js';
import { TasksService } from './tasks.service.js';
import { ApiController, GetRoute, ListRoute, PostRoute, PutRoute, PutAction, DeleteRoute } from '../../http/pipeline/routes.js';
import { changesOf, changesUnder } from '../../http/pipeline/delta-list.js';
import { QueriedListQuery } from '../../http/wire/pagination.js';
import { queryNotes } from '../../http/wire/list-query.js';

const WHO = 'Allowed for administrators, the assignee and anyone they report to, and whoever may manage the dialog the task follows up; others get 403.';
const LIST_NOTE =
  '`deleted`: 0 live (default), 1 deleted, 2 all. Ordered by DueDate (tasks without one first), then creation; paged with limit/offset (X-Total-Count, Link). XML root ArrayOfTask. ' +
  queryNotes(Task);

@ApiController('Task', undefined, {
  description: 'Follow-up tasks about an individual, organization, department or project, assigned to an individual (performance management).',
})
export class TasksController {
  constructor(private readonly tasks: TasksService) {}

  @ListRoute(PmAdmin, 'tasks', TaskDto, changesOf('tasks'), { summary: 'List the follow-up tasks of the site (PM, Admin)', description: LIST_NOTE })
  list(@Ctx() ctx: RequestContext, @Query() q: QueriedListQuery) {
    return this.tasks.list(ctx, q);
  }

  @ListRoute(Pm, 'individuals/:id/tasks', TaskDto, changesUnder('tasks', ['AssignedToID']), {
    summary: 'List the tasks assigned to an individual (PM)',
    description: `404 for an individual not of the site; allowed for the individual, anyone they report to and administrators (else 403). ${LIST_NOTE}`,
  })
  listForIndividual(@Ctx() ctx: RequestContext, @GuidParam() id: string, @Query() q: QueriedListQuery) {
    return this.tasks.listForIndividual(ctx, id, q);
  }

  @ListRoute(Pm, 'me/tasks', TaskDto, changesUnder('tasks', ['AssignedToID']), {
    summary: 'List the tasks assigned to the caller (PM)',
    description: `A caller without an individual record in the site gets an empty list. ${LIST_NOTE}`,
  })
  listMine(@Ctx() ctx: RequestContext, @Query() q: QueriedListQuery) {
    return this.tasks.listMine(ctx, q);
  }

  @GetRoute(Pm, 'tasks/:id', TaskDto, { summary: 'Read a task (PM)', description: `Deleted tasks are answered too. ${WHO}` })
  get(@Ctx() ctx: RequestContext, @GuidParam() id: string) {
    return this.tasks.get(ctx, id);
  }

  @PostRoute(Pm, 'tasks', TaskDto, {
    summary: 'Create a follow-up task (PM)',
    description: `Kind, AncestorID (a live record of the site matching Kind), AssignedToID (a live individual) and Name are required; DialogID, when given, must be a live dialog of the site (400 naming the field otherwise). Completed defaults to false; CompletedDate is set by the service. ID is optional (used if free, else 409 id-taken). ${WHO}`,
  })
  create(@Ctx() ctx: RequestContext, @Body() dto: CreateTaskDto) {
    return this.tasks.create(ctx, dto);
  }

  @PutRoute(Pm, 'tasks/:id', TaskDto, {
    summary: 'Update a task (PM)',
    description: `ID must equal the path id; Name is required. Absent fields keep their value; AssignedToID cannot be cleared. Completed turning true sets CompletedDate to now, turning false clears it. Kind and AncestorID are ignored. Reassigning needs the right to manage the new assignee too. A deleted task is 409 (code deleted); If-Match is honoured (412). ${WHO}`,
  })
  update(@Ctx() ctx: RequestContext, @GuidParam() id: string, @Body() dto: UpdateTaskDto) {
    return this.tasks.update(ctx, id, dto);
  }

  @PatchRoute(Pm, 'tasks/:id', UpdateTaskDto, TaskDto, {
    summary: 'Change some fields of a task (PM)',
    description: `AssignedToID cannot be cleared (400). Completed turning true sets CompletedDate to now, turning false clears it. Kind and AncestorID are ignored. Reassigning needs the right to manage the new assignee too. A deleted task is 409 (code deleted). ${WHO}`,
  })
  patch(@Ctx() ctx: RequestContext, @GuidParam() id: string, @Body() patch: MergePatch<UpdateTaskDto>) {
    return this.tasks.patch(ctx, id, patch);
  }

  @DeleteRoute(Pm, 'tasks/:id', null, {
    summary: 'Delete a task (PM; soft delete)',
    description: `Sets Deleted and takes the task’s live comments down by reference (Deleted and DeletedByRef). Idempotent. Answers an empty object. ${WHO}`,
  })
  remove(@Ctx() ctx: RequestContext, @GuidParam() id: string) {
    return this.tasks.remove(ctx, id);
  }

  @PutAction(Pm, 'tasks/:id/undelete', TaskDto, {
    summary: 'Undelete a task (PM)',
    description: `Beyond the spec, as for every soft-deleted resource: clears Deleted and restores exactly the comments its delete took down. Idempotent. Answers the task. ${WHO}`,
  })
  undelete(@Ctx() ctx: RequestContext, @GuidParam() id: string) {
    return this.tasks.undelete(ctx, id);
  }
}
