import { Body, Query } from '@nestjs/common';
import { Authenticated } from '../../auth/access.decorators.js';
import { Ctx } from '../../common/context/ctx.decorator.js';
import { RequestContext } from '../../common/context/request-context.js';
import { type MergePatch, PatchRoute } from '../../http/pipeline/merge-patch.js';
import { QueriedListQuery } from '../../http/wire/pagination.js';
import { queryNotes } from '../../http/wire/list-query.js';
import { GuidParam } from '../../http/wire/ids.js';
import { CreateProjectDto, Project, ProjectDto, UpdateProjectDto } from './dto/project.dto.js';
import { ProjectsService } from './projects.service.js';
import { ApiController, GetRoute, ListRoute, PostRoute, PutRoute, PutAction, DeleteRoute } from '../../http/pipeline/routes.js';
import { changesOf, changesUnder } from '../../http/pipeline/delta-list.js';

const READ_RULE = 'Every member of the site reads projects.';
const WRITE_RULE = 'Allowed for administrators, the owner (OwnerID), and anyone the owner reports to; others get 403.';
const LIST_NOTE =
  'Ordered by Name; deleted: 0 live (default), 1 deleted, 2 all; paged with limit/offset (X-Total-Count, Link). XML root ArrayOfProject. ' +
  queryNotes(Project);

@ApiController('Project', undefined, { description: 'Projects with their owner, start and due dates (each change of the due date is counted).' })
export class ProjectsController {
  constructor(private readonly projects: ProjectsService) {}

  @ListRoute(Authenticated, 'projects', ProjectDto, changesOf('projects'), {
    summary: 'List the projects of the site',
    description: `${LIST_NOTE} ${READ_RULE}`,
  })
  list(@Ctx() ctx: RequestContext, @Query() q: QueriedListQuery) {
    return this.projects.list(ctx, q);
  }

  @GetRoute(Authenticated, 'projects/:id', ProjectDto, { summary: 'Read a project', description: `Deleted projects are answered too. ${READ_RULE}` })
  get(@Ctx() ctx: RequestContext, @GuidParam() id: string) {
    return this.projects.get(ctx, id);
  }

  @ListRoute(Authenticated, 'individuals/:id/projects', ProjectDto, changesUnder('projects', ['OwnerID']), {
    summary: 'List the projects an individual owns',
    description: `404 when the individual is not one of the site. ${LIST_NOTE} ${READ_RULE}`,
  })
  listForIndividual(@Ctx() ctx: RequestContext, @GuidParam() individualId: string, @Query() q: QueriedListQuery) {
    return this.projects.listForIndividual(ctx, individualId, q);
  }

  @ListRoute(Authenticated, 'me/projects', ProjectDto, changesUnder('projects', ['OwnerID']), {
    summary: 'List the projects the caller owns',
    description: `A caller without an individual record in the site gets an empty list. ${LIST_NOTE}`,
  })
  listMine(@Ctx() ctx: RequestContext, @Query() q: QueriedListQuery) {
    return this.projects.listMine(ctx, q);
  }

  @PostRoute(Authenticated, 'projects', ProjectDto, {
    summary: 'Create a project',
    description: `Name and OwnerID are required. OwnerID must be a live individual and OrganizationID a live organization or department of the site (else 400 naming the field); DueDate and CompletedDate must not be before StartDate. ID is optional (used if free, else 409 id-taken). ${WRITE_RULE}`,
  })
  create(@Ctx() ctx: RequestContext, @Body() dto: CreateProjectDto) {
    return this.projects.create(ctx, dto);
  }

  @PutRoute(Authenticated, 'projects/:id', ProjectDto, {
    summary: 'Update a project',
    description: `ID (equal to the path id) and Name are required; absent optional fields keep their value, null clears them (OwnerID cannot be cleared: 400). Moving a set DueDate (or clearing it) adds one to DueDateChanges and records the move with its time. Read-only fields are ignored; a deleted project is 409 (code deleted); If-Match is honoured (412). Changing OwnerID needs the right to manage the new owner as well. ${WRITE_RULE}`,
  })
  update(@Ctx() ctx: RequestContext, @GuidParam() id: string, @Body() dto: UpdateProjectDto) {
    return this.projects.update(ctx, id, dto);
  }

  @PatchRoute(Authenticated, 'projects/:id', UpdateProjectDto, ProjectDto, {
    summary: 'Change some fields of a project',
    description: `OwnerID cannot be cleared (400). Moving a set DueDate (or clearing it) adds one to DueDateChanges and records the move with its time. A deleted project is 409 (code deleted). Changing OwnerID needs the right to manage the new owner as well. ${WRITE_RULE}`,
  })
  patch(@Ctx() ctx: RequestContext, @GuidParam() id: string, @Body() patch: MergePatch<UpdateProjectDto>) {
    return this.projects.patch(ctx, id, patch);
  }

  @DeleteRoute(Authenticated, 'projects/:id', null, {
    summary: 'Delete a project (soft delete)',
    description: `Sets Deleted and takes the project’s live scopes and comments down by reference (Deleted and DeletedByRef). Idempotent. Answers an empty object. ${WRITE_RULE}`,
  })
  remove(@Ctx() ctx: RequestContext, @GuidParam() id: string) {
    return this.projects.remove(ctx, id);
  }

  @PutAction(Authenticated, 'projects/:id/undelete', ProjectDto, {
    summary: 'Undelete a project',
    description: `Clears Deleted and restores exactly the scopes and comments its delete took down (items deleted on their own stay deleted). Idempotent. Answers the project. ${WRITE_RULE}`,
  })
  undelete(@Ctx() ctx: RequestContext, @GuidParam() id: string) {
    return this.projects.undelete(ctx, id);
  }
}
