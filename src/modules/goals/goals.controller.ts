import { Body, Query } from '@nestjs/common';
import { Authenticated } from '../../auth/access.decorators.js';
import { Ctx } from '../../common/context/ctx.decorator.js';
import { RequestContext } from '../../common/context/request-context.js';
import { type MergePatch, PatchRoute } from '../../http/pipeline/merge-patch.js';
import { GuidParam, IntParam } from '../../http/wire/ids.js';
import { BulkGoals, CreateGoalDto, Goal, GoalDto, UpdateGoalDto } from './dto/goal.dto.js';
import { BulkRoute } from '../../http/pipeline/bulk-route.js';
import { BulkQuery } from '../../http/wire/bulk.js';
import { GoalsService } from './goals.service.js';
import { ApiController, GetRoute, ListRoute, PostRoute, PutRoute, DeleteRoute } from '../../http/pipeline/routes.js';
import { changesUnder } from '../../http/pipeline/delta-list.js';
import { QueriedPeriodQuery } from '../../http/wire/period-query.js';
import { queryNotes } from '../../http/wire/list-query.js';

const WHO =
  'Goals are personal: the individual, anyone above them in the PrimaryReportsTo chain, and administrators may read and change them; anyone else gets 403. Goals are not labelled PM, so they work whether or not the site has performance management on.';
const PERIOD =
  'period: a period id of the site (404 when unknown); default the period containing today, else the latest; a site without periods lists every goal.';
const REQ =
  'Every Req field must be sent (Measure2Completed and Measure3EndDate are optional); Req strings other than Name may be empty strings, so an unused measure is sent as "". A measure whose start date is after its end date is 400 naming the end date.';
/** What the goal lists take beyond the period (docs/queries.md): goals due this quarter, newest first, is `filter=DueDate ge "…" and DueDate lt "…"&sort=-DueDate`. */
const QUERIED = queryNotes(Goal);

@ApiController('Goal', undefined, { description: 'The goals of an individual in a period, each with up to five measures.' })
export class GoalsController {
  constructor(private readonly goals: GoalsService) {}

  @ListRoute(Authenticated, 'individuals/:id/goals', GoalDto, changesUnder('goals', ['IndividualID']), {
    summary: 'List the goals of an individual in a period',
    description: `Ordered by DueDate, then ID. ${PERIOD} ${WHO} ${QUERIED}`,
  })
  listForIndividual(@Ctx() ctx: RequestContext, @GuidParam() id: string, @Query() q: QueriedPeriodQuery) {
    return this.goals.listForIndividual(ctx, id, q);
  }

  @ListRoute(Authenticated, 'me/goals', GoalDto, changesUnder('goals', ['IndividualID']), {
    summary: 'List the caller’s own goals in a period',
    description: `Ordered by DueDate, then ID. ${PERIOD} ${QUERIED}`,
  })
  listMine(@Ctx() ctx: RequestContext, @Query() q: QueriedPeriodQuery) {
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

  @BulkRoute(Authenticated, 'goals/bulk', {
    summary: 'Create, update and upsert up to 1,000 goals',
    description:
      'Each Record is the body of POST /goals (create) or of PUT /goals/{id} (update), each held to its rule: the individual, someone above them, or an administrator (else 403). ' +
      'Goals have no ExternalID: an update names its goal by ID; an upsert without an ID creates, with one updates that goal (404 when the site has none). ' +
      'ExternalRefs.IndividualID names the goal’s individual by their ExternalID instead of their ID. The ID answered is the goal’s integer ID as text.',
  })
  bulk(@Ctx() ctx: RequestContext, @Body() body: BulkGoals, @Query() q: BulkQuery) {
    return this.goals.bulk(ctx, body, q);
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
