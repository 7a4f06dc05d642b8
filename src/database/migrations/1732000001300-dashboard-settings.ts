import { MigrationInterface, QueryRunner, Table } from 'typeorm';
import { m } from './schema-helpers.js';

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
export class DashboardSettings1732000001300 implements MigrationInterface {
  name = 'DashboardSettings1732000001300';

  async up(q: QueryRunner): Promise<void> {
    await q.createTable(
      new Table({
        name: 'dashboard_settings',
        columns: [
          m.guidPk(),
          ...m.tenant(),
          m.version(),
          m.int('threshold1', { default: 70 }),
          m.int('threshold2', { default: 90 }),
          m.int('threshold3', { default: 110 }),
          ...SWITCHES.map((name) => m.bool(name, true)),
        ],
        indices: [m.index('ux_dashboard_settings_site', ['site_id'], true)],
      }),
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.dropTable('dashboard_settings');
  }
}
