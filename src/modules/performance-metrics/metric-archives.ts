import { In } from 'typeorm';
import { toJsonValue } from '../../http/wire/codec.js';
import type { TenantTx } from '../../database/tenant-db.js';
import type { ArchiveDraft, ArchiveWriter } from '../../database/archive-writers.js';
import type { PeriodEntity } from '../../database/entities/period.entity.js';
import { Metric } from './dto/metric.dto.js';
import { MetricValueEntity } from '../../database/entities/metric-value.entity.js';
import { MetricEntity } from '../../database/entities/metric.entity.js';
import { valuesByMetric } from './metric-values.js';

/** Metrics read per query when a period closes (a bound-parameter list well inside every driver's limit). */
const CHUNK = 1000;

/**
 * The archive writer of metrics (docs/metrics-archives.md): when a period closes, one archive per
 * live metric with a value in that period, filed under the metric's individual or project, whose
 * Snapshot is the Metric as GET /metrics/{id} answers it in JSON at that moment, all Values
 * included.
 */
export const metricArchives: ArchiveWriter = {
  itemType: 'metric',
  async archivesOf(tx: TenantTx, period: PeriodEntity): Promise<ArchiveDraft[]> {
    const valueRows = await tx.repo(MetricValueEntity, 'MetricValue').find({ where: { periodId: period.id }, select: { metricId: true } });
    const ids = [...new Set(valueRows.map((v) => v.metricId))];
    const drafts: ArchiveDraft[] = [];
    for (let i = 0; i < ids.length; i += CHUNK) {
      const metrics = await tx
        .repo(MetricEntity, 'Metric')
        .find({ where: { id: In(ids.slice(i, i + CHUNK)), deleted: false }, order: { name: 'ASC', id: 'ASC' } });
      const values = await valuesByMetric(
        tx.repo(MetricValueEntity, 'MetricValue'),
        metrics.map((m) => m.id),
      );
      for (const m of metrics) {
        const wire = Metric.toWire(m, { values: values.get(m.id) ?? [] });
        drafts.push({ ancestorId: m.ancestorId, ancestorType: m.kind, itemId: m.id, name: m.name, snapshot: JSON.stringify(toJsonValue(wire)) });
      }
    }
    return drafts;
  },
};
