import { field, LIMITS, resource } from '../../../http/wire/resource.js';
import { InputField } from '../../../http/wire/wire.js';
import { QueriedPageQuery } from '../../../http/wire/pagination.js';
import { FIGURE_FORMULAS, type FigureName } from '../dashboard-formulas.js';

/** A count: never null (0 when there is nothing to count). */
const count = (name: FigureName) => field.int('RO', { description: FIGURE_FORMULAS[name] });
/** A percentage: null when its denominator is empty. */
const percent = (name: FigureName) => field.decimal('RO', { nullable: true, description: FIGURE_FORMULAS[name] });
/** A color band's ColorValue: null when there is no percentage or no band holds it. */
const color = (name: FigureName) => field.int('RO', { nullable: true, description: FIGURE_FORMULAS[name] });

const THRESHOLD = {
  Threshold1:
    'Minimum: metric attainment (%) from which a metric counts as MetricsMinimumPercent (below it: MetricsBelowPercent). A site setting (GET|PUT /dashboards/settings), default 70.',
  Threshold2: 'Meets: attainment (%) from which a metric counts as MetricsMeetsPercent, and an 80/20 metric in Metrics8020Percent. A site setting, default 90.',
  Threshold3: 'Exceeds: attainment (%) from which a metric counts as MetricsExceedsPercent. A site setting, default 110.',
} as const;
const SWITCH = (what: string, score?: string) =>
  `Site display switch (GET|PUT /dashboards/settings, default true): whether clients show ${what}.` +
  (score ? ` When false, ${score} is left out of IndividualPerformancePercent.` : ' It does not change any figure.');

/** The display switches of a site, in the documented order (docs/dashboards.md), with what each governs. */
export const SWITCH_DOCS = {
  ShowMetrics: SWITCH('the metric shares (Metrics…Percent)'),
  ShowDialogs: SWITCH('the dialog counts and DialogsCompletedPercent', 'DialogsCompletedPercent'),
  ShowFollowUps: SWITCH('the follow-up counts and FollowUpsCompletedPercent', 'FollowUpsCompletedPercent'),
  ShowProjectLoad: SWITCH('the project figures (Projects…, DeptProjects…)'),
  ShowEvaluationCriteria: SWITCH('EvaluationCriteriaPercent', 'EvaluationCriteriaPercent'),
  ShowLeaderAssessment: SWITCH('LeaderAssessmentPercent', 'LeaderAssessmentPercent'),
  ShowTeamAssessment: SWITCH('TeamAssessmentPercent', 'TeamAssessmentPercent'),
  ShowGoals: SWITCH('the personal goals'),
  ShowOrgCommitments: SWITCH('the organization-level commitments'),
  ShowDeptCommitments: SWITCH('the department-level commitments'),
  ShowIndCommitments: SWITCH('the individual-level commitments'),
  Show8020Metrics: SWITCH('Metrics8020Percent and Metrics8020CompositePercent'),
} as const;
export type SwitchName = keyof typeof SWITCH_DOCS;
export const SWITCH_NAMES = Object.keys(SWITCH_DOCS) as SwitchName[];

/**
 * The Dashboard (docs/dashboards.md): every figure of its table there, in its order, computed for
 * a row (organization, department or individual) over a period. Read-only; the Threshold and Show
 * fields are the site's settings, which every dashboard carries (written with PUT
 * /dashboards/settings, hence Req as docs/dashboards.md marks them). Not a stored record: no audit fields.
 */
export const Dashboard = resource<never>()('Dashboard', {
  fields: {
    // The list may filter and sort on the row's own fields, known before any figure is computed
    // (docs/queries.md, "Lists not stored"); the figures are computed for the page only.
    ID: field.guid('RO', { query: { filter: true }, description: 'The id of the row: the organization, department or individual.' }),
    SiteID: field.guid('RO'),
    RowType: field.int('RO', {
      query: { filter: true, sort: true, then: ['name'] },
      enum: [4, 56, 39],
      description: 'organization 4, department 56, individual 39.',
    }),
    Name: field.string('RO', {
      query: { filter: true, sort: true },
      max: LIMITS.name,
      description: 'The row’s name: the organization’s or department’s Name, the individual’s FullName (First Last).',
    }),
    FromDate: field.date('RO', { description: 'The period’s StartDate.' }),
    ToDate: field.date('RO', { description: 'The period’s EndDate.' }),
    OrganizationCommitmentsCompleted: count('OrganizationCommitmentsCompleted'),
    OrganizationCommitmentsTotal: count('OrganizationCommitmentsTotal'),
    OrganizationCommitmentsColorValue: color('OrganizationCommitmentsColorValue'),
    DepartmentCommitmentsCompleted: count('DepartmentCommitmentsCompleted'),
    DepartmentCommitmentsTotal: count('DepartmentCommitmentsTotal'),
    DepartmentCommitmentsColorValue: color('DepartmentCommitmentsColorValue'),
    IndividualCommitmentsCompleted: count('IndividualCommitmentsCompleted'),
    IndividualCommitmentsTotal: count('IndividualCommitmentsTotal'),
    IndividualCommitmentsColorValue: color('IndividualCommitmentsColorValue'),
    MetricsExceedsPercent: percent('MetricsExceedsPercent'),
    MetricsMeetsPercent: percent('MetricsMeetsPercent'),
    MetricsMinimumPercent: percent('MetricsMinimumPercent'),
    MetricsBelowPercent: percent('MetricsBelowPercent'),
    Metrics8020Percent: percent('Metrics8020Percent'),
    Metrics8020CompositePercent: percent('Metrics8020CompositePercent'),
    ProjectsActive: count('ProjectsActive'),
    ProjectsOnTime: count('ProjectsOnTime'),
    ProjectsCompleted: count('ProjectsCompleted'),
    ProjectsDateChanges: count('ProjectsDateChanges'),
    DeptProjectsActive: count('DeptProjectsActive'),
    DeptProjectsOnTime: count('DeptProjectsOnTime'),
    DeptProjectsCompleted: count('DeptProjectsCompleted'),
    DeptProjectsDateChanges: count('DeptProjectsDateChanges'),
    EvaluationCriteriaPercent: percent('EvaluationCriteriaPercent'),
    LeaderAssessmentPercent: percent('LeaderAssessmentPercent'),
    TeamAssessmentPercent: percent('TeamAssessmentPercent'),
    SelfAssessmentPercent: percent('SelfAssessmentPercent'),
    DialogsCompletedPercent: percent('DialogsCompletedPercent'),
    FollowUpsCompletedPercent: percent('FollowUpsCompletedPercent'),
    IndividualPerformancePercent: percent('IndividualPerformancePercent'),
    IndividualCoreValuesPercent: percent('IndividualCoreValuesPercent'),
    IndividualBasicRolePercent: percent('IndividualBasicRolePercent'),
    PersonalGoalsCompleted: count('PersonalGoalsCompleted'),
    PersonalGoalsTotal: count('PersonalGoalsTotal'),
    OrgDialogsExpected: count('OrgDialogsExpected'),
    OrgDialogsOccurred: count('OrgDialogsOccurred'),
    DeptDialogsExpected: count('DeptDialogsExpected'),
    DeptDialogsOccurred: count('DeptDialogsOccurred'),
    ProjDialogsExpected: count('ProjDialogsExpected'),
    ProjDialogsOccurred: count('ProjDialogsOccurred'),
    IndDialogsExpected: count('IndDialogsExpected'),
    IndDialogsOccurred: count('IndDialogsOccurred'),
    OrgFollowUpsCreated: count('OrgFollowUpsCreated'),
    OrgFollowUpsCompleted: count('OrgFollowUpsCompleted'),
    DeptFollowUpsCreated: count('DeptFollowUpsCreated'),
    DeptFollowUpsCompleted: count('DeptFollowUpsCompleted'),
    ProjFollowUpsCreated: count('ProjFollowUpsCreated'),
    ProjFollowUpsCompleted: count('ProjFollowUpsCompleted'),
    IndFollowUpsCreated: count('IndFollowUpsCreated'),
    IndFollowUpsCompleted: count('IndFollowUpsCompleted'),
    Threshold1: field.int('Req', { description: THRESHOLD.Threshold1 }),
    Threshold2: field.int('Req', { description: THRESHOLD.Threshold2 }),
    Threshold3: field.int('Req', { description: THRESHOLD.Threshold3 }),
    ShowMetrics: field.bool('Req', { description: SWITCH_DOCS.ShowMetrics }),
    ShowDialogs: field.bool('Req', { description: SWITCH_DOCS.ShowDialogs }),
    ShowFollowUps: field.bool('Req', { description: SWITCH_DOCS.ShowFollowUps }),
    ShowProjectLoad: field.bool('Req', { description: SWITCH_DOCS.ShowProjectLoad }),
    ShowEvaluationCriteria: field.bool('Req', { description: SWITCH_DOCS.ShowEvaluationCriteria }),
    ShowLeaderAssessment: field.bool('Req', { description: SWITCH_DOCS.ShowLeaderAssessment }),
    ShowTeamAssessment: field.bool('Req', { description: SWITCH_DOCS.ShowTeamAssessment }),
    ShowGoals: field.bool('Req', { description: SWITCH_DOCS.ShowGoals }),
    ShowOrgCommitments: field.bool('Req', { description: SWITCH_DOCS.ShowOrgCommitments }),
    ShowDeptCommitments: field.bool('Req', { description: SWITCH_DOCS.ShowDeptCommitments }),
    ShowIndCommitments: field.bool('Req', { description: SWITCH_DOCS.ShowIndCommitments }),
    Show8020Metrics: field.bool('Req', { description: SWITCH_DOCS.Show8020Metrics }),
  },
});
export const DashboardDto = Dashboard.Response;
export type DashboardDto = InstanceType<typeof DashboardDto>;

/** `?period=`: one period of the site; default the period containing today, else the latest. */
export class DashboardQuery {
  @InputField('int', {
    description:
      'Period id (404 when it is not a period of the site). Default: the period containing today, else the latest one; 404 when the site has no period.',
  })
  period?: number;
}

/** `GET /dashboards?period=&limit=&offset=`. */
export class DashboardListQuery extends QueriedPageQuery {
  @InputField('int', {
    description:
      'Period id (404 when it is not a period of the site). Default: the period containing today, else the latest one; 404 when the site has no period.',
  })
  period?: number;
}

/** `GET /dashboards/sample?period=&id=`. */
export class DashboardSampleQuery {
  @InputField('int', {
    description:
      'Period id whose dates the sample carries (404 when it is not a period of the site). Default: the period containing today, else the latest; the current calendar year when the site has no period.',
  })
  period?: number;

  @InputField('guid', { description: 'Echoed as the sample’s ID (not looked up), so a client can place the preview; default the all-zero guid.' })
  id?: string;
}
