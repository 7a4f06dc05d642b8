import { TableColumnOptions } from 'typeorm';
import { MIGRATED_LIMITS } from '../../common/limits.js';
import { m, tablesMigration } from './schema-helpers.js';

const measureColumns = (): TableColumnOptions[] =>
  [1, 2, 3, 4, 5].flatMap((n) => [m.text(`measure${n}`), m.bool(`measure${n}_completed`), m.date(`measure${n}_start_date`), m.date(`measure${n}_end_date`)]);

/** Goals, site colors, core values and commitments. */
export const GoalsColorsValuesCommitments1732000000500 = tablesMigration('GoalsColorsValuesCommitments1732000000500', () => [
  m.tenantTable({
    name: 'goals',
    id: 'int',
    columns: [
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
  m.tenantTable({
    name: 'colors',
    id: 'int',
    columns: [
      m.str('name', MIGRATED_LIMITS.name, false),
      m.int('color_value'),
      m.decimal('min_percent', false),
      m.decimal('max_percent', false),
      m.int('rank', { default: 0 }),
    ],
    indices: [m.index('ix_colors_site_rank', ['site_id', 'rank', 'min_percent'])],
  }),
  m.tenantTable({
    name: 'core_values',
    columns: [m.str('name', MIGRATED_LIMITS.name, false), m.text('description'), m.int('rank', { default: 0 })],
    softDelete: true,
    indices: [m.index('ix_core_values_site_rank', ['site_id', 'deleted', 'rank', 'name'])],
  }),
  m.tenantTable({
    name: 'commitments',
    id: 'int',
    columns: [
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
]);
