import { randomUUID } from 'node:crypto';
import { ArchiveEntity } from '../../src/database/entities/archive.entity.js';
import { MetricValueEntity } from '../../src/database/entities/metric-value.entity.js';
import { MetricEntity } from '../../src/database/entities/metric.entity.js';
import { createPeriod, DAY } from '../factories/goals.js';
import { createPerson, createSite, TestPerson, TestSite } from '../factories/index.js';
import { MetricJson } from '../factories/metrics.js';
import { bearer, NO_BACKGROUND_ROUNDS, startApp, TestApp } from './harness.js';

const METRICS = 1200;
const PERIODS = 3;
const CHUNK = 200;

/**
 * Lists of metrics (each with its values) and of archives cost a fixed number of SQL statements,
 * whatever the page size: the values of a whole page come in one query.
 */
describe('metric and archive lists on a large site', () => {
  let t: TestApp;
  let site: TestSite;
  let owner: TestPerson;
  let manager: TestPerson;
  let periodIds: number[];

  async function countQueries<R>(fn: () => Promise<R>): Promise<{ result: R; queries: number }> {
    const proto = Object.getPrototypeOf(t.ds.createQueryRunner()) as { query: (...args: unknown[]) => Promise<unknown> };
    const original = proto.query;
    let queries = 0;
    proto.query = function (this: unknown, ...args: unknown[]) {
      queries++;
      return original.apply(this, args);
    };
    try {
      return { result: await fn(), queries };
    } finally {
      proto.query = original;
    }
  }

  beforeAll(async () => {
    t = await startApp(NO_BACKGROUND_ROUNDS);
    site = await createSite(t, { name: 'Large metrics' });
    manager = await createPerson(t, site, { firstName: 'Mana', lastName: 'Ger' });
    owner = await createPerson(t, site, { firstName: 'Owen', lastName: 'Er', reportsTo: manager.individualId });
    periodIds = [];
    for (let p = 0; p < PERIODS; p++) {
      const start = Date.UTC(2024 + p, 0, 1);
      periodIds.push((await createPeriod(t, site.siteId, { name: `FY ${2024 + p}`, start: new Date(start), end: new Date(start + 364 * DAY) })).id);
    }
    const now = new Date();
    const audit = { siteId: site.siteId, created: now, createdBy: null, updated: now, updatedBy: null, version: 1 };
    for (let start = 0; start < METRICS; start += CHUNK) {
      const metrics = Array.from({ length: Math.min(CHUNK, METRICS - start) }, (_, k) => ({
        ...audit,
        id: randomUUID(),
        kind: 'individual' as const,
        ancestorId: owner.individualId,
        name: `KPI ${String(start + k).padStart(5, '0')}`,
        is8020: (start + k) % 5 === 0,
        target: 100,
        higherIsBetter: true,
        deleted: false,
        deletedByRef: false,
      }));
      await t.ds.createQueryBuilder().insert().into(MetricEntity).values(metrics).updateEntity(false).execute();
      const values = metrics.flatMap((m, k) =>
        periodIds.map((periodId, p) => ({ ...audit, id: randomUUID(), metricId: m.id, periodId, actual: start + k + p + 0.5 })),
      );
      for (let i = 0; i < values.length; i += CHUNK) {
        await t.ds
          .createQueryBuilder()
          .insert()
          .into(MetricValueEntity)
          .values(values.slice(i, i + CHUNK))
          .updateEntity(false)
          .execute();
      }
      const archives = metrics.map((m) => ({
        ...audit,
        id: randomUUID(),
        ancestorId: owner.individualId,
        ancestorType: 'individual' as const,
        itemId: m.id,
        itemType: 'metric' as const,
        periodId: periodIds[0],
        name: m.name,
        snapshot: '{}',
      }));
      await t.ds.createQueryBuilder().insert().into(ArchiveEntity).values(archives).updateEntity(false).execute();
    }
  }, 120_000);
  afterAll(async () => {
    await t.close();
  });

  const get = (path: string, who: TestPerson) => t.http().get(path).set('Authorization', bearer(who.token));

  it('reads a page of 500 metrics with their values in as many queries as a page of 5', async () => {
    for (const [path, who] of [
      [`/v4/individuals/${owner.individualId}/metrics`, manager],
      [`/v4/sites/${site.siteId}/metrics`, site.admin],
      ['/v4/me/metrics', owner],
    ] as const) {
      await get(`${path}?limit=1`, who).expect(200); // the caller is resolved once per token, then cached
      const small = await countQueries(() => get(`${path}?limit=5`, who).expect(200));
      const big = await countQueries(() => get(`${path}?limit=500`, who).expect(200));
      const rows = big.result.body as MetricJson[];
      expect(rows).toHaveLength(500);
      expect(big.result.headers['x-total-count']).toBe(String(METRICS));
      expect(rows.every((m) => m.Values.length === PERIODS && m.Values.map((v) => v.PeriodID).join() === periodIds.join())).toBe(true);
      expect(rows[499]).toMatchObject({ Name: 'KPI 00499', Values: [{ Actual: 499.5 }, { Actual: 500.5 }, { Actual: 501.5 }] });
      expect(big.queries).toBe(small.queries);
      // count + page + values (+ the individual and the reporting chain for /individuals/{id})
      expect(big.queries).toBeLessThanOrEqual(6);
    }
  });

  it('reads a page of 500 archives in as many queries as a page of 5', async () => {
    const path = `/v4/individuals/${owner.individualId}/archives`;
    await get(`${path}?limit=1`, manager).expect(200); // warm the caller cache
    const small = await countQueries(() => get(`${path}?limit=5`, manager).expect(200));
    const big = await countQueries(() => get(`${path}?limit=500`, manager).expect(200));
    expect(big.result.body).toHaveLength(500);
    expect(big.result.headers['x-total-count']).toBe(String(METRICS));
    expect(big.queries).toBe(small.queries);
    expect(big.queries).toBeLessThanOrEqual(6);
  });

  it('closes a period with 1,200 metric values in a handful of statements', async () => {
    const { result, queries } = await countQueries(() =>
      t.http().put(`/v4/periods/${periodIds[1]}/close`).set('Authorization', bearer(site.admin.token)).expect(200),
    );
    expect(result.body.Closed).toBe(true);
    expect(await t.ds.getRepository(ArchiveEntity).count({ where: { periodId: periodIds[1], itemType: 'metric' } })).toBe(METRICS);
    // Metrics: caller, period lock, value ids, metrics and their values per 1,000 (2 × 2), existing
    // archives, inserts per 200 rows (6), the period update and read-back, transaction statements:
    // 19 today. Dashboards (docs/dashboards.md), per batch of 500 rows: settings, colors, the live
    // individuals and units, per kind their rows and aggregate statements, existing archives, an
    // insert: 11 for this small site. The audit trail (docs/audit.md): the site's change sequence,
    // then the changed rows per 400: 5 for these 1,200 archives and the period.
    expect(queries).toBeLessThanOrEqual(39);
  });
});
