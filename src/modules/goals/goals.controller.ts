import { Body, Query } from '@nestjs/common';
import { Authenticated } from '../../common/auth/access.decorators.js';
import { Ctx } from '../../common/context/ctx.decorator.js';
import { RequestContext } from '../../common/context/request-context.js';
import { type MergePatch, PatchRoute } from '../../common/http/merge-patch.js';
import { GuidParam, IntParam } from '../../common/validation/ids.js';
import { CreateGoalDto, GoalDto, UpdateGoalDto } from './dto/goal.dto.js';
import { GoalsService } from './goals.service.js';
import { ApiController, GetRoute, ListRoute, PostRoute, PutRoute, DeleteRoute } from '../../common/http/routes.js';
import { changesUnder } from '../../common/http/delta-list.js';
import { PeriodQuery } from '../../common/pagination/period-query.js';

const WHO =
  'Goals are personal: the individual, anyone above them in the PrimaryReportsTo chain, and administrators may read and change them; anyone else gets 403. Goals are not labelled PM, so they work whether or not the site has performance management on.';
const PERIOD =
  'period: a period id of the site (404 when unknown); default the period containing today, else the latest; a site without periods lists every goal.';
const REQ =
  'Every Req field must be sent (Measure2Completed and Measure3EndDate are optional); Req strings other than Name may be empty strings, so an unused measure is sent as "". A measure whose start date is after its end date is 400 naming the end date.';

@ApiController('Goal')
export class GoalsController {
  constructor(private readonly goals: GoalsService) {}

  @ListRoute(Authenticated, 'individuals/:id/goals', GoalDto, changesUnder('goals', ['IndividualID']), {
    summary: 'List the goals of an individual in a period',
    description: `Ordered by DueDate, then ID. ${PERIOD} ${WHO}`,
  })
  listForIndividual(@Ctx() ctx: RequestContext, @GuidParam() id: string, @Query() q: PeriodQuery) {
    return this.goals.listForIndividual(ctx, id, q);
  }

  @ListRoute(Authenticated, 'me/goals', GoalDto, changesUnder('goals', ['IndividualID']), {
    summary: 'List the caller’s own goals in a period',
    description: `Ordered by DueDate, then ID. ${PERIOD}`,
  })
  listMine(@Ctx() ctx: RequestContext, @Query() q: PeriodQuery) {
    return this.goals.listMine(ctx, q);
  }

  @GetRoute(Authenticated, 'goals/:id', GoalDto, { summary: 'Read a goal', description: WHO })
  get(@Ctx() ctx: RequestContext, @IntParam() id: number) {
    return this.goals.get(ctx, id);
  }

  @PostRoute(Authenticated, 'goals', GoalDto, {
    summary: 'Create a goal',
    description: `IndividualID must be a live individual of the site and PeriodID a period of the site (else 400). ${REQ} ${WHO}`,
  })
  create(@Ctx() ctx: RequestContext, @Body() dto: CreateGoalDto) {
    return this.goals.create(ctx, dto);
  }

  @PutRoute(Authenticated, 'goals/:id', GoalDto, {
    summary: 'Update a goal',
    description: `ID must equal the path id; IndividualID is ignored (a goal does not move). ${REQ} ${WHO}`,
  })
  update(@Ctx() ctx: RequestContext, @IntParam() id: number, @Body() dto: UpdateGoalDto) {
    return this.goals.update(ctx, id, dto);
  }

  @PatchRoute(Authenticated, 'goals/:id', UpdateGoalDto, GoalDto, { summary: 'Change some fields of a goal', description: WHO })
  patch(@Ctx() ctx: RequestContext, @IntParam() id: number, @Body() patch: MergePatch<UpdateGoalDto>) {
    return this.goals.patch(ctx, id, patch);
  }

  @DeleteRoute(Authenticated, 'goals/:id', null, { summary: 'Delete a goal', description: `Goals are not soft-deleted: the goal is removed. ${WHO}` })
  remove(@Ctx() ctx: RequestContext, @IntParam() id: number) {
    return this.goals.remove(ctx, id);
  }
}
