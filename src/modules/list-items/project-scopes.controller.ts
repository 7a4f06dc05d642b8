import { Body, Controller, Delete, Get, Param, Post, Put, Query } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { Authenticated } from '../../common/auth/access.decorators.js';
import { Ctx } from '../../common/context/ctx.decorator.js';
import { RequestContext } from '../../common/context/request-context.js';
import { ApiBodyTypes, ApiResult } from '../../common/http/wire.js';
import { DeletedQuery } from '../../common/pagination/pagination.js';
import { GuidPipe } from '../../common/validation/ids.js';
import { CreateListItemDto, ListItemDto, UpdateListItemDto } from './dto/list-item.dto.js';
import { PROJECT_SCOPE as KIND } from './list-item-kinds.js';
import { listItemDocs as docs } from './list-item.docs.js';
import { ListItemsService } from './list-items.service.js';

/** Project scopes: ListItems of kind projectscope, owned by a project; the accountability paths with /projects/{projectid}/projectscopes for the owner (DESIGN §5). /me/projectscopes lists the scopes of the projects the caller owns. */
@ApiTags('ProjectScope')
@Controller()
export class ProjectScopesController {
  constructor(private readonly items: ListItemsService) {}

  @Get('projects/:projectid/projectscopes')
  @Authenticated()
  @ApiOperation(docs.listFor(KIND))
  @ApiResult(ListItemDto, { collection: true, root: 'List' })
  listFor(@Ctx() ctx: RequestContext, @Param('projectid', GuidPipe) projectId: string, @Query() q: DeletedQuery) {
    return this.items.listFor(ctx, KIND, projectId, q);
  }

  @Get('me/projectscopes')
  @Authenticated()
  @ApiOperation(docs.listMine(KIND))
  @ApiResult(ListItemDto, { collection: true, root: 'List' })
  listMine(@Ctx() ctx: RequestContext, @Query() q: DeletedQuery) {
    return this.items.listMine(ctx, KIND, q);
  }

  @Get('projectscopes/:projectscopeid')
  @Authenticated()
  @ApiOperation(docs.get(KIND))
  @ApiResult(ListItemDto, { collection: true, root: 'List' })
  get(@Ctx() ctx: RequestContext, @Param('projectscopeid', GuidPipe) id: string) {
    return this.items.getAsList(ctx, KIND, id);
  }

  @Get('projects/:projectid/projectscopes/:projectscopeid')
  @Authenticated()
  @ApiOperation(docs.getFor(KIND))
  @ApiResult(ListItemDto, { collection: true, root: 'List' })
  getFor(@Ctx() ctx: RequestContext, @Param('projectid', GuidPipe) projectId: string, @Param('projectscopeid', GuidPipe) id: string) {
    return this.items.getForAncestorAsList(ctx, KIND, projectId, id);
  }

  @Post('projectscopes')
  @Authenticated()
  @ApiOperation(docs.create(KIND))
  @ApiBodyTypes()
  @ApiResult(ListItemDto)
  create(@Ctx() ctx: RequestContext, @Body() dto: CreateListItemDto) {
    return this.items.create(ctx, KIND, dto);
  }

  @Put('projectscopes/:id')
  @Authenticated()
  @ApiOperation(docs.update(KIND))
  @ApiBodyTypes()
  @ApiResult(ListItemDto)
  update(@Ctx() ctx: RequestContext, @Param('id', GuidPipe) id: string, @Body() dto: UpdateListItemDto) {
    return this.items.update(ctx, KIND, id, dto);
  }

  @Delete('projectscopes/:id')
  @Authenticated()
  @ApiOperation(docs.remove(KIND))
  @ApiResult(null)
  remove(@Ctx() ctx: RequestContext, @Param('id', GuidPipe) id: string) {
    return this.items.remove(ctx, KIND, id);
  }

  @Put('projectscopes/:id/undelete')
  @Authenticated()
  @ApiOperation(docs.undelete(KIND))
  @ApiResult(ListItemDto, { collection: true, root: 'List' })
  undelete(@Ctx() ctx: RequestContext, @Param('id', GuidPipe) id: string) {
    return this.items.undelete(ctx, KIND, id);
  }
}
