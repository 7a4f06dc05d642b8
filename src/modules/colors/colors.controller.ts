import { Body, Query } from '@nestjs/common';
import { Admin, Authenticated } from '../../auth/access.decorators.js';
import { Ctx } from '../../common/context/ctx.decorator.js';
import { RequestContext } from '../../common/context/request-context.js';
import { type MergePatch, PatchRoute } from '../../http/pipeline/merge-patch.js';
import { QueriedPageQuery } from '../../http/wire/pagination.js';
import { queryNotes } from '../../http/wire/list-query.js';
import { GuidParam, IntParam } from '../../http/wire/ids.js';
import { ColorsService } from './colors.service.js';
import { Color, ColorDto, CreateColorDto, UpdateColorDto } from './dto/color.dto.js';
import { ApiController, GetRoute, ListRoute, PostRoute, PutRoute, DeleteRoute } from '../../http/pipeline/routes.js';
import { changesOf } from '../../http/pipeline/delta-list.js';

const BANDS =
  'Bands are half-open, MinPercent ≤ p < MaxPercent, except that the top band (highest MaxPercent) includes its maximum; where bands overlap the lower Rank wins.';
const DEFAULTS = 'The defaults are red [0,70), yellow [70,90), green [90,100]; they are not stored records and carry the IDs -1, -2, -3.';
/** What a queried list answers (docs/queries.md). */
const QUERIED = `With filter=, sort=, fields= or cursor= the list answers the site’s own colors only (none for a site without colors; the defaults are at …/colors/defaults). ${queryNotes(Color)}`;

/** The defaults are no rows: the same queries, answered over the three in memory (docs/queries.md, "Lists not stored"). */
const QUERIED_DEFAULTS = `Takes filter=, sort=, fields= and cursor= as the site’s colors do, over the three defaults (without sort= in Rank order). ${queryNotes(Color)}`;

@ApiController('Color', undefined, {
  description: 'The colors a site gives to ranges of percentages in its dashboards, and the three defaults shown while it has none of its own.',
})
export class ColorsController {
  constructor(private readonly colors: ColorsService) {}

  @ListRoute(Authenticated, 'colors', ColorDto, changesOf('colors'), {
    summary: 'List the colors of the caller’s site',
    description: `The site’s own colors ordered by Rank, MinPercent, ID; the defaults when the site has none. ${DEFAULTS} ${BANDS} ${QUERIED}`,
  })
  list(@Ctx() ctx: RequestContext, @Query() q: QueriedPageQuery) {
    return this.colors.list(ctx, q);
  }

  @ListRoute(Authenticated, 'colors/defaults', ColorDto, null, { summary: 'List the default colors', description: `${DEFAULTS} ${QUERIED_DEFAULTS}` })
  defaults(@Ctx() ctx: RequestContext, @Query() q: QueriedPageQuery) {
    return this.colors.defaults(ctx, q);
  }

  @ListRoute(Authenticated, 'sites/:siteid/colors', ColorDto, changesOf('colors'), {
    summary: 'List the colors of a site',
    description: `The caller’s own site, or any site for a global administrator (else 403). The site’s own colors ordered by Rank, MinPercent, ID; the defaults when the site has none. ${DEFAULTS} ${QUERIED}`,
  })
  listForSite(@Ctx() ctx: RequestContext, @GuidParam('siteid') siteId: string, @Query() q: QueriedPageQuery) {
    return this.colors.listForSite(ctx, siteId, q);
  }

  @ListRoute(Authenticated, 'sites/:siteid/colors/defaults', ColorDto, null, {
    summary: 'List the default colors as shown for a site',
    description: `The caller’s own site, or any site for a global administrator (else 403). ${DEFAULTS} ${QUERIED_DEFAULTS}`,
  })
  defaultsForSite(@Ctx() ctx: RequestContext, @GuidParam('siteid') siteId: string, @Query() q: QueriedPageQuery) {
    return this.colors.defaultsForSite(ctx, siteId, q);
  }

  @GetRoute(Authenticated, 'colors/:id', ColorDto, {
    summary: 'Read a color',
    description: `A color of the caller’s site, or a default color by its negative ID. ${BANDS}`,
  })
  get(@Ctx() ctx: RequestContext, @IntParam() id: number) {
    return this.colors.get(ctx, id);
  }

  @PostRoute(Admin, 'colors', ColorDto, {
    summary: 'Create a color of the caller’s site (Admin)',
    description: `Once a site has a color of its own, the defaults no longer apply to it. ${BANDS}`,
  })
  create(@Ctx() ctx: RequestContext, @Body() dto: CreateColorDto) {
    return this.colors.create(ctx, dto);
  }

  @PutRoute(Admin, 'colors/:id', ColorDto, {
    summary: 'Update a color (Admin)',
    description: 'The default colors (negative IDs) cannot be changed: 409 default-color.',
  })
  update(@Ctx() ctx: RequestContext, @IntParam() id: number, @Body() dto: UpdateColorDto) {
    return this.colors.update(ctx, id, dto);
  }

  @PatchRoute(Admin, 'colors/:id', UpdateColorDto, ColorDto, {
    summary: 'Change some fields of a color (Admin)',
    description: 'MaxPercent must stay greater than MinPercent (400). The default colors (negative IDs) cannot be changed: 409 default-color.',
  })
  patch(@Ctx() ctx: RequestContext, @IntParam() id: number, @Body() patch: MergePatch<UpdateColorDto>) {
    return this.colors.patch(ctx, id, patch);
  }

  @DeleteRoute(Admin, 'colors/:id', null, {
    summary: 'Delete a color (Admin)',
    description:
      'Removes the color (colors are not soft-deleted). When the last one goes, the site shows the defaults again. Default colors: 409 default-color.',
  })
  remove(@Ctx() ctx: RequestContext, @IntParam() id: number) {
    return this.colors.remove(ctx, id);
  }
}
