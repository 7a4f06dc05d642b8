import { randomUUID } from 'node:crypto';
import { SiteEntity } from '../../src/database/entities/site.entity.js';
import { operatorsOf } from '../../src/http/wire/list-query.js';
import { Site } from '../../src/modules/sites/dto/site.dto.js';
import { createPerson, createSite, TestPerson, TestSite } from '../factories/index.js';
import { DB_KIND, startApp, TestApp } from './harness.js';
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
 * `filter=`, `sort=`, `fields=` and `cursor=` on the sites (`GET /v4/sites`; docs/queries.md): every
 * site for a global administrator, the caller's own for anyone else. Every operator on every
 * filterable field (guid, string) against the same filter in JavaScript, in JSON and XML, over the
 * sites this file makes (a database may hold others: each case is narrowed to them by name);
 * another site never found by a site administrator or a member, nor counted; 401 anonymous; keyset
 * paging while others insert and delete; the CSV export; 400 problems.
 */
const NAMES = ['Acme', 'acme east', 'Globex', 'Initech 100%', 'Umbrella_eu', '=Formula', 'Hooli', 'stark'];

describe(`list queries on sites (${DB_KIND})`, () => {
  let t: TestApp;
  let acme: TestSite;
  let member: TestPerson;
  /** A prefix only this run's sites have, so other sites of a shared database stay out of the expectations. */
  const run = `Q${randomUUID().slice(0, 8)} `;
  const mine = `Name sw "${run}"`;
  /** The sites made here, as the global administrator reads them. */
  let all: Json[];

  const get = (path: string, token: string, xml = false) => getAs(t, path, token, xml);
  const as = (token: string) => (path: string, xml: boolean) => get(path, token, xml);
  const q = (s: string) => encodeURIComponent(s);
  const insertSite = async (name: string) => {
    const id = randomUUID();
    await t.ds.getRepository(SiteEntity).insert({ id, name, performanceManagement: true, created: new Date(), updated: new Date() });
    return id;
  };

  beforeAll(async () => {
    t = await startApp();
    acme = await createSite(t, { name: `${run}Home` });
    member = await createPerson(t, acme, { firstName: 'Mem', lastName: 'Ber' });
    for (let i = 0; i < 20; i++) await insertSite(`${run}${NAMES[i % NAMES.length]}${i >= NAMES.length ? ` ${Math.floor(i / NAMES.length)}` : ''}`);
    const every = (await get('/v4/sites?limit=5000', t.adminToken).expect(200)).body as Json[];
    all = every.filter((s) => String(s.Name).startsWith(run));
    expect(all.length).toBe(21);
  });
  afterAll(() => t?.close());

  it('answers every operator on every filterable field (guid, string) as JavaScript does, in JSON and XML, with its total', async () => {
    const filterable = [...Site.queryable.values()].filter((f) => f.filter);
    expect([...new Set(filterable.map((f) => f.kind))].sort()).toEqual(['guid', 'string']);
    const cases: Case[] = grammarCases(Site.queryable, all);
    for (const f of filterable) for (const op of operatorsOf(f.kind)) expect(cases.some((c) => c.filter.startsWith(`${f.name} ${op}`))).toBe(true);
    const low = (r: Json) => String(r.Name).slice(run.length).toLowerCase();
    cases.push(
      { filter: `Name sw "${run}ACME" or not (Name co "e")`, pred: (r) => low(r).startsWith('acme') || !String(r.Name).toLowerCase().includes('e') },
      {
        filter: `(ID eq "${all[3].ID as string}" or Name ew "1") and Name ne "${run}Hooli 1"`,
        pred: (r) => (r.ID === all[3].ID || low(r).endsWith('1')) && low(r) !== 'hooli 1',
      },
    );
    // Narrowed to this run's sites: `(case) and Name sw "<run>"`.
    const narrowed = cases.map((c) => ({ filter: `(${c.filter}) and ${mine}`, pred: c.pred }));
    await expectFilterCases(as(t.adminToken), ['/v4/sites?limit=5000'], narrowed, all, 'Site');
  });

  it('answers anyone but a global administrator their own site only, whatever the filter; anonymous 401', async () => {
    for (const token of [acme.admin.token, member.token]) {
      for (const xml of [false, true]) {
        const own = await get(`/v4/sites?filter=${q(mine)}`, token, xml).expect(200);
        if (!xml) expect({ ids: ids(own.body as Json[]), total: own.headers['x-total-count'] }).toEqual({ ids: [acme.siteId], total: '1' });
        else expect(own.text).toContain(`<ID>${acme.siteId}</ID>`);
      }
      for (const other of all.filter((s) => s.ID !== acme.siteId).slice(0, 3)) {
        for (const f of [`ID eq "${other.ID as string}"`, `Name eq "${other.Name as string}"`]) {
          const res = await get(`/v4/sites?filter=${q(f)}`, token).expect(200);
          expect({ f, body: res.body, total: res.headers['x-total-count'] }).toEqual({ f, body: [], total: '0' });
        }
      }
      const paged = await get(`/v4/sites?cursor=start&filter=${q('ID pr')}`, token).expect(200);
      expect(ids(paged.body as Json[])).toEqual([acme.siteId]);
      expect(paged.headers.link).toBeUndefined();
    }
    for (const path of [`/v4/sites?filter=${q(mine)}`, '/v4/sites?cursor=start']) {
      const res = await t.http().get(path).set('Accept', 'application/json');
      expect({ path, status: res.status, total: res.headers['x-total-count'] }).toEqual({ path, status: 401, total: undefined });
    }
  });

  it('sorts by Name, in JSON and XML, keeps the plain order without sort=, and answers only the fields asked for', async () => {
    const cmp = sortCompare;
    await expectSorts(
      as(t.adminToken),
      `/v4/sites?limit=5000&filter=${q(mine)}`,
      all,
      [
        ['Name', (a, b) => cmp(a.Name, b.Name) || cmp(a.ID, b.ID)],
        ['-Name', (a, b) => -cmp(a.Name, b.Name) || -cmp(a.ID, b.ID)],
      ],
      'Site',
    );
    const queried = (await get(`/v4/sites?limit=5000&filter=${q(mine)}`, t.adminToken).expect(200)).body as Json[];
    expect(ids(queried)).toEqual(ids(all));
    await expectFields(
      as(t.adminToken),
      `/v4/sites?filter=${q(mine)}`,
      all,
      'Site',
      ['name,Updated', ['ID', 'Name', 'Updated']],
      ['PerformanceManagement,Created', ['Created', 'ID', 'PerformanceManagement']],
    );
  });

  it('exports the same sites as CSV for the same query', async () => {
    expect(await expectCsvLikeJson(t, `/v4/sites?sort=-Name&filter=${q(`${mine} and Name co "e"`)}`, t.adminToken, 'sites')).toBe(
      all.filter((r) => String(r.Name).toLowerCase().includes('e')).length,
    );
    expect(await expectCsvLikeJson(t, `/v4/sites?fields=Name&filter=${q(mine)}`, member.token, 'sites')).toBe(1);
  });

  it('pages with a cursor while others insert and delete: every site present throughout exactly once', async () => {
    const churn = `C${randomUUID().slice(0, 8)} `;
    await cursorsUnderChurn<string>({
      get: (url) => get(url, t.adminToken).expect(200),
      first: `/v4/sites?limit=4&cursor=start&filter=${q(`Name sw "${churn}"`)}`,
      sorts: ['', '-Name'],
      stable: 12,
      churn: 8,
      insert: (i) => insertSite(`${churn}${i % 5}`),
      remove: (id) => t.ds.getRepository(SiteEntity).delete({ id }),
      label: { list: 'sites' },
    });
  });

  it('answers 400 problems naming what it cannot answer, never 500, in JSON and XML', async () => {
    const bad: [string, string, RegExp][] = [
      ['filter=Nope eq "x"', 'filter', /Unknown field Nope.*filterable: ID, Name/],
      ['filter=PerformanceManagement eq true', 'filter', /PerformanceManagement/],
      ['filter=ID co "x"', 'filter', /operator co does not apply to ID/],
      ['sort=Created', 'sort', /sortable: Name/],
      ['fields=ID,Nope', 'fields', /Unknown field Nope/],
      ['cursor=garbage', 'cursor', /not one this list gave/],
    ];
    for (const token of [t.adminToken, acme.admin.token]) await expectRefusals((path, xml) => get(path, token, xml), ['/v4/sites'], bad);
  });
});
