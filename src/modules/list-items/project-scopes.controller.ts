import { Body, Controller, Delete, Get, Param, Post, Put, Query } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import { Authenticated } from '../../common/auth/access.decorators.js';
import { Ctx } from '../../common/context/ctx.decorator.js';
import { RequestContext } from '../../common/context/request-context.js';
import { DeletedQuery } from '../../common/pagination/pagination.js';
import { GuidPipe } from '../../common/validation/ids.js';
import { CreateListItemDto, UpdateListItemDto } from './dto/list-item.dto.js';
import { PROJECT_SCOPE as KIND } from './list-item-kinds.js';
import { listItemRoute as route } from './list-item.docs.js';
import { ListItemsService } from './list-items.service.js';

/** Project scopes: ListItems of kind projectscope, owned by a project; the accountability paths with /projects/{projectid}/projectscopes for the owner (docs/list-items.md). /me/projectscopes lists the scopes of the projects the caller owns. */
@ApiTags('ProjectScope')
@Controller()
export class ProjectScopesController {
  constructor(private readonly items: ListItemsService) {}

  @Get('projects/:projectid/projectscopes')
  @Authenticated()
  @route.listFor(KIND)
  listFor(@Ctx() ctx: RequestContext, @Param('projectid', GuidPipe) projectId: string, @Query() q: DeletedQuery) {
    return this.items.listFor(ctx, KIND, projectId, q);
  }

  @Get('me/projectscopes')
  @Authenticated()
  @route.listMine(KIND)
  listMine(@Ctx() ctx: RequestContext, @Query() q: DeletedQuery) {
    return this.items.listMine(ctx, KIND, q);
  }

  @Get('projectscopes/:projectscopeid')
  @Authenticated()
  @route.get(KIND)
  get(@Ctx() ctx: RequestContext, @Param('projectscopeid', GuidPipe) id: string) {
    return this.items.getAsList(ctx, KIND, id);
  }

  @Get('projects/:projectid/projectscopes/:projectscopeid')
  @Authenticated()
  @route.getFor(KIND)
  getFor(@Ctx() ctx: RequestContext, @Param('projectid', GuidPipe) projectId: string, @Param('projectscopeid', GuidPipe) id: string) {
    return this.items.getForAncestorAsList(ctx, KIND, projectId, id);
  }

  @Post('projectscopes')
  @Authenticated()
  @route.create(KIND)
  create(@Ctx() ctx: RequestContext, @Body() dto: CreateListItemDto) {
    return this.items.create(ctx, KIND, dto);
  }

  @Put('projectscopes/:id')
  @Authenticated()
  @route.update(KIND)
  update(@Ctx() ctx: RequestContext, @Param('id', GuidPipe) id: string, @Body() dto: UpdateListItemDto) {
    return this.items.update(ctx, KIND, id, dto);
  }

  @Delete('projectscopes/:id')
  @Authenticated()
  @route.remove(KIND)
  remove(@Ctx() ctx: RequestContext, @Param('id', GuidPipe) id: string) {
    return this.items.remove(ctx, KIND, id);
  }

  @Put('projectscopes/:id/undelete')
  @Authenticated()
  @route.undelete(KIND)
  undelete(@Ctx() ctx: RequestContext, @Param('id', GuidPipe) id: string) {
    return this.items.undelete(ctx, KIND, id);
  }
}
