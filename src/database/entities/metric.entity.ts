import { Entity, Index } from 'typeorm';
import { GuidTenantEntity } from './base.entity.js';
import { BoolCol, DecimalCol, GuidCol, StrCol } from '../columns.js';
import { LIMITS } from '../../common/limits.js';

/** What a metric's AncestorID names: an individual or a project (docs/metrics-archives.md). */
export const METRIC_KINDS = ['individual', 'project'] as const;
export type MetricKind = (typeof METRIC_KINDS)[number];

/**
 * A performance metric of an individual or a project (the Metric resource; not the Prometheus
 * scrape endpoint). Its actual values, one per period, live in `metric_values`.
 */
@Entity('metrics')
@Index('ix_metrics_site_ancestor', ['siteId', 'kind', 'ancestorId', 'deleted', 'name'])
@Index('ix_metrics_site_name', ['siteId', 'deleted', 'name'])
// Behind the fields lists may be filtered and sorted on (docs/queries.md; migration 1732000002620).
@Index('ix_metrics_site_8020', ['siteId', 'deleted', 'is8020', 'name'])
@Index('ix_metrics_site_target', ['siteId', 'deleted', 'target'])
@Index('ix_metrics_site_ancestor_8020', ['siteId', 'kind', 'ancestorId', 'deleted', 'is8020', 'name'])
@Index('ix_metrics_site_ancestor_target', ['siteId', 'kind', 'ancestorId', 'deleted', 'target'])
export class MetricEntity extends GuidTenantEntity {
  @StrCol('kind', 20, { nullable: false })
  kind: MetricKind;

  @GuidCol('ancestor_id')
  ancestorId: string;

  @StrCol('name', LIMITS.name, { nullable: false })
  name: string;

  @BoolCol('is_8020', false)
  is8020: boolean;

  @DecimalCol('target')
  target: number | null;

  @BoolCol('higher_is_better', true)
  higherIsBetter: boolean;

  @BoolCol('deleted', false)
  deleted: boolean;

  @BoolCol('deleted_by_ref', false)
  deletedByRef: boolean;
}
