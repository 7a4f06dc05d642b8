import { RequestContext } from '../../src/common/context/request-context.js';
import { PeriodEntity } from '../../src/database/entities/period.entity.js';
import { TenantDb } from '../../src/database/tenant-db.js';
import { operatorsOf } from '../../src/http/wire/list-query.js';
import { Period } from '../../src/modules/periods/dto/period.dto.js';
import { createPerson, createSite, TestPerson, TestSite } from '../factories/index.js';
import { createPeriod } from '../factories/goals.js';
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
 * `filter=`, `sort=`, `fields=` and `cursor=` on `GET /v4/periods` (docs/queries.md): every operator
 * on every filterable field (int, string, date, bool) against the same filter in JavaScript, in JSON
 * and XML; "the periods that contain a day"; another site's periods never found; keyset paging
 * while others insert and delete; 400 problems.
 */
describe(`list queries on periods (${DB_KIND})`, () => {
  let t: TestApp;
  let acme: TestSite;
  let globex: TestSite;
  let member: TestPerson;
  let all: Json[];
  let theirs: number[];

  const get = (path: string, token: string, xml = false) => getAs(t, path, token, xml);
  const xmlIds = (text: string) => xmlIdsOf(text, 'Period').map(Number);
  const q = (s: string) => encodeURIComponent(s);
  const day = (y: number, m: number, d: number) => new Date(Date.UTC(y, m, d));

  beforeAll(async () => {
    t = await startApp();
    acme = await createSite(t);
    globex = await createSite(t);
    member = await createPerson(t, acme);
    for (let i = 0; i < 30; i++) {
      const y = 2020 + (i % 7);
      const start = day(y, (i * 5) % 12, 1 + (i % 20));
      const end = new Date(start.getTime() + (30 + ((i * 37) % 300)) * 86400000);
      await createPeriod(t, acme.siteId, {
        name: `${['FY', 'Q1', 'q2', 'H1_', 'Review 50%'][i % 5]} ${y}${i % 3 ? String.fromCharCode(97 + (i % 4)) : ''}`,
        start,
        end,
        closed: i % 4 === 0,
      });
    }
    theirs = [];
    for (let i = 0; i < 3; i++)
      theirs.push((await createPeriod(t, globex.siteId, { name: `FY ${2020 + i}`, start: day(2020 + i, 0, 1), end: day(2020 + i, 11, 31) })).id);
    all = (await get('/v4/periods?limit=5000', member.token).expect(200)).body as Json[];
    expect(all.length).toBe(30);
  });
  afterAll(() => t?.close());

  it('answers every operator on every filterable field (int, string, date, bool) as JavaScript does, in JSON and XML, with its total', async () => {
    const filterable = [...Period.queryable.values()].filter((f) => f.filter);
    expect([...new Set(filterable.map((f) => f.kind))].sort()).toEqual(['bool', 'date', 'int', 'string']);
    const cases: Case[] = grammarCases(Period.queryable, all);
    for (const f of filterable) for (const op of operatorsOf(f.kind)) expect(cases.some((c) => c.filter.startsWith(`${f.name} ${op}`))).toBe(true);
    const by = (name: string) => Period.queryable.get(name.toLowerCase())!;
    const started = comparison(by('StartDate'), 'le', '2023-06-30');
    const ended = comparison(by('EndDate'), 'ge', '2023-06-30');
    // The periods that contain a day.
    cases.push(
      { filter: 'StartDate le "2023-06-30" and EndDate ge "2023-06-30"', pred: (r) => started(r) && ended(r) },
      { filter: 'Closed eq true or not (Name sw "fy")', pred: (r) => r.Closed === true || !String(r.Name).toLowerCase().startsWith('fy') },
    );
    expect(cases.length).toBeGreaterThan(40);
    for (const c of cases) {
      const expected = ids(all.filter(c.pred));
      const path = `/v4/periods?limit=5000&filter=${q(c.filter)}`;
      const json = await get(path, member.token);
      expect({ filter: c.filter, status: json.status, ids: ids(json.body as Json[]) }).toEqual({ filter: c.filter, status: 200, ids: expected });
      expect({ filter: c.filter, total: json.headers['x-total-count'] }).toEqual({ filter: c.filter, total: String(expected.length) });
      const xml = await get(path, member.token, true).expect(200);
      expect({ filter: c.filter, ids: xmlIds(xml.text) }).toEqual({ filter: c.filter, ids: expected });
    }
    const contains = (await get(`/v4/periods?filter=${q('StartDate le "2023-06-30" and EndDate ge "2023-06-30"')}`, member.token).expect(200)).body as Json[];
    expect(contains.length).toBeGreaterThan(0);
  });

  it('never finds another site’s periods; sorts in JSON and XML; answers only the fields asked for', async () => {
    for (const id of theirs) {
      const res = await get(`/v4/periods?filter=${q(`ID eq ${id}`)}`, member.token).expect(200);
      expect({ id, found: res.body, total: res.headers['x-total-count'] }).toEqual({ id, found: [], total: '0' });
    }
    const cmp = sortCompare;
    const time = (v: unknown) => new Date(v as string).getTime();
    const sorts: [string, (a: Json, b: Json) => number][] = [
      ['Name', (a, b) => cmp(a.Name, b.Name) || cmp(a.ID, b.ID)],
      ['-StartDate', (a, b) => -cmp(time(a.StartDate), time(b.StartDate)) || -cmp(a.ID, b.ID)],
      ['EndDate', (a, b) => cmp(time(a.EndDate), time(b.EndDate)) || cmp(a.ID, b.ID)],
      ['-Updated', (a, b) => -cmp(time(a.Updated), time(b.Updated)) || -cmp(a.ID, b.ID)],
    ];
    await expectSorts((path, xml) => get(path, member.token, xml), '/v4/periods?limit=5000', all, sorts, 'Period');
    await expectFields(
      (path, xml) => get(path, member.token, xml),
      '/v4/periods',
      all,
      'Period',
      ['EndDate,name', ['ID', 'Name', 'EndDate']],
      ['Name,Closed,StartDate', ['Closed', 'ID', 'Name', 'StartDate']],
    );
  });

  it('pages with a cursor while others insert and delete: every period present throughout exactly once', async () => {
    const db = t.app.get(TenantDb);
    const ctx = RequestContext.system(acme.siteId);
    const insert = async (i: number) =>
      (await createPeriod(t, acme.siteId, { name: `Cur ${i}`, start: day(2030, i % 12, 1 + (i % 27)), end: day(2031, 0, 1) })).id;
    await cursorsUnderChurn<number>({
      get: (url) => get(url, member.token).expect(200),
      first: `/v4/periods?limit=5&cursor=start&filter=${q('Name sw "Cur"')}`,
      sorts: ['', '-StartDate', 'Name'],
      stable: 20,
      churn: 12,
      insert,
      remove: (id) => db.repo(ctx, PeriodEntity).remove(id),
    });
  });

  it('answers 400 problems naming what it cannot answer, never 500, in JSON and XML', async () => {
    const bad: [string, string, RegExp][] = [
      ['filter=SiteID eq "x"', 'filter', /Unknown field SiteID.*filterable: ID, Name, StartDate, EndDate, Closed, Updated/],
      ['filter=Closed co "x"', 'filter', /operator co does not apply to Closed/],
      ['filter=StartDate ge "soon"', 'filter', /date/],
      ['filter=ID eq 1.5', 'filter', /integer/],
      ['sort=Closed', 'sort', /not sortable.*sortable: Name, StartDate, EndDate, Updated/],
      ['fields=ID,Nope', 'fields', /Unknown field Nope/],
      ['cursor=garbage', 'cursor', /not one this list gave/],
    ];
    await expectRefusals((path, xml) => get(path, member.token, xml), ['/v4/periods'], bad);
  });
});
