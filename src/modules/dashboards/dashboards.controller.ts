import { Body, Query } from '@nestjs/common';
import { Pm, PmAdmin } from '../../auth/access.decorators.js';
import { Ctx } from '../../common/context/ctx.decorator.js';
import { RequestContext } from '../../common/context/request-context.js';
import { type MergePatch, PatchRoute } from '../../http/pipeline/merge-patch.js';
import { GuidParam } from '../../http/wire/ids.js';
import { DashboardsService } from './dashboards.service.js';
import { Dashboard, DashboardDto, DashboardListQuery, DashboardQuery, DashboardSampleQuery } from './dto/dashboard.dto.js';
import { queryNotes } from '../../http/wire/list-query.js';
import { DashboardExplanationDto } from './dto/dashboard-explanation.dto.js';
import { DashboardSettingsDto, UpdateDashboardSettingsDto } from './dto/dashboard-settings.dto.js';
import { ApiController, GetRoute, ListRoute, PutRoute } from '../../http/pipeline/routes.js';
import { defineRoutes } from '../../http/pipeline/route-family.js';
import type { RowType } from './dashboard-engine.js';
import { AnswerHeaders } from '../../http/wire/answer-headers.js';
import { FRESHNESS_HEADERS } from './summary-reader.js';

const PERIOD =
  'period: a period of the site (404 when unknown); default the period containing today, else the latest one; 404 when the site has no period. FromDate/ToDate are the period’s dates.';
const SCOPE =
  'Scope: an individual’s own records; a department’s or organization’s records plus those of its live members and live sub-units (docs/dashboards.md; each field’s description gives its formula). Empty denominators give null percentages.';
const EXPLAIN =
  'Every computed figure of the dashboard, in the Dashboard’s order: its value, the formula in words, the calculation with this dashboard’s numbers, and the records counted (their kind, total count and the first 100 ids by id, each with what it contributes). XML root DashboardExplanation.';
const FRESH =
  'Answered from the stored summaries when they reflect every write committed up to 1 s before, else computed from the records: the headers Dashboard-Source and Dashboard-As-Of say which and as of when (docs/dashboards.md, "How fresh").';
const READ = 'Every member of the site may read it (another site’s row, or an unknown id: 404).';

/** The three kinds of record with a dashboard, in route order: the path word, the row type, the handlers' names, and what the id must name. */
const OWNERS: readonly { path: string; rowType: RowType; name: string; explain: string; record: string; checked: boolean }[] = [
  { path: 'organizations', rowType: 4, name: 'organization', explain: 'explainOrganization', record: 'an organization', checked: true },
  { path: 'departments', rowType: 56, name: 'department', explain: 'explainDepartment', record: 'a department', checked: true },
  { path: 'individuals', rowType: 39, name: 'individual', explain: 'explainIndividual', record: 'an individual', checked: false },
];

const PARAMS = [
  [Ctx(), RequestContext],
  [GuidParam(), String],
  [Query(), DashboardQuery],
] as const;

/** The dashboards (PM; docs/dashboards.md). Paths are written without /v4. */
@ApiController('Dashboard', undefined, {
  description: 'Figures of an organization, department or individual in a period, the site’s dashboard settings, and how each figure is computed.',
})
export class DashboardsController {
  constructor(private readonly dashboards: DashboardsService) {}

  @ListRoute(
    Pm,
    'dashboards',
    DashboardDto,
    null,
    {
      summary: 'List the dashboards the caller may access (PM)',
      description: `The caller’s own dashboard, their direct reports’ (PrimaryReportsTo), and those of the organizations and departments they belong to or manage; an administrator gets every live organization and department too. Ordered: own, reports (by LastName, FirstName), organizations, departments (by Name); paged with limit/offset (X-Total-Count, Link); computed in batches, not one by one. ${PERIOD} XML root Dashboards. With filter=, sort=, fields= or cursor= the same dashboards are selected by their row’s own fields, in memory after the access rules, and ordered by ID without sort=; only the page’s figures are computed (docs/queries.md, "Lists not stored"); an export carries no freshness headers. ${queryNotes(Dashboard)}`,
    },
    { root: 'Dashboards' },
  )
  @AnswerHeaders(FRESHNESS_HEADERS)
  list(@Ctx() ctx: RequestContext, @Query() q: DashboardListQuery) {
    return this.dashboards.list(ctx, q);
  }

  @GetRoute(Pm, 'dashboards/sample', DashboardDto, {
    summary: 'A fixed sample dashboard for previewing the site’s settings (PM)',
    description:
      'The records of an imaginary individual (docs/dashboards.md lists them: ten metrics with fixed attainments, commitments, dialogs, follow-ups, goals, projects and ratings) turned into a Dashboard by the same formulas as a real one, with the site’s thresholds, display switches and colors — so changing the settings shows its effect here. RowType 39, Name "Sample Individual", ID the id parameter (default all zeros), FromDate/ToDate the period’s (the current calendar year when the site has no period).',
  })
  sample(@Ctx() ctx: RequestContext, @Query() q: DashboardSampleQuery) {
    return this.dashboards.sample(ctx, q);
  }

  @GetRoute(Pm, 'dashboards/settings', DashboardSettingsDto, {
    summary: 'Read the site’s dashboard settings (PM)',
    description: 'Threshold1–3 and the Show… switches every dashboard carries; the defaults (70, 90, 110, every switch true) until an administrator sets them.',
  })
  getSettings(@Ctx() ctx: RequestContext) {
    return this.dashboards.getSettings(ctx);
  }

  @PutRoute(PmAdmin, 'dashboards/settings', DashboardSettingsDto, {
    summary: 'Change the site’s dashboard settings (PM, Admin)',
    description:
      'Every field is required: Threshold1–3 integers 0–1000 with Threshold1 ≤ Threshold2 ≤ Threshold3, and the twelve Show… switches (else 400 naming the field). SiteID is read-only. If-Match is honoured (412 when it does not match; any tag is 412 while the site still uses the defaults).',
  })
  putSettings(@Ctx() ctx: RequestContext, @Body() dto: UpdateDashboardSettingsDto) {
    return this.dashboards.putSettings(ctx, dto);
  }

  @PatchRoute(PmAdmin, 'dashboards/settings', UpdateDashboardSettingsDto, DashboardSettingsDto, {
    summary: 'Change some of the site’s dashboard settings (PM, Admin)',
    description:
      'Merged over the site’s settings (or the defaults while it has none): Threshold1 ≤ Threshold2 ≤ Threshold3 must hold afterwards (else 400 naming the field); null on any field is 400 (every field is required). SiteID is read-only. Any If-Match tag is 412 while the site still uses the defaults.',
  })
  patchSettings(@Ctx() ctx: RequestContext, @Body() patch: MergePatch<UpdateDashboardSettingsDto>) {
    return this.dashboards.patchSettings(ctx, patch);
  }

  /** A record's dashboard and its explanation, declared once for the three kinds (after the routes above). */
  static {
    defineRoutes(this, [
      ...OWNERS.map((o) => ({
        name: o.name,
        decorators: [
          GetRoute(Pm, `${o.path}/:id/dashboards`, DashboardDto, {
            summary: `The dashboard of ${o.record} (PM)`,
            description: `${o.checked ? `id must be ${o.record} (RowType ${o.rowType}), else 404. ` : ''}${SCOPE} ${PERIOD} ${READ} ${FRESH}`,
          }),
          AnswerHeaders(FRESHNESS_HEADERS),
        ],
        params: PARAMS,
        handle(this: DashboardsController, ctx: RequestContext, id: string, q: DashboardQuery) {
          return this.dashboards.get(ctx, o.rowType, id, q);
        },
      })),
      ...OWNERS.map((o) => ({
        name: o.explain,
        decorators: [
          GetRoute(Pm, `${o.path}/:id/dashboards/explain`, DashboardExplanationDto, {
            summary: `Explain ${o.record}’s dashboard (PM)`,
            description: `${EXPLAIN} ${o.checked ? `id must be ${o.record}, else 404. ` : ''}${PERIOD} ${READ}`,
          }),
        ],
        params: PARAMS,
        handle(this: DashboardsController, ctx: RequestContext, id: string, q: DashboardQuery) {
          return this.dashboards.explain(ctx, o.rowType, id, q);
        },
      })),
    ]);
  }
}
