import { Body, Controller, Delete, Get, Param, Post, Put, Query } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { Admin, Authenticated } from '../../common/auth/access.decorators.js';
import { Ctx } from '../../common/context/ctx.decorator.js';
import { RequestContext } from '../../common/context/request-context.js';
import { ApiBodyTypes, ApiResult } from '../../common/http/wire.js';
import { type MergePatch, PatchRoute } from '../../common/http/merge-patch.js';
import { PageQuery } from '../../common/pagination/pagination.js';
import { GuidPipe } from '../../common/validation/ids.js';
import { CreateOrganizationMemberDto, CreatePairMemberDto, OrganizationMemberDto, UpdateOrganizationMemberDto } from './dto/organization-member.dto.js';
import { OrganizationMembersService } from './organization-members.service.js';

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

  @Get('departments/:id/departmentmembers')
  @Authenticated()
  @ApiOperation({ summary: 'List the members of a department', description: 'Ordered by last name, then first name. `limit`/`offset` page the list.' })
  @ApiResult(OrganizationMemberDto, { collection: true })
  listForDepartment(@Ctx() ctx: RequestContext, @Param('id', GuidPipe) id: string, @Query() q: PageQuery) {
    return this.members.listForDepartment(ctx, id, q);
  }

  @Get('individuals/:id/departmentmembers')
  @Authenticated()
  @ApiOperation({
    summary: 'List the memberships of an individual',
    description: 'Ordered by the departments’ Rank, then Name. `limit`/`offset` page the list.',
  })
  @ApiResult(OrganizationMemberDto, { collection: true })
  listForIndividual(@Ctx() ctx: RequestContext, @Param('id', GuidPipe) id: string, @Query() q: PageQuery) {
    return this.members.listForIndividual(ctx, id, q);
  }

  @Get(BY_INDIVIDUAL)
  @Authenticated()
  @ApiOperation(GET_PAIR)
  @ApiResult(OrganizationMemberDto)
  getByIndividual(@Ctx() ctx: RequestContext, @Param('individualId', GuidPipe) individualId: string, @Param('departmentId', GuidPipe) departmentId: string) {
    return this.members.getPair(ctx, individualId, departmentId);
  }

  @Get(BY_DEPARTMENT)
  @Authenticated()
  @ApiOperation(GET_PAIR)
  @ApiResult(OrganizationMemberDto)
  getByDepartment(@Ctx() ctx: RequestContext, @Param('departmentId', GuidPipe) departmentId: string, @Param('individualId', GuidPipe) individualId: string) {
    return this.members.getPair(ctx, individualId, departmentId);
  }

  @Post(BY_INDIVIDUAL)
  @Admin()
  @ApiOperation(POST_PAIR)
  @ApiBodyTypes()
  @ApiResult(OrganizationMemberDto)
  createByIndividual(
    @Ctx() ctx: RequestContext,
    @Param('individualId', GuidPipe) individualId: string,
    @Param('departmentId', GuidPipe) departmentId: string,
    @Body() dto: CreatePairMemberDto,
  ) {
    return this.members.createPair(ctx, individualId, departmentId, dto);
  }

  @Post(BY_DEPARTMENT)
  @Admin()
  @ApiOperation(POST_PAIR)
  @ApiBodyTypes()
  @ApiResult(OrganizationMemberDto)
  createByDepartment(
    @Ctx() ctx: RequestContext,
    @Param('departmentId', GuidPipe) departmentId: string,
    @Param('individualId', GuidPipe) individualId: string,
    @Body() dto: CreatePairMemberDto,
  ) {
    return this.members.createPair(ctx, individualId, departmentId, dto);
  }

  @Put(BY_INDIVIDUAL)
  @Admin()
  @ApiOperation(PUT_PAIR)
  @ApiBodyTypes()
  @ApiResult(OrganizationMemberDto)
  updateByIndividual(
    @Ctx() ctx: RequestContext,
    @Param('individualId', GuidPipe) individualId: string,
    @Param('departmentId', GuidPipe) departmentId: string,
    @Body() dto: UpdateOrganizationMemberDto,
  ) {
    return this.members.updatePair(ctx, individualId, departmentId, dto);
  }

  @Put(BY_DEPARTMENT)
  @Admin()
  @ApiOperation(PUT_PAIR)
  @ApiBodyTypes()
  @ApiResult(OrganizationMemberDto)
  updateByDepartment(
    @Ctx() ctx: RequestContext,
    @Param('departmentId', GuidPipe) departmentId: string,
    @Param('individualId', GuidPipe) individualId: string,
    @Body() dto: UpdateOrganizationMemberDto,
  ) {
    return this.members.updatePair(ctx, individualId, departmentId, dto);
  }

  @PatchRoute(BY_INDIVIDUAL, UpdateOrganizationMemberDto, PATCH_PAIR)
  @Admin()
  @ApiResult(OrganizationMemberDto)
  patchByIndividual(
    @Ctx() ctx: RequestContext,
    @Param('individualId', GuidPipe) individualId: string,
    @Param('departmentId', GuidPipe) departmentId: string,
    @Body() patch: MergePatch<UpdateOrganizationMemberDto>,
  ) {
    return this.members.patchPair(ctx, individualId, departmentId, patch);
  }

  @PatchRoute(BY_DEPARTMENT, UpdateOrganizationMemberDto, PATCH_PAIR)
  @Admin()
  @ApiResult(OrganizationMemberDto)
  patchByDepartment(
    @Ctx() ctx: RequestContext,
    @Param('departmentId', GuidPipe) departmentId: string,
    @Param('individualId', GuidPipe) individualId: string,
    @Body() patch: MergePatch<UpdateOrganizationMemberDto>,
  ) {
    return this.members.patchPair(ctx, individualId, departmentId, patch);
  }

  @Delete(BY_INDIVIDUAL)
  @Admin()
  @ApiOperation(DELETE_PAIR)
  @ApiResult(null)
  removeByIndividual(@Ctx() ctx: RequestContext, @Param('individualId', GuidPipe) individualId: string, @Param('departmentId', GuidPipe) departmentId: string) {
    return this.members.removePair(ctx, individualId, departmentId);
  }

  @Delete(BY_DEPARTMENT)
  @Admin()
  @ApiOperation(DELETE_PAIR)
  @ApiResult(null)
  removeByDepartment(@Ctx() ctx: RequestContext, @Param('departmentId', GuidPipe) departmentId: string, @Param('individualId', GuidPipe) individualId: string) {
    return this.members.removePair(ctx, individualId, departmentId);
  }

  @Post('departmentmembers')
  @Admin()
  @ApiOperation({
    summary: 'Add an individual to a department (Admin)',
    description:
      'IndividualID and OrganizationID are required and must name live records of the site (400). 409 duplicate-membership when the membership exists. An ID may be supplied (409 id-taken when used).',
  })
  @ApiBodyTypes()
  @ApiResult(OrganizationMemberDto)
  create(@Ctx() ctx: RequestContext, @Body() dto: CreateOrganizationMemberDto) {
    return this.members.create(ctx, dto);
  }

  @Put('departmentmembers/:id')
  @Admin()
  @ApiOperation({
    summary: 'Change the title of a membership by its id (Admin)',
    description:
      'The body ID must equal the path id (400). Only Title changes; IndividualID and OrganizationID are ignored. The primary membership’s title is also the individual’s PrimaryTitle. Honours If-Match (412).',
  })
  @ApiBodyTypes()
  @ApiResult(OrganizationMemberDto)
  update(@Ctx() ctx: RequestContext, @Param('id', GuidPipe) id: string, @Body() dto: UpdateOrganizationMemberDto) {
    return this.members.update(ctx, id, dto);
  }

  @PatchRoute('departmentmembers/:id', UpdateOrganizationMemberDto, {
    summary: 'Change the title of a membership by its id (Admin)',
    description: `An ID in the body must equal the path id (400). ${TITLE_ONLY}`,
  })
  @Admin()
  @ApiResult(OrganizationMemberDto)
  patch(@Ctx() ctx: RequestContext, @Param('id', GuidPipe) id: string, @Body() patch: MergePatch<UpdateOrganizationMemberDto>) {
    return this.members.patch(ctx, id, patch);
  }

  @Delete('departmentmembers/:id')
  @Admin()
  @ApiOperation({
    summary: 'Remove a membership by its id (Admin)',
    description:
      'Not shown in the spec; the same rules as DELETE on a {pair} path: deletes the membership, 409 primary-membership for the individual’s primary department. Honours If-Match (412).',
  })
  @ApiResult(null)
  remove(@Ctx() ctx: RequestContext, @Param('id', GuidPipe) id: string) {
    return this.members.remove(ctx, id);
  }
}
