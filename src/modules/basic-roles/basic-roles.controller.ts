import { Body, Controller, Delete, Get, Param, Post, Put, Query } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { Authenticated } from '../../common/auth/access.decorators.js';
import { Ctx } from '../../common/context/ctx.decorator.js';
import { RequestContext } from '../../common/context/request-context.js';
import { ApiBodyTypes, ApiResult } from '../../common/http/wire.js';
import { type MergePatch, PatchRoute } from '../../common/http/merge-patch.js';
import { PageQuery } from '../../common/pagination/pagination.js';
import { GuidPipe } from '../../common/validation/ids.js';
import { BasicRolesService } from './basic-roles.service.js';
import { BasicRoleDto, BasicRoleQuery, CreateBasicRoleDto, IndividualBasicRolesCountDto, UpdateBasicRoleDto } from './dto/basic-role.dto.js';

const WHO = 'Allowed for the individual, anyone above them in the reporting chain, and administrators; others get 403.';
const LIST_NOTE =
  '`deleted`: 0 live (default), 1 deleted, 2 all. Ordered by Rank, then Name; paged with limit/offset (X-Total-Count, Link). XML root ArrayOfBasicRole.';

@ApiTags('BasicRole')
@Controller()
export class BasicRolesController {
  constructor(private readonly roles: BasicRolesService) {}

  @Get('individuals/:individualid/basicroles')
  @Authenticated()
  @ApiOperation({ summary: 'List the basic roles of an individual', description: `404 for an individual not of the site. ${LIST_NOTE} ${WHO}` })
  @ApiResult(BasicRoleDto, { collection: true })
  listFor(@Ctx() ctx: RequestContext, @Param('individualid', GuidPipe) individualId: string, @Query() q: BasicRoleQuery) {
    return this.roles.listFor(ctx, individualId, q);
  }

  @Get('me/basicroles')
  @Authenticated()
  @ApiOperation({ summary: 'List the caller’s basic roles', description: `A caller without an individual record in the site gets an empty list. ${LIST_NOTE}` })
  @ApiResult(BasicRoleDto, { collection: true })
  listMine(@Ctx() ctx: RequestContext, @Query() q: BasicRoleQuery) {
    return this.roles.listMine(ctx, q);
  }

  @Get('sites/:siteid/individuals/basicroles')
  @Authenticated()
  @ApiOperation({
    summary: 'Count the basic roles of every individual of a site',
    description:
      'One IndividualBasicRolesCount per live individual of the site (BasicRolesCount counts live roles only), ordered by LastName, FirstName, ID; paged with limit/offset (X-Total-Count, Link). XML root ArrayOfIndividualBasicRolesCount. Every member of the site may read it (names and counts only); another site only a global administrator (else 403).',
  })
  @ApiResult(IndividualBasicRolesCountDto, { collection: true })
  countsForSite(@Ctx() ctx: RequestContext, @Param('siteid', GuidPipe) siteId: string, @Query() q: PageQuery) {
    return this.roles.countsForSite(ctx, siteId, q);
  }

  @Get('basicroles/:id')
  @Authenticated()
  @ApiOperation({ summary: 'Read a basic role', description: `Deleted roles are answered too. ${WHO}` })
  @ApiResult(BasicRoleDto)
  get(@Ctx() ctx: RequestContext, @Param('id', GuidPipe) id: string) {
    return this.roles.get(ctx, id);
  }

  @Get('individuals/:individualid/basicroles/:id')
  @Authenticated()
  @ApiOperation({ summary: 'Read a basic role of an individual', description: `404 unless the role belongs to that individual. ${WHO}` })
  @ApiResult(BasicRoleDto)
  getFor(@Ctx() ctx: RequestContext, @Param('individualid', GuidPipe) individualId: string, @Param('id', GuidPipe) id: string) {
    return this.roles.getFor(ctx, individualId, id);
  }

  @Post('basicroles')
  @Authenticated()
  @ApiOperation({
    summary: 'Create a basic role',
    description: `IndividualID (a live individual of the site, else 400) and Name are required; DialogsPerPeriod defaults to 1, Rank to 0. ID is optional (used if free, else 409 id-taken). ${WHO}`,
  })
  @ApiBodyTypes()
  @ApiResult(BasicRoleDto)
  create(@Ctx() ctx: RequestContext, @Body() dto: CreateBasicRoleDto) {
    return this.roles.create(ctx, dto);
  }

  @Put('basicroles/:id')
  @Authenticated()
  @ApiOperation({
    summary: 'Update a basic role',
    description: `ID (equal to the path id) and Name are required; absent optional fields keep their value. IndividualID and read-only fields are ignored. A deleted role is 409 (code deleted); If-Match is honoured (412). ${WHO}`,
  })
  @ApiBodyTypes()
  @ApiResult(BasicRoleDto)
  update(@Ctx() ctx: RequestContext, @Param('id', GuidPipe) id: string, @Body() dto: UpdateBasicRoleDto) {
    return this.roles.update(ctx, id, dto);
  }

  @PatchRoute('basicroles/:id', UpdateBasicRoleDto, {
    summary: 'Change some fields of a basic role',
    description: `IndividualID is ignored. A deleted role is 409 (code deleted). ${WHO}`,
  })
  @Authenticated()
  @ApiResult(BasicRoleDto)
  patch(@Ctx() ctx: RequestContext, @Param('id', GuidPipe) id: string, @Body() patch: MergePatch<UpdateBasicRoleDto>) {
    return this.roles.patch(ctx, id, patch);
  }

  @Delete('basicroles/:id')
  @Authenticated()
  @ApiOperation({ summary: 'Delete a basic role (soft delete)', description: `Sets Deleted; idempotent. Answers an empty object. ${WHO}` })
  @ApiResult(null)
  remove(@Ctx() ctx: RequestContext, @Param('id', GuidPipe) id: string) {
    return this.roles.remove(ctx, id);
  }

  @Put('basicroles/:id/undelete')
  @Authenticated()
  @ApiOperation({
    summary: 'Undelete a basic role',
    description: `Clears Deleted and answers the restored BasicRole; idempotent. A role deleted with its individual (DeletedByRef) is 409 (code deleted): it comes back when the individual is undeleted. ${WHO}`,
  })
  @ApiResult(BasicRoleDto)
  undelete(@Ctx() ctx: RequestContext, @Param('id', GuidPipe) id: string) {
    return this.roles.undelete(ctx, id);
  }
}
