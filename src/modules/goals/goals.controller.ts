import { Body, Controller, Delete, Get, Param, Post, Put, Query } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { Authenticated } from '../../common/auth/access.decorators.js';
import { Ctx } from '../../common/context/ctx.decorator.js';
import { RequestContext } from '../../common/context/request-context.js';
import { ApiBodyTypes, ApiResult } from '../../common/http/wire.js';
import { type MergePatch, PatchRoute } from '../../common/http/merge-patch.js';
import { GuidPipe, IntIdPipe } from '../../common/validation/ids.js';
import { CreateGoalDto, GoalDto, GoalQuery, UpdateGoalDto } from './dto/goal.dto.js';
import { GoalsService } from './goals.service.js';

const WHO =
  'Goals are personal: the individual, anyone above them in the PrimaryReportsTo chain, and administrators may read and change them; anyone else gets 403. Goals are not labelled PM, so they work whether or not the site has performance management on.';
const PERIOD =
  'period: a period id of the site (404 when unknown); default the period containing today, else the latest; a site without periods lists every goal.';
const REQ =
  'Every Req field must be sent (Measure2Completed and Measure3EndDate are optional); Req strings other than Name may be empty strings, so an unused measure is sent as "". A measure whose start date is after its end date is 400 naming the end date.';

@ApiTags('Goal')
@Controller()
export class GoalsController {
  constructor(private readonly goals: GoalsService) {}

  @Get('individuals/:id/goals')
  @Authenticated()
  @ApiOperation({ summary: 'List the goals of an individual in a period', description: `Ordered by DueDate, then ID. ${PERIOD} ${WHO}` })
  @ApiResult(GoalDto, { collection: true })
  listForIndividual(@Ctx() ctx: RequestContext, @Param('id', GuidPipe) id: string, @Query() q: GoalQuery) {
    return this.goals.listForIndividual(ctx, id, q);
  }

  @Get('me/goals')
  @Authenticated()
  @ApiOperation({ summary: 'List the caller’s own goals in a period', description: `Ordered by DueDate, then ID. ${PERIOD}` })
  @ApiResult(GoalDto, { collection: true })
  listMine(@Ctx() ctx: RequestContext, @Query() q: GoalQuery) {
    return this.goals.listMine(ctx, q);
  }

  @Get('goals/:id')
  @Authenticated()
  @ApiOperation({ summary: 'Read a goal', description: WHO })
  @ApiResult(GoalDto)
  get(@Ctx() ctx: RequestContext, @Param('id', IntIdPipe) id: number) {
    return this.goals.get(ctx, id);
  }

  @Post('goals')
  @Authenticated()
  @ApiOperation({
    summary: 'Create a goal',
    description: `IndividualID must be a live individual of the site and PeriodID a period of the site (else 400). ${REQ} ${WHO}`,
  })
  @ApiBodyTypes()
  @ApiResult(GoalDto)
  create(@Ctx() ctx: RequestContext, @Body() dto: CreateGoalDto) {
    return this.goals.create(ctx, dto);
  }

  @Put('goals/:id')
  @Authenticated()
  @ApiOperation({ summary: 'Update a goal', description: `ID must equal the path id; IndividualID is ignored (a goal does not move). ${REQ} ${WHO}` })
  @ApiBodyTypes()
  @ApiResult(GoalDto)
  update(@Ctx() ctx: RequestContext, @Param('id', IntIdPipe) id: number, @Body() dto: UpdateGoalDto) {
    return this.goals.update(ctx, id, dto);
  }

  @PatchRoute('goals/:id', UpdateGoalDto, { summary: 'Change some fields of a goal', description: WHO })
  @Authenticated()
  @ApiResult(GoalDto)
  patch(@Ctx() ctx: RequestContext, @Param('id', IntIdPipe) id: number, @Body() patch: MergePatch<UpdateGoalDto>) {
    return this.goals.patch(ctx, id, patch);
  }

  @Delete('goals/:id')
  @Authenticated()
  @ApiOperation({ summary: 'Delete a goal', description: `Goals are not soft-deleted: the goal is removed. ${WHO}` })
  @ApiResult(null)
  remove(@Ctx() ctx: RequestContext, @Param('id', IntIdPipe) id: number) {
    return this.goals.remove(ctx, id);
  }
}
