import { In } from 'typeorm';
import type { ByReference } from '../../database/by-reference.js';
import { inChunks, markFoundByRef, type ByRefChange, type OwnedRows } from '../../database/soft-delete.js';
import type { TenantTx } from '../../database/tenant-db.js';
import { MetricEntity, MetricKind } from '../../database/entities/metric.entity.js';

/**
 * Soft delete by reference for the owners of metrics (individuals, projects), in the transaction
 * of the owner's own delete / undelete (an entry of the by-reference registry,
 * src/database/by-reference.ts, registered by PerformanceMetricsModule). Answers the ids of the
 * metrics it changed, so what those metrics own (their comments) can follow them.
 */
function markMetricsByRef(tx: TenantTx, kind: MetricKind, ancestorIds: readonly string[], change: ByRefChange): Promise<string[]> {
  if (ancestorIds.length === 0) return Promise.resolve([]);
  return markFoundByRef(tx.repo(MetricEntity, 'Metric'), { kind, ancestorId: In([...ancestorIds]) }, change);
}

/**
 * The metrics whose AncestorID is the owner, and what each of those metrics owns in turn
 * (`ownedBy('metric')` of the registry), restored together.
 */
export function metricsOf(kind: MetricKind, byReference: ByReference): OwnedRows {
  const mark = async (tx: TenantTx, ids: readonly string[], change: ByRefChange) => {
    const metricIds = await markMetricsByRef(tx, kind, ids, change);
    for (const owned of byReference.ownedBy('metric')) await inChunks(metricIds, (chunk) => owned[change](tx, chunk));
  };
  return {
    name: `metrics (${kind}) and what they own`,
    takeDown: (tx, ids) => mark(tx, ids, 'takeDown'),
    restore: (tx, ids) => mark(tx, ids, 'restore'),
  };
}
