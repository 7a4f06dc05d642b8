import { Body, Query } from '@nestjs/common';
import { ApiForbiddenResponse } from '@nestjs/swagger';
import { Authenticated } from '../../auth/access.decorators.js';
import { Ctx } from '../../common/context/ctx.decorator.js';
import { RequestContext } from '../../common/context/request-context.js';
import { type MergePatch, PatchRoute } from '../../http/pipeline/merge-patch.js';
import { GuidParam } from '../../http/wire/ids.js';
import {
  BulkPermissions,
  CreatePermissionDto,
  EffectivePermissionsDto,
  EffectiveQuery,
  Permission,
  PermissionDto,
  PermissionQuery,
  UpdatePermissionDto,
} from './dto/permission.dto.js';
import { BulkRoute } from '../../http/pipeline/bulk-route.js';
import { BulkQuery } from '../../http/wire/bulk.js';
import { PermissionsService } from './permissions.service.js';
import { queryNotes } from '../../http/wire/list-query.js';
import { ApiController, GetRoute, ListRoute, PostRoute, PutRoute, DeleteRoute } from '../../http/pipeline/routes.js';
import { defineRoutes } from '../../http/pipeline/route-family.js';
import { changesOf, changesUnder } from '../../http/pipeline/delta-list.js';

const STATES = 'States: 0 Not Set, 1 Allow, 2 Deny (CreateText … DelegateText give the words).';
const WHO_WRITES = 'An administrator, or a holder of Delegate on the row (else 403; 404 when a Deny hides the row from the caller).';

/** The six `/{kind}/{rowid}/permissions` lists, in route order: the kind of row, its handler, and the row in words. */
const ROW_LISTS: readonly { kind: string; name: string; what: string }[] = [
  { kind: 'individuals', name: 'listForIndividual', what: 'an individual' },
  { kind: 'organizations', name: 'listForOrganization', what: 'an organization' },
  { kind: 'departments', name: 'listForDepartment', what: 'a department' },
  { kind: 'projects', name: 'listForProject', what: 'a project' },
  { kind: 'dialogs', name: 'listForDialog', what: 'a dialog' },
  { kind: 'metrics', name: 'listForMetric', what: 'a metric' },
];

/**
 * The Permission resource (docs/authorization.md). `effective` is declared before `:id`
 * so the static segment is not taken for an id.
 */
@ApiController('Permission', undefined, {
  description:
    'Permission records: Allow or Deny on create, read, update, delete and delegate for a user or security group on a row (and, through ChildType, the rows below it); and the explanation of any decision.',
})
export class PermissionsController {
  constructor(private readonly permissions: PermissionsService) {}

  @ListRoute(Authenticated, 'permissions', PermissionDto, changesOf('permissions'), {
    summary: 'List permissions, optionally of one row and/or one principal',
    description: `An administrator sees every record of the site; anyone else the records naming them (their UserID) or a security group of theirs, and, with rowid, every record of a row they hold Delegate on. Ordered by RowType, RowID, PrincipalType, PrincipalID and ChildType; paged with limit/offset. ${STATES} ${queryNotes(Permission)}`,
  })
  list(@Ctx() ctx: RequestContext, @Query() q: PermissionQuery) {
    return this.permissions.list(ctx, q);
  }

  @GetRoute(Authenticated, 'permissions/effective', EffectivePermissionsDto, {
    summary: 'Explain what a principal may do on a row',
    description:
      'For each of Create, Read, Update, Delete and Delegate: Allowed, and the rule that decided — administrator; the Permission record (and whether it applied through a security group or through a row above via its ChildType); or the default that applied. principalid defaults to the caller. For administrators and holders of Delegate on the row (else 403). See docs/authorization.md for the order of evaluation.',
  })
  @ApiForbiddenResponse({ description: 'The caller is neither an administrator nor a holder of Delegate on the row (forbidden).' })
  effective(@Ctx() ctx: RequestContext, @Query() q: EffectiveQuery) {
    return this.permissions.effective(ctx, q);
  }

  @GetRoute(Authenticated, 'permissions/:id', PermissionDto, {
    summary: 'Read a permission',
    description: `For an administrator, the principal it names (or a member of that group), or a holder of Delegate on its row; anyone else gets 404. ${STATES}`,
  })
  get(@Ctx() ctx: RequestContext, @GuidParam() id: string) {
    return this.permissions.get(ctx, id);
  }

  @PostRoute(Authenticated, 'permissions', PermissionDto, {
    summary: 'Create a permission',
    description: `RowID (an individual, organization, department, project, dialog or metric of the site), PrincipalID (a UserID or a security group of the site) and the five states are required (400 naming the field otherwise). ChildType: null for the row itself, or one of the spec's values (19 department, 9/25/38 dialog, 7/16/58 metric, 4 organization, 15 project) to cover the rows of that type below RowID; any other number is stored as null. (RowID, PrincipalID, ChildType) is unique: 409 duplicate-permission. ${WHO_WRITES}`,
  })
  create(@Ctx() ctx: RequestContext, @Body() dto: CreatePermissionDto) {
    return this.permissions.create(ctx, dto);
  }

  @BulkRoute(Authenticated, 'permissions/bulk', {
    summary: 'Create, update and upsert up to 1,000 permissions',
    description:
      `Each Record is the body of POST /permissions (create) or of PUT /permissions/{id} (update: the five states), each held to its rule: ${WHO_WRITES} ` +
      'A Record names its permission by ID, or by RowID, PrincipalID and ChildType (unique together): an upsert of a grant that does not exist yet creates it, else changes its states; two creates of one grant: the second is 409 duplicate-permission. ' +
      'RowID and PrincipalID are IDs (a row of several kinds, a UserID or a security group): they take no ExternalRefs.',
  })
  bulk(@Ctx() ctx: RequestContext, @Body() body: BulkPermissions, @Query() q: BulkQuery) {
    return this.permissions.bulk(ctx, body, q);
  }

  @PutRoute(Authenticated, 'permissions/:id', PermissionDto, {
    summary: 'Update a permission',
    description: `Changes the five states (all required). RowID, PrincipalID and ChildType are ignored: a permission does not move. ID must equal the path id. ${WHO_WRITES} If-Match is honoured (412).`,
  })
  update(@Ctx() ctx: RequestContext, @GuidParam() id: string, @Body() dto: UpdatePermissionDto) {
    return this.permissions.update(ctx, id, dto);
  }

  @PatchRoute(Authenticated, 'permissions/:id', UpdatePermissionDto, PermissionDto, {
    summary: 'Change some of the states of a permission',
    description: `RowID, PrincipalID and ChildType are ignored: a permission does not move. ${STATES} ${WHO_WRITES}`,
  })
  patch(@Ctx() ctx: RequestContext, @GuidParam() id: string, @Body() patch: MergePatch<UpdatePermissionDto>) {
    return this.permissions.patch(ctx, id, patch);
  }

  @DeleteRoute(Authenticated, 'permissions/:id', null, {
    summary: 'Delete a permission',
    description: `Removes the record (its rights are gone at once). ${WHO_WRITES}`,
  })
  remove(@Ctx() ctx: RequestContext, @GuidParam() id: string) {
    return this.permissions.remove(ctx, id);
  }

  /** The permissions on one row, declared once for every kind of row (after the routes above). */
  static {
    defineRoutes(
      this,
      ROW_LISTS.map(({ kind, name, what }) => ({
        name,
        decorators: [
          ListRoute(Authenticated, `${kind}/:rowid/permissions`, PermissionDto, changesUnder('permissions', ['RowID']), {
            summary: `List the permissions on ${what}`,
            description: `Every Permission record on that row, for an administrator or a holder of Delegate on it (else 403). 404 when the row is not ${what} of the caller’s site. ${STATES} ${queryNotes(Permission)}`,
          }),
        ],
        params: [
          [Ctx(), RequestContext],
          [GuidParam('rowid'), String],
          [Query(), PermissionQuery],
        ],
        handle(this: PermissionsController, ctx: RequestContext, id: string, q: PermissionQuery) {
          return this.permissions.listForRow(ctx, kind, id, q);
        },
      })),
    );
  }
}
