import { Entity, Index } from 'typeorm';
import { GuidTenantEntity } from './base.entity.js';
import { BoolCol, IntCol } from '../columns.js';

/** The thresholds' defaults (docs/dashboards.md): minimum, meets, exceeds, in percent of target. */
export const DEFAULT_THRESHOLDS = [70, 90, 110] as const;

/**
 * A site's dashboard settings (docs/dashboards.md): the metric thresholds and the display switches
 * every dashboard carries. At most one row per site (unique index); a site without a row uses the
 * defaults (70/90/110, every switch on).
 */
@Entity('dashboard_settings')
@Index('ux_dashboard_settings_site', ['siteId'], { unique: true })
export class DashboardSettingsEntity extends GuidTenantEntity {
  @IntCol('threshold1', { default: DEFAULT_THRESHOLDS[0] })
  threshold1: number;

  @IntCol('threshold2', { default: DEFAULT_THRESHOLDS[1] })
  threshold2: number;

  @IntCol('threshold3', { default: DEFAULT_THRESHOLDS[2] })
  threshold3: number;

  @BoolCol('show_metrics', true)
  showMetrics: boolean;

  @BoolCol('show_dialogs', true)
  showDialogs: boolean;

  @BoolCol('show_follow_ups', true)
  showFollowUps: boolean;

  @BoolCol('show_project_load', true)
  showProjectLoad: boolean;

  @BoolCol('show_evaluation_criteria', true)
  showEvaluationCriteria: boolean;

  @BoolCol('show_leader_assessment', true)
  showLeaderAssessment: boolean;

  @BoolCol('show_team_assessment', true)
  showTeamAssessment: boolean;

  @BoolCol('show_goals', true)
  showGoals: boolean;

  @BoolCol('show_org_commitments', true)
  showOrgCommitments: boolean;

  @BoolCol('show_dept_commitments', true)
  showDeptCommitments: boolean;

  @BoolCol('show_ind_commitments', true)
  showIndCommitments: boolean;

  @BoolCol('show_8020_metrics', true)
  show8020Metrics: boolean;
}
