import { RequestContext } from '../../src/common/context/request-context.js';
import { ColorEntity } from '../../src/database/entities/color.entity.js';
import { TenantDb } from '../../src/database/tenant-db.js';
import { operatorsOf } from '../../src/http/wire/list-query.js';
import { Color } from '../../src/modules/colors/dto/color.dto.js';
import { createPerson, createSite, TestPerson, TestSite } from '../factories/index.js';
import { DB_KIND, startApp, TestApp } from './harness.js';
import {
  type Case,
  comparison,
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
 * `filter=`, `sort=`, `fields=` and `cursor=` on the colors of a site (`GET /v4/colors`,
 * `GET /v4/sites/{siteid}/colors`; docs/queries.md). Every operator on every filterable field (int,
 * string, decimal) against the same filter in JavaScript, in JSON and XML; another site's colors
 * (403 but to a global administrator) and anonymous callers (401) before the filter and the total;
 * a queried list answers the site's own colors only, never the defaults; keyset paging while others
 * insert and delete; the CSV export; 400 problems.
 */
const NAMES = ['Red', 'red alert', 'Amber', 'Green', 'green light', '=Formula', 'Blue 100%', 'on_track'];

describe(`list queries on colors (${DB_KIND})`, () => {
  let t: TestApp;
  let acme: TestSite;
  let globex: TestSite;
  let member: TestPerson;
  /** The site's colors as a member reads them. */
  let all: Json[];
  /** Another site's colors. */
  const elsewhere: number[] = [];

  const get = (path: string, token: string, xml = false) => getAs(t, path, token, xml);
  const as = (token: string) => (path: string, xml: boolean) => get(path, token, xml);
  const q = (s: string) => encodeURIComponent(s);
  const repo = (siteId = acme.siteId) => t.app.get(TenantDb).repo(RequestContext.system(siteId), ColorEntity);
  const color = (i: number): Partial<ColorEntity> => ({
    name: `${NAMES[i % NAMES.length]}${i >= NAMES.length ? ` ${Math.floor(i / NAMES.length)}` : ''}`,
    colorValue: (i * 99991) % 0xffffff,
    minPercent: (i * 12.5) % 100,
    maxPercent: ((i * 12.5) % 100) + 10,
    rank: (i * 3) % 5,
  });

  beforeAll(async () => {
    t = await startApp();
    acme = await createSite(t);
    globex = await createSite(t);
    member = await createPerson(t, acme, { firstName: 'Mem', lastName: 'Ber' });
    for (let i = 0; i < 24; i++) await repo().insert(color(i));
    for (let i = 0; i < 3; i++) elsewhere.push((await repo(globex.siteId).insert(color(i))).id);
    all = (await get('/v4/colors?limit=5000', member.token).expect(200)).body as Json[];
    expect(all.length).toBe(24);
  });
  afterAll(() => t?.close());

  it('answers every operator on every filterable field (int, string, decimal) as JavaScript does, in JSON and XML, with its total', async () => {
    const filterable = [...Color.queryable.values()].filter((f) => f.filter);
    expect([...new Set(filterable.map((f) => f.kind))].sort()).toEqual(['decimal', 'int', 'string']);
    const by = (name: string) => Color.queryable.get(name.toLowerCase())!;
    const cases: Case[] = grammarCases(Color.queryable, all);
    for (const f of filterable) for (const op of operatorsOf(f.kind)) expect(cases.some((c) => c.filter.startsWith(`${f.name} ${op}`))).toBe(true);
    cases.push(
      { filter: 'Name sw "RED" or not (Rank ge 2)', pred: (r) => comparison(by('Name'), 'sw', 'red')(r) || !comparison(by('Rank'), 'ge', 2)(r) },
      {
        filter: '(MinPercent lt 37.5 or Name co "_") and Rank ne 0',
        pred: (r) => (Number(r.MinPercent) < 37.5 || String(r.Name).includes('_')) && r.Rank !== 0,
      },
      { filter: `ID eq ${all[5].ID as number} or Name ew "1"`, pred: (r) => r.ID === all[5].ID || String(r.Name).endsWith('1') },
    );
    await expectFilterCases(as(member.token), ['/v4/colors?limit=5000', `/v4/sites/${acme.siteId}/colors?limit=5000`], cases, all, 'Color');
  });

  it('never finds another site’s colors nor the defaults; another site is for a global administrator; anonymous is 401', async () => {
    for (const id of [...elsewhere, -1, -2, -3]) {
      for (const token of [member.token, acme.admin.token]) {
        const res = await get(`/v4/colors?filter=${q(`ID eq ${id}`)}`, token).expect(200);
        expect({ id, found: res.body, total: res.headers['x-total-count'] }).toEqual({ id, found: [], total: '0' });
      }
    }
    for (const token of [member.token, acme.admin.token]) {
      for (const path of [`/v4/sites/${globex.siteId}/colors?filter=${q('Name pr')}`, `/v4/sites/${globex.siteId}/colors?cursor=start`]) {
        for (const xml of [false, true]) {
          const res = await get(path, token, xml);
          expect({ path, xml, status: res.status, total: res.headers['x-total-count'] }).toEqual({ path, xml, status: 403, total: undefined });
        }
      }
    }
    const theirs = await get(`/v4/sites/${globex.siteId}/colors?filter=${q('Name pr')}`, t.adminToken).expect(200);
    expect({ ids: ids(theirs.body as Json[]).sort(), total: theirs.headers['x-total-count'] }).toEqual({
      ids: ids(elsewhere.map((ID) => ({ ID }))).sort(),
      total: '3',
    });
    for (const path of [`/v4/colors?filter=${q('Name pr')}`, '/v4/colors?cursor=start']) {
      const res = await t.http().get(path).set('Accept', 'application/json');
      expect({ path, status: res.status, total: res.headers['x-total-count'] }).toEqual({ path, status: 401, total: undefined });
    }
    // A site without colors of its own: the plain list shows the defaults, a queried one answers none.
    const bare = await createSite(t);
    const plain = await get('/v4/colors', bare.admin.token).expect(200);
    expect(ids(plain.body as Json[])).toEqual([-1, -2, -3]);
    for (const query of [`filter=${q('ID lt 0')}`, 'fields=Name', 'sort=Name', 'cursor=start']) {
      const res = await get(`/v4/colors?${query}`, bare.admin.token).expect(200);
      expect({ query, body: res.body }).toEqual({ query, body: [] });
    }
  });

  it('sorts by Rank (then MinPercent) and by Name, in JSON and XML, keeps the plain order without sort=, and answers only the fields asked for', async () => {
    const cmp = sortCompare;
    const rest = (a: Json, b: Json) => cmp(Number(a.MinPercent), Number(b.MinPercent)) || cmp(a.ID, b.ID);
    await expectSorts(
      as(member.token),
      '/v4/colors?limit=5000',
      all,
      [
        ['Rank', (a, b) => cmp(a.Rank, b.Rank) || rest(a, b)],
        ['-Rank', (a, b) => -cmp(a.Rank, b.Rank) || -rest(a, b)],
        ['Name', (a, b) => cmp(a.Name, b.Name) || cmp(a.ID, b.ID)],
        ['-Name', (a, b) => -cmp(a.Name, b.Name) || -cmp(a.ID, b.ID)],
      ],
      'Color',
    );
    const queried = (await get(`/v4/colors?limit=5000&filter=${q('ID pr')}`, member.token).expect(200)).body as Json[];
    expect(ids(queried)).toEqual(ids(all));
    await expectFields(
      as(member.token),
      '/v4/colors',
      all,
      'Color',
      ['maxpercent,Name', ['ID', 'Name', 'MaxPercent']],
      ['Rank,ColorValue,SiteID', ['ColorValue', 'ID', 'Rank', 'SiteID']],
    );
  });

  it('exports the same colors as CSV for the same query', async () => {
    expect(await expectCsvLikeJson(t, `/v4/colors?sort=-Name&filter=${q('Rank le 2')}`, member.token, 'colors')).toBe(
      all.filter((r) => Number(r.Rank) <= 2).length,
    );
    expect(await expectCsvLikeJson(t, `/v4/sites/${acme.siteId}/colors?fields=Name,MinPercent`, member.token, 'colors')).toBe(all.length);
  });

  it('pages with a cursor while others insert and delete: every color present throughout exactly once', async () => {
    await cursorsUnderChurn<number>({
      get: (url) => get(url, member.token).expect(200),
      first: `/v4/colors?limit=4&cursor=start&filter=${q('Name sw "Churn"')}`,
      sorts: ['', '-Rank', 'Name'],
      stable: 12,
      churn: 8,
      insert: async (i) => (await repo().insert({ ...color(i), name: `Churn ${i % 5}` })).id,
      remove: (id) => t.ds.getRepository(ColorEntity).delete({ id }),
      label: { list: 'colors' },
    });
  });

  it('answers 400 problems naming what it cannot answer, never 500, in JSON and XML', async () => {
    const bad: [string, string, RegExp][] = [
      ['filter=Nope eq "x"', 'filter', /Unknown field Nope.*filterable: ID, Name, MinPercent, Rank/],
      ['filter=ColorValue eq 3', 'filter', /ColorValue/],
      ['filter=Rank co "3"', 'filter', /operator co does not apply to Rank/],
      ['filter=MinPercent gt "half"', 'filter', /number/],
      ['filter=ID eq "x"', 'filter', /number/],
      ['sort=MinPercent', 'sort', /sortable: Name, Rank/],
      ['fields=ID,Nope', 'fields', /Unknown field Nope/],
      ['cursor=garbage', 'cursor', /not one this list gave/],
    ];
    await expectRefusals((path, xml) => get(path, member.token, xml), ['/v4/colors', `/v4/sites/${acme.siteId}/colors`], bad);
  });
});
