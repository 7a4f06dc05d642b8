import { Body, Controller, Delete, Get, Param, Post, Put, Query } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { Admin, Authenticated } from '../../common/auth/access.decorators.js';
import { Ctx } from '../../common/context/ctx.decorator.js';
import { RequestContext } from '../../common/context/request-context.js';
import { ApiBodyTypes, ApiResult } from '../../common/http/wire.js';
import { type MergePatch, PatchRoute } from '../../common/http/merge-patch.js';
import { PageQuery } from '../../common/pagination/pagination.js';
import { IntIdPipe } from '../../common/validation/ids.js';
import { CreatePeriodDto, PeriodDto, UpdatePeriodDto } from './dto/period.dto.js';
import { PeriodsService } from './periods.service.js';

@ApiTags('Period')
@Controller('periods')
export class PeriodsController {
  constructor(private readonly periods: PeriodsService) {}

  @Get()
  @Authenticated()
  @ApiOperation({
    summary: 'List the periods of the site, ordered by StartDate',
    description: 'Every member reads the periods. Paged with limit/offset (X-Total-Count, Link). XML root ArrayOfPeriod.',
  })
  @ApiResult(PeriodDto, { collection: true })
  list(@Ctx() ctx: RequestContext, @Query() q: PageQuery) {
    return this.periods.list(ctx, q);
  }

  @Get(':id')
  @Authenticated()
  @ApiOperation({ summary: 'Read a period', description: 'Every member reads the periods; an id that is not one of the site’s is 404. Answers an ETag.' })
  @ApiResult(PeriodDto)
  get(@Ctx() ctx: RequestContext, @Param('id', IntIdPipe) id: number) {
    return this.periods.get(ctx, id);
  }

  @Post()
  @Admin()
  @ApiOperation({
    summary: 'Create a period (administrator)',
    description:
      'Name, StartDate and EndDate are required; StartDate after EndDate is 400. Periods may overlap (e.g. a year and its quarters); where several contain today, the default `period` of other resources is the one that started last. ID is always generated; Closed is read-only.',
  })
  @ApiBodyTypes()
  @ApiResult(PeriodDto)
  create(@Ctx() ctx: RequestContext, @Body() dto: CreatePeriodDto) {
    return this.periods.create(ctx, dto);
  }

  @Put(':id')
  @Admin()
  @ApiOperation({
    summary: 'Update a period (administrator)',
    description: 'ID (equal to the path id), Name, StartDate and EndDate are required. A closed period is 409 (code closed). If-Match is honoured (412).',
  })
  @ApiBodyTypes()
  @ApiResult(PeriodDto)
  update(@Ctx() ctx: RequestContext, @Param('id', IntIdPipe) id: number, @Body() dto: UpdatePeriodDto) {
    return this.periods.update(ctx, id, dto);
  }

  @PatchRoute(':id', UpdatePeriodDto, {
    summary: 'Change some fields of a period (administrator)',
    description: 'StartDate must not be after EndDate (400). A closed period is 409 (code closed).',
  })
  @Admin()
  @ApiResult(PeriodDto)
  patch(@Ctx() ctx: RequestContext, @Param('id', IntIdPipe) id: number, @Body() patch: MergePatch<UpdatePeriodDto>) {
    return this.periods.patch(ctx, id, patch);
  }

  @Delete(':id')
  @Admin()
  @ApiOperation({
    summary: 'Delete a period (administrator)',
    description:
      'Removes the period for good (periods have no soft delete). A closed period is 409 (code closed); a period that goals, commitments or any other period-scoped record still reference is 409 (code in-use). Answers an empty object.',
  })
  @ApiResult(null)
  remove(@Ctx() ctx: RequestContext, @Param('id', IntIdPipe) id: number) {
    return this.periods.remove(ctx, id);
  }

  @Put(':id/close')
  @Admin()
  @ApiOperation({
    summary: 'Close a period (administrator)',
    description:
      'Sets Closed and, in the same transaction, writes the period’s archives: one per live metric with a value in the period (see Archive). Idempotent: closing a closed period changes and writes nothing. A closed period can no longer be changed or deleted, its metric values neither, and there is no reopen.',
  })
  @ApiResult(PeriodDto)
  close(@Ctx() ctx: RequestContext, @Param('id', IntIdPipe) id: number) {
    return this.periods.close(ctx, id);
  }
}
