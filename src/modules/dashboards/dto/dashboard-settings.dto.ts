import { field, resource } from '../../../http/wire/resource.js';
import type { DashboardSettingsEntity } from '../../../database/entities/dashboard-settings.entity.js';
import { SWITCH_DOCS } from './dashboard.dto.js';
import { declareExamples } from '../../../http/wire/examples.js';

/** The bounds of a threshold (percent of target). */
export const THRESHOLD_MAX = 1000;

const threshold = (description: string) =>
  field.int('Req', { minValue: 0, maxValue: THRESHOLD_MAX, description: `${description} An integer 0–${THRESHOLD_MAX}.` });
const show = (description: string) => field.bool('Req', { description });

/**
 * A site's dashboard settings (docs/dashboards.md): the thresholds of the metric shares and the
 * display switches, which every Dashboard of the site carries. GET answers the defaults (70, 90,
 * 110, every switch true) until an administrator PUTs them; PUT requires every field (docs/dashboards.md
 * marks them Req) and Threshold1 ≤ Threshold2 ≤ Threshold3.
 */
export const DashboardSettings = resource<DashboardSettingsEntity>()('DashboardSettings', {
  updateName: 'UpdateDashboardSettingsDto',
  fields: {
    SiteID: field.guid('RO'),
    Threshold1: threshold('Minimum: metric attainment (%) from which a metric counts as MetricsMinimumPercent. Default 70; at most Threshold2.'),
    Threshold2: threshold('Meets: attainment (%) from which a metric counts as MetricsMeetsPercent (and an 80/20 metric in Metrics8020Percent). Default 90.'),
    Threshold3: threshold('Exceeds: attainment (%) from which a metric counts as MetricsExceedsPercent. Default 110; at least Threshold2.'),
    ShowMetrics: show(SWITCH_DOCS.ShowMetrics),
    ShowDialogs: show(SWITCH_DOCS.ShowDialogs),
    ShowFollowUps: show(SWITCH_DOCS.ShowFollowUps),
    ShowProjectLoad: show(SWITCH_DOCS.ShowProjectLoad),
    ShowEvaluationCriteria: show(SWITCH_DOCS.ShowEvaluationCriteria),
    ShowLeaderAssessment: show(SWITCH_DOCS.ShowLeaderAssessment),
    ShowTeamAssessment: show(SWITCH_DOCS.ShowTeamAssessment),
    ShowGoals: show(SWITCH_DOCS.ShowGoals),
    ShowOrgCommitments: show(SWITCH_DOCS.ShowOrgCommitments),
    ShowDeptCommitments: show(SWITCH_DOCS.ShowDeptCommitments),
    ShowIndCommitments: show(SWITCH_DOCS.ShowIndCommitments),
    Show8020Metrics: show(SWITCH_DOCS.Show8020Metrics),
  },
});
export const DashboardSettingsDto = DashboardSettings.Response;
export type DashboardSettingsDto = InstanceType<typeof DashboardSettingsDto>;
export const UpdateDashboardSettingsDto = DashboardSettings.Update;
export type UpdateDashboardSettingsDto = InstanceType<typeof UpdateDashboardSettingsDto>;

/** The request-body examples of the OpenAPI document (docs/openapi.md), executed by the examples test. */
declareExamples({
  PatchDashboardSettingsDto: { body: { Threshold3: 120, ShowTeamAssessment: true } },
  UpdateDashboardSettingsDto: {
    body: {
      Threshold1: 75,
      Threshold2: 95,
      Threshold3: 115,
      ShowMetrics: true,
      ShowDialogs: true,
      ShowFollowUps: true,
      ShowProjectLoad: true,
      ShowEvaluationCriteria: true,
      ShowLeaderAssessment: true,
      ShowTeamAssessment: false,
      ShowGoals: true,
      ShowOrgCommitments: true,
      ShowDeptCommitments: true,
      ShowIndCommitments: true,
      Show8020Metrics: true,
    },
  },
});
