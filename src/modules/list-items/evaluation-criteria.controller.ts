import { Body, Controller, Delete, Get, Param, Post, Put, Query } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { Authenticated } from '../../common/auth/access.decorators.js';
import { Ctx } from '../../common/context/ctx.decorator.js';
import { RequestContext } from '../../common/context/request-context.js';
import { ApiBodyTypes, ApiResult } from '../../common/http/wire.js';
import { DeletedQuery } from '../../common/pagination/pagination.js';
import { GuidPipe } from '../../common/validation/ids.js';
import { CreateListItemDto, ListItemDto, UpdateListItemDto } from './dto/list-item.dto.js';
import { EVALUATION_CRITERION as KIND } from './list-item-kinds.js';
import { listItemDocs as docs } from './list-item.docs.js';
import { ListItemsService } from './list-items.service.js';

/** Evaluation criteria: ListItems of kind evaluationcriteria, owned by an individual; the same paths as accountabilities (DESIGN §5). */
@ApiTags('EvaluationCriteria')
@Controller()
export class EvaluationCriteriaController {
  constructor(private readonly items: ListItemsService) {}

  @Get('individuals/:individualid/evaluationcriteria')
  @Authenticated()
  @ApiOperation(docs.listFor(KIND))
  @ApiResult(ListItemDto, { collection: true, root: 'List' })
  listFor(@Ctx() ctx: RequestContext, @Param('individualid', GuidPipe) individualId: string, @Query() q: DeletedQuery) {
    return this.items.listFor(ctx, KIND, individualId, q);
  }

  @Get('me/evaluationcriteria')
  @Authenticated()
  @ApiOperation(docs.listMine(KIND))
  @ApiResult(ListItemDto, { collection: true, root: 'List' })
  listMine(@Ctx() ctx: RequestContext, @Query() q: DeletedQuery) {
    return this.items.listMine(ctx, KIND, q);
  }

  @Get('evaluationcriteria/:evaluationcriteriaid')
  @Authenticated()
  @ApiOperation(docs.get(KIND))
  @ApiResult(ListItemDto, { collection: true, root: 'List' })
  get(@Ctx() ctx: RequestContext, @Param('evaluationcriteriaid', GuidPipe) id: string) {
    return this.items.getAsList(ctx, KIND, id);
  }

  @Get('individuals/:individualid/evaluationcriteria/:evaluationcriteriaid')
  @Authenticated()
  @ApiOperation(docs.getFor(KIND))
  @ApiResult(ListItemDto, { collection: true, root: 'List' })
  getFor(@Ctx() ctx: RequestContext, @Param('individualid', GuidPipe) individualId: string, @Param('evaluationcriteriaid', GuidPipe) id: string) {
    return this.items.getForAncestorAsList(ctx, KIND, individualId, id);
  }

  @Post('evaluationcriteria')
  @Authenticated()
  @ApiOperation(docs.create(KIND))
  @ApiBodyTypes()
  @ApiResult(ListItemDto)
  create(@Ctx() ctx: RequestContext, @Body() dto: CreateListItemDto) {
    return this.items.create(ctx, KIND, dto);
  }

  @Put('evaluationcriteria/:id')
  @Authenticated()
  @ApiOperation(docs.update(KIND))
  @ApiBodyTypes()
  @ApiResult(ListItemDto)
  update(@Ctx() ctx: RequestContext, @Param('id', GuidPipe) id: string, @Body() dto: UpdateListItemDto) {
    return this.items.update(ctx, KIND, id, dto);
  }

  @Delete('evaluationcriteria/:id')
  @Authenticated()
  @ApiOperation(docs.remove(KIND))
  @ApiResult(null)
  remove(@Ctx() ctx: RequestContext, @Param('id', GuidPipe) id: string) {
    return this.items.remove(ctx, KIND, id);
  }

  @Put('evaluationcriteria/:id/undelete')
  @Authenticated()
  @ApiOperation(docs.undelete(KIND))
  @ApiResult(ListItemDto, { collection: true, root: 'List' })
  undelete(@Ctx() ctx: RequestContext, @Param('id', GuidPipe) id: string) {
    return this.items.undelete(ctx, KIND, id);
  }
}
