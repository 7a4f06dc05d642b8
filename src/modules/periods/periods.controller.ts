import { Body, Query } from '@nestjs/common';
import { Admin, Authenticated } from '../../auth/access.decorators.js';
import { Ctx } from '../../common/context/ctx.decorator.js';
import { RequestContext } from '../../common/context/request-context.js';
import { type MergePatch, PatchRoute } from '../../http/pipeline/merge-patch.js';
import { QueriedPageQuery } from '../../http/wire/pagination.js';
import { IntParam } from '../../http/wire/ids.js';
import { CreatePeriodDto, Period, PeriodDto, UpdatePeriodDto } from './dto/period.dto.js';
import { queryNotes } from '../../http/wire/list-query.js';
import { PeriodsService } from './periods.service.js';
import { ApiController, GetRoute, ListRoute, PostRoute, PutRoute, PutAction, DeleteRoute } from '../../http/pipeline/routes.js';
import { changesOf } from '../../http/pipeline/delta-list.js';

@ApiController('Period', 'periods', {
  description: 'The time spans that goals, commitments, dialogs, assessments and metric values belong to; closing a period archives its figures.',
})
export class PeriodsController {
  constructor(private readonly periods: PeriodsService) {}

  @ListRoute(Authenticated, '/', PeriodDto, changesOf('periods'), {
    summary: 'List the periods of the site, ordered by StartDate',
    description: `Every member reads the periods. Paged with limit/offset (X-Total-Count, Link). XML root ArrayOfPeriod. ${queryNotes(Period)}`,
  })
  list(@Ctx() ctx: RequestContext, @Query() q: QueriedPageQuery) {
    return this.periods.list(ctx, q);
  }

  @GetRoute(Authenticated, ':id', PeriodDto, {
    summary: 'Read a period',
    description: 'Every member reads the periods; an id that is not one of the site’s is 404. Answers an ETag.',
  })
  get(@Ctx() ctx: RequestContext, @IntParam() id: number) {
    return this.periods.get(ctx, id);
  }

  @PostRoute(Admin, '/', PeriodDto, {
    summary: 'Create a period (administrator)',
    description:
      'Name, StartDate and EndDate are required; StartDate after EndDate is 400. Periods may overlap (e.g. a year and its quarters); where several contain today, the default `period` of other resources is the one that started last. ID is always generated; Closed is read-only.',
  })
  create(@Ctx() ctx: RequestContext, @Body() dto: CreatePeriodDto) {
    return this.periods.create(ctx, dto);
  }

  @PutRoute(Admin, ':id', PeriodDto, {
    summary: 'Update a period (administrator)',
    description: 'ID (equal to the path id), Name, StartDate and EndDate are required. A closed period is 409 (code closed). If-Match is honoured (412).',
  })
  update(@Ctx() ctx: RequestContext, @IntParam() id: number, @Body() dto: UpdatePeriodDto) {
    return this.periods.update(ctx, id, dto);
  }

  @PatchRoute(Admin, ':id', UpdatePeriodDto, PeriodDto, {
    summary: 'Change some fields of a period (administrator)',
    description: 'StartDate must not be after EndDate (400). A closed period is 409 (code closed).',
  })
  patch(@Ctx() ctx: RequestContext, @IntParam() id: number, @Body() patch: MergePatch<UpdatePeriodDto>) {
    return this.periods.patch(ctx, id, patch);
  }

  @DeleteRoute(Admin, ':id', null, {
    summary: 'Delete a period (administrator)',
    description:
      'Removes the period for good (periods have no soft delete). A closed period is 409 (code closed); a period that goals, commitments or any other period-scoped record still reference is 409 (code in-use). Answers an empty object.',
  })
  remove(@Ctx() ctx: RequestContext, @IntParam() id: number) {
    return this.periods.remove(ctx, id);
  }

  @PutAction(Admin, ':id/close', PeriodDto, {
    summary: 'Close a period (administrator)',
    description:
      'Sets Closed and, in the same transaction, writes the period’s archives: one per live metric with a value in the period (see Archive). Idempotent: closing a closed period changes and writes nothing. A closed period can no longer be changed or deleted, its metric values neither, and there is no reopen.',
  })
  close(@Ctx() ctx: RequestContext, @IntParam() id: number) {
    return this.periods.close(ctx, id);
  }
}
