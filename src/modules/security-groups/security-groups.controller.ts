import { Body, Controller, Delete, Get, Param, Post, Put, Query } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { Admin } from '../../common/auth/access.decorators.js';
import { Ctx } from '../../common/context/ctx.decorator.js';
import { RequestContext } from '../../common/context/request-context.js';
import { ApiBodyTypes, ApiResult } from '../../common/http/wire.js';
import { type MergePatch, PatchRoute } from '../../common/http/merge-patch.js';
import { GuidPipe } from '../../common/validation/ids.js';
import { CreateSecurityGroupDto, SecurityGroupDto, SecurityGroupQuery, UpdateSecurityGroupDto } from './dto/security-group.dto.js';
import { SecurityGroupsService } from './security-groups.service.js';

const PRINCIPAL = 'A Permission record naming the group (PrincipalID = its ID, PrincipalType 2) applies to each of its members.';

/** Security groups and their members (docs/authorization.md); every route is for administrators. */
@ApiTags('SecurityGroup')
@Controller()
export class SecurityGroupsController {
  constructor(private readonly groups: SecurityGroupsService) {}

  @Get('securitygroups')
  @Admin()
  @ApiOperation({
    summary: 'List the security groups of the caller’s site (Admin)',
    description: `Ordered by Name, with their members; paged with limit/offset. ${PRINCIPAL}`,
  })
  @ApiResult(SecurityGroupDto, { collection: true })
  list(@Ctx() ctx: RequestContext, @Query() q: SecurityGroupQuery) {
    return this.groups.list(ctx, q);
  }

  @Get('securitygroups/:id')
  @Admin()
  @ApiOperation({
    summary: 'Read a security group with its members (Admin)',
    description: `The group with its Members, ordered by last and first name; a group of another site is 404. ${PRINCIPAL}`,
  })
  @ApiResult(SecurityGroupDto)
  get(@Ctx() ctx: RequestContext, @Param('id', GuidPipe) id: string) {
    return this.groups.get(ctx, id);
  }

  @Post('securitygroups')
  @Admin()
  @ApiOperation({
    summary: 'Create a security group (Admin)',
    description: `Name is required (at most 255 characters, not blank). ID is optional (used if free, else 409 id-taken). ${PRINCIPAL}`,
  })
  @ApiBodyTypes()
  @ApiResult(SecurityGroupDto)
  create(@Ctx() ctx: RequestContext, @Body() dto: CreateSecurityGroupDto) {
    return this.groups.create(ctx, dto);
  }

  @Put('securitygroups/:id')
  @Admin()
  @ApiOperation({
    summary: 'Update a security group (Admin)',
    description: 'Name is required; absent Description keeps its value. Members are changed through their own paths. ID must equal the path id.',
  })
  @ApiBodyTypes()
  @ApiResult(SecurityGroupDto)
  update(@Ctx() ctx: RequestContext, @Param('id', GuidPipe) id: string, @Body() dto: UpdateSecurityGroupDto) {
    return this.groups.update(ctx, id, dto);
  }

  @PatchRoute('securitygroups/:id', UpdateSecurityGroupDto, {
    summary: 'Change the name or description of a security group (Admin)',
    description: 'Members are changed through their own paths.',
  })
  @Admin()
  @ApiResult(SecurityGroupDto)
  patch(@Ctx() ctx: RequestContext, @Param('id', GuidPipe) id: string, @Body() patch: MergePatch<UpdateSecurityGroupDto>) {
    return this.groups.patch(ctx, id, patch);
  }

  @Delete('securitygroups/:id')
  @Admin()
  @ApiOperation({
    summary: 'Delete a security group (Admin)',
    description: 'Removes the group, its memberships and every Permission record naming it, in one transaction.',
  })
  @ApiResult(null)
  remove(@Ctx() ctx: RequestContext, @Param('id', GuidPipe) id: string) {
    return this.groups.remove(ctx, id);
  }

  @Put('securitygroups/:id/members/:individualid')
  @Admin()
  @ApiOperation({
    summary: 'Add an individual to a security group (Admin)',
    description:
      'Idempotent. 404 when the group or the individual is not of the caller’s site; 409 deleted for a deleted individual. No body. Answers the group.',
  })
  @ApiResult(SecurityGroupDto)
  addMember(@Ctx() ctx: RequestContext, @Param('id', GuidPipe) id: string, @Param('individualid', GuidPipe) individualId: string) {
    return this.groups.addMember(ctx, id, individualId);
  }

  @Delete('securitygroups/:id/members/:individualid')
  @Admin()
  @ApiOperation({
    summary: 'Remove an individual from a security group (Admin)',
    description: 'Idempotent. 404 when the group or the individual is not of the caller’s site. Answers the group.',
  })
  @ApiResult(SecurityGroupDto)
  removeMember(@Ctx() ctx: RequestContext, @Param('id', GuidPipe) id: string, @Param('individualid', GuidPipe) individualId: string) {
    return this.groups.removeMember(ctx, id, individualId);
  }
}
