import { Body, Controller, Delete, Get, Param, Post, Put, Query } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { Admin, Authenticated } from '../../common/auth/access.decorators.js';
import { Ctx } from '../../common/context/ctx.decorator.js';
import { RequestContext } from '../../common/context/request-context.js';
import { ApiBodyTypes, ApiResult } from '../../common/http/wire.js';
import { type MergePatch, PatchRoute } from '../../common/http/merge-patch.js';
import { PageQuery } from '../../common/pagination/pagination.js';
import { GuidPipe, IntIdPipe } from '../../common/validation/ids.js';
import { ColorsService } from './colors.service.js';
import { ColorDto, CreateColorDto, UpdateColorDto } from './dto/color.dto.js';

const BANDS =
  'Bands are half-open, MinPercent ≤ p < MaxPercent, except that the top band (highest MaxPercent) includes its maximum; where bands overlap the lower Rank wins.';
const DEFAULTS = 'The defaults are red [0,70), yellow [70,90), green [90,100]; they are not stored records and carry the IDs -1, -2, -3.';

@ApiTags('Color')
@Controller()
export class ColorsController {
  constructor(private readonly colors: ColorsService) {}

  @Get('colors')
  @Authenticated()
  @ApiOperation({
    summary: 'List the colors of the caller’s site',
    description: `The site’s own colors ordered by Rank, MinPercent, ID; the defaults when the site has none. ${DEFAULTS} ${BANDS}`,
  })
  @ApiResult(ColorDto, { collection: true })
  list(@Ctx() ctx: RequestContext, @Query() q: PageQuery) {
    return this.colors.list(ctx, q);
  }

  @Get('colors/defaults')
  @Authenticated()
  @ApiOperation({ summary: 'List the default colors', description: DEFAULTS })
  @ApiResult(ColorDto, { collection: true })
  defaults(@Ctx() ctx: RequestContext, @Query() q: PageQuery) {
    return this.colors.defaults(ctx, q);
  }

  @Get('sites/:siteid/colors')
  @Authenticated()
  @ApiOperation({ summary: 'List the colors of a site', description: `The caller’s own site, or any site for a global administrator (else 403). ${DEFAULTS}` })
  @ApiResult(ColorDto, { collection: true })
  listForSite(@Ctx() ctx: RequestContext, @Param('siteid', GuidPipe) siteId: string, @Query() q: PageQuery) {
    return this.colors.listForSite(ctx, siteId, q);
  }

  @Get('sites/:siteid/colors/defaults')
  @Authenticated()
  @ApiOperation({
    summary: 'List the default colors as shown for a site',
    description: `The caller’s own site, or any site for a global administrator (else 403). ${DEFAULTS}`,
  })
  @ApiResult(ColorDto, { collection: true })
  defaultsForSite(@Ctx() ctx: RequestContext, @Param('siteid', GuidPipe) siteId: string, @Query() q: PageQuery) {
    return this.colors.defaultsForSite(ctx, siteId, q);
  }

  @Get('colors/:id')
  @Authenticated()
  @ApiOperation({ summary: 'Read a color', description: `A color of the caller’s site, or a default color by its negative ID. ${BANDS}` })
  @ApiResult(ColorDto)
  get(@Ctx() ctx: RequestContext, @Param('id', IntIdPipe) id: number) {
    return this.colors.get(ctx, id);
  }

  @Post('colors')
  @Admin()
  @ApiOperation({
    summary: 'Create a color of the caller’s site (Admin)',
    description: `Once a site has a color of its own, the defaults no longer apply to it. ${BANDS}`,
  })
  @ApiBodyTypes()
  @ApiResult(ColorDto)
  create(@Ctx() ctx: RequestContext, @Body() dto: CreateColorDto) {
    return this.colors.create(ctx, dto);
  }

  @Put('colors/:id')
  @Admin()
  @ApiOperation({ summary: 'Update a color (Admin)', description: 'The default colors (negative IDs) cannot be changed: 409 default-color.' })
  @ApiBodyTypes()
  @ApiResult(ColorDto)
  update(@Ctx() ctx: RequestContext, @Param('id', IntIdPipe) id: number, @Body() dto: UpdateColorDto) {
    return this.colors.update(ctx, id, dto);
  }

  @PatchRoute('colors/:id', UpdateColorDto, {
    summary: 'Change some fields of a color (Admin)',
    description: 'MaxPercent must stay greater than MinPercent (400). The default colors (negative IDs) cannot be changed: 409 default-color.',
  })
  @Admin()
  @ApiResult(ColorDto)
  patch(@Ctx() ctx: RequestContext, @Param('id', IntIdPipe) id: number, @Body() patch: MergePatch<UpdateColorDto>) {
    return this.colors.patch(ctx, id, patch);
  }

  @Delete('colors/:id')
  @Admin()
  @ApiOperation({
    summary: 'Delete a color (Admin)',
    description:
      'Removes the color (colors are not soft-deleted). When the last one goes, the site shows the defaults again. Default colors: 409 default-color.',
  })
  @ApiResult(null)
  remove(@Ctx() ctx: RequestContext, @Param('id', IntIdPipe) id: number) {
    return this.colors.remove(ctx, id);
  }
}
