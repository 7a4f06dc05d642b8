import { MAX_LIMIT } from '../../http/wire/pagination.js';
import type { ScopedRepository } from '../../database/tenant-db.js';
import { PeriodEntity } from '../../database/entities/period.entity.js';
import { MetricValue, MetricValueDto } from './dto/metric.dto.js';
import type { MetricValueEntity } from '../../database/entities/metric-value.entity.js';

/**
 * The values of these metrics, by metric id, each list ordered by its period's StartDate (then
 * period id). One query for any page (up to MAX_LIMIT metrics), so a page of 500 metrics costs
 * the same number of queries as a page of 5.
 */
export async function valuesByMetric(values: ScopedRepository<MetricValueEntity>, metricIds: readonly string[]): Promise<Map<string, MetricValueDto[]>> {
  const out = new Map<string, MetricValueDto[]>();
  const ids = [...new Set(metricIds)];
  for (let i = 0; i < ids.length; i += MAX_LIMIT) {
    const rows = await values
      .qb('v')
      .innerJoin(PeriodEntity, 'p', 'p.id = v.periodId AND p.siteId = v.siteId')
      .andWhere('v.metricId IN (:...ids)', { ids: ids.slice(i, i + MAX_LIMIT) })
      .orderBy('v.metricId', 'ASC')
      .addOrderBy('p.startDate', 'ASC')
      .addOrderBy('p.id', 'ASC')
      .getMany();
    for (const row of rows) {
      let list = out.get(row.metricId);
      if (!list) out.set(row.metricId, (list = []));
      list.push(MetricValue.toWire(row));
    }
  }
  return out;
}
