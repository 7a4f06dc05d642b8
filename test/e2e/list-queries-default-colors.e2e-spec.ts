import { operatorsOf } from '../../src/http/wire/list-query.js';
import { Color } from '../../src/modules/colors/dto/color.dto.js';
import { createPerson, createSite, TestPerson, TestSite } from '../factories/index.js';
import { bearer, DB_KIND, startApp, TestApp } from './harness.js';
import {
  type Case,
  comparison,
  expectCsvLikeJson,
  expectCursorWalks,
  expectFields,
  expectFilterCases,
  expectRefusals,
  expectSorts,
  exportTexts,
  getAs,
  grammarCases,
  ids,
  type Json,
  sortCompare,
} from './list-query-grammar.js';

/**
 * `filter=`, `sort=`, `fields=` and `cursor=` on the default colors (`GET /v4/colors/defaults`,
 * `GET /v4/sites/{siteid}/colors/defaults`; docs/queries.md, "Lists not stored"): three built-in
 * records, no rows, answered by the same grammar in memory. Every operator on every filterable field
 * (int, string, decimal) against the same filter in JavaScript, in JSON and XML, on both routes;
 * another site's defaults (403 but to a global administrator) and anonymous callers (401) before
 * the filter; the site's own colors never among them; keyset paging; the exports; 400 problems.
 */
describe(`list queries on the default colors (${DB_KIND})`, () => {
  let t: TestApp;
  let acme: TestSite;
  let globex: TestSite;
  let member: TestPerson;
  let all: Json[];
  const lists = () => ['/v4/colors/defaults?limit=5000', `/v4/sites/${acme.siteId}/colors/defaults?limit=5000`];

  const get = (path: string, token: string, xml = false) => getAs(t, path, token, xml);
  const as = (token: string) => (path: string, xml: boolean) => get(path, token, xml);
  const q = (s: string) => encodeURIComponent(s);

  beforeAll(async () => {
    t = await startApp();
    acme = await createSite(t);
    globex = await createSite(t);
    member = await createPerson(t, acme, { firstName: 'Mem', lastName: 'Ber' });
    // A color of the site's own: the defaults stay the defaults.
    await t
      .http()
      .post('/v4/colors')
      .set('Authorization', bearer(acme.admin.token))
      .send({ Name: 'Red', ColorValue: 1, MinPercent: 0, MaxPercent: 50 })
      .expect(200);
    all = (await get('/v4/colors/defaults', member.token).expect(200)).body as Json[];
    expect(ids(all)).toEqual([-1, -2, -3]);
  });
  afterAll(() => t?.close());

  // A negative number is read only as the filter's last token (docs/queries.md).
  it('answers every operator on every filterable field (int, string, decimal) as JavaScript does, in JSON and XML, with its total, on both routes', async () => {
    const filterable = [...Color.queryable.values()].filter((f) => f.filter);
    const by = (name: string) => Color.queryable.get(name.toLowerCase())!;
    const cases: Case[] = grammarCases(Color.queryable, all);
    for (const f of filterable) for (const op of operatorsOf(f.kind)) expect(cases.some((c) => c.filter.startsWith(`${f.name} ${op}`))).toBe(true);
    cases.push(
      { filter: 'Name sw "RE" or not (Rank ge 2)', pred: (r) => comparison(by('Name'), 'sw', 're')(r) || !comparison(by('Rank'), 'ge', 2)(r) },
      {
        filter: '(MinPercent lt 75 and Name co "e") or ID eq -3',
        pred: (r) => (Number(r.MinPercent) < 75 && String(r.Name).toLowerCase().includes('e')) || r.ID === -3,
      },
      { filter: 'not (Name eq "yellow") and ID gt -3', pred: (r) => (r.ID as number) > -3 && String(r.Name).toLowerCase() !== 'yellow' },
    );
    await expectFilterCases(as(member.token), lists(), cases, all, 'Color');
  });

  it('answers another site’s defaults to a global administrator only, anonymous 401, before any filter', async () => {
    const other = `/v4/sites/${globex.siteId}/colors/defaults?filter=${q('ID pr')}`;
    const refused = await get(other, acme.admin.token).expect(403);
    expect(refused.headers['x-total-count']).toBeUndefined();
    const theirs = (await get(other, t.adminToken).expect(200)).body as Json[];
    expect(theirs.map((r) => [r.ID, r.SiteID])).toEqual(all.map((r) => [r.ID, globex.siteId]));
    for (const path of [`/v4/colors/defaults?filter=${q('ID pr')}`, `/v4/sites/${acme.siteId}/colors/defaults?cursor=start`]) {
      expect({ path, status: (await t.http().get(path)).status }).toEqual({ path, status: 401 });
    }
    // The site's own Red is no default.
    const red = await get(`/v4/colors/defaults?filter=${q('Name eq "red"')}`, member.token).expect(200);
    expect(red.body).toEqual([all[0]]);
  });

  it('sorts by Rank (then MinPercent) and by Name, in JSON and XML, keeps the plain order without sort=, and answers only the fields asked for', async () => {
    const cmp = sortCompare;
    const byRank = (a: Json, b: Json) => cmp(a.Rank, b.Rank) || cmp(a.MinPercent, b.MinPercent) || cmp(a.ID, b.ID);
    const byName = (a: Json, b: Json) => cmp(String(a.Name).toLowerCase(), String(b.Name).toLowerCase()) || cmp(a.ID, b.ID);
    expect(ids((await get(`/v4/colors/defaults?filter=${q('ID pr')}`, member.token).expect(200)).body as Json[])).toEqual(ids([...all].sort(byRank)));
    await expectSorts(
      as(member.token),
      lists()[1],
      all,
      [
        ['Rank', byRank],
        ['-Rank', (a, b) => -byRank(a, b)],
        ['Name', byName],
        ['-Name', (a, b) => -byName(a, b)],
      ],
      'Color',
    );
    await expectFields(
      as(member.token),
      '/v4/colors/defaults',
      all,
      'Color',
      ['rank,name', ['ID', 'Name', 'Rank']],
      ['MaxPercent,SiteID', ['ID', 'MaxPercent', 'SiteID']],
    );
  });

  it('pages with a cursor, each default exactly once, in every order', async () => {
    await expectCursorWalks((url) => get(url, member.token).expect(200), '/v4/colors/defaults', 1, ['', '&sort=-Name', '&sort=Rank']);
  });

  it('exports the defaults as CSV, XLSX and NDJSON for the same query', async () => {
    expect(await expectCsvLikeJson(t, `/v4/colors/defaults?sort=-Name&filter=${q('MinPercent ge 70')}`, member.token, 'defaults')).toBe(2);
    expect(await expectCsvLikeJson(t, `/v4/sites/${acme.siteId}/colors/defaults?fields=Name,ColorValue`, member.token, 'defaults')).toBe(3);
    const [, ndjson] = await exportTexts(t, '/v4/colors/defaults', member.token);
    expect(
      ndjson
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as Json),
    ).toEqual(all);
  });

  it('answers 400 problems naming what it cannot answer, never 500, in JSON and XML', async () => {
    await expectRefusals(
      (path, xml) => get(path, member.token, xml),
      lists().map((l) => l.split('?')[0]),
      [
        ['filter=Nope eq "x"', 'filter', /Unknown field Nope.*filterable: ID, Name, MinPercent, Rank/],
        ['filter=ColorValue eq 1', 'filter', /ColorValue|Unknown field/],
        ['filter=Rank eq "x"', 'filter', /takes a number/],
        ['filter=Name gt 3', 'filter', /quoted string/],
        ['sort=MinPercent', 'sort', /not sortable.*sortable: Name, Rank/],
        ['fields=ID,Nope', 'fields', /Unknown field Nope/],
        ['cursor=garbage', 'cursor', /not one this list gave/],
        ['cursor=start&offset=1', 'offset', /not taken with cursor/],
      ],
    );
  });
});
