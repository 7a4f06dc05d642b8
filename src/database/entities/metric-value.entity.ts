import { Entity, Index } from 'typeorm';
import { GuidTenantEntity } from './base.entity.js';
import { DecimalCol, GuidRef, IntRef } from '../columns.js';
import { PeriodEntity } from './period.entity.js';
import { MetricEntity } from './metric.entity.js';

/**
 * The actual value of a metric in one period. One row per (metric, period), held by a unique
 * index, so two concurrent writes of the same value leave one row.
 */
@Entity('metric_values')
@Index('ux_metric_values_site_metric_period', ['siteId', 'metricId', 'periodId'], { unique: true })
@Index('ix_metric_values_site_period', ['siteId', 'periodId'])
export class MetricValueEntity extends GuidTenantEntity {
  @GuidRef(() => MetricEntity, 'fk_metric_values_metric', 'metric_id')
  metricId: string;

  @IntRef(() => PeriodEntity, 'fk_metric_values_period', 'period_id')
  periodId: number;

  @DecimalCol('actual', { nullable: false })
  actual: number;
}
