import { Body, Controller, Delete, Get, Param, Post, Put, Query } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { Admin, Authenticated } from '../../common/auth/access.decorators.js';
import { Ctx } from '../../common/context/ctx.decorator.js';
import { RequestContext } from '../../common/context/request-context.js';
import { ApiBodyTypes, ApiResult } from '../../common/http/wire.js';
import { type MergePatch, PatchRoute } from '../../common/http/merge-patch.js';
import { DeletedQuery } from '../../common/pagination/pagination.js';
import { GuidPipe } from '../../common/validation/ids.js';
import { CreateOrganizationDto, OrganizationDto, UpdateOrganizationDto } from './dto/organization.dto.js';
import { ROW_TYPE_DEPARTMENT, ROW_TYPE_ORGANIZATION } from '../../database/entities/organization.entity.js';
import { OrganizationsService } from './organizations.service.js';

const ORDER = 'Ordered by Rank, then Name. `deleted`: 0 live (default), 1 deleted, 2 all; `limit`/`offset` page the list (X-Total-Count, Link).';

@ApiTags('Department')
@Controller()
export class OrganizationsController {
  constructor(private readonly organizations: OrganizationsService) {}

  @Get('departments')
  @Authenticated()
  @ApiOperation({
    summary: 'List the departments of the caller’s site',
    description: `Departments only (RowType 56); organizations (RowType 4) are listed by GET /organizations. ${ORDER}`,
  })
  @ApiResult(OrganizationDto, { collection: true })
  list(@Ctx() ctx: RequestContext, @Query() q: DeletedQuery) {
    return this.organizations.list(ctx, ROW_TYPE_DEPARTMENT, q);
  }

  @Post('departments')
  @Admin()
  @ApiOperation({
    summary: 'Create a department or organization (Admin)',
    description:
      'RowType defaults to 56 (department); RowType 4 creates an organization. ParentID and ManagerID must name live records of the site (400). An ID may be supplied (409 id-taken when used).',
  })
  @ApiBodyTypes()
  @ApiResult(OrganizationDto)
  create(@Ctx() ctx: RequestContext, @Body() dto: CreateOrganizationDto) {
    return this.organizations.create(ctx, dto);
  }

  @Get('sites/:siteid/departments')
  @Authenticated()
  @ApiOperation({
    summary: 'List the departments of a site',
    description: `The caller’s own site, or any site for a global administrator (else 403). Departments only (RowType 56). ${ORDER}`,
  })
  @ApiResult(OrganizationDto, { collection: true })
  listForSite(@Ctx() ctx: RequestContext, @Param('siteid', GuidPipe) siteId: string, @Query() q: DeletedQuery) {
    return this.organizations.listForSite(ctx, siteId, q);
  }

  @Get('departments/:id')
  @Authenticated()
  @ApiOperation({
    summary: 'Read a department or organization',
    description: 'Either row type (the spec’s Department group covers both). A deleted record is answered too (Deleted = true).',
  })
  @ApiResult(OrganizationDto)
  get(@Ctx() ctx: RequestContext, @Param('id', GuidPipe) id: string) {
    return this.organizations.get(ctx, id);
  }

  @Put('departments/:id')
  @Authenticated()
  @ApiOperation({
    summary: 'Update a department or organization',
    description:
      'By an administrator, or by the manager of the record or of one above it (else 403 forbidden); only an administrator may change ParentID, ManagerID or RowType (403 admin-required). Absent optional fields keep their value. A deleted record is 409 deleted; a ParentID that is the record or lies under it is 409 cycle. Honours If-Match (412).',
  })
  @ApiBodyTypes()
  @ApiResult(OrganizationDto)
  update(@Ctx() ctx: RequestContext, @Param('id', GuidPipe) id: string, @Body() dto: UpdateOrganizationDto) {
    return this.organizations.update(ctx, id, dto);
  }

  @PatchRoute('departments/:id', UpdateOrganizationDto, {
    summary: 'Change some fields of a department or organization',
    description:
      'By an administrator, or by the manager of the record or of one above it (else 403 forbidden); only an administrator may change ParentID, ManagerID or RowType (403 admin-required). A deleted record is 409 deleted; a ParentID that is the record or lies under it is 409 cycle.',
  })
  @Authenticated()
  @ApiResult(OrganizationDto)
  patch(@Ctx() ctx: RequestContext, @Param('id', GuidPipe) id: string, @Body() patch: MergePatch<UpdateOrganizationDto>) {
    return this.organizations.patch(ctx, id, patch);
  }

  @Delete('departments/:id')
  @Admin()
  @ApiOperation({
    summary: 'Delete a department or organization (Admin)',
    description:
      'Soft delete: the record becomes Deleted; its live sub-departments become Deleted and DeletedByRef, and the memberships of all of them are taken down by reference. 409 primary-department while the record or one under it is the primary organization of a live individual. Idempotent. Honours If-Match (412).',
  })
  @ApiResult(null)
  remove(@Ctx() ctx: RequestContext, @Param('id', GuidPipe) id: string) {
    return this.organizations.remove(ctx, id);
  }

  @Put('departments/:id/undelete')
  @Admin()
  @ApiOperation({
    summary: 'Undelete a department or organization (Admin)',
    description:
      'Restores the record and what its deletion took down by reference (sub-departments and memberships of live individuals). A live record is answered unchanged. 409 parent-deleted when its parent is deleted.',
  })
  @ApiResult(OrganizationDto)
  undelete(@Ctx() ctx: RequestContext, @Param('id', GuidPipe) id: string) {
    return this.organizations.undelete(ctx, id);
  }

  @Get('me/departments')
  @Authenticated()
  @ApiOperation({
    summary: 'List the caller’s organizations and departments',
    description: `Every organization or department (both row types) the caller is a member of, their primary one included; \`deleted\` filters those records. ${ORDER}`,
  })
  @ApiResult(OrganizationDto, { collection: true })
  listForMe(@Ctx() ctx: RequestContext, @Query() q: DeletedQuery) {
    return this.organizations.listForMe(ctx, q);
  }

  @Get('individuals/:id/departments')
  @Authenticated()
  @ApiOperation({
    summary: 'List the organizations and departments of an individual',
    description: `Every organization or department (both row types) the individual is a member of, the primary one included; \`deleted\` filters those records. 404 for an individual not of the site. ${ORDER}`,
  })
  @ApiResult(OrganizationDto, { collection: true })
  listForIndividual(@Ctx() ctx: RequestContext, @Param('id', GuidPipe) id: string, @Query() q: DeletedQuery) {
    return this.organizations.listForIndividual(ctx, id, q);
  }
}

@ApiTags('Organization')
@Controller('organizations')
export class OrganizationsReadController {
  constructor(private readonly organizations: OrganizationsService) {}

  @Get()
  @Authenticated()
  @ApiOperation({ summary: 'List the organizations of the caller’s site', description: `Organizations only (RowType 4). ${ORDER}` })
  @ApiResult(OrganizationDto, { collection: true })
  list(@Ctx() ctx: RequestContext, @Query() q: DeletedQuery) {
    return this.organizations.list(ctx, ROW_TYPE_ORGANIZATION, q);
  }

  @Get(':id')
  @Authenticated()
  @ApiOperation({
    summary: 'Read an organization',
    description: 'RowType 4 only: the id of a department is a 404 here (read it with GET /departments/{id}). Write organizations through /departments/{id}.',
  })
  @ApiResult(OrganizationDto)
  get(@Ctx() ctx: RequestContext, @Param('id', GuidPipe) id: string) {
    return this.organizations.getOrganization(ctx, id);
  }
}
