import { Body, Query } from '@nestjs/common';
import { Authenticated } from '../../auth/access.decorators.js';
import { Ctx } from '../../common/context/ctx.decorator.js';
import { RequestContext } from '../../common/context/request-context.js';
import { type MergePatch, PatchRoute } from '../../http/pipeline/merge-patch.js';
import { QueriedListQuery, QueriedPageQuery } from '../../http/wire/pagination.js';
import { queryNotes } from '../../http/wire/list-query.js';
import { GuidParam } from '../../http/wire/ids.js';
import { BasicRolesService } from './basic-roles.service.js';
import {
  BasicRole,
  BasicRoleDto,
  CreateBasicRoleDto,
  IndividualBasicRolesCount,
  IndividualBasicRolesCountDto,
  UpdateBasicRoleDto,
} from './dto/basic-role.dto.js';
import { ApiController, GetRoute, ListRoute, PostRoute, PutRoute, PutAction, DeleteRoute } from '../../http/pipeline/routes.js';
import { changesUnder } from '../../http/pipeline/delta-list.js';

const WHO = 'Allowed for the individual, anyone above them in the reporting chain, and administrators; others get 403.';
const LIST_NOTE = `\`deleted\`: 0 live (default), 1 deleted, 2 all. Ordered by Rank, then Name; paged with limit/offset (X-Total-Count, Link). XML root ArrayOfBasicRole. ${queryNotes(BasicRole)}`;

@ApiController('BasicRole', undefined, { description: 'The basic roles of an individual, each with the number of dialogs it calls for per period.' })
export class BasicRolesController {
  constructor(private readonly roles: BasicRolesService) {}

  @ListRoute(Authenticated, 'individuals/:individualid/basicroles', BasicRoleDto, changesUnder('basicroles', ['IndividualID']), {
    summary: 'List the basic roles of an individual',
    description: `404 for an individual not of the site. ${LIST_NOTE} ${WHO}`,
  })
  listFor(@Ctx() ctx: RequestContext, @GuidParam('individualid') individualId: string, @Query() q: QueriedListQuery) {
    return this.roles.listFor(ctx, individualId, q);
  }

  @ListRoute(Authenticated, 'me/basicroles', BasicRoleDto, changesUnder('basicroles', ['IndividualID']), {
    summary: 'List the caller’s basic roles',
    description: `A caller without an individual record in the site gets an empty list. ${LIST_NOTE}`,
  })
  listMine(@Ctx() ctx: RequestContext, @Query() q: QueriedListQuery) {
    return this.roles.listMine(ctx, q);
  }

  @ListRoute(Authenticated, 'sites/:siteid/individuals/basicroles', IndividualBasicRolesCountDto, null, {
    summary: 'Count the basic roles of every individual of a site',
    description:
      'One IndividualBasicRolesCount per live individual of the site (BasicRolesCount counts live roles only), ordered by LastName, FirstName, ID; paged with limit/offset (X-Total-Count, Link). XML root ArrayOfIndividualBasicRolesCount. Every member of the site may read it (names and counts only); another site only a global administrator (else 403). Individuals a Deny on Read hides from the caller are left out. ' +
      queryNotes(IndividualBasicRolesCount),
  })
  countsForSite(@Ctx() ctx: RequestContext, @GuidParam('siteid') siteId: string, @Query() q: QueriedPageQuery) {
    return this.roles.countsForSite(ctx, siteId, q);
  }

  @GetRoute(Authenticated, 'basicroles/:id', BasicRoleDto, { summary: 'Read a basic role', description: `Deleted roles are answered too. ${WHO}` })
  get(@Ctx() ctx: RequestContext, @GuidParam() id: string) {
    return this.roles.get(ctx, id);
  }

  @GetRoute(Authenticated, 'individuals/:individualid/basicroles/:id', BasicRoleDto, {
    summary: 'Read a basic role of an individual',
    description: `404 unless the role belongs to that individual. ${WHO}`,
  })
  getFor(@Ctx() ctx: RequestContext, @GuidParam('individualid') individualId: string, @GuidParam() id: string) {
    return this.roles.getFor(ctx, individualId, id);
  }

  @PostRoute(Authenticated, 'basicroles', BasicRoleDto, {
    summary: 'Create a basic role',
    description: `IndividualID (a live individual of the site, else 400) and Name are required; DialogsPerPeriod defaults to 1, Rank to 0. ID is optional (used if free, else 409 id-taken). ${WHO}`,
  })
  create(@Ctx() ctx: RequestContext, @Body() dto: CreateBasicRoleDto) {
    return this.roles.create(ctx, dto);
  }

  @PutRoute(Authenticated, 'basicroles/:id', BasicRoleDto, {
    summary: 'Update a basic role',
    description: `ID (equal to the path id) and Name are required; absent optional fields keep their value. IndividualID and read-only fields are ignored. A deleted role is 409 (code deleted); If-Match is honoured (412). ${WHO}`,
  })
  update(@Ctx() ctx: RequestContext, @GuidParam() id: string, @Body() dto: UpdateBasicRoleDto) {
    return this.roles.update(ctx, id, dto);
  }

  @PatchRoute(Authenticated, 'basicroles/:id', UpdateBasicRoleDto, BasicRoleDto, {
    summary: 'Change some fields of a basic role',
    description: `IndividualID is ignored. A deleted role is 409 (code deleted). ${WHO}`,
  })
  patch(@Ctx() ctx: RequestContext, @GuidParam() id: string, @Body() patch: MergePatch<UpdateBasicRoleDto>) {
    return this.roles.patch(ctx, id, patch);
  }

  @DeleteRoute(Authenticated, 'basicroles/:id', null, {
    summary: 'Delete a basic role (soft delete)',
    description: `Sets Deleted; idempotent. Answers an empty object. ${WHO}`,
  })
  remove(@Ctx() ctx: RequestContext, @GuidParam() id: string) {
    return this.roles.remove(ctx, id);
  }

  @PutAction(Authenticated, 'basicroles/:id/undelete', BasicRoleDto, {
    summary: 'Undelete a basic role',
    description: `Clears Deleted and answers the restored BasicRole; idempotent. A role deleted with its individual (DeletedByRef) is 409 (code deleted): it comes back when the individual is undeleted. ${WHO}`,
  })
  undelete(@Ctx() ctx: RequestContext, @GuidParam() id: string) {
    return this.roles.undelete(ctx, id);
  }
}
