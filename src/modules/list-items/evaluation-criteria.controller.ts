import { Body, Controller, Delete, Get, Param, Post, Put, Query } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import { Authenticated } from '../../common/auth/access.decorators.js';
import { Ctx } from '../../common/context/ctx.decorator.js';
import { RequestContext } from '../../common/context/request-context.js';
import { DeletedQuery } from '../../common/pagination/pagination.js';
import { GuidPipe } from '../../common/validation/ids.js';
import { CreateListItemDto, UpdateListItemDto } from './dto/list-item.dto.js';
import { EVALUATION_CRITERION as KIND } from './list-item-kinds.js';
import { listItemRoute as route } from './list-item.docs.js';
import { ListItemsService } from './list-items.service.js';

/** Evaluation criteria: ListItems of kind evaluationcriteria, owned by an individual; the same paths as accountabilities (docs/list-items.md). */
@ApiTags('EvaluationCriteria')
@Controller()
export class EvaluationCriteriaController {
  constructor(private readonly items: ListItemsService) {}

  @Get('individuals/:individualid/evaluationcriteria')
  @Authenticated()
  @route.listFor(KIND)
  listFor(@Ctx() ctx: RequestContext, @Param('individualid', GuidPipe) individualId: string, @Query() q: DeletedQuery) {
    return this.items.listFor(ctx, KIND, individualId, q);
  }

  @Get('me/evaluationcriteria')
  @Authenticated()
  @route.listMine(KIND)
  listMine(@Ctx() ctx: RequestContext, @Query() q: DeletedQuery) {
    return this.items.listMine(ctx, KIND, q);
  }

  @Get('evaluationcriteria/:evaluationcriteriaid')
  @Authenticated()
  @route.get(KIND)
  get(@Ctx() ctx: RequestContext, @Param('evaluationcriteriaid', GuidPipe) id: string) {
    return this.items.getAsList(ctx, KIND, id);
  }

  @Get('individuals/:individualid/evaluationcriteria/:evaluationcriteriaid')
  @Authenticated()
  @route.getFor(KIND)
  getFor(@Ctx() ctx: RequestContext, @Param('individualid', GuidPipe) individualId: string, @Param('evaluationcriteriaid', GuidPipe) id: string) {
    return this.items.getForAncestorAsList(ctx, KIND, individualId, id);
  }

  @Post('evaluationcriteria')
  @Authenticated()
  @route.create(KIND)
  create(@Ctx() ctx: RequestContext, @Body() dto: CreateListItemDto) {
    return this.items.create(ctx, KIND, dto);
  }

  @Put('evaluationcriteria/:id')
  @Authenticated()
  @route.update(KIND)
  update(@Ctx() ctx: RequestContext, @Param('id', GuidPipe) id: string, @Body() dto: UpdateListItemDto) {
    return this.items.update(ctx, KIND, id, dto);
  }

  @Delete('evaluationcriteria/:id')
  @Authenticated()
  @route.remove(KIND)
  remove(@Ctx() ctx: RequestContext, @Param('id', GuidPipe) id: string) {
    return this.items.remove(ctx, KIND, id);
  }

  @Put('evaluationcriteria/:id/undelete')
  @Authenticated()
  @route.undelete(KIND)
  undelete(@Ctx() ctx: RequestContext, @Param('id', GuidPipe) id: string) {
    return this.items.undelete(ctx, KIND, id);
  }
}
