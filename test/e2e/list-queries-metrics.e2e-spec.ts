import { RequestContext } from '../../src/common/context/request-context.js';
import { MetricEntity } from '../../src/database/entities/metric.entity.js';
import { ProjectEntity } from '../../src/database/entities/project.entity.js';
import { TenantDb } from '../../src/database/tenant-db.js';
import { operatorsOf } from '../../src/http/wire/list-query.js';
import { Metric } from '../../src/modules/performance-metrics/dto/metric.dto.js';
import { createPerson, createSite, TestPerson, TestSite } from '../factories/index.js';
import { denyRead } from '../factories/permissions.js';
import { DB_KIND, startApp, TestApp } from './harness.js';
import {
  type Case,
  comparison,
  cursorsUnderChurn,
  expectFields,
  expectRefusals,
  expectSorts,
  getAs,
  grammarCases,
  ids,
  type Json,
  sortCompare,
  xmlIdsOf,
} from './list-query-grammar.js';

/**
 * `filter=`, `sort=`, `fields=` and `cursor=` on the metric lists (docs/queries.md): `GET /v4/metrics`,
 * `GET /v4/sites/{siteid}/metrics`, `GET /v4/individuals/{id}/metrics`, `GET /v4/projects/{id}/metrics`
 * and `GET /v4/me/metrics`. Every operator on every filterable field (a decimal among them) against
 * the same filter in JavaScript, in JSON and XML; the right to the list, a Deny on Read and another
 * site applied before the filter and the total; keyset paging while others insert and delete; 400s.
 */
describe(`list queries on metrics (${DB_KIND})`, () => {
  let t: TestApp;
  let acme: TestSite;
  let globex: TestSite;
  let owner: TestPerson;
  let member: TestPerson;
  let project: string;
  let hiddenId: string;
  /** Every metric of acme, live and deleted, as the administrator reads them (the truth filters are checked against). */
  let all: Json[];
  let theirs: string[];

  const get = (path: string, token: string, xml = false) => getAs(t, path, token, xml);
  const xmlIds = (text: string) => xmlIdsOf(text, 'Metric');
  const q = (s: string) => encodeURIComponent(s);
  const TARGETS = [null, 10, 12.5, -3, 100.25, 0, 7.0001];

  beforeAll(async () => {
    t = await startApp();
    acme = await createSite(t);
    globex = await createSite(t);
    owner = await createPerson(t, acme, { firstName: 'Owen', lastName: 'Ner' });
    member = await createPerson(t, acme, { firstName: 'Mem', lastName: 'Ber' });
    const db = t.app.get(TenantDb);
    const ctx = RequestContext.system(acme.siteId);
    project = (
      await db.repo(ctx, ProjectEntity).insert({
        name: 'Shop',
        description: null,
        ownerId: owner.individualId,
        organizationId: null,
        startDate: null,
        dueDate: null,
        completedDate: null,
        dueDateChanges: 0,
      })
    ).id;
    for (let i = 0; i < 40; i++) {
      const about =
        i % 3 === 0
          ? { kind: 'project' as const, ancestorId: project }
          : { kind: 'individual' as const, ancestorId: i % 2 ? owner.individualId : member.individualId };
      await db.repo(ctx, MetricEntity).insert({
        ...about,
        name: `${['Revenue', 'revenue per head', 'NPS', 'Churn_rate', 'Tickets 100%'][i % 5]}${i % 3 ? ` ${String.fromCharCode(97 + (i % 4))}` : ''}`,
        is8020: i % 4 === 0,
        target: TARGETS[i % TARGETS.length],
        higherIsBetter: i % 5 !== 0,
        deleted: i % 9 === 0,
        deletedByRef: false,
      });
    }
    hiddenId = (
      await db.repo(ctx, MetricEntity).insert({
        kind: 'project',
        ancestorId: project,
        name: 'Revenue secret',
        is8020: true,
        target: 5,
        higherIsBetter: true,
        deleted: false,
        deletedByRef: false,
      })
    ).id;
    await denyRead(t, acme.admin.token, hiddenId, member.userId);
    const them = await createPerson(t, globex);
    theirs = [];
    for (let i = 0; i < 3; i++) {
      const row = await db.repo(RequestContext.system(globex.siteId), MetricEntity).insert({
        kind: 'individual',
        ancestorId: them.individualId,
        name: 'Revenue',
        is8020: false,
        target: 10,
        higherIsBetter: true,
        deleted: false,
        deletedByRef: false,
      });
      theirs.push(row.id);
    }
    all = (await get('/v4/metrics?deleted=2&limit=5000', acme.admin.token).expect(200)).body as Json[];
    expect(all.length).toBe(41);
  });
  afterAll(() => t?.close());

  it('answers every operator on every filterable field (a decimal among them) as JavaScript does, in JSON and XML, with its total', async () => {
    const filterable = [...Metric.queryable.values()].filter((f) => f.filter);
    expect([...new Set(filterable.map((f) => f.kind))].sort()).toEqual(['bool', 'decimal', 'guid', 'string']);
    const cases: Case[] = grammarCases(Metric.queryable, all);
    for (const f of filterable) for (const op of operatorsOf(f.kind)) expect(cases.some((c) => c.filter.startsWith(`${f.name} ${op}`))).toBe(true);
    const by = (name: string) => Metric.queryable.get(name.toLowerCase())!;
    const high = comparison(by('Target'), 'ge', 10);
    cases.push(
      { filter: 'Target ge 10 and Is8020 eq false', pred: (r) => high(r) && r.Is8020 === false },
      { filter: `Kind eq "PROJECT" or not (Target lt 7.5)`, pred: (r) => r.Kind === 'project' || !comparison(by('Target'), 'lt', 7.5)(r) },
      // A negative number is read only at the end of the filter (scim2-parse-filter's tokenizer takes none before a space or `)`: 400).
      { filter: 'Target le 12.5 and Target gt -3.5', pred: (r) => comparison(by('Target'), 'gt', -3.5)(r) && comparison(by('Target'), 'le', 12.5)(r) },
    );
    expect(cases.length).toBeGreaterThan(40);
    for (const c of cases) {
      const expected = ids(all.filter(c.pred));
      for (const list of ['/v4/metrics', `/v4/sites/${acme.siteId}/metrics`]) {
        const path = `${list}?deleted=2&limit=5000&filter=${q(c.filter)}`;
        const json = await get(path, acme.admin.token);
        expect({ list, filter: c.filter, status: json.status }).toEqual({
          list,
          filter: c.filter,
          status: 200,
          ...(json.status === 200 ? {} : { body: json.body }),
        });
        expect({ filter: c.filter, ids: ids(json.body as Json[]) }).toEqual({ filter: c.filter, ids: expected });
        expect({ filter: c.filter, total: json.headers['x-total-count'] }).toEqual({ filter: c.filter, total: String(expected.length) });
      }
      const xml = await get(`/v4/metrics?deleted=2&limit=5000&filter=${q(c.filter)}`, acme.admin.token, true).expect(200);
      expect({ filter: c.filter, ids: xmlIds(xml.text) }).toEqual({ filter: c.filter, ids: expected });
    }
  });

  it('checks the right to the list, and leaves out a metric a Deny hides and another site’s, before the filter and the total', async () => {
    for (const f of ['Name sw "Revenue"', `ID eq "${hiddenId}"`, 'Is8020 eq true']) {
      const list = `/v4/projects/${project}/metrics?filter=${q(f)}`;
      const asMember = await get(list, member.token).expect(200);
      expect(ids(asMember.body as Json[])).not.toContain(hiddenId);
      expect(asMember.headers['x-total-count']).toBe(String((asMember.body as Json[]).length));
      const asAdmin = await get(list, acme.admin.token).expect(200);
      expect(ids(asAdmin.body as Json[])).toContain(hiddenId);
      expect(Number(asAdmin.headers['x-total-count'])).toBe(Number(asMember.headers['x-total-count']) + 1);
      // An individual's metrics: them and their managers only (403 for another member, whatever the filter).
      const denied = await get(`/v4/individuals/${owner.individualId}/metrics?filter=${q(f)}`, member.token);
      expect({ f, status: denied.status, total: denied.headers['x-total-count'] }).toEqual({ f, status: 403, total: undefined });
      const mine = await get(`/v4/me/metrics?filter=${q(f)}`, owner.token).expect(200);
      expect(mine.body).toEqual((await get(`/v4/individuals/${owner.individualId}/metrics?filter=${q(f)}`, acme.admin.token).expect(200)).body);
    }
    const asked = await get(
      `/v4/projects/${project}/metrics?deleted=2&filter=${q(`Kind eq "individual" or AncestorID eq "${owner.individualId}"`)}`,
      acme.admin.token,
    ).expect(200);
    expect({ body: asked.body, total: asked.headers['x-total-count'] }).toEqual({ body: [], total: '0' });
    for (const id of theirs) {
      const res = await get(`/v4/metrics?deleted=2&filter=${q(`ID eq "${id}"`)}`, acme.admin.token).expect(200);
      expect({ id, found: res.body, total: res.headers['x-total-count'] }).toEqual({ id, found: [], total: '0' });
    }
  });

  it('sorts by Name and Target, in JSON and XML, and answers only the fields asked for', async () => {
    const cmp = sortCompare;
    const sorts: [string, (a: Json, b: Json) => number][] = [
      ['Name', (a, b) => cmp(a.Name, b.Name) || cmp(a.ID, b.ID)],
      ['-Target', (a, b) => -cmp(a.Target, b.Target) || -cmp(a.ID, b.ID)],
      ['Target,Name', (a, b) => cmp(a.Target, b.Target) || cmp(a.Name, b.Name) || cmp(a.ID, b.ID)],
    ];
    await expectSorts((path, xml) => get(path, acme.admin.token, xml), '/v4/metrics?deleted=2&limit=5000', all, sorts, 'Metric');
    await expectFields(
      (path, xml) => get(path, acme.admin.token, xml),
      '/v4/metrics',
      all,
      'Metric',
      ['Target,name,Values', ['ID', 'Name', 'Target', 'Values']],
      ['Name,Target,Is8020', ['ID', 'Is8020', 'Name', 'Target']],
    );
  });

  it('pages with a cursor while others insert and delete: every metric present throughout exactly once', async () => {
    const db = t.app.get(TenantDb);
    const ctx = RequestContext.system(acme.siteId);
    const insert = async (i: number) =>
      (
        await db.repo(ctx, MetricEntity).insert({
          kind: 'project',
          ancestorId: project,
          name: `Cur ${String.fromCharCode(97 + (i % 26))}${i}`,
          is8020: false,
          target: i % 3 ? i * 1.5 : null,
          higherIsBetter: true,
          deleted: false,
          deletedByRef: false,
        })
      ).id;
    await cursorsUnderChurn<string>({
      get: (url) => get(url, member.token).expect(200),
      first: `/v4/projects/${project}/metrics?limit=5&cursor=start&filter=${q('Name sw "Cur"')}`,
      sorts: ['', '-Target'],
      stable: 20,
      churn: 12,
      insert,
      remove: (id) => db.repo(ctx, MetricEntity).update(id, { deleted: true }),
    });
  });

  it('answers 400 problems naming what it cannot answer, never 500, in JSON and XML', async () => {
    const bad: [string, string, RegExp][] = [
      ['filter=Values pr', 'filter', /Unknown field Values.*filterable: ID, Kind, AncestorID, Name, Is8020, Target, Deleted/],
      ['filter=Target sw "1"', 'filter', /operator sw does not apply to Target/],
      ['filter=Target gt "ten"', 'filter', /takes a number/],
      ['sort=Is8020', 'sort', /not sortable.*sortable: Name, Target/],
      ['fields=ID,Nope', 'fields', /Unknown field Nope/],
      ['cursor=garbage', 'cursor', /not one this list gave/],
    ];
    await expectRefusals((path, xml) => get(path, acme.admin.token, xml), ['/v4/metrics', `/v4/projects/${project}/metrics`, '/v4/me/metrics'], bad);
  });
});
