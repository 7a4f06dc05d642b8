import { operatorsOf } from '../../src/http/wire/list-query.js';
import { Dashboard } from '../../src/modules/dashboards/dto/dashboard.dto.js';
import { createPeriods, createUnit } from '../factories/goals.js';
import { createPerson, createSite, TestPerson, TestSite } from '../factories/index.js';
import { denyRead } from '../factories/permissions.js';
import { bearer, DB_KIND, startApp, TestApp } from './harness.js';
import {
  type Case,
  expectCsvLikeJson,
  expectCursorWalks,
  expectFields,
  expectFilterCases,
  expectRefusals,
  expectRefusedUncounted,
  expectSorts,
  exportTexts,
  getAs,
  grammarCases,
  ids,
  type Json,
} from './list-query-grammar.js';

/**
 * `filter=`, `sort=`, `fields=` and `cursor=` on the dashboards list (`GET /v4/dashboards`;
 * docs/queries.md, "Lists not stored"): the caller's dashboards are worked out per caller, so the
 * query runs in memory over their rows' own fields (ID, RowType, Name) after the access rules, and
 * only the page's figures are computed. Every operator on every filterable field (guid, int,
 * string) against the same filter in JavaScript, in JSON and XML; another site's units, units a
 * Deny hides and units the caller has no part in never found nor counted; the roles; keyset
 * paging; the exports; 400 problems.
 */
const NAMES = ['Sales', 'sales east', 'Ops', '=Formula', 'Research_1', 'Ops north'];

describe(`list queries on dashboards (${DB_KIND})`, () => {
  let t: TestApp;
  let acme: TestSite;
  let globex: TestSite;
  let member: TestPerson;
  /** Every dashboard the administrator may read, in ID order (a queried list's own order). */
  let all: Json[];
  /** The units of another site, one the member may not read, and one the member has no part in. */
  const elsewhere: string[] = [];
  let hidden: string;
  let foreign: string;

  const get = (path: string, token: string, xml = false) => getAs(t, path, token, xml);
  const as = (token: string) => (path: string, xml: boolean) => get(path, token, xml);
  const q = (s: string) => encodeURIComponent(s);
  const byId = (a: Json, b: Json) => (String(a.ID) < String(b.ID) ? -1 : String(a.ID) > String(b.ID) ? 1 : 0);

  beforeAll(async () => {
    t = await startApp();
    acme = await createSite(t);
    globex = await createSite(t);
    await createPeriods(t, acme.siteId);
    await createPeriods(t, globex.siteId);
    member = await createPerson(t, acme, { firstName: 'Mem', lastName: 'Ber' });
    await createPerson(t, acme, { firstName: 'Rita', lastName: 'Report', reportsTo: member.individualId });
    await createPerson(t, acme, { firstName: 'Otto', lastName: 'Other', reportsTo: acme.admin.individualId });
    for (let i = 0; i < NAMES.length; i++)
      await createUnit(t, acme.siteId, {
        name: NAMES[i],
        department: i % 2 === 1,
        parentId: i % 2 ? acme.orgId : null,
        managerId: i < 4 ? member.individualId : null,
      });
    hidden = (await createUnit(t, acme.siteId, { name: 'Sales hidden', managerId: member.individualId })).id;
    foreign = (await createUnit(t, acme.siteId, { name: 'Sales elsewhere', department: true, parentId: acme.orgId })).id;
    await createUnit(t, acme.siteId, { name: 'Sales gone', deleted: true });
    await denyRead(t, acme.admin.token, hidden, member.userId);
    for (let i = 0; i < 3; i++) elsewhere.push((await createUnit(t, globex.siteId, { name: NAMES[i], managerId: null })).id);
    all = ((await get('/v4/dashboards?limit=5000', acme.admin.token).expect(200)).body as Json[]).sort(byId);
    expect(all.length).toBeGreaterThan(10);
    expect(new Set(all.map((r) => r.RowType))).toEqual(new Set([4, 56, 39]));
  }, 120_000);
  afterAll(() => t?.close());

  it('answers every operator on every filterable field (guid, int, string) as JavaScript does, in JSON and XML, with its total', async () => {
    const filterable = [...Dashboard.queryable.values()].filter((f) => f.filter);
    expect(filterable.map((f) => [f.name, f.kind])).toEqual([
      ['ID', 'guid'],
      ['RowType', 'int'],
      ['Name', 'string'],
    ]);
    const cases: Case[] = grammarCases(Dashboard.queryable, all);
    for (const f of filterable) for (const op of operatorsOf(f.kind)) expect(cases.some((c) => c.filter.startsWith(`${f.name} ${op}`))).toBe(true);
    cases.push(
      { filter: 'RowType eq 56 and Name sw "SALES"', pred: (r) => r.RowType === 56 && String(r.Name).toLowerCase().startsWith('sales') },
      { filter: 'Name co "_" or not (RowType ne 39)', pred: (r) => String(r.Name).includes('_') || r.RowType === 39 },
    );
    await expectFilterCases(as(acme.admin.token), ['/v4/dashboards?limit=5000'], cases, all, 'Dashboard');
  });

  it('answers every dashboard as the plain list computes it, the figures of the page only', async () => {
    const page = (await get(`/v4/dashboards?limit=3&offset=2&filter=${q('ID pr')}`, acme.admin.token).expect(200)).body as Json[];
    expect(page).toEqual(all.slice(2, 5));
  });

  it('never finds another site’s units, a unit a Deny hides, nor one the caller has no part in, nor counts them', async () => {
    const mine = ((await get('/v4/dashboards?limit=5000', member.token).expect(200)).body as Json[]).map((r) => r.ID);
    expect(mine).not.toContain(hidden);
    expect(mine).not.toContain(foreign);
    for (const id of [...elsewhere, hidden, foreign]) {
      const res = await get(`/v4/dashboards?filter=${q(`ID eq "${id}"`)}`, member.token).expect(200);
      expect({ id, found: res.body, total: res.headers['x-total-count'] }).toEqual({ id, found: [], total: '0' });
    }
    for (const id of elsewhere) {
      const res = await get(`/v4/dashboards?filter=${q(`ID eq "${id}"`)}`, acme.admin.token).expect(200);
      expect({ id, found: res.body, total: res.headers['x-total-count'] }).toEqual({ id, found: [], total: '0' });
    }
    const sales = await get(`/v4/dashboards?filter=${q('Name sw "sales"')}`, member.token).expect(200);
    expect(ids(sales.body as Json[]).sort()).toEqual(ids(all.filter((r) => String(r.Name).toLowerCase().startsWith('sales') && mine.includes(r.ID))).sort());
    expect(sales.headers['x-total-count']).toBe(String((sales.body as Json[]).length));
  });

  it('sorts by RowType (then Name) and by Name, in JSON and XML, and answers only the fields asked for', async () => {
    const text = (v: unknown) => String(v).toLowerCase();
    const byName = (a: Json, b: Json) => (text(a.Name) < text(b.Name) ? -1 : text(a.Name) > text(b.Name) ? 1 : byId(a, b));
    const byType = (a: Json, b: Json) => (a.RowType as number) - (b.RowType as number) || byName(a, b);
    await expectSorts(
      as(acme.admin.token),
      '/v4/dashboards?limit=5000',
      all,
      [
        ['RowType', byType],
        ['-RowType', (a, b) => -byType(a, b)],
        ['Name', byName],
        ['-Name', (a, b) => -byName(a, b)],
      ],
      'Dashboard',
    );
    await expectFields(
      as(acme.admin.token),
      '/v4/dashboards',
      all,
      'Dashboard',
      ['name,ProjectsActive', ['ID', 'Name', 'ProjectsActive']],
      ['Threshold1,RowType', ['ID', 'RowType', 'Threshold1']],
    );
  });

  it('pages with a cursor, each dashboard exactly once, in every order', async () => {
    await expectCursorWalks((url) => get(url, acme.admin.token).expect(200), '/v4/dashboards', 4, ['', '&sort=-Name', '&sort=RowType']);
  });

  it('exports the same dashboards as CSV (a formula-like name neutralized), XLSX and NDJSON', async () => {
    expect(await expectCsvLikeJson(t, `/v4/dashboards?sort=Name&filter=${q('RowType ne 39')}`, acme.admin.token, 'dashboards')).toBe(
      all.filter((r) => r.RowType !== 39).length,
    );
    const csv = await t.http().get('/v4/dashboards?fields=Name').set('Authorization', bearer(acme.admin.token)).set('Accept', 'text/csv').expect(200);
    expect(csv.text).toContain("'=Formula");
    const [, ndjson] = await exportTexts(t, `/v4/dashboards?fields=ID,RowType`, acme.admin.token);
    expect(
      ndjson
        .trim()
        .split('\n')
        .map((l) => (JSON.parse(l) as Json).ID),
    ).toEqual(ids(all));
  });

  it('answers 400 problems naming what it cannot answer, never 500, in JSON and XML', async () => {
    await expectRefusals(
      (path, xml) => get(path, acme.admin.token, xml),
      ['/v4/dashboards'],
      [
        ['filter=Nope eq "x"', 'filter', /Unknown field Nope.*filterable: ID, RowType, Name/],
        ['filter=ProjectsActive gt 1', 'filter', /Unknown field ProjectsActive/],
        ['filter=RowType eq "4"', 'filter', /takes a number/],
        ['filter=ID eq "x"', 'filter', /quoted UUID/],
        ['sort=ID', 'sort', /not sortable.*sortable: RowType, Name/],
        ['fields=ID,Nope', 'fields', /Unknown field Nope/],
        ['cursor=garbage', 'cursor', /not one this list gave/],
        ['cursor=start&offset=2', 'offset', /not taken with cursor/],
      ],
    );
  });

  it('is for performance management: anonymous 401, a token without its scope 403 with no total, whatever the filter', async () => {
    const token = (
      await t.http().post('/v4/apitokens').set('Authorization', bearer(acme.admin.token)).send({ Name: 'colors', Scopes: 'colors:read' }).expect(200)
    ).body.Secret as string;
    await expectRefusedUncounted(
      t,
      [`/v4/dashboards?filter=${q('Name sw "Sales"')}`, `/v4/dashboards?cursor=start&filter=${q('RowType eq 4')}`],
      [['colors:read token', token]],
    );
    await t.http().get('/v4/dashboards').set('Authorization', bearer(token)).set('Accept', 'text/csv').expect(403);
  });
});
