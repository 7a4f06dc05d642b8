import { Body, Controller, Delete, Get, Param, Post, Put, Query } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { Pm, PmAdmin } from '../../common/auth/access.decorators.js';
import { Ctx } from '../../common/context/ctx.decorator.js';
import { RequestContext } from '../../common/context/request-context.js';
import { ApiBodyTypes, ApiResult } from '../../common/http/wire.js';
import { type MergePatch, PatchRoute } from '../../common/http/merge-patch.js';
import { GuidPipe } from '../../common/validation/ids.js';
import { CreateTaskDto, TaskDto, TaskQuery, UpdateTaskDto } from './dto/task.dto.js';
import { TasksService } from './tasks.service.js';

const WHO = 'Allowed for administrators, the assignee and anyone they report to, and whoever may manage the dialog the task follows up; others get 403.';
const LIST_NOTE =
  '`deleted`: 0 live (default), 1 deleted, 2 all. Ordered by DueDate (tasks without one first), then creation; paged with limit/offset (X-Total-Count, Link). XML root ArrayOfTask.';

@ApiTags('Task')
@Controller()
export class TasksController {
  constructor(private readonly tasks: TasksService) {}

  @Get('tasks')
  @PmAdmin()
  @ApiOperation({ summary: 'List the follow-up tasks of the site (PM, Admin)', description: LIST_NOTE })
  @ApiResult(TaskDto, { collection: true })
  list(@Ctx() ctx: RequestContext, @Query() q: TaskQuery) {
    return this.tasks.list(ctx, q);
  }

  @Get('individuals/:id/tasks')
  @Pm()
  @ApiOperation({
    summary: 'List the tasks assigned to an individual (PM)',
    description: `404 for an individual not of the site; allowed for the individual, anyone they report to and administrators (else 403). ${LIST_NOTE}`,
  })
  @ApiResult(TaskDto, { collection: true })
  listForIndividual(@Ctx() ctx: RequestContext, @Param('id', GuidPipe) id: string, @Query() q: TaskQuery) {
    return this.tasks.listForIndividual(ctx, id, q);
  }

  @Get('me/tasks')
  @Pm()
  @ApiOperation({
    summary: 'List the tasks assigned to the caller (PM)',
    description: `A caller without an individual record in the site gets an empty list. ${LIST_NOTE}`,
  })
  @ApiResult(TaskDto, { collection: true })
  listMine(@Ctx() ctx: RequestContext, @Query() q: TaskQuery) {
    return this.tasks.listMine(ctx, q);
  }

  @Get('tasks/:id')
  @Pm()
  @ApiOperation({ summary: 'Read a task (PM)', description: `Deleted tasks are answered too. ${WHO}` })
  @ApiResult(TaskDto)
  get(@Ctx() ctx: RequestContext, @Param('id', GuidPipe) id: string) {
    return this.tasks.get(ctx, id);
  }

  @Post('tasks')
  @Pm()
  @ApiOperation({
    summary: 'Create a follow-up task (PM)',
    description: `Kind, AncestorID (a live record of the site matching Kind), AssignedToID (a live individual) and Name are required; DialogID, when given, must be a live dialog of the site (400 naming the field otherwise). Completed defaults to false; CompletedDate is set by the service. ID is optional (used if free, else 409 id-taken). ${WHO}`,
  })
  @ApiBodyTypes()
  @ApiResult(TaskDto)
  create(@Ctx() ctx: RequestContext, @Body() dto: CreateTaskDto) {
    return this.tasks.create(ctx, dto);
  }

  @Put('tasks/:id')
  @Pm()
  @ApiOperation({
    summary: 'Update a task (PM)',
    description: `ID must equal the path id; Name is required. Absent fields keep their value; AssignedToID cannot be cleared. Completed turning true sets CompletedDate to now, turning false clears it. Kind and AncestorID are ignored. Reassigning needs the right to manage the new assignee too. A deleted task is 409 (code deleted); If-Match is honoured (412). ${WHO}`,
  })
  @ApiBodyTypes()
  @ApiResult(TaskDto)
  update(@Ctx() ctx: RequestContext, @Param('id', GuidPipe) id: string, @Body() dto: UpdateTaskDto) {
    return this.tasks.update(ctx, id, dto);
  }

  @PatchRoute('tasks/:id', UpdateTaskDto, {
    summary: 'Change some fields of a task (PM)',
    description: `AssignedToID cannot be cleared (400). Completed turning true sets CompletedDate to now, turning false clears it. Kind and AncestorID are ignored. Reassigning needs the right to manage the new assignee too. A deleted task is 409 (code deleted). ${WHO}`,
  })
  @Pm()
  @ApiResult(TaskDto)
  patch(@Ctx() ctx: RequestContext, @Param('id', GuidPipe) id: string, @Body() patch: MergePatch<UpdateTaskDto>) {
    return this.tasks.patch(ctx, id, patch);
  }

  @Delete('tasks/:id')
  @Pm()
  @ApiOperation({
    summary: 'Delete a task (PM; soft delete)',
    description: `Sets Deleted and takes the task’s live comments down by reference (Deleted and DeletedByRef). Idempotent. Answers an empty object. ${WHO}`,
  })
  @ApiResult(null)
  remove(@Ctx() ctx: RequestContext, @Param('id', GuidPipe) id: string) {
    return this.tasks.remove(ctx, id);
  }

  @Put('tasks/:id/undelete')
  @Pm()
  @ApiOperation({
    summary: 'Undelete a task (PM)',
    description: `Beyond the spec, as for every soft-deleted resource: clears Deleted and restores exactly the comments its delete took down. Idempotent. Answers the task. ${WHO}`,
  })
  @ApiResult(TaskDto)
  undelete(@Ctx() ctx: RequestContext, @Param('id', GuidPipe) id: string) {
    return this.tasks.undelete(ctx, id);
  }
}
