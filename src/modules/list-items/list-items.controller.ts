import { Body, Controller, Delete, Get, Param, Post, Put, Query, type Type } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import { Authenticated } from '../../common/auth/access.decorators.js';
import { Ctx } from '../../common/context/ctx.decorator.js';
import { RequestContext } from '../../common/context/request-context.js';
import { DeletedQuery } from '../../common/pagination/pagination.js';
import { GuidPipe } from '../../common/validation/ids.js';
import { type MergePatch, PatchRoute } from '../../common/http/merge-patch.js';
import { ApiResult } from '../../common/http/wire.js';
import { CreateListItemDto, ListItemDto, UpdateListItemDto } from './dto/list-item.dto.js';
import { ACCOUNTABILITY, EVALUATION_CRITERION, PROJECT_SCOPE, SUPERVISORY_SCOPE, type ListItemKindInfo } from './list-item-kinds.js';
import { listItemPatchDoc, listItemRoute as route } from './list-item.docs.js';
import { ListItemsService } from './list-items.service.js';

/** How one ListItem kind is reached: its controller's name and OpenAPI tag, and the words of its paths. */
interface ListItemPaths {
  /** The controller's class name (the OpenAPI operation ids are `<controller>_<handler>`). */
  controller: string;
  tag: string;
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
function listItemController(p: ListItemPaths): Type {
  const { kind } = p;

  @ApiTags(p.tag)
  @Controller()
  class ListItemController {
    constructor(private readonly items: ListItemsService) {}

    @Get(`${p.owner}/:${p.ownerParam}/${p.items}`)
    @Authenticated()
    @route.listFor(kind)
    listFor(@Ctx() ctx: RequestContext, @Param(p.ownerParam, GuidPipe) ownerId: string, @Query() q: DeletedQuery) {
      return this.items.listFor(ctx, kind, ownerId, q);
    }

    @Get(`me/${p.items}`)
    @Authenticated()
    @route.listMine(kind)
    listMine(@Ctx() ctx: RequestContext, @Query() q: DeletedQuery) {
      return this.items.listMine(ctx, kind, q);
    }

    // `:id`, as PUT and DELETE of the same path: one path template per resource path (docs/openapi.md).
    @Get(`${p.items}/:id`)
    @Authenticated()
    @route.get(kind)
    get(@Ctx() ctx: RequestContext, @Param('id', GuidPipe) id: string) {
      return this.items.getAsList(ctx, kind, id);
    }

    @Get(`${p.owner}/:${p.ownerParam}/${p.items}/:${p.itemParam}`)
    @Authenticated()
    @route.getFor(kind)
    getFor(@Ctx() ctx: RequestContext, @Param(p.ownerParam, GuidPipe) ownerId: string, @Param(p.itemParam, GuidPipe) id: string) {
      return this.items.getForAncestorAsList(ctx, kind, ownerId, id);
    }

    @Post(p.items)
    @Authenticated()
    @route.create(kind)
    create(@Ctx() ctx: RequestContext, @Body() dto: CreateListItemDto) {
      return this.items.create(ctx, kind, dto);
    }

    @Put(`${p.items}/:id`)
    @Authenticated()
    @route.update(kind)
    update(@Ctx() ctx: RequestContext, @Param('id', GuidPipe) id: string, @Body() dto: UpdateListItemDto) {
      return this.items.update(ctx, kind, id, dto);
    }

    @PatchRoute(`${p.items}/:id`, UpdateListItemDto, listItemPatchDoc(kind))
    @Authenticated()
    @ApiResult(ListItemDto)
    patch(@Ctx() ctx: RequestContext, @Param('id', GuidPipe) id: string, @Body() patch: MergePatch<UpdateListItemDto>) {
      return this.items.patch(ctx, kind, id, patch);
    }

    @Delete(`${p.items}/:id`)
    @Authenticated()
    @route.remove(kind)
    remove(@Ctx() ctx: RequestContext, @Param('id', GuidPipe) id: string) {
      return this.items.remove(ctx, kind, id);
    }

    @Put(`${p.items}/:id/undelete`)
    @Authenticated()
    @route.undelete(kind)
    undelete(@Ctx() ctx: RequestContext, @Param('id', GuidPipe) id: string) {
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
    kind: EVALUATION_CRITERION,
    owner: 'individuals',
    ownerParam: 'individualid',
    items: 'evaluationcriteria',
    itemParam: 'evaluationcriteriaid',
  },
  {
    controller: 'SupervisoryScopesController',
    tag: 'SupervisoryScope',
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
    kind: PROJECT_SCOPE,
    owner: 'projects',
    ownerParam: 'projectid',
    items: 'projectscopes',
    itemParam: 'projectscopeid',
  },
];

/** One controller per kind, in the table's order (ListItemsModule registers them). */
export const LIST_ITEM_CONTROLLERS: readonly Type[] = LIST_ITEM_ROUTES.map(listItemController);
