import { MetricValueEntity } from '../../src/database/entities/metric-value.entity.js';
import { MetricEntity } from '../../src/database/entities/metric.entity.js';
import { ArchiveEntity } from '../../src/database/entities/archive.entity.js';
import { bearer, TestApp } from '../e2e/harness.js';

/** The JSON shape of a Metric answer. */
export interface MetricJson {
  ID: string;
  Kind: 'individual' | 'project';
  AncestorID: string;
  Name: string;
  Is8020: boolean;
  Target: number | null;
  HigherIsBetter: boolean;
  Values: { PeriodID: number; Actual: number }[];
  SiteID: string;
  Deleted: boolean;
  DeletedByRef: boolean;
  Created: string;
  CreatedBy: string | null;
  Updated: string;
  UpdatedBy: string | null;
}

/** Creates a metric through the API as the holder of `token`. */
export async function createMetric(
  t: TestApp,
  token: string,
  body: { Kind: 'individual' | 'project'; AncestorID: string; Name?: string } & Record<string, unknown>,
): Promise<MetricJson> {
  const res = await t
    .http()
    .post('/v4/metrics')
    .set('Authorization', bearer(token))
    .send({ Name: 'Metric', ...body });
  if (res.status !== 200) throw new Error(`metric create failed: ${res.status} ${res.text}`);
  return res.body as MetricJson;
}

/** Sets a metric's value of a period through the API; answers the metric. */
export async function putValue(t: TestApp, token: string, metricId: string, periodId: number, actual: number): Promise<MetricJson> {
  const res = await t.http().put(`/v4/metrics/${metricId}/values/${periodId}`).set('Authorization', bearer(token)).send({ Actual: actual });
  if (res.status !== 200) throw new Error(`metric value failed: ${res.status} ${res.text}`);
  return res.body as MetricJson;
}

/** Stored rows, read around the API. */
export const metricRow = (t: TestApp, id: string) => t.ds.getRepository(MetricEntity).findOneBy({ id });
export const valueRows = (t: TestApp, metricId: string) => t.ds.getRepository(MetricValueEntity).find({ where: { metricId }, order: { periodId: 'ASC' } });
/** The metric archives of a period (closing a period archives the dashboards too: docs/dashboards.md). */
export const archiveRows = (t: TestApp, periodId: number) =>
  t.ds.getRepository(ArchiveEntity).find({ where: { periodId, itemType: 'metric' }, order: { name: 'ASC' } });
