import { randomUUID } from 'node:crypto';
import { DB_KIND, NO_BACKGROUND_ROUNDS, startApp, statementsOf, TestApp } from './harness.js';
import { createSite, TestSite } from '../factories/index.js';
import { RequestContext } from '../../src/common/context/request-context.js';
import { IndividualEntity } from '../../src/database/entities/individual.entity.js';
import { TenantDb } from '../../src/database/tenant-db.js';
import { liveRows } from '../../src/modules/dashboards/dashboard-summaries.statements.js';

/**
 * A statement that reads some rows by a list of ids reads those rows, not the site
 * (docs/performance.md, "Id lists"). The case that broke it: a nightly feed grows a site by
 * thousands of people a minute, faster than the database refreshes its table statistics, and past
 * 200 values an `IN (…)` list was planned from those statistics. Statistics taken while the site
 * was small made MariaDB read the whole site through `(site_id, deleted)` for 500 ids. Here the
 * statistics are taken while the site is small and then kept (STATS_AUTO_RECALC=0 on this test's
 * own database), the site grows to 3,000 people, and the summary builder's look-up of 500 of them
 * is run on a connection of the service's pool, counting the index rows the server read.
 */
describe(`an id list reads its own rows, also when the table's statistics are stale (${DB_KIND})`, () => {
  let t: TestApp;
  let small: TestSite;
  const grown: string[] = [];

  const people = (siteId: string, n: number) =>
    Array.from({ length: n }, (_, i) => ({
      id: randomUUID(),
      siteId,
      firstName: `F${i}`,
      lastName: `L${i}`,
      created: new Date(),
      updated: new Date(),
    }));
  const insert = async (rows: ReturnType<typeof people>) => {
    for (let i = 0; i < rows.length; i += 500) await t.ds.getRepository(IndividualEntity).insert(rows.slice(i, i + 500));
  };

  beforeAll(async () => {
    t = await startApp({ ...NO_BACKGROUND_ROUNDS });
    small = await createSite(t);
    const other = await createSite(t);
    await insert(people(other.siteId, 2000));
    await insert(people(small.siteId, 10));
    if (DB_KIND === 'mysql') {
      await t.ds.query('ALTER TABLE individuals STATS_AUTO_RECALC = 0');
      await t.ds.query('ANALYZE TABLE individuals');
    }
    const added = people(small.siteId, 3000);
    await insert(added);
    grown.push(...added.map((p) => p.id));
  });
  afterAll(() => t?.close());

  /** The index and table rows the server read for `text` on one pooled connection (MySQL/MariaDB's handler counters). */
  async function rowsRead(text: string, params: unknown[]): Promise<{ read: number; answered: number }> {
    const runner = t.ds.createQueryRunner();
    await runner.connect();
    try {
      const counters = async () => {
        const rows = (await runner.query("SHOW SESSION STATUS WHERE Variable_name IN ('Handler_read_key', 'Handler_read_next', 'Handler_read_rnd_next')")) as {
          Value: string;
        }[];
        return rows.reduce((n, r) => n + Number(r.Value), 0);
      };
      const first = await counters();
      const idle = (await counters()) - first; // what reading the counters itself reads
      const before = await counters();
      const answered = ((await runner.query(text, params)) as unknown[]).length;
      return { read: (await counters()) - before - idle, answered };
    } finally {
      await runner.release();
    }
  }

  it('the summary builder’s look-up of 500 people reads about 500 index rows, not the 3,010 of their site', async () => {
    const db = t.app.get(TenantDb);
    const ctx = RequestContext.system(small.siteId);
    const asked = grown.slice(1000, 1500);
    const { result, statements, parameters } = await statementsOf(t, () => liveRows(db, ctx, 'individuals', asked));
    expect(new Set(result.map((r) => r.id))).toEqual(new Set(asked));
    expect(statements).toHaveLength(1);
    if (DB_KIND === 'mysql') {
      const { read, answered } = await rowsRead(statements[0], parameters[0]);
      expect(answered).toBe(500);
      // A range over the 500 ids reads one index entry each (and at most one more per range); the
      // plan from stale statistics read the site's 3,010 entries.
      expect(read).toBeLessThanOrEqual(1000);
    } else {
      // SQLite plans from the fixed statistics the service writes at start (sqlite-planner-stats.ts):
      // the ids by the primary key, not the site by an index that starts with site_id.
      const plan = (await t.ds.query(`EXPLAIN QUERY PLAN ${statements[0]}`, parameters[0])) as { detail: string }[];
      expect(plan.map((r) => r.detail)).toEqual([expect.stringMatching(/^SEARCH individuals USING INDEX sqlite_autoindex_individuals_1 \(id=\?\)$/)]);
    }
  });
});
