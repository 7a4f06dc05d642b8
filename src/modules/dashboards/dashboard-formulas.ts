/**
 * Every computed Dashboard figure with its formula in words (docs/dashboards.md). The same text is
 * the field's OpenAPI description and the `Formula` of the explain view, so the three cannot drift.
 */

const PEOPLE =
  'People in scope: for an individual dashboard the individual; for a department or organization the live members (primary or not) of the unit and of its live sub-units.';
const PROJECTS =
  'Projects in scope: for an individual the live projects they own; for a department or organization the live projects of the unit and its live sub-units (OrganizationID) and those owned by its people.';
const LEVEL = {
  Organization:
    'Organization level: for an individual the nearest organization at or above their primary unit; for a department the nearest organization above it; for an organization itself and its live sub-organizations.',
  Department:
    'Department level: for an individual their primary unit when it is a department (none otherwise); for a department itself and its live sub-departments; for an organization its live departments.',
  Individual: `Individual level: the people in scope. ${PEOPLE}`,
  Project: `Project level: the projects in scope. ${PROJECTS}`,
} as const;
const MEASURED =
  'Measured metrics: the live metrics of the people and projects in scope with a value in the period and a Target above 0 (and, when lower is better, an Actual above 0). Attainment = Actual ÷ Target × 100, or Target ÷ Actual × 100 when lower is better.';
const RATING = 'Each rating r (1–5) counts as r ÷ 5 × 100.';
const RATED =
  'for an individual their own records only, the Ind level — not the organization’s, department’s or projects’; for a department the Dept, Proj and Ind levels — not the organization above it; for an organization every level';
const PERCENT = 'Rounded to 2 fraction digits; null when there is nothing to divide by.';

function commitments<L extends 'Organization' | 'Department' | 'Individual'>(level: L) {
  return {
    [`${level}CommitmentsCompleted`]: `The period’s commitments of the ${level.toLowerCase()} level that are completed. ${LEVEL[level]}`,
    [`${level}CommitmentsTotal`]: `All the period’s commitments of the ${level.toLowerCase()} level. ${LEVEL[level]}`,
    [`${level}CommitmentsColorValue`]: `ColorValue of the site’s color band (GET /colors) that holds ${level}CommitmentsCompleted ÷ ${level}CommitmentsTotal × 100; null when the total is 0 or no band holds the percentage.`,
  } as Record<`${L}CommitmentsCompleted` | `${L}CommitmentsTotal` | `${L}CommitmentsColorValue`, string>;
}

const LEVEL_WORD = { Org: 'Organization', Dept: 'Department', Proj: 'Project', Ind: 'Individual' } as const;

function dialogs<P extends keyof typeof LEVEL_WORD>(prefix: P) {
  const level = LEVEL_WORD[prefix];
  const kind = level.toLowerCase();
  return {
    [`${prefix}DialogsExpected`]: `Live dialogs of the period (PeriodID) about the ${kind} level (Kind ${kind}). ${LEVEL[level]}`,
    [`${prefix}DialogsOccurred`]: `Of ${prefix}DialogsExpected, the dialogs held (OccurredDate set).`,
  } as Record<`${P}DialogsExpected` | `${P}DialogsOccurred`, string>;
}

function followUps<P extends keyof typeof LEVEL_WORD>(prefix: P) {
  const level = LEVEL_WORD[prefix];
  const kind = level.toLowerCase();
  return {
    [`${prefix}FollowUpsCreated`]: `Live follow-up tasks about the ${kind} level (Kind ${kind}) created within the period (FromDate–ToDate). ${LEVEL[level]}`,
    [`${prefix}FollowUpsCompleted`]: `Of ${prefix}FollowUpsCreated, the tasks completed by the period’s end (CompletedDate ≤ ToDate).`,
  } as Record<`${P}FollowUpsCreated` | `${P}FollowUpsCompleted`, string>;
}

export const FIGURE_FORMULAS = {
  ...commitments('Organization'),
  ...commitments('Department'),
  ...commitments('Individual'),
  MetricsExceedsPercent: `Share (%) of the measured metrics whose attainment is at least Threshold3. ${MEASURED} ${PERCENT}`,
  MetricsMeetsPercent: `Share (%) of the measured metrics whose attainment is at least Threshold2 and below Threshold3. ${MEASURED} ${PERCENT}`,
  MetricsMinimumPercent: `Share (%) of the measured metrics whose attainment is at least Threshold1 and below Threshold2. ${MEASURED} ${PERCENT}`,
  MetricsBelowPercent: `Share (%) of the measured metrics whose attainment is below Threshold1. The four shares add up to 100. ${MEASURED} ${PERCENT}`,
  Metrics8020Percent: `Share (%) of the measured 80/20 metrics (Is8020) whose attainment is at least Threshold2. ${MEASURED} ${PERCENT}`,
  Metrics8020CompositePercent: `Mean attainment of the measured 80/20 metrics, each capped at 100. ${MEASURED} ${PERCENT}`,
  ProjectsActive: `Projects in scope started by the period’s end (StartDate, or Created when it has none) and not completed before the period’s start. ${PROJECTS}`,
  ProjectsOnTime: `Of the projects in scope that are active or completed in the period: those completed on or before their DueDate, or not completed and DueDate not yet passed (today); a project without a DueDate is on time. ${PROJECTS}`,
  ProjectsCompleted: `Projects in scope completed within the period (CompletedDate between FromDate and ToDate). ${PROJECTS}`,
  ProjectsDateChanges: `Moves of the DueDate of the projects in scope made within the period. ${PROJECTS}`,
  DeptProjectsActive:
    'ProjectsActive of the department level: for an individual, of their primary unit when it is a department (over that department’s whole scope; 0 when the primary unit is not a department); for a department or organization, its own (equal to ProjectsActive).',
  DeptProjectsOnTime: 'ProjectsOnTime of the department level (as DeptProjectsActive).',
  DeptProjectsCompleted: 'ProjectsCompleted of the department level (as DeptProjectsActive).',
  DeptProjectsDateChanges: 'ProjectsDateChanges of the department level (as DeptProjectsActive).',
  EvaluationCriteriaPercent: `Mean of the evaluationcriteria ratings in the period’s leader and team assessments of the people in scope. ${RATING} Self assessments do not count. ${PEOPLE} ${PERCENT}`,
  LeaderAssessmentPercent: `Mean of all ratings (every ItemKind) of the period’s leader assessments of the people in scope. ${RATING} ${PEOPLE} ${PERCENT}`,
  TeamAssessmentPercent: `Mean of all ratings of the period’s team assessments of the people in scope (their team members rating them as a leader). ${RATING} ${PEOPLE} ${PERCENT}`,
  SelfAssessmentPercent: `Mean of all ratings (every ItemKind) of the period’s self assessments of the people in scope (each rating themselves), beside LeaderAssessmentPercent and TeamAssessmentPercent for comparison. Beyond the spec. It counts in no other figure — not in EvaluationCriteriaPercent, IndividualCoreValuesPercent or IndividualPerformancePercent — so that what people write about themselves does not move their own scores. ${RATING} ${PEOPLE} ${PERCENT}`,
  DialogsCompletedPercent: `Dialogs occurred ÷ expected × 100 over the levels the row answers for (${RATED}): the sums of their …DialogsOccurred and …DialogsExpected. ${PERCENT}`,
  FollowUpsCompletedPercent: `Follow-ups completed ÷ (completed + overdue) × 100 over the levels the row answers for (${RATED}). Completed: the sum of their …FollowUpsCompleted. Overdue: of their …FollowUpsCreated, those not completed by the period’s end whose DueDate (the period’s ToDate when they have none) has come by the period’s end — by now while the period runs. An open follow-up not yet due counts in neither. ${PERCENT}`,
  IndividualPerformancePercent:
    'Mean of the percent scores that are not null and whose switch is on: EvaluationCriteriaPercent (ShowEvaluationCriteria), LeaderAssessmentPercent (ShowLeaderAssessment), TeamAssessmentPercent (ShowTeamAssessment), DialogsCompletedPercent (ShowDialogs), FollowUpsCompletedPercent (ShowFollowUps), IndividualCoreValuesPercent and IndividualBasicRolePercent (no switch: always on). Computed from the unrounded scores, rounded to 2 fraction digits; null when no score qualifies.',
  IndividualCoreValuesPercent: `Mean of the corevalue ratings in the period’s leader and team assessments of the people in scope. ${RATING} Self assessments do not count. ${PEOPLE} ${PERCENT}`,
  IndividualBasicRolePercent: `Mean of the ratings (BasicRoleDialog.Rating, when set) of the basic roles of the people in scope in the live dialogs of the period. ${RATING} ${PEOPLE} ${PERCENT}`,
  PersonalGoalsCompleted: `The period’s goals of the people in scope that are completed. ${PEOPLE}`,
  PersonalGoalsTotal: `All the period’s goals of the people in scope. ${PEOPLE}`,
  ...dialogs('Org'),
  ...dialogs('Dept'),
  ...dialogs('Proj'),
  ...dialogs('Ind'),
  ...followUps('Org'),
  ...followUps('Dept'),
  ...followUps('Proj'),
  ...followUps('Ind'),
} as const;

export type FigureName = keyof typeof FIGURE_FORMULAS;

/** What the records of each figure are (the explain view's RecordType); null: computed from other figures. */
export function recordTypeOf(name: string): string | null {
  if (name.includes('Commitments')) return 'commitment';
  if (name.startsWith('Metrics')) return 'metric';
  if (name.endsWith('DateChanges')) return name.startsWith('Dept') ? null : 'projectduedatechange';
  if (name.startsWith('Projects')) return 'project';
  if (name.startsWith('DeptProjects')) return null;
  if (name === 'IndividualBasicRolePercent') return 'basicroledialog';
  if (name === 'IndividualPerformancePercent') return null;
  if (name.endsWith('AssessmentPercent') || name === 'EvaluationCriteriaPercent' || name === 'IndividualCoreValuesPercent') return 'assessmentrating';
  if (name.includes('Dialogs')) return 'dialog';
  if (name.includes('FollowUps')) return 'task';
  if (name.includes('Goals')) return 'goal';
  return null;
}
