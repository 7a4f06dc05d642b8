import { Body, Query, type Type } from '@nestjs/common';
import { Admin, Authenticated } from '../../auth/access.decorators.js';
import { Ctx } from '../../common/context/ctx.decorator.js';
import { RequestContext } from '../../common/context/request-context.js';
import { type MergePatch, PatchRoute } from '../../http/pipeline/merge-patch.js';
import { QueriedPageQuery } from '../../http/wire/pagination.js';
import { queryNotes } from '../../http/wire/list-query.js';
import { GuidParam } from '../../http/wire/ids.js';
import {
  BulkOrganizationMembers,
  CreateOrganizationMemberDto,
  CreatePairMemberDto,
  OrganizationMember,
  OrganizationMemberDto,
  UpdateOrganizationMemberDto,
} from './dto/organization-member.dto.js';
import { BulkRoute } from '../../http/pipeline/bulk-route.js';
import { BulkQuery } from '../../http/wire/bulk.js';
import { OrganizationMembersService } from './organization-members.service.js';
import { ApiController, GetRoute, ListRoute, PostRoute, PutRoute, DeleteRoute } from '../../http/pipeline/routes.js';
import { defineRoutes } from '../../http/pipeline/route-family.js';
import { changesUnder } from '../../http/pipeline/delta-list.js';

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

/** A membership's two path forms, in route order: the handlers' suffix, the path, and whether the individual's id comes first. */
const PAIR_FORMS: readonly { by: string; path: string; individualFirst: boolean }[] = [
  { by: 'ByIndividual', path: BY_INDIVIDUAL, individualFirst: true },
  { by: 'ByDepartment', path: BY_DEPARTMENT, individualFirst: false },
];

/** One operation on a membership named by its pair: the handler's name, its route on a path, its body (if any) and the service call. */
interface PairOperation {
  name: string;
  route: (path: string) => MethodDecorator;
  body?: Type;
  call: (members: OrganizationMembersService, ctx: RequestContext, individualId: string, departmentId: string, body: never) => unknown;
}

/** The operations of the pair paths, in route order. */
const PAIR_OPERATIONS: readonly PairOperation[] = [
  {
    name: 'get',
    route: (path) => GetRoute(Authenticated, path, OrganizationMemberDto, GET_PAIR),
    call: (members, ctx, individualId, departmentId) => members.getPair(ctx, individualId, departmentId),
  },
  {
    name: 'create',
    route: (path) => PostRoute(Admin, path, OrganizationMemberDto, POST_PAIR),
    body: CreatePairMemberDto,
    call: (members, ctx, individualId, departmentId, dto: CreatePairMemberDto) => members.createPair(ctx, individualId, departmentId, dto),
  },
  {
    name: 'update',
    route: (path) => PutRoute(Admin, path, OrganizationMemberDto, PUT_PAIR),
    body: UpdateOrganizationMemberDto,
    call: (members, ctx, individualId, departmentId, dto: UpdateOrganizationMemberDto) => members.updatePair(ctx, individualId, departmentId, dto),
  },
  {
    name: 'patch',
    route: (path) => PatchRoute(Admin, path, UpdateOrganizationMemberDto, OrganizationMemberDto, PATCH_PAIR),
    body: Object, // a MergePatch, which the pipe leaves as sent
    call: (members, ctx, individualId, departmentId, patch: MergePatch<UpdateOrganizationMemberDto>) =>
      members.patchPair(ctx, individualId, departmentId, patch),
  },
  {
    name: 'remove',
    route: (path) => DeleteRoute(Admin, path, null, DELETE_PAIR),
    call: (members, ctx, individualId, departmentId) => members.removePair(ctx, individualId, departmentId),
  },
];

@ApiController('DepartmentMember', undefined, {
  description: 'The membership of an individual in an organization or department, with its title; reached by id or by the pair of records.',
})
export class OrganizationMembersController {
  constructor(private readonly members: OrganizationMembersService) {}

  @ListRoute(Authenticated, 'departments/:id/departmentmembers', OrganizationMemberDto, changesUnder('departmentmembers', ['OrganizationID']), {
    summary: 'List the members of a department',
    description: `Ordered by the members’ last name, then first name (queried: by sort=, else by ID). \`limit\`/\`offset\` page the list. ${queryNotes(OrganizationMember)}`,
  })
  listForDepartment(@Ctx() ctx: RequestContext, @GuidParam() id: string, @Query() q: QueriedPageQuery) {
    return this.members.listForDepartment(ctx, id, q);
  }

  @ListRoute(Authenticated, 'individuals/:id/departmentmembers', OrganizationMemberDto, changesUnder('departmentmembers', ['IndividualID']), {
    summary: 'List the memberships of an individual',
    description: `Ordered by the departments’ Rank, then Name (queried: by sort=, else by ID). \`limit\`/\`offset\` page the list. ${queryNotes(OrganizationMember)}`,
  })
  listForIndividual(@Ctx() ctx: RequestContext, @GuidParam() id: string, @Query() q: QueriedPageQuery) {
    return this.members.listForIndividual(ctx, id, q);
  }

  @PostRoute(Admin, 'departmentmembers', OrganizationMemberDto, {
    summary: 'Add an individual to a department (Admin)',
    description:
      'IndividualID and OrganizationID are required and must name live records of the site (400). 409 duplicate-membership when the membership exists. An ID may be supplied (409 id-taken when used).',
  })
  create(@Ctx() ctx: RequestContext, @Body() dto: CreateOrganizationMemberDto) {
    return this.members.create(ctx, dto);
  }

  @BulkRoute(Admin, 'departmentmembers/bulk', {
    summary: 'Create, update and upsert up to 1,000 department memberships (Admin)',
    description:
      'Each Record is the body of POST /departmentmembers (create) or of PUT /departmentmembers/{id} (update: only Title changes). ' +
      'A Record names its membership by ID, or by IndividualID and OrganizationID: an upsert of an individual who is not a member of that department yet adds them, else changes the title; two creates of one pair: the second is 409 duplicate-membership. ' +
      'ExternalRefs.IndividualID and ExternalRefs.OrganizationID name the individual and the department by their ExternalID instead of their ID.',
  })
  bulk(@Ctx() ctx: RequestContext, @Body() body: BulkOrganizationMembers, @Query() q: BulkQuery) {
    return this.members.bulk(ctx, body, q);
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

  /**
   * The pair paths, declared once for both forms: each operation on each form is a handler of its
   * own (`getByIndividual`, `getByDepartment`, …) taking the two ids in the path's order; they stand
   * before the routes by membership id.
   */
  static {
    defineRoutes(
      this,
      PAIR_OPERATIONS.flatMap((op) =>
        PAIR_FORMS.map((form) => {
          const [first, second] = form.individualFirst ? ['individualId', 'departmentId'] : ['departmentId', 'individualId'];
          return {
            name: `${op.name}${form.by}`,
            decorators: [op.route(form.path)],
            params: [[Ctx(), RequestContext], [GuidParam(first), String], [GuidParam(second), String], ...(op.body ? [[Body(), op.body] as const] : [])],
            handle(this: OrganizationMembersController, ctx: RequestContext, a: string, b: string, body: never) {
              return form.individualFirst ? op.call(this.members, ctx, a, b, body) : op.call(this.members, ctx, b, a, body);
            },
          };
        }),
      ),
      { before: 'create' },
    );
  }
}
