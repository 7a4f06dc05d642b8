import { Body, Query } from '@nestjs/common';
import { Admin } from '../../auth/access.decorators.js';
import { Ctx } from '../../common/context/ctx.decorator.js';
import { RequestContext } from '../../common/context/request-context.js';
import { type MergePatch, PatchRoute } from '../../http/pipeline/merge-patch.js';
import { GuidParam } from '../../http/wire/ids.js';
import { BulkSecurityGroupMembers, CreateSecurityGroupDto, SecurityGroup, SecurityGroupDto, UpdateSecurityGroupDto } from './dto/security-group.dto.js';
import { BulkRoute } from '../../http/pipeline/bulk-route.js';
import { BulkQuery } from '../../http/wire/bulk.js';
import { SecurityGroupsService } from './security-groups.service.js';
import { ApiController, GetRoute, ListRoute, PostRoute, PutRoute, PutAction, DeleteRoute } from '../../http/pipeline/routes.js';
import { changesOf } from '../../http/pipeline/delta-list.js';
import { QueriedPageQuery } from '../../http/wire/pagination.js';
import { queryNotes } from '../../http/wire/list-query.js';

const PRINCIPAL = 'A Permission record naming the group (PrincipalID = its ID, PrincipalType 2) applies to each of its members.';

/** Security groups and their members (docs/authorization.md); every route is for administrators. */
@ApiController('SecurityGroup', undefined, {
  description: 'Named groups of individuals that a Permission record can name as its principal (administrators only).',
})
export class SecurityGroupsController {
  constructor(private readonly groups: SecurityGroupsService) {}

  @ListRoute(Admin, 'securitygroups', SecurityGroupDto, changesOf('securitygroups'), {
    summary: 'List the security groups of the caller’s site (Admin)',
    description: `Ordered by Name, with their members; paged with limit/offset. ${PRINCIPAL} ${queryNotes(SecurityGroup)}`,
  })
  list(@Ctx() ctx: RequestContext, @Query() q: QueriedPageQuery) {
    return this.groups.list(ctx, q);
  }

  @GetRoute(Admin, 'securitygroups/:id', SecurityGroupDto, {
    summary: 'Read a security group with its members (Admin)',
    description: `The group with its Members, ordered by last and first name; a group of another site is 404. ${PRINCIPAL}`,
  })
  get(@Ctx() ctx: RequestContext, @GuidParam() id: string) {
    return this.groups.get(ctx, id);
  }

  @PostRoute(Admin, 'securitygroups', SecurityGroupDto, {
    summary: 'Create a security group (Admin)',
    description: `Name is required (at most 255 characters, not blank). ID is optional (used if free, else 409 id-taken). ${PRINCIPAL}`,
  })
  create(@Ctx() ctx: RequestContext, @Body() dto: CreateSecurityGroupDto) {
    return this.groups.create(ctx, dto);
  }

  @PutRoute(Admin, 'securitygroups/:id', SecurityGroupDto, {
    summary: 'Update a security group (Admin)',
    description: 'Name is required; absent Description keeps its value. Members are changed through their own paths. ID must equal the path id.',
  })
  update(@Ctx() ctx: RequestContext, @GuidParam() id: string, @Body() dto: UpdateSecurityGroupDto) {
    return this.groups.update(ctx, id, dto);
  }

  @PatchRoute(Admin, 'securitygroups/:id', UpdateSecurityGroupDto, SecurityGroupDto, {
    summary: 'Change the name or description of a security group (Admin)',
    description: 'Members are changed through their own paths.',
  })
  patch(@Ctx() ctx: RequestContext, @GuidParam() id: string, @Body() patch: MergePatch<UpdateSecurityGroupDto>) {
    return this.groups.patch(ctx, id, patch);
  }

  @DeleteRoute(Admin, 'securitygroups/:id', null, {
    summary: 'Delete a security group (Admin)',
    description: 'Removes the group, its memberships and every Permission record naming it, in one transaction.',
  })
  remove(@Ctx() ctx: RequestContext, @GuidParam() id: string) {
    return this.groups.remove(ctx, id);
  }

  @PutAction(Admin, 'securitygroups/:id/members/:individualid', SecurityGroupDto, {
    summary: 'Add an individual to a security group (Admin)',
    description:
      'Idempotent. 404 when the group or the individual is not of the caller’s site; 409 deleted for a deleted individual. No body. Answers the group.',
  })
  addMember(@Ctx() ctx: RequestContext, @GuidParam() id: string, @GuidParam('individualid') individualId: string) {
    return this.groups.addMember(ctx, id, individualId);
  }

  @BulkRoute(Admin, 'securitygroups/members/bulk', {
    summary: 'Add up to 1,000 individuals to security groups (Admin)',
    description:
      'Each item is PUT /securitygroups/{id}/members/{individualid}: its Record names the group (SecurityGroupID) and the individual (IndividualID), or a membership by ID; ' +
      'create, update and upsert all add the member (adding one twice is 200, one membership), except that an update of a pair that is no member yet is 404. ' +
      'ExternalRefs.SecurityGroupID names the group by its ExternalID (the SCIM client’s externalId), ExternalRefs.IndividualID the individual by theirs. The ID answered is the membership’s. Members are removed with DELETE /securitygroups/{id}/members/{individualid}.',
  })
  bulkMembers(@Ctx() ctx: RequestContext, @Body() body: BulkSecurityGroupMembers, @Query() q: BulkQuery) {
    return this.groups.bulkMembers(ctx, body, q);
  }

  @DeleteRoute(Admin, 'securitygroups/:id/members/:individualid', SecurityGroupDto, {
    summary: 'Remove an individual from a security group (Admin)',
    description: 'Idempotent. 404 when the group or the individual is not of the caller’s site. Answers the group.',
  })
  removeMember(@Ctx() ctx: RequestContext, @GuidParam() id: string, @GuidParam('individualid') individualId: string) {
    return this.groups.removeMember(ctx, id, individualId);
  }
}
