import { MigrationInterface, QueryRunner, Table, TableColumnOptions } from 'typeorm';
import { MIGRATED_LIMITS } from '../../common/limits.js';
import { m } from './schema-helpers.js';

const measureColumns = (): TableColumnOptions[] =>
  [1, 2, 3, 4, 5].flatMap((n) => [m.text(`measure${n}`), m.bool(`measure${n}_completed`), m.date(`measure${n}_start_date`), m.date(`measure${n}_end_date`)]);

/** Goals, site colors, core values and commitments. */
export class GoalsColorsValuesCommitments1732000000500 implements MigrationInterface {
  name = 'GoalsColorsValuesCommitments1732000000500';

  async up(q: QueryRunner): Promise<void> {
    await q.createTable(
      new Table({
        name: 'goals',
        columns: [
          m.intPk(),
          ...m.tenant(),
          m.guid('individual_id'),
          m.int('period_id'),
          m.str('name', MIGRATED_LIMITS.name, false),
          m.bool('completed'),
          m.text('comment'),
          m.text('why'),
          m.date('due_date'),
          ...measureColumns(),
        ],
        indices: [
          m.index('ix_goals_site_individual_period', ['site_id', 'individual_id', 'period_id', 'due_date']),
          m.index('ix_goals_site_period', ['site_id', 'period_id']),
        ],
      }),
    );
    await q.createTable(
      new Table({
        name: 'colors',
        columns: [
          m.intPk(),
          ...m.tenant(),
          m.str('name', MIGRATED_LIMITS.name, false),
          m.int('color_value'),
          m.decimal('min_percent', false),
          m.decimal('max_percent', false),
          m.int('rank', { default: 0 }),
        ],
        indices: [m.index('ix_colors_site_rank', ['site_id', 'rank', 'min_percent'])],
      }),
    );
    await q.createTable(
      new Table({
        name: 'core_values',
        columns: [
          m.guidPk(),
          ...m.tenant(),
          m.str('name', MIGRATED_LIMITS.name, false),
          m.text('description'),
          m.int('rank', { default: 0 }),
          m.bool('deleted'),
          m.bool('deleted_by_ref'),
        ],
        indices: [m.index('ix_core_values_site_rank', ['site_id', 'deleted', 'rank', 'name'])],
      }),
    );
    await q.createTable(
      new Table({
        name: 'commitments',
        columns: [
          m.intPk(),
          ...m.tenant(),
          m.str('type', 20, false),
          m.guid('ancestor_id'),
          m.int('period_id'),
          m.str('name', MIGRATED_LIMITS.name, false),
          m.text('description'),
          m.date('due_date'),
          m.bool('completed'),
          m.date('completed_date'),
          m.int('rank', { default: 0 }),
        ],
        indices: [
          m.index('ix_commitments_site_ancestor', ['site_id', 'type', 'ancestor_id', 'period_id', 'rank']),
          m.index('ix_commitments_site_period', ['site_id', 'period_id', 'type']),
        ],
      }),
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.dropTable('commitments', true);
    await q.dropTable('core_values', true);
    await q.dropTable('colors', true);
    await q.dropTable('goals', true);
  }
}
