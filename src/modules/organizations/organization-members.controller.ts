import { Body, Controller, Query } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import { Admin, Authenticated } from '../../common/auth/access.decorators.js';
import { Ctx } from '../../common/context/ctx.decorator.js';
import { RequestContext } from '../../common/context/request-context.js';
import { type MergePatch, PatchRoute } from '../../common/http/merge-patch.js';
import { PageQuery } from '../../common/pagination/pagination.js';
import { GuidParam } from '../../common/validation/ids.js';
import { CreateOrganizationMemberDto, CreatePairMemberDto, OrganizationMemberDto, UpdateOrganizationMemberDto } from './dto/organization-member.dto.js';
import { OrganizationMembersService } from './organization-members.service.js';
import { GetRoute, ListRoute, PostRoute, PutRoute, DeleteRoute } from '../../common/http/routes.js';
import { changesUnder } from '../../common/http/delta-list.js';

const BY_INDIVIDUAL = 'individuals/:individualId/departments/:departmentId/departmentmembers';
const BY_DEPARTMENT = 'departments/:departmentId/individuals/:individualId/departmentmembers';

const PAIR =
  'The two {pair} path forms (/individuals/{individualId}/departments/{departmentId}/… and /departments/{departmentId}/individuals/{individualId}/…) are equivalent.';
const GET_PAIR = {
  summary: 'Read the membership of an individual in a department',
  description: `404 when either id is not of the site or there is no such membership. ${PAIR}`,
};
const POST_PAIR = {
  summary: 'Add an individual to a department (Admin)',
  description: `The path names both ends (404 when not of the site, 409 deleted when deleted); IndividualID and OrganizationID in the body are optional and must match the path (400). 409 duplicate-membership when the membership exists. ${PAIR}`,
};
const PUT_PAIR = {
  summary: 'Change the title of a membership (Admin)',
  description: `Only Title changes; IndividualID and OrganizationID are ignored. The primary membership’s title is also the individual’s PrimaryTitle. Honours If-Match (412). ${PAIR}`,
};
const TITLE_ONLY =
  'Only Title changes (null clears it); IndividualID and OrganizationID are ignored. The primary membership’s title is also the individual’s PrimaryTitle.';
const PATCH_PAIR = { summary: 'Change the title of a membership (Admin)', description: `${TITLE_ONLY} ${PAIR}` };
const DELETE_PAIR = {
  summary: 'Remove an individual from a department (Admin)',
  description: `Deletes the membership. 409 primary-membership when the department is the individual’s primary department (change PrimaryOrganizationID first). Honours If-Match (412). ${PAIR}`,
};

@ApiTags('DepartmentMember')
@Controller()
export class OrganizationMembersController {
  constructor(private readonly members: OrganizationMembersService) {}

  @ListRoute(Authenticated, 'departments/:id/departmentmembers', OrganizationMemberDto, changesUnder('departmentmembers', ['OrganizationID']), {
    summary: 'List the members of a department',
    description: 'Ordered by last name, then first name. `limit`/`offset` page the list.',
  })
  listForDepartment(@Ctx() ctx: RequestContext, @GuidParam() id: string, @Query() q: PageQuery) {
    return this.members.listForDepartment(ctx, id, q);
  }

  @ListRoute(Authenticated, 'individuals/:id/departmentmembers', OrganizationMemberDto, changesUnder('departmentmembers', ['IndividualID']), {
    summary: 'List the memberships of an individual',
    description: 'Ordered by the departments’ Rank, then Name. `limit`/`offset` page the list.',
  })
  listForIndividual(@Ctx() ctx: RequestContext, @GuidParam() id: string, @Query() q: PageQuery) {
    return this.members.listForIndividual(ctx, id, q);
  }

  @GetRoute(Authenticated, BY_INDIVIDUAL, OrganizationMemberDto, GET_PAIR)
  getByIndividual(@Ctx() ctx: RequestContext, @GuidParam('individualId') individualId: string, @GuidParam('departmentId') departmentId: string) {
    return this.members.getPair(ctx, individualId, departmentId);
  }

  @GetRoute(Authenticated, BY_DEPARTMENT, OrganizationMemberDto, GET_PAIR)
  getByDepartment(@Ctx() ctx: RequestContext, @GuidParam('departmentId') departmentId: string, @GuidParam('individualId') individualId: string) {
    return this.members.getPair(ctx, individualId, departmentId);
  }

  @PostRoute(Admin, BY_INDIVIDUAL, OrganizationMemberDto, POST_PAIR)
  createByIndividual(
    @Ctx() ctx: RequestContext,
    @GuidParam('individualId') individualId: string,
    @GuidParam('departmentId') departmentId: string,
    @Body() dto: CreatePairMemberDto,
  ) {
    return this.members.createPair(ctx, individualId, departmentId, dto);
  }

  @PostRoute(Admin, BY_DEPARTMENT, OrganizationMemberDto, POST_PAIR)
  createByDepartment(
    @Ctx() ctx: RequestContext,
    @GuidParam('departmentId') departmentId: string,
    @GuidParam('individualId') individualId: string,
    @Body() dto: CreatePairMemberDto,
  ) {
    return this.members.createPair(ctx, individualId, departmentId, dto);
  }

  @PutRoute(Admin, BY_INDIVIDUAL, OrganizationMemberDto, PUT_PAIR)
  updateByIndividual(
    @Ctx() ctx: RequestContext,
    @GuidParam('individualId') individualId: string,
    @GuidParam('departmentId') departmentId: string,
    @Body() dto: UpdateOrganizationMemberDto,
  ) {
    return this.members.updatePair(ctx, individualId, departmentId, dto);
  }

  @PutRoute(Admin, BY_DEPARTMENT, OrganizationMemberDto, PUT_PAIR)
  updateByDepartment(
    @Ctx() ctx: RequestContext,
    @GuidParam('departmentId') departmentId: string,
    @GuidParam('individualId') individualId: string,
    @Body() dto: UpdateOrganizationMemberDto,
  ) {
    return this.members.updatePair(ctx, individualId, departmentId, dto);
  }

  @PatchRoute(Admin, BY_INDIVIDUAL, UpdateOrganizationMemberDto, OrganizationMemberDto, PATCH_PAIR)
  patchByIndividual(
    @Ctx() ctx: RequestContext,
    @GuidParam('individualId') individualId: string,
    @GuidParam('departmentId') departmentId: string,
    @Body() patch: MergePatch<UpdateOrganizationMemberDto>,
  ) {
    return this.members.patchPair(ctx, individualId, departmentId, patch);
  }

  @PatchRoute(Admin, BY_DEPARTMENT, UpdateOrganizationMemberDto, OrganizationMemberDto, PATCH_PAIR)
  patchByDepartment(
    @Ctx() ctx: RequestContext,
    @GuidParam('departmentId') departmentId: string,
    @GuidParam('individualId') individualId: string,
    @Body() patch: MergePatch<UpdateOrganizationMemberDto>,
  ) {
    return this.members.patchPair(ctx, individualId, departmentId, patch);
  }

  @DeleteRoute(Admin, BY_INDIVIDUAL, null, DELETE_PAIR)
  removeByIndividual(@Ctx() ctx: RequestContext, @GuidParam('individualId') individualId: string, @GuidParam('departmentId') departmentId: string) {
    return this.members.removePair(ctx, individualId, departmentId);
  }

  @DeleteRoute(Admin, BY_DEPARTMENT, null, DELETE_PAIR)
  removeByDepartment(@Ctx() ctx: RequestContext, @GuidParam('departmentId') departmentId: string, @GuidParam('individualId') individualId: string) {
    return this.members.removePair(ctx, individualId, departmentId);
  }

  @PostRoute(Admin, 'departmentmembers', OrganizationMemberDto, {
    summary: 'Add an individual to a department (Admin)',
    description:
      'IndividualID and OrganizationID are required and must name live records of the site (400). 409 duplicate-membership when the membership exists. An ID may be supplied (409 id-taken when used).',
  })
  create(@Ctx() ctx: RequestContext, @Body() dto: CreateOrganizationMemberDto) {
    return this.members.create(ctx, dto);
  }

  @PutRoute(Admin, 'departmentmembers/:id', OrganizationMemberDto, {
    summary: 'Change the title of a membership by its id (Admin)',
    description:
      'The body ID must equal the path id (400). Only Title changes; IndividualID and OrganizationID are ignored. The primary membership’s title is also the individual’s PrimaryTitle. Honours If-Match (412).',
  })
  update(@Ctx() ctx: RequestContext, @GuidParam() id: string, @Body() dto: UpdateOrganizationMemberDto) {
    return this.members.update(ctx, id, dto);
  }

  @PatchRoute(Admin, 'departmentmembers/:id', UpdateOrganizationMemberDto, OrganizationMemberDto, {
    summary: 'Change the title of a membership by its id (Admin)',
    description: `An ID in the body must equal the path id (400). ${TITLE_ONLY}`,
  })
  patch(@Ctx() ctx: RequestContext, @GuidParam() id: string, @Body() patch: MergePatch<UpdateOrganizationMemberDto>) {
    return this.members.patch(ctx, id, patch);
  }

  @DeleteRoute(Admin, 'departmentmembers/:id', null, {
    summary: 'Remove a membership by its id (Admin)',
    description:
      'Not shown in the spec; the same rules as DELETE on a {pair} path: deletes the membership, 409 primary-membership for the individual’s primary department. Honours If-Match (412).',
  })
  remove(@Ctx() ctx: RequestContext, @GuidParam() id: string) {
    return this.members.remove(ctx, id);
  }
}
