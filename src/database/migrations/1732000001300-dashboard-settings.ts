import { m, tablesMigration } from './schema-helpers.js';

const SWITCHES = [
  'show_metrics',
  'show_dialogs',
  'show_follow_ups',
  'show_project_load',
  'show_evaluation_criteria',
  'show_leader_assessment',
  'show_team_assessment',
  'show_goals',
  'show_org_commitments',
  'show_dept_commitments',
  'show_ind_commitments',
  'show_8020_metrics',
];

/** One row of dashboard settings per site: thresholds and display switches (docs/dashboards.md). */
export const DashboardSettings1732000001300 = tablesMigration('DashboardSettings1732000001300', () => [
  m.tenantTable({
    name: 'dashboard_settings',
    versioned: true,
    columns: [
      m.int('threshold1', { default: 70 }),
      m.int('threshold2', { default: 90 }),
      m.int('threshold3', { default: 110 }),
      ...SWITCHES.map((name) => m.bool(name, true)),
    ],
    indices: [m.index('ux_dashboard_settings_site', ['site_id'], true)],
  }),
]);
