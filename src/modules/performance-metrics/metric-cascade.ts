import { In } from 'typeorm';
import type { ByReference } from '../../database/by-reference.js';
import { inChunks, type OwnedRows } from '../../database/soft-delete.js';
import type { TenantTx } from '../../database/tenant-db.js';
import { MetricEntity, MetricKind } from '../../database/entities/metric.entity.js';

/**
 * Soft delete by reference for the owners of metrics (individuals, projects): called through the
 * by-reference registry (src/database/by-reference.ts, registered by PerformanceMetricsModule) in the transaction of the owner's own
 * delete / undelete. Each answers the ids of the metrics it changed, so what those metrics own
 * (their comments) can follow them.
 */
export async function deleteMetricsByRef(tx: TenantTx, kind: MetricKind, ancestorIds: readonly string[]): Promise<string[]> {
  if (ancestorIds.length === 0) return [];
  const repo = tx.repo(MetricEntity, 'Metric');
  const live = await repo.find({ where: { kind, ancestorId: In([...ancestorIds]), deleted: false }, select: { id: true } });
  const ids = live.map((m) => m.id);
  await inChunks(ids, (chunk) => repo.updateWhere({ id: In(chunk) }, { deleted: true, deletedByRef: true }));
  return ids;
}

/** Restores exactly the metrics of these owners that a take-down marked (DeletedByRef). */
export async function undeleteMetricsByRef(tx: TenantTx, kind: MetricKind, ancestorIds: readonly string[]): Promise<string[]> {
  if (ancestorIds.length === 0) return [];
  const repo = tx.repo(MetricEntity, 'Metric');
  const taken = await repo.find({ where: { kind, ancestorId: In([...ancestorIds]), deletedByRef: true }, select: { id: true } });
  const ids = taken.map((m) => m.id);
  await inChunks(ids, (chunk) => repo.updateWhere({ id: In(chunk) }, { deleted: false, deletedByRef: false }));
  return ids;
}

/**
 * The metrics whose AncestorID is the owner, and what each of those metrics owns in turn
 * (`ownedBy('metric')` of the registry), restored together.
 */
export function metricsOf(kind: MetricKind, byReference: ByReference): OwnedRows {
  return {
    name: `metrics (${kind}) and what they own`,
    async takeDown(tx, ids) {
      const metricIds = await deleteMetricsByRef(tx, kind, ids);
      for (const owned of byReference.ownedBy('metric')) await inChunks(metricIds, (chunk) => owned.takeDown(tx, chunk));
    },
    async restore(tx, ids) {
      const metricIds = await undeleteMetricsByRef(tx, kind, ids);
      for (const owned of byReference.ownedBy('metric')) await inChunks(metricIds, (chunk) => owned.restore(tx, chunk));
    },
  };
}
