import { Body, Controller, Delete, Get, Param, Post, Put, Query } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { Pm, PmAdmin } from '../../common/auth/access.decorators.js';
import { Ctx } from '../../common/context/ctx.decorator.js';
import { RequestContext } from '../../common/context/request-context.js';
import { ApiBodyTypes, ApiResult } from '../../common/http/wire.js';
import { type MergePatch, PatchRoute } from '../../common/http/merge-patch.js';
import { GuidPipe } from '../../common/validation/ids.js';
import { CoreValuesService } from './core-values.service.js';
import { CoreValueDto, CoreValueQuery, CreateCoreValueDto, UpdateCoreValueDto } from './dto/core-value.dto.js';

@ApiTags('CoreValue')
@Controller()
export class CoreValuesController {
  constructor(private readonly values: CoreValuesService) {}

  @Get('corevalues')
  @Pm()
  @ApiOperation({
    summary: 'List the core values of the caller’s site (PM)',
    description: 'Ordered by Rank, then Name. `deleted`: 0 live (default), 1 deleted, 2 all.',
  })
  @ApiResult(CoreValueDto, { collection: true })
  list(@Ctx() ctx: RequestContext, @Query() q: CoreValueQuery) {
    return this.values.list(ctx, q);
  }

  @Get('sites/:siteId/corevalues')
  @Pm()
  @ApiOperation({
    summary: 'List the core values of a site (PM)',
    description: 'The caller’s own site, or any site for a global administrator (else 403). Ordered by Rank, then Name.',
  })
  @ApiResult(CoreValueDto, { collection: true })
  listForSite(@Ctx() ctx: RequestContext, @Param('siteId', GuidPipe) siteId: string, @Query() q: CoreValueQuery) {
    return this.values.listForSite(ctx, siteId, q);
  }

  @Post('corevalues')
  @PmAdmin()
  @ApiOperation({
    summary: 'Create a core value (PM, Admin)',
    description: 'Name is required; Rank orders the list (default 0). ID is optional (used if free, else 409 id-taken).',
  })
  @ApiBodyTypes()
  @ApiResult(CoreValueDto)
  create(@Ctx() ctx: RequestContext, @Body() dto: CreateCoreValueDto) {
    return this.values.create(ctx, dto);
  }

  @Put('corevalues/:id')
  @PmAdmin()
  @ApiOperation({ summary: 'Update a core value (PM, Admin)', description: 'A deleted core value cannot be updated (409 deleted).' })
  @ApiBodyTypes()
  @ApiResult(CoreValueDto)
  update(@Ctx() ctx: RequestContext, @Param('id', GuidPipe) id: string, @Body() dto: UpdateCoreValueDto) {
    return this.values.update(ctx, id, dto);
  }

  @PatchRoute('corevalues/:id', UpdateCoreValueDto, {
    summary: 'Change some fields of a core value (PM, Admin)',
    description: 'A deleted core value cannot be changed (409 deleted).',
  })
  @PmAdmin()
  @ApiResult(CoreValueDto)
  patch(@Ctx() ctx: RequestContext, @Param('id', GuidPipe) id: string, @Body() patch: MergePatch<UpdateCoreValueDto>) {
    return this.values.patch(ctx, id, patch);
  }

  @Delete('corevalues/:id')
  @PmAdmin()
  @ApiOperation({
    summary: 'Delete a core value (PM, Admin)',
    description: 'A soft delete (assessments keep referring to it): sets Deleted; idempotent. Restore with PUT /corevalues/{id}/undelete.',
  })
  @ApiResult(null)
  remove(@Ctx() ctx: RequestContext, @Param('id', GuidPipe) id: string) {
    return this.values.remove(ctx, id);
  }

  @Put('corevalues/:id/undelete')
  @PmAdmin()
  @ApiOperation({ summary: 'Restore a deleted core value (PM, Admin)', description: 'Beyond the spec, as for every soft-deleted resource. Idempotent.' })
  @ApiResult(CoreValueDto)
  undelete(@Ctx() ctx: RequestContext, @Param('id', GuidPipe) id: string) {
    return this.values.undelete(ctx, id);
  }
}
