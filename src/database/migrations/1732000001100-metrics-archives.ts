import { MIGRATED_LIMITS } from '../../common/limits.js';
import { m, tablesMigration } from './schema-helpers.js';

/** Metrics with their values per period, and the archives written when a period closes (docs/metrics-archives.md). */
export const MetricsArchives1732000001100 = tablesMigration('MetricsArchives1732000001100', () => [
  m.tenantTable({
    name: 'metrics',
    versioned: true,
    columns: [
      m.str('kind', 20, false),
      m.guid('ancestor_id'),
      m.str('name', MIGRATED_LIMITS.name, false),
      m.bool('is_8020'),
      m.decimal('target'),
      m.bool('higher_is_better', true),
    ],
    softDelete: true,
    indices: [
      m.index('ix_metrics_site_ancestor', ['site_id', 'kind', 'ancestor_id', 'deleted', 'name']),
      m.index('ix_metrics_site_name', ['site_id', 'deleted', 'name']),
    ],
  }),
  m.tenantTable({
    name: 'metric_values',
    versioned: true,
    columns: [m.guid('metric_id'), m.int('period_id'), m.decimal('actual', false)],
    indices: [
      m.index('ux_metric_values_site_metric_period', ['site_id', 'metric_id', 'period_id'], true),
      m.index('ix_metric_values_site_period', ['site_id', 'period_id']),
    ],
    foreignKeys: [m.belongsTo('fk_metric_values_metric', 'metric_id', 'metrics'), m.belongsTo('fk_metric_values_period', 'period_id', 'periods')],
  }),
  m.tenantTable({
    name: 'archives',
    versioned: true,
    columns: [
      m.guid('ancestor_id'),
      m.str('ancestor_type', 20, false),
      m.guid('item_id'),
      m.str('item_type', 20, false),
      m.int('period_id'),
      m.str('name', MIGRATED_LIMITS.name, false),
      m.text('snapshot', false),
    ],
    indices: [
      m.index('ux_archives_site_period_item', ['site_id', 'period_id', 'item_type', 'item_id'], true),
      m.index('ix_archives_site_ancestor', ['site_id', 'ancestor_id', 'period_id']),
      m.index('ix_archives_site_item', ['site_id', 'item_id', 'period_id']),
    ],
    foreignKeys: [m.belongsTo('fk_archives_period', 'period_id', 'periods')],
  }),
]);
