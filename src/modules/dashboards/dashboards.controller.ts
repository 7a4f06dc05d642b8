import { Body, Controller, Get, Param, Put, Query } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { Pm, PmAdmin } from '../../common/auth/access.decorators.js';
import { Ctx } from '../../common/context/ctx.decorator.js';
import { RequestContext } from '../../common/context/request-context.js';
import { ApiBodyTypes, ApiResult } from '../../common/http/wire.js';
import { type MergePatch, PatchRoute } from '../../common/http/merge-patch.js';
import { GuidPipe } from '../../common/validation/ids.js';
import { DashboardsService } from './dashboards.service.js';
import { DashboardDto, DashboardListQuery, DashboardQuery, DashboardSampleQuery } from './dto/dashboard.dto.js';
import { DashboardExplanationDto } from './dto/dashboard-explanation.dto.js';
import { DashboardSettingsDto, UpdateDashboardSettingsDto } from './dto/dashboard-settings.dto.js';

const PERIOD =
  'period: a period of the site (404 when unknown); default the period containing today, else the latest one; 404 when the site has no period. FromDate/ToDate are the period’s dates.';
const SCOPE =
  'Scope: an individual’s own records; a department’s or organization’s records plus those of its live members and live sub-units (docs/dashboards.md; each field’s description gives its formula). Empty denominators give null percentages.';
const EXPLAIN =
  'Every computed figure of the dashboard, in the Dashboard’s order: its value, the formula in words, the calculation with this dashboard’s numbers, and the records counted (their kind, total count and the first 100 ids by id, each with what it contributes). XML root DashboardExplanation.';
const READ = 'Every member of the site may read it (another site’s row, or an unknown id: 404).';

/** The dashboards (PM; docs/dashboards.md). Paths are written without /v4. */
@ApiTags('Dashboard')
@Controller()
export class DashboardsController {
  constructor(private readonly dashboards: DashboardsService) {}

  @Get('dashboards')
  @Pm()
  @ApiOperation({
    summary: 'List the dashboards the caller may access (PM)',
    description: `The caller’s own dashboard, their direct reports’ (PrimaryReportsTo), and those of the organizations and departments they belong to or manage; an administrator gets every live organization and department too. Ordered: own, reports (by LastName, FirstName), organizations, departments (by Name); paged with limit/offset (X-Total-Count, Link); computed in batches, not one by one. ${PERIOD} XML root Dashboards.`,
  })
  @ApiResult(DashboardDto, { collection: true, root: 'Dashboards' })
  list(@Ctx() ctx: RequestContext, @Query() q: DashboardListQuery) {
    return this.dashboards.list(ctx, q);
  }

  @Get('dashboards/sample')
  @Pm()
  @ApiOperation({
    summary: 'A fixed sample dashboard for previewing the site’s settings (PM)',
    description:
      'The records of an imaginary individual (docs/dashboards.md lists them: ten metrics with fixed attainments, commitments, dialogs, follow-ups, goals, projects and ratings) turned into a Dashboard by the same formulas as a real one, with the site’s thresholds, display switches and colors — so changing the settings shows its effect here. RowType 39, Name "Sample Individual", ID the id parameter (default all zeros), FromDate/ToDate the period’s (the current calendar year when the site has no period).',
  })
  @ApiResult(DashboardDto)
  sample(@Ctx() ctx: RequestContext, @Query() q: DashboardSampleQuery) {
    return this.dashboards.sample(ctx, q);
  }

  @Get('dashboards/settings')
  @Pm()
  @ApiOperation({
    summary: 'Read the site’s dashboard settings (PM)',
    description: 'Threshold1–3 and the Show… switches every dashboard carries; the defaults (70, 90, 110, every switch true) until an administrator sets them.',
  })
  @ApiResult(DashboardSettingsDto)
  getSettings(@Ctx() ctx: RequestContext) {
    return this.dashboards.getSettings(ctx);
  }

  @Put('dashboards/settings')
  @PmAdmin()
  @ApiOperation({
    summary: 'Change the site’s dashboard settings (PM, Admin)',
    description:
      'Every field is required: Threshold1–3 integers 0–1000 with Threshold1 ≤ Threshold2 ≤ Threshold3, and the twelve Show… switches (else 400 naming the field). SiteID is read-only. If-Match is honoured (412 when it does not match; any tag is 412 while the site still uses the defaults).',
  })
  @ApiBodyTypes()
  @ApiResult(DashboardSettingsDto)
  putSettings(@Ctx() ctx: RequestContext, @Body() dto: UpdateDashboardSettingsDto) {
    return this.dashboards.putSettings(ctx, dto);
  }

  @PatchRoute('dashboards/settings', UpdateDashboardSettingsDto, {
    summary: 'Change some of the site’s dashboard settings (PM, Admin)',
    description:
      'Merged over the site’s settings (or the defaults while it has none): Threshold1 ≤ Threshold2 ≤ Threshold3 must hold afterwards (else 400 naming the field); null on any field is 400 (every field is required). SiteID is read-only. Any If-Match tag is 412 while the site still uses the defaults.',
  })
  @PmAdmin()
  @ApiResult(DashboardSettingsDto)
  patchSettings(@Ctx() ctx: RequestContext, @Body() patch: MergePatch<UpdateDashboardSettingsDto>) {
    return this.dashboards.patchSettings(ctx, patch);
  }

  @Get('organizations/:id/dashboards')
  @Pm()
  @ApiOperation({
    summary: 'The dashboard of an organization (PM)',
    description: `id must be an organization (RowType 4), else 404. ${SCOPE} ${PERIOD} ${READ}`,
  })
  @ApiResult(DashboardDto)
  organization(@Ctx() ctx: RequestContext, @Param('id', GuidPipe) id: string, @Query() q: DashboardQuery) {
    return this.dashboards.get(ctx, 4, id, q);
  }

  @Get('departments/:id/dashboards')
  @Pm()
  @ApiOperation({ summary: 'The dashboard of a department (PM)', description: `id must be a department (RowType 56), else 404. ${SCOPE} ${PERIOD} ${READ}` })
  @ApiResult(DashboardDto)
  department(@Ctx() ctx: RequestContext, @Param('id', GuidPipe) id: string, @Query() q: DashboardQuery) {
    return this.dashboards.get(ctx, 56, id, q);
  }

  @Get('individuals/:id/dashboards')
  @Pm()
  @ApiOperation({ summary: 'The dashboard of an individual (PM)', description: `${SCOPE} ${PERIOD} ${READ}` })
  @ApiResult(DashboardDto)
  individual(@Ctx() ctx: RequestContext, @Param('id', GuidPipe) id: string, @Query() q: DashboardQuery) {
    return this.dashboards.get(ctx, 39, id, q);
  }

  @Get('organizations/:id/dashboards/explain')
  @Pm()
  @ApiOperation({ summary: 'Explain an organization’s dashboard (PM)', description: `${EXPLAIN} id must be an organization, else 404. ${PERIOD} ${READ}` })
  @ApiResult(DashboardExplanationDto)
  explainOrganization(@Ctx() ctx: RequestContext, @Param('id', GuidPipe) id: string, @Query() q: DashboardQuery) {
    return this.dashboards.explain(ctx, 4, id, q);
  }

  @Get('departments/:id/dashboards/explain')
  @Pm()
  @ApiOperation({ summary: 'Explain a department’s dashboard (PM)', description: `${EXPLAIN} id must be a department, else 404. ${PERIOD} ${READ}` })
  @ApiResult(DashboardExplanationDto)
  explainDepartment(@Ctx() ctx: RequestContext, @Param('id', GuidPipe) id: string, @Query() q: DashboardQuery) {
    return this.dashboards.explain(ctx, 56, id, q);
  }

  @Get('individuals/:id/dashboards/explain')
  @Pm()
  @ApiOperation({ summary: 'Explain an individual’s dashboard (PM)', description: `${EXPLAIN} ${PERIOD} ${READ}` })
  @ApiResult(DashboardExplanationDto)
  explainIndividual(@Ctx() ctx: RequestContext, @Param('id', GuidPipe) id: string, @Query() q: DashboardQuery) {
    return this.dashboards.explain(ctx, 39, id, q);
  }
}
