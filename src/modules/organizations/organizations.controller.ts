import { Body, Query } from '@nestjs/common';
import { Admin, Authenticated } from '../../auth/access.decorators.js';
import { Ctx } from '../../common/context/ctx.decorator.js';
import { RequestContext } from '../../common/context/request-context.js';
import { type MergePatch, PatchRoute } from '../../http/pipeline/merge-patch.js';
import { QueriedListQuery } from '../../http/wire/pagination.js';
import { queryNotes } from '../../http/wire/list-query.js';
import { GuidParam } from '../../http/wire/ids.js';
import { BulkOrganizations, CreateOrganizationDto, Organization, OrganizationDto, UpdateOrganizationDto } from './dto/organization.dto.js';
import { ROW_TYPE_DEPARTMENT, ROW_TYPE_ORGANIZATION } from '../../database/entities/organization.entity.js';
import { OrganizationsService } from './organizations.service.js';
import { ApiController, GetRoute, ListRoute, PostRoute, PutRoute, PutAction, DeleteRoute } from '../../http/pipeline/routes.js';
import { changesOf, changesRefused } from '../../http/pipeline/delta-list.js';
import { BulkRoute } from '../../http/pipeline/bulk-route.js';
import { BulkQuery } from '../../http/wire/bulk.js';

const ORDER = 'Ordered by Rank, then Name. `deleted`: 0 live (default), 1 deleted, 2 all; `limit`/`offset` page the list (X-Total-Count, Link).';
/** What the lists of one row type take beyond ORDER (docs/queries.md). */
const QUERIED = queryNotes(Organization);

/** Why the departments of a person are not answered as changes (docs/delta-sync.md). */
const BY_MEMBERSHIP =
  'The departments of a person are theirs by membership, not by a field of the department: sync the memberships with GET /v4/individuals/{id}/departmentmembers?updatedSince=… and the departments with GET /v4/departments?updatedSince=…';

@ApiController('Department', undefined, {
  description: 'Organizations and departments (one Organization resource, RowType 4 or 56) as a tree, read and changed through /departments.',
})
export class OrganizationsController {
  constructor(private readonly organizations: OrganizationsService) {}

  @ListRoute(Authenticated, 'departments', OrganizationDto, changesOf('departments'), {
    summary: 'List the departments of the caller’s site',
    description: `Departments only (RowType 56); organizations (RowType 4) are listed by GET /organizations. ${ORDER} ${QUERIED}`,
  })
  list(@Ctx() ctx: RequestContext, @Query() q: QueriedListQuery) {
    return this.organizations.list(ctx, ROW_TYPE_DEPARTMENT, q);
  }

  @PostRoute(Admin, 'departments', OrganizationDto, {
    summary: 'Create a department or organization (Admin)',
    description:
      'RowType defaults to 56 (department); RowType 4 creates an organization. ParentID and ManagerID must name live records of the site (400). An ID may be supplied (409 id-taken when used).',
  })
  create(@Ctx() ctx: RequestContext, @Body() dto: CreateOrganizationDto) {
    return this.organizations.create(ctx, dto);
  }

  @BulkRoute(Authenticated, 'departments/bulk', {
    summary: 'Create, update and upsert up to 1,000 departments and organizations',
    description:
      'Each Record is the body of POST /departments (create: administrators, else 403 admin-required; RowType 4 for an organization) or of PUT /departments/{id} (update: as that route allows), upserted by ID or ExternalID. ' +
      'ExternalRefs.ParentID and ExternalRefs.ManagerID name the parent unit and the manager by their ExternalID; a parent created by another item of the request may come after its children.',
  })
  bulk(@Ctx() ctx: RequestContext, @Body() body: BulkOrganizations, @Query() q: BulkQuery) {
    return this.organizations.bulk(ctx, body, q);
  }

  @ListRoute(Authenticated, 'sites/:siteid/departments', OrganizationDto, changesOf('departments'), {
    summary: 'List the departments of a site',
    description: `The caller’s own site, or any site for a global administrator (else 403). Departments only (RowType 56). ${ORDER} ${QUERIED}`,
  })
  listForSite(@Ctx() ctx: RequestContext, @GuidParam('siteid') siteId: string, @Query() q: QueriedListQuery) {
    return this.organizations.listForSite(ctx, siteId, q);
  }

  @GetRoute(Authenticated, 'departments/:id', OrganizationDto, {
    summary: 'Read a department or organization',
    description: 'Either row type (the spec’s Department group covers both). A deleted record is answered too (Deleted = true).',
  })
  get(@Ctx() ctx: RequestContext, @GuidParam() id: string) {
    return this.organizations.get(ctx, id);
  }

  @PutRoute(Authenticated, 'departments/:id', OrganizationDto, {
    summary: 'Update a department or organization',
    description:
      'By an administrator, or by the manager of the record or of one above it (else 403 forbidden); only an administrator may change ParentID, ManagerID or RowType (403 admin-required). Absent optional fields keep their value. A deleted record is 409 deleted; a ParentID that is the record or lies under it is 409 cycle. Honours If-Match (412).',
  })
  update(@Ctx() ctx: RequestContext, @GuidParam() id: string, @Body() dto: UpdateOrganizationDto) {
    return this.organizations.update(ctx, id, dto);
  }

  @PatchRoute(Authenticated, 'departments/:id', UpdateOrganizationDto, OrganizationDto, {
    summary: 'Change some fields of a department or organization',
    description:
      'By an administrator, or by the manager of the record or of one above it (else 403 forbidden); only an administrator may change ParentID, ManagerID or RowType (403 admin-required). A deleted record is 409 deleted; a ParentID that is the record or lies under it is 409 cycle.',
  })
  patch(@Ctx() ctx: RequestContext, @GuidParam() id: string, @Body() patch: MergePatch<UpdateOrganizationDto>) {
    return this.organizations.patch(ctx, id, patch);
  }

  @DeleteRoute(Admin, 'departments/:id', null, {
    summary: 'Delete a department or organization (Admin)',
    description:
      'Soft delete: the record becomes Deleted; its live sub-departments become Deleted and DeletedByRef, and the memberships of all of them are taken down by reference. 409 primary-department while the record or one under it is the primary organization of a live individual. Idempotent. Honours If-Match (412).',
  })
  remove(@Ctx() ctx: RequestContext, @GuidParam() id: string) {
    return this.organizations.remove(ctx, id);
  }

  @PutAction(Admin, 'departments/:id/undelete', OrganizationDto, {
    summary: 'Undelete a department or organization (Admin)',
    description:
      'Restores the record and what its deletion took down by reference (sub-departments and memberships of live individuals). A live record is answered unchanged. 409 parent-deleted when its parent is deleted.',
  })
  undelete(@Ctx() ctx: RequestContext, @GuidParam() id: string) {
    return this.organizations.undelete(ctx, id);
  }

  @ListRoute(Authenticated, 'me/departments', OrganizationDto, changesRefused(BY_MEMBERSHIP), {
    summary: 'List the caller’s organizations and departments',
    description: `Every organization or department (both row types) the caller is a member of, their primary one included; \`deleted\` filters those records. ${ORDER} ${QUERIED}`,
  })
  listForMe(@Ctx() ctx: RequestContext, @Query() q: QueriedListQuery) {
    return this.organizations.listForMe(ctx, q);
  }

  @ListRoute(Authenticated, 'individuals/:id/departments', OrganizationDto, changesRefused(BY_MEMBERSHIP), {
    summary: 'List the organizations and departments of an individual',
    description: `Every organization or department (both row types) the individual is a member of, the primary one included; \`deleted\` filters those records. 404 for an individual not of the site. ${ORDER} ${QUERIED}`,
  })
  listForIndividual(@Ctx() ctx: RequestContext, @GuidParam() id: string, @Query() q: QueriedListQuery) {
    return this.organizations.listForIndividual(ctx, id, q);
  }
}

@ApiController('Organization', 'organizations', {
  description: 'The organizations of a site (RowType 4), read only here: create and change them through /departments.',
})
export class OrganizationsReadController {
  constructor(private readonly organizations: OrganizationsService) {}

  @ListRoute(Authenticated, '/', OrganizationDto, changesOf('organizations'), {
    summary: 'List the organizations of the caller’s site',
    description: `Organizations only (RowType 4). ${ORDER} ${QUERIED}`,
  })
  list(@Ctx() ctx: RequestContext, @Query() q: QueriedListQuery) {
    return this.organizations.list(ctx, ROW_TYPE_ORGANIZATION, q);
  }

  @GetRoute(Authenticated, ':id', OrganizationDto, {
    summary: 'Read an organization',
    description: 'RowType 4 only: the id of a department is a 404 here (read it with GET /departments/{id}). Write organizations through /departments/{id}.',
  })
  get(@Ctx() ctx: RequestContext, @GuidParam() id: string) {
    return this.organizations.getOrganization(ctx, id);
  }
}
