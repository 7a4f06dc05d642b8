import { MigrationInterface, QueryRunner, Table } from 'typeorm';
import { MIGRATED_LIMITS } from '../../common/limits.js';
import { m } from './schema-helpers.js';

/** Metrics with their values per period, and the archives written when a period closes (docs/metrics-archives.md). */
export class MetricsArchives1732000001100 implements MigrationInterface {
  name = 'MetricsArchives1732000001100';

  async up(q: QueryRunner): Promise<void> {
    await q.createTable(
      new Table({
        name: 'metrics',
        columns: [
          m.guidPk(),
          ...m.tenant(),
          m.version(),
          m.str('kind', 20, false),
          m.guid('ancestor_id'),
          m.str('name', MIGRATED_LIMITS.name, false),
          m.bool('is_8020'),
          m.decimal('target'),
          m.bool('higher_is_better', true),
          m.bool('deleted'),
          m.bool('deleted_by_ref'),
        ],
        indices: [
          m.index('ix_metrics_site_ancestor', ['site_id', 'kind', 'ancestor_id', 'deleted', 'name']),
          m.index('ix_metrics_site_name', ['site_id', 'deleted', 'name']),
        ],
      }),
    );
    await q.createTable(
      new Table({
        name: 'metric_values',
        columns: [m.guidPk(), ...m.tenant(), m.version(), m.guid('metric_id'), m.int('period_id'), m.decimal('actual', false)],
        indices: [
          m.index('ux_metric_values_site_metric_period', ['site_id', 'metric_id', 'period_id'], true),
          m.index('ix_metric_values_site_period', ['site_id', 'period_id']),
        ],
        foreignKeys: [m.belongsTo('fk_metric_values_metric', 'metric_id', 'metrics'), m.belongsTo('fk_metric_values_period', 'period_id', 'periods')],
      }),
    );
    await q.createTable(
      new Table({
        name: 'archives',
        columns: [
          m.guidPk(),
          ...m.tenant(),
          m.version(),
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
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.dropTable('archives', true, true, true);
    await q.dropTable('metric_values', true, true, true);
    await q.dropTable('metrics', true, true, true);
  }
}
