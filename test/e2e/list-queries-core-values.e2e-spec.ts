import { RequestContext } from '../../src/common/context/request-context.js';
import { CoreValueEntity } from '../../src/database/entities/core-value.entity.js';
import { TenantDb } from '../../src/database/tenant-db.js';
import { operatorsOf } from '../../src/http/wire/list-query.js';
import { CoreValue } from '../../src/modules/core-values/dto/core-value.dto.js';
import { createPerson, createSite, TestPerson, TestSite } from '../factories/index.js';
import { DB_KIND, startApp, TestApp } from './harness.js';
import {
  type Case,
  cursorUnderChurn,
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
 * `filter=`, `sort=`, `fields=` and `cursor=` on `GET /v4/corevalues` and `GET /v4/sites/{siteid}/corevalues`
 * (docs/queries.md): every operator on every filterable field (guid, string, int, bool) against the
 * same filter in JavaScript, in JSON and XML; another site's values never found; keyset paging while
 * others insert and delete; 400 problems.
 */
describe(`list queries on core values (${DB_KIND})`, () => {
  let t: TestApp;
  let acme: TestSite;
  let globex: TestSite;
  let member: TestPerson;
  let all: Json[];
  let theirs: string[];

  const get = (path: string, token: string, xml = false) => getAs(t, path, token, xml);
  const xmlIds = (text: string) => xmlIdsOf(text, 'CoreValue');
  const q = (s: string) => encodeURIComponent(s);

  beforeAll(async () => {
    t = await startApp();
    acme = await createSite(t);
    globex = await createSite(t);
    member = await createPerson(t, acme);
    const db = t.app.get(TenantDb);
    const ctx = RequestContext.system(acme.siteId);
    for (let i = 0; i < 30; i++) {
      await db.repo(ctx, CoreValueEntity).insert({
        name: `${['Integrity', 'integrity first', 'Courage', 'Care_for', 'Ownership 100%'][i % 5]}${i % 3 ? ` ${String.fromCharCode(97 + (i % 4))}` : ''}`,
        description: i % 2 ? 'Why it matters' : null,
        rank: (i * 7) % 6,
        deleted: i % 8 === 0,
      });
    }
    theirs = [];
    const gctx = RequestContext.system(globex.siteId);
    for (let i = 0; i < 3; i++) theirs.push((await db.repo(gctx, CoreValueEntity).insert({ name: 'Integrity', description: null, rank: 0 })).id);
    all = (await get('/v4/corevalues?deleted=2&limit=5000', member.token).expect(200)).body as Json[];
    expect(all.length).toBe(30);
  });
  afterAll(() => t?.close());

  it('answers every operator on every filterable field (guid, string, int, bool) as JavaScript does, in JSON and XML, with its total', async () => {
    const filterable = [...CoreValue.queryable.values()].filter((f) => f.filter);
    expect([...new Set(filterable.map((f) => f.kind))].sort()).toEqual(['bool', 'guid', 'int', 'string']);
    const cases: Case[] = grammarCases(CoreValue.queryable, all);
    for (const f of filterable) for (const op of operatorsOf(f.kind)) expect(cases.some((c) => c.filter.startsWith(`${f.name} ${op}`))).toBe(true);
    cases.push({
      filter: 'Rank le 2 and not (Name sw "integrity")',
      pred: (r) => (r.Rank as number) <= 2 && !String(r.Name).toLowerCase().startsWith('integrity'),
    });
    for (const c of cases) {
      const expected = ids(all.filter(c.pred));
      for (const list of ['/v4/corevalues', `/v4/sites/${acme.siteId}/corevalues`]) {
        const json = await get(`${list}?deleted=2&limit=5000&filter=${q(c.filter)}`, member.token);
        expect({ filter: c.filter, status: json.status }).toEqual({ filter: c.filter, status: 200 });
        expect({ filter: c.filter, ids: ids(json.body as Json[]), total: json.headers['x-total-count'] }).toEqual({
          filter: c.filter,
          ids: expected,
          total: String(expected.length),
        });
      }
      const xml = await get(`/v4/corevalues?deleted=2&limit=5000&filter=${q(c.filter)}`, member.token, true).expect(200);
      expect({ filter: c.filter, ids: xmlIds(xml.text) }).toEqual({ filter: c.filter, ids: expected });
    }
  });

  it('never finds another site’s values; sorts by Name and Rank (then Name); answers only the fields asked for', async () => {
    for (const id of theirs) {
      const res = await get(`/v4/corevalues?deleted=2&filter=${q(`ID eq "${id}"`)}`, member.token).expect(200);
      expect({ id, found: res.body, total: res.headers['x-total-count'] }).toEqual({ id, found: [], total: '0' });
    }
    const cmp = sortCompare;
    const sorts: [string, (a: Json, b: Json) => number][] = [
      ['-Name', (a, b) => -cmp(a.Name, b.Name) || -cmp(a.ID, b.ID)],
      ['-Rank', (a, b) => -cmp(a.Rank, b.Rank) || -cmp(a.Name, b.Name) || -cmp(a.ID, b.ID)],
    ];
    await expectSorts((path, xml) => get(path, member.token, xml), '/v4/corevalues?deleted=2&limit=5000', all, sorts, 'CoreValue');
    await expectFields(
      (path, xml) => get(path, member.token, xml),
      '/v4/corevalues',
      all,
      'CoreValue',
      ['Rank,name', ['ID', 'Name', 'Rank']],
      ['Rank,Name,Description', ['Description', 'ID', 'Name', 'Rank']],
    );
  });

  it('pages with a cursor while others insert and delete: every value present throughout exactly once', async () => {
    const db = t.app.get(TenantDb);
    const ctx = RequestContext.system(acme.siteId);
    const insert = async (i: number) => (await db.repo(ctx, CoreValueEntity).insert({ name: `Cur ${i}`, description: null, rank: i % 4 })).id;
    const stable: string[] = [];
    const churn: string[] = [];
    for (let i = 0; i < 20; i++) stable.push(await insert(i));
    for (let i = 20; i < 30; i++) churn.push(await insert(i));
    let k = 100;
    await cursorUnderChurn({
      get: (url) => get(url, member.token).expect(200),
      first: `/v4/corevalues?limit=4&cursor=start&filter=${q('Name sw "Cur"')}`,
      stable,
      churn,
      insert: () => insert(k++),
      remove: (id) => db.repo(ctx, CoreValueEntity).update(id, { deleted: true }),
    });
  });

  it('answers 400 problems naming what it cannot answer, never 500', async () => {
    const bad: [string, string, RegExp][] = [
      ['filter=Description co "x"', 'filter', /Unknown field Description.*filterable: ID, Name, Rank, Deleted/],
      ['filter=Rank co 1', 'filter', /operator co does not apply to Rank/],
      ['sort=Deleted', 'sort', /Unknown field Deleted|not sortable/],
      ['fields=ID,Nope', 'fields', /Unknown field Nope/],
      ['cursor=garbage', 'cursor', /not one this list gave/],
    ];
    await expectRefusals((path, xml) => get(path, member.token, xml), ['/v4/corevalues'], bad);
  });
});
