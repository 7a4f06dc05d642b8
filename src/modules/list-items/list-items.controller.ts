import { Body, Query, type Type } from '@nestjs/common';
import { Authenticated } from '../../auth/access.decorators.js';
import { Ctx } from '../../common/context/ctx.decorator.js';
import { RequestContext } from '../../common/context/request-context.js';
import { QueriedListQuery } from '../../http/wire/pagination.js';
import { GuidParam } from '../../http/wire/ids.js';
import { ApiController, DeleteRoute, ListRoute, PostRoute, PutAction, PutRoute } from '../../http/pipeline/routes.js';
import { changesRefused, changesUnder, type DeltaDecl } from '../../http/pipeline/delta-list.js';
import { type MergePatch, PatchRoute } from '../../http/pipeline/merge-patch.js';
import { BulkListItems, CreateListItemDto, ListItemDto, UpdateListItemDto } from './dto/list-item.dto.js';
import { BulkRoute } from '../../http/pipeline/bulk-route.js';
import { BulkQuery } from '../../http/wire/bulk.js';
import { ACCOUNTABILITY, EVALUATION_CRITERION, PROJECT_SCOPE, SUPERVISORY_SCOPE, type ListItemKindInfo } from './list-item-kinds.js';
import { AS_LIST, listItemDoc as doc, listItemPatchDoc } from './list-item.docs.js';
import { ListItemsService } from './list-items.service.js';

/** How one ListItem kind is reached: its controller's name and OpenAPI tag, and the words of its paths. */
interface ListItemPaths {
  /** The controller's class name (the OpenAPI operation ids are `<controller>_<handler>`). */
  controller: string;
  tag: string;
  /** What the tag groups (the document's tag list). */
  tagDescription: string;
  kind: ListItemKindInfo;
  /** The owner's collection and path parameter: `individuals/:individualid`. */
  owner: 'individuals' | 'projects';
  ownerParam: 'individualid' | 'projectid';
  /** The kind's collection, and the item's id parameter under its owner (`/individuals/{individualid}/accountabilities/{accountabilityid}`). */
  items: string;
  itemParam: string;
}

/**
 * The four ListItem kinds' routes (docs/list-items.md), declared once: every kind has the same
 * nine routes, with the same access rule, documentation and service call, on its own paths. Each
 * row of `LIST_ITEM_ROUTES` below makes one controller class of this declaration (no base class:
 * every route and its decorators stand here).
 */
/**
 * `me/{items}` asked with `updatedSince`: the caller's own items; project scopes are the caller's
 * through the projects they own, not by a field of the item, so that list answers 400.
 */
function mine(p: ListItemPaths): DeltaDecl {
  return p.owner === 'individuals'
    ? changesUnder(p.items, ['AncestorID'])
    : changesRefused(`Project scopes are the caller’s through the projects they own: sync GET /v4/projects/{id}/${p.items}?updatedSince=… per project`);
}

function listItemController(p: ListItemPaths): Type {
  const { kind } = p;

  @ApiController(p.tag, undefined, { description: p.tagDescription })
  class ListItemController {
    constructor(private readonly items: ListItemsService) {}

    @ListRoute(Authenticated, `${p.owner}/:${p.ownerParam}/${p.items}`, ListItemDto, changesUnder(p.items, ['AncestorID']), doc.listFor(kind), AS_LIST)
    listFor(@Ctx() ctx: RequestContext, @GuidParam(p.ownerParam) ownerId: string, @Query() q: QueriedListQuery) {
      return this.items.listFor(ctx, kind, ownerId, q);
    }

    @ListRoute(Authenticated, `me/${p.items}`, ListItemDto, mine(p), doc.listMine(kind), AS_LIST)
    listMine(@Ctx() ctx: RequestContext, @Query() q: QueriedListQuery) {
      return this.items.listMine(ctx, kind, q);
    }

    // `:id`, as PUT and DELETE of the same path: one path template per resource path (docs/openapi.md).
    @ListRoute(Authenticated, `${p.items}/:id`, ListItemDto, null, doc.get(kind), AS_LIST)
    get(@Ctx() ctx: RequestContext, @GuidParam() id: string) {
      return this.items.getAsList(ctx, kind, id);
    }

    @ListRoute(Authenticated, `${p.owner}/:${p.ownerParam}/${p.items}/:${p.itemParam}`, ListItemDto, null, doc.getFor(kind), AS_LIST)
    getFor(@Ctx() ctx: RequestContext, @GuidParam(p.ownerParam) ownerId: string, @GuidParam(p.itemParam) id: string) {
      return this.items.getForAncestorAsList(ctx, kind, ownerId, id);
    }

    @PostRoute(Authenticated, p.items, ListItemDto, doc.create(kind))
    create(@Ctx() ctx: RequestContext, @Body() dto: CreateListItemDto) {
      return this.items.create(ctx, kind, dto);
    }

    @BulkRoute(Authenticated, `${p.items}/bulk`, doc.bulk(kind))
    bulk(@Ctx() ctx: RequestContext, @Body() body: BulkListItems, @Query() q: BulkQuery) {
      return this.items.bulk(ctx, kind, body, q);
    }

    @PutRoute(Authenticated, `${p.items}/:id`, ListItemDto, doc.update(kind))
    update(@Ctx() ctx: RequestContext, @GuidParam() id: string, @Body() dto: UpdateListItemDto) {
      return this.items.update(ctx, kind, id, dto);
    }

    @PatchRoute(Authenticated, `${p.items}/:id`, UpdateListItemDto, ListItemDto, listItemPatchDoc(kind))
    patch(@Ctx() ctx: RequestContext, @GuidParam() id: string, @Body() patch: MergePatch<UpdateListItemDto>) {
      return this.items.patch(ctx, kind, id, patch);
    }

    @DeleteRoute(Authenticated, `${p.items}/:id`, null, doc.remove(kind))
    remove(@Ctx() ctx: RequestContext, @GuidParam() id: string) {
      return this.items.remove(ctx, kind, id);
    }

    @PutAction(Authenticated, `${p.items}/:id/undelete`, ListItemDto, doc.undelete(kind), AS_LIST)
    undelete(@Ctx() ctx: RequestContext, @GuidParam() id: string) {
      return this.items.undelete(ctx, kind, id);
    }
  }
  Object.defineProperty(ListItemController, 'name', { value: p.controller });
  return ListItemController;
}

/** The route table: one row per kind, in the order the module registers their controllers. */
const LIST_ITEM_ROUTES: readonly ListItemPaths[] = [
  // The Accountability group: ListItems of kind accountability, owned by an individual.
  {
    controller: 'AccountabilitiesController',
    tag: 'Accountability',
    tagDescription: 'The accountabilities of an individual: ListItems ordered by Rank.',
    kind: ACCOUNTABILITY,
    owner: 'individuals',
    ownerParam: 'individualid',
    items: 'accountabilities',
    itemParam: 'accountabilityid',
  },
  // Evaluation criteria and supervisory scopes: owned by an individual, the same paths as accountabilities.
  {
    controller: 'EvaluationCriteriaController',
    tag: 'EvaluationCriteria',
    tagDescription: 'The evaluation criteria of an individual: ListItems ordered by Rank, rated in assessments.',
    kind: EVALUATION_CRITERION,
    owner: 'individuals',
    ownerParam: 'individualid',
    items: 'evaluationcriteria',
    itemParam: 'evaluationcriteriaid',
  },
  {
    controller: 'SupervisoryScopesController',
    tag: 'SupervisoryScope',
    tagDescription: 'The supervisory scopes of an individual: ListItems ordered by Rank.',
    kind: SUPERVISORY_SCOPE,
    owner: 'individuals',
    ownerParam: 'individualid',
    items: 'supervisoryscopes',
    itemParam: 'supervisoryscopeid',
  },
  // Project scopes: owned by a project; /me/projectscopes lists the scopes of the projects the caller owns.
  {
    controller: 'ProjectScopesController',
    tag: 'ProjectScope',
    tagDescription: 'The scopes of a project: ListItems ordered by Rank.',
    kind: PROJECT_SCOPE,
    owner: 'projects',
    ownerParam: 'projectid',
    items: 'projectscopes',
    itemParam: 'projectscopeid',
  },
];

/** One controller per kind, in the table's order (ListItemsModule registers them). */
export const LIST_ITEM_CONTROLLERS: readonly Type[] = LIST_ITEM_ROUTES.map(listItemController);
