import { randomUUID } from 'node:crypto';
import { RequestContext } from '../../src/common/context/request-context.js';
import { ArchiveEntity } from '../../src/database/entities/archive.entity.js';
import { TenantDb } from '../../src/database/tenant-db.js';
import { operatorsOf } from '../../src/http/wire/list-query.js';
import { Archive } from '../../src/modules/archives/dto/archive.dto.js';
import { createPerson, createSite, TestPerson, TestSite } from '../factories/index.js';
import { createPeriod, createUnit } from '../factories/goals.js';
import { createProject } from '../factories/performance.js';
import { denyRead } from '../factories/permissions.js';
import { bearer, DB_KIND, startApp, TestApp } from './harness.js';
import {
  type Case,
  cursorsUnderChurn,
  expectCsvLikeJson,
  expectFields,
  expectFilterCases,
  expectRefusals,
  expectSorts,
  getAs,
  grammarCases,
  ids,
  type Json,
  sortCompare,
} from './list-query-grammar.js';

/**
 * `filter=`, `sort=`, `fields=` and `cursor=` on the archive lists (docs/queries.md): an
 * individual's (`GET /v4/individuals/{id}/archives`: the individual, those above them,
 * administrators), a unit's (`GET /v4/organizations/{id}/archives`: every member unless a Deny hides
 * the unit) and a project's metrics' (`GET /v4/projects/{id}/metricArchives`), with `period`. Every
 * operator on every filterable field (guid, int, string) against the same filter in JavaScript, in
 * JSON and XML; the caller's right, another record's and another site's archives before the filter
 * and the total; keyset paging while others insert and delete; the CSV export; 400 problems.
 */
describe(`list queries on archives (${DB_KIND})`, () => {
  let t: TestApp;
  let acme: TestSite;
  let globex: TestSite;
  let manager: TestPerson;
  let worker: TestPerson;
  let peer: TestPerson;
  let unit: string;
  let hidden: string;
  let project: string;
  const periods: number[] = [];
  /** The worker's archives as their manager reads them, the unit's, the project's metrics'. */
  let all: Json[];
  let ofUnit: Json[];
  let ofProject: Json[];
  const elsewhere: string[] = [];

  const get = (path: string, token: string, xml = false) => getAs(t, path, token, xml);
  const as = (token: string) => (path: string, xml: boolean) => get(path, token, xml);
  const q = (s: string) => encodeURIComponent(s);
  const ofWorker = () => `/v4/individuals/${worker.individualId}/archives`;
  const repo = (siteId = acme.siteId) => t.app.get(TenantDb).repo(RequestContext.system(siteId), ArchiveEntity);
  const archive = (
    ancestorId: string,
    ancestorType: ArchiveEntity['ancestorType'],
    periodId: number,
    i: number,
    itemType: ArchiveEntity['itemType'] = 'metric',
  ) => ({
    ancestorId,
    ancestorType,
    itemId: randomUUID(),
    itemType,
    periodId,
    name: `${['Revenue', 'churn rate', 'NPS', 'revenue per head', 'Hires'][i % 5]} ${i % 3}`,
    snapshot: JSON.stringify({ n: i }),
  });

  beforeAll(async () => {
    t = await startApp();
    acme = await createSite(t, { pm: true });
    globex = await createSite(t, { pm: true });
    manager = await createPerson(t, acme, { firstName: 'Mana', lastName: 'Ger' });
    worker = await createPerson(t, acme, { firstName: 'Wor', lastName: 'Ker', reportsTo: manager.individualId });
    peer = await createPerson(t, acme, { firstName: 'Pe', lastName: 'Er' });
    const day = 86400_000;
    for (let k = 0; k < 4; k++) {
      const start = new Date(Date.UTC(2024, 0, 1) + k * 100 * day);
      periods.push((await createPeriod(t, acme.siteId, { name: `P${k}`, start, end: new Date(start.getTime() + 90 * day), closed: true })).id);
    }
    unit = (await createUnit(t, acme.siteId, { name: 'Sales', department: true })).id;
    hidden = (await createUnit(t, acme.siteId, { name: 'Board', department: true })).id;
    project = (await createProject(t, acme.admin.token, { OwnerID: worker.individualId, Name: 'Launch' })).ID;
    let i = 0;
    for (const p of periods) {
      for (let k = 0; k < 5; k++) await repo().insert(archive(worker.individualId, 'individual', p, i++));
      await repo().insert(archive(worker.individualId, 'individual', p, i++, 'dashboard'));
      for (let k = 0; k < 2; k++) await repo().insert(archive(unit, 'department', p, i++, 'dashboard'));
      await repo().insert(archive(hidden, 'department', p, i++, 'dashboard'));
      for (let k = 0; k < 3; k++) await repo().insert(archive(project, 'project', p, i++));
      elsewhere.push((await repo().insert(archive(manager.individualId, 'individual', p, i++))).id);
    }
    const theirPeriod = await createPeriod(t, globex.siteId, { name: 'Theirs', start: new Date(Date.UTC(2024, 0, 1)), end: new Date(Date.UTC(2024, 3, 1)) });
    for (let k = 0; k < 3; k++) elsewhere.push((await repo(globex.siteId).insert(archive(worker.individualId, 'individual', theirPeriod.id, k))).id);
    await denyRead(t, acme.admin.token, hidden, peer.userId);
    all = (await get(`${ofWorker()}?limit=5000`, manager.token).expect(200)).body as Json[];
    expect(all.length).toBe(24);
    ofUnit = (await get(`/v4/organizations/${unit}/archives?limit=5000`, peer.token).expect(200)).body as Json[];
    expect(ofUnit.length).toBe(8);
    ofProject = (await get(`/v4/projects/${project}/metricArchives?limit=5000`, peer.token).expect(200)).body as Json[];
    expect(ofProject.length).toBe(12);
  });
  afterAll(() => t?.close());

  it('answers every operator on every filterable field (guid, int, string) as JavaScript does, in JSON and XML, with its total', async () => {
    const filterable = [...Archive.queryable.values()].filter((f) => f.filter);
    expect(filterable.map((f) => f.name)).toEqual(['ID', 'ItemID', 'PeriodID', 'Name']);
    for (const [lists, token, rows] of [
      [[`${ofWorker()}?limit=5000`], manager.token, all],
      [[`${ofWorker()}?limit=5000`], worker.token, all],
      [[`/v4/organizations/${unit}/archives?limit=5000`], peer.token, ofUnit],
      [[`/v4/projects/${project}/metricArchives?limit=5000`], acme.admin.token, ofProject],
    ] as const) {
      const cases: Case[] = grammarCases(Archive.queryable, rows);
      for (const f of filterable) for (const op of operatorsOf(f.kind)) expect(cases.some((c) => c.filter.startsWith(`${f.name} ${op}`))).toBe(true);
      cases.push(
        {
          filter: `PeriodID ge ${periods[2]} and Name sw "revenue"`,
          pred: (r) => Number(r.PeriodID) >= periods[2] && String(r.Name).toLowerCase().startsWith('revenue'),
        },
        { filter: `not (PeriodID eq ${periods[0]}) or Name co "NPS"`, pred: (r) => r.PeriodID !== periods[0] || String(r.Name).toLowerCase().includes('nps') },
      );
      await expectFilterCases(as(token), lists, cases, rows, 'Archive');
    }
    // With period=, the period comes first.
    const res = await get(`${ofWorker()}?period=${periods[1]}&filter=${q(`PeriodID ne ${periods[1]}`)}`, manager.token).expect(200);
    expect({ body: res.body, total: res.headers['x-total-count'] }).toEqual({ body: [], total: '0' });
  });

  it('applies the caller’s right before the filter and the total, and never finds another record’s or another site’s archives', async () => {
    for (const [path, token, status] of [
      [`${ofWorker()}?filter=${q('Name sw "Revenue"')}`, peer.token, 403],
      [`${ofWorker()}?cursor=start&filter=${q('Name sw "Revenue"')}`, peer.token, 403],
      [`/v4/organizations/${hidden}/archives?filter=${q('Name pr')}`, peer.token, 404],
      [`/v4/organizations/${hidden}/archives?cursor=start`, peer.token, 404],
      [`/v4/individuals/${worker.individualId}/archives?filter=${q('Name pr')}`, globex.admin.token, 404],
    ] as const) {
      const res = await get(path, token);
      expect({ path, status: res.status, total: res.headers['x-total-count'] }).toEqual({ path, status, total: undefined });
    }
    await t.http().get(ofWorker()).set('Authorization', bearer(peer.token)).set('Accept', 'text/csv').expect(403);
    expect((await t.http().get(`${ofWorker()}?filter=${q('Name pr')}`)).status).toBe(401);
    // An integration token with the read scope of the path's kind, and one without.
    const token = async (scopes: string) =>
      (await t.http().post('/v4/apitokens').set('Authorization', bearer(acme.admin.token)).send({ Name: scopes, Scopes: scopes }).expect(200)).body
        .Secret as string;
    const reader = await get(`${ofWorker()}?filter=${q('Name sw "Revenue"')}`, await token('individuals:read')).expect(200);
    expect(ids(reader.body as Json[])).toEqual(ids(all.filter((r) => String(r.Name).toLowerCase().startsWith('revenue'))));
    expect((await get(`${ofWorker()}?filter=${q('Name pr')}`, await token('goals:read'))).status).toBe(403);
    for (const id of elsewhere) {
      for (const list of [ofWorker(), `/v4/organizations/${unit}/archives`, `/v4/projects/${project}/metricArchives`]) {
        const res = await get(`${list}?filter=${q(`ID eq "${id}"`)}`, acme.admin.token).expect(200);
        expect({ list, id, found: res.body, total: res.headers['x-total-count'] }).toEqual({ list, id, found: [], total: '0' });
      }
    }
    // A project's metric archives leave out what is not a metric's, however asked.
    const dashboards = await get(`/v4/projects/${project}/metricArchives?filter=${q('ID pr')}`, acme.admin.token).expect(200);
    expect(ids(dashboards.body as Json[])).toEqual(ids(ofProject));
  });

  it('sorts by PeriodID and Name (and both, as the plain list), in JSON and XML, and answers only the fields asked for', async () => {
    const cmp = sortCompare;
    const byPeriod = (a: Json, b: Json) => cmp(a.PeriodID, b.PeriodID) || cmp(a.ID, b.ID);
    const byName = (a: Json, b: Json) => cmp(a.Name, b.Name) || cmp(a.ID, b.ID);
    // Without sort=, the queried list keeps the plain order: newest period first, then Name and ID ascending.
    const plain = (a: Json, b: Json) => -cmp(a.PeriodID, b.PeriodID) || cmp(a.Name, b.Name) || cmp(a.ID, b.ID);
    expect(ids(all)).toEqual(ids([...all].sort(plain)));
    expect(ids((await get(`${ofWorker()}?limit=5000&filter=${q('ID pr')}`, manager.token).expect(200)).body as Json[])).toEqual(ids(all));
    await expectSorts(
      as(manager.token),
      `${ofWorker()}?limit=5000`,
      all,
      [
        ['PeriodID', byPeriod],
        ['-PeriodID', (a, b) => -byPeriod(a, b)],
        ['Name', byName],
        ['-Name', (a, b) => -byName(a, b)],
        ['-PeriodID,Name', plain],
      ],
      'Archive',
    );
    await expectFields(
      as(manager.token),
      ofWorker(),
      all,
      'Archive',
      ['name,periodid', ['ID', 'PeriodID', 'Name']],
      ['Snapshot,ItemID', ['ID', 'ItemID', 'Snapshot']],
    );
  });

  it('exports the same archives as CSV for the same query', async () => {
    expect(await expectCsvLikeJson(t, `${ofWorker()}?sort=Name&filter=${q('Name co "e"')}`, manager.token, 'archives')).toBe(
      all.filter((r) => String(r.Name).toLowerCase().includes('e')).length,
    );
    expect(await expectCsvLikeJson(t, `/v4/projects/${project}/metricArchives?fields=Name,PeriodID`, peer.token, 'metricArchives')).toBe(ofProject.length);
  });

  it('pages with a cursor while others insert and delete: every archive present throughout exactly once', async () => {
    await cursorsUnderChurn<string>({
      get: (url) => get(url, manager.token).expect(200),
      first: `${ofWorker()}?limit=4&cursor=start&filter=${q('Name sw "Churned "')}`,
      sorts: ['', '-PeriodID', 'Name'],
      stable: 12,
      churn: 8,
      insert: async (i) => (await repo().insert({ ...archive(worker.individualId, 'individual', periods[i % 4], i), name: `Churned ${i % 6}` })).id,
      remove: (id) => t.ds.getRepository(ArchiveEntity).delete({ id }),
      label: { list: 'archives' },
    });
  });

  it('answers 400 problems naming what it cannot answer, never 500, in JSON and XML', async () => {
    await expectRefusals(
      (path, xml) => get(path, acme.admin.token, xml),
      [ofWorker(), `/v4/organizations/${unit}/archives`, `/v4/projects/${project}/metricArchives`],
      [
        ['filter=Nope eq "x"', 'filter', /Unknown field Nope.*filterable: ID, ItemID, PeriodID, Name/],
        ['filter=Snapshot co "n"', 'filter', /Unknown field Snapshot/],
        ['filter=PeriodID eq "x"', 'filter', /number/],
        ['sort=ItemID', 'sort', /not sortable.*sortable: PeriodID, Name/],
        ['fields=ID,Nope', 'fields', /Unknown field Nope/],
        ['cursor=garbage', 'cursor', /not one this list gave/],
      ],
    );
  });
});
