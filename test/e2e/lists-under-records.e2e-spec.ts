import { bearer, DB_KIND, startApp, statementsOf, TestApp, NO_BACKGROUND_ROUNDS } from './harness.js';
import { createPerson, createSite, TestPerson, TestSite } from '../factories/index.js';
import { createPeriod, createUnit, DAY } from '../factories/goals.js';
import { RequestContext } from '../../src/common/context/request-context.js';
import { TenantDb } from '../../src/database/tenant-db.js';
import { GoalEntity } from '../../src/database/entities/goal.entity.js';
import { PeriodEntity } from '../../src/database/entities/period.entity.js';
import { setTimeout as sleep } from 'node:timers/promises';

/**
 * A list under a record (an individual's goals, the comments on a record) reads that record with
 * its page in one statement, and a period-scoped list picks its default period from the site's
 * kept periods (docs/performance.md, "Lists under a record", "The site's periods"): the answers
 * are those of a check before the page — 404 for a record that is not the site's, an empty page
 * past the end — and a change of the site's periods shows on the next request.
 */
describe('lists under a record, and the site’s periods', () => {
  let t: TestApp;
  let site: TestSite;
  let other: TestSite;
  let ana: TestPerson;
  let outsider: TestPerson;
  let current: number;

  beforeAll(async () => {
    t = await startApp({ ...NO_BACKGROUND_ROUNDS });
    site = await createSite(t, { name: 'Acme' });
    other = await createSite(t, { name: 'Globex' });
    ana = await createPerson(t, site, { firstName: 'Ana', lastName: 'Ortiz' });
    outsider = await createPerson(t, site, { firstName: 'Oli', lastName: 'Stone' });
    const now = Date.now();
    current = (await createPeriod(t, site.siteId, { name: 'Current', start: new Date(now - 100 * DAY), end: new Date(now + 100 * DAY) })).id;
    for (const name of ['First', 'Second']) await createGoal(ana.individualId, current, name);
  });
  afterAll(() => t.close());

  const admin = () => bearer(site.admin.token);
  const get = (path: string, token = site.admin.token) => t.http().get(path).set('Authorization', bearer(token));

  /** A goal straight through the data layer, due on a fixed day. */
  function createGoal(individualId: string, periodId: number, name: string) {
    return t.app
      .get(TenantDb)
      .repo(RequestContext.system(site.siteId), GoalEntity)
      .insert({ individualId, periodId, name, completed: false, comment: '', why: '', dueDate: new Date(Date.UTC(2026, 5, 1)) });
  }

  const names = (body: { Name: string }[]) => body.map((g) => g.Name);

  it('an individual’s goals: one statement once the site’s periods are kept, FullName from the individual', async () => {
    await get(`/v4/individuals/${ana.individualId}/goals`).expect(200);
    let res: { body: { Name: string; FullName: string }[] } | undefined;
    const { statements } = await statementsOf(t, async () => (res = await get(`/v4/individuals/${ana.individualId}/goals`).expect(200)));
    expect(statements).toHaveLength(1);
    expect(statements[0]).toMatch(/FROM [`"]goals[`"] t (FORCE INDEX \(`ix_goals_site_individual_period`\) )?JOIN [`"]individuals[`"] a ON/);
    // MariaDB is named the list's own index (docs/performance.md, "The list's own index").
    if (DB_KIND === 'mysql') expect(statements[0]).toContain('FORCE INDEX (`ix_goals_site_individual_period`)');
    expect(names(res!.body)).toEqual(['First', 'Second']);
    expect(res!.body.map((g) => g.FullName)).toEqual(['Ana Ortiz', 'Ana Ortiz']);
  });

  it('comments on a record: its check and the page, with the authors’ kept names, in one statement', async () => {
    await t
      .http()
      .post('/v4/comments')
      .set('Authorization', admin())
      .send({ AncestorType: 'individuals', AncestorID: ana.individualId, Body: 'hi' })
      .expect(200);
    const { statements } = await statementsOf(t, () => get(`/v4/individuals/${ana.individualId}/comments`).expect(200));
    expect(statements).toHaveLength(1);
    expect(statements[0]).toMatch(
      /\(SELECT a\.[`"]id[`"] AS [`"]__anchor_id[`"] FROM [`"]individuals[`"] a WHERE .*\) AS [`"]__anchor_id[`"] FROM [`"]comments[`"] t (FORCE INDEX \(`ix_comments_site_ancestor_last`\) )?WHERE /,
    );
    if (DB_KIND === 'mysql') expect(statements[0]).toContain('FORCE INDEX (`ix_comments_site_ancestor_last`)');
  });

  it('an individual with nothing listed is an empty page; an id that is not the site’s individual is a 404', async () => {
    // An empty page tells nothing of the individual: it is read alone after it (the site's periods
    // are kept by the first request: the last test wrote a comment in the site).
    await get(`/v4/individuals/${outsider.individualId}/goals`).expect(200);
    const { result: empty, statements } = await statementsOf(t, () => get(`/v4/individuals/${outsider.individualId}/goals`).expect(200));
    expect(statements).toHaveLength(2);
    expect(empty.body).toEqual([]);
    expect(empty.headers['x-total-count']).toBe('0');
    expect((await get(`/v4/individuals/${outsider.individualId}/comments`).expect(200)).body).toEqual([]);
    for (const id of [other.admin.individualId, '00000000-0000-4000-8000-00000000abcd']) {
      for (const list of ['goals', 'comments']) {
        const res = await get(`/v4/individuals/${id}/${list}`).expect(404);
        expect(res.body.detail).toMatch(/Individual/);
      }
    }
  });

  it('a page past the end of the list is empty for an individual of the site and a 404 for any other id', async () => {
    const past = await get(`/v4/individuals/${ana.individualId}/goals?offset=50&limit=10`).expect(200);
    expect(past.body).toEqual([]);
    expect(past.headers['x-total-count']).toBe('2');
    expect((await get(`/v4/individuals/${ana.individualId}/goals?offset=1&limit=10`).expect(200)).body.map((g: { Name: string }) => g.Name)).toEqual([
      'Second',
    ]);
    expect((await get(`/v4/individuals/${ana.individualId}/comments?offset=50`).expect(200)).body).toEqual([]);
    await get(`/v4/individuals/${other.admin.individualId}/goals?offset=50&limit=10`).expect(404);
    await get(`/v4/individuals/${other.admin.individualId}/comments?offset=50`).expect(404);
  });

  it('a record of the wrong kind is no anchor: a department’s id under organizations is a 404', async () => {
    const dept = await createUnit(t, site.siteId, { name: 'Sales', department: true, parentId: site.orgId });
    await get(`/v4/departments/${dept.id}/comments`).expect(200);
    await get(`/v4/organizations/${dept.id}/comments`).expect(404);
    await get(`/v4/organizations/${dept.id}/comments?offset=5`).expect(404);
  });

  it('someone who may not read the goals gets 403, before an unknown period is named', async () => {
    await get(`/v4/individuals/${ana.individualId}/goals`, outsider.token).expect(403);
    await get(`/v4/individuals/${ana.individualId}/goals?period=987654`, outsider.token).expect(403);
    const unknown = await get(`/v4/individuals/${ana.individualId}/goals?period=987654`).expect(404);
    expect(unknown.body.detail).toMatch(/Period/);
    await get(`/v4/individuals/${other.admin.individualId}/goals?period=987654`).expect(404);
  });

  it('the default period follows the site’s periods at once: a newer current period, its deletion, an explicit one', async () => {
    expect(names((await get(`/v4/individuals/${ana.individualId}/goals`).expect(200)).body)).toEqual(['First', 'Second']);
    const now = Date.now();
    const quarter = (
      await t
        .http()
        .post('/v4/periods')
        .set('Authorization', admin())
        .send({ Name: 'Quarter', StartDate: new Date(now - 10 * DAY).toISOString(), EndDate: new Date(now + 10 * DAY).toISOString(), Closed: false })
        .expect(200)
    ).body.ID as number;
    // The quarter started later than the year: it is the default now, and it has no goals yet.
    expect((await get(`/v4/individuals/${ana.individualId}/goals`).expect(200)).body).toEqual([]);
    await createGoal(ana.individualId, quarter, 'Quarterly');
    expect(names((await get(`/v4/individuals/${ana.individualId}/goals`).expect(200)).body)).toEqual(['Quarterly']);
    expect(names((await get(`/v4/individuals/${ana.individualId}/goals?period=${current}`).expect(200)).body)).toEqual(['First', 'Second']);
    // Moved into the past, the quarter is no longer the default.
    const q = await get(`/v4/periods/${quarter}`).expect(200);
    await t
      .http()
      .put(`/v4/periods/${quarter}`)
      .set('Authorization', admin())
      .set('If-Match', q.headers.etag)
      .send({ ...q.body, StartDate: new Date(now - 300 * DAY).toISOString(), EndDate: new Date(now - 250 * DAY).toISOString() })
      .expect(200);
    expect(names((await get(`/v4/individuals/${ana.individualId}/goals`).expect(200)).body)).toEqual(['First', 'Second']);
    expect(names((await get(`/v4/individuals/${ana.individualId}/goals?period=${quarter}`).expect(200)).body)).toEqual(['Quarterly']);
  });

  it('shows a period written around the service within LIST_TOTAL_CACHE_MS, and at once with 0', async () => {
    const now = Date.now();
    const around = (name: string) =>
      t.ds.getRepository(PeriodEntity).insert({
        siteId: site.siteId,
        name,
        startDate: new Date(now - 5 * DAY),
        endDate: new Date(now + 5 * DAY),
        closed: false,
        created: new Date(),
        updated: new Date(),
        version: 1,
      } as PeriodEntity);
    try {
      t.config.listTotalCacheMs = 600;
      expect(names((await get(`/v4/individuals/${ana.individualId}/goals`).expect(200)).body)).toEqual(['First', 'Second']);
      // A week that started after the year began, inserted in SQL: nothing was written through the service.
      const week = (await around('Week')).identifiers[0].id as number;
      expect(names((await get(`/v4/individuals/${ana.individualId}/goals`).expect(200)).body)).toEqual(['First', 'Second']);
      await sleep(700);
      expect((await get(`/v4/individuals/${ana.individualId}/goals`).expect(200)).body).toEqual([]);
      t.config.listTotalCacheMs = 0;
      await t.ds.getRepository(PeriodEntity).delete({ id: week });
      expect(names((await get(`/v4/individuals/${ana.individualId}/goals`).expect(200)).body)).toEqual(['First', 'Second']);
    } finally {
      t.config.listTotalCacheMs = 2000;
    }
  });
});
