import { RequestContext } from '../../src/common/context/request-context.js';
import { BasicRoleEntity } from '../../src/database/entities/basic-role.entity.js';
import { IndividualEntity } from '../../src/database/entities/individual.entity.js';
import { TenantDb } from '../../src/database/tenant-db.js';
import { operatorsOf } from '../../src/http/wire/list-query.js';
import { BasicRole, IndividualBasicRolesCount } from '../../src/modules/basic-roles/dto/basic-role.dto.js';
import { createPerson, createSite, TestPerson, TestSite } from '../factories/index.js';
import { denyRead } from '../factories/permissions.js';
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
 * `filter=`, `sort=`, `fields=` and `cursor=` on the basic-role lists (docs/queries.md): an
 * individual's (`GET /v4/individuals/{id}/basicroles`, `GET /v4/me/basicroles`, with `deleted`) and
 * the site's counts (`GET /v4/sites/{siteid}/individuals/basicroles`). Every operator on every
 * filterable field (guid, string, int, bool) against the same filter in JavaScript, in JSON and
 * XML; the right to an individual's roles (403 to someone outside their reporting chain, 401
 * anonymous, 404 another site's), another individual's and another site's roles, and the
 * individuals a Deny hides from the site's counts, before the filter and the total; keyset paging
 * while others insert and delete; the CSV export; 400 problems.
 */
const NAMES = ['Coach', 'coach juniors', 'Review budget', 'Hire', 'hiring panel', '=Formula', 'Plan 100%', 'Run_ops'];

describe(`list queries on basic roles (${DB_KIND})`, () => {
  let t: TestApp;
  let acme: TestSite;
  let globex: TestSite;
  let manager: TestPerson;
  let subject: TestPerson;
  let outsider: TestPerson;
  /** An individual of the site whose roles and count a Deny hides from the outsider. */
  let hidden: string;
  /** The subject's roles, live and deleted, as their manager reads them; the live ones. */
  let all: Json[];
  let live: Json[];
  /** Roles never on the subject's list: another individual's and another site's. */
  const elsewhere: string[] = [];

  const get = (path: string, token: string, xml = false) => getAs(t, path, token, xml);
  const as = (token: string) => (path: string, xml: boolean) => get(path, token, xml);
  const q = (s: string) => encodeURIComponent(s);
  const ofSubject = () => `/v4/individuals/${subject.individualId}/basicroles`;
  const repo = (siteId = acme.siteId) => t.app.get(TenantDb).repo(RequestContext.system(siteId), BasicRoleEntity);
  const role = (individualId: string, i: number): Partial<BasicRoleEntity> => ({
    individualId,
    name: `${NAMES[i % NAMES.length]}${i >= NAMES.length ? ` ${Math.floor(i / NAMES.length)}` : ''}`,
    description: i % 3 ? `Role ${i}` : null,
    rank: (i * 7) % 4,
    dialogsPerPeriod: i % 5,
    deleted: i % 6 === 5,
  });

  beforeAll(async () => {
    t = await startApp();
    acme = await createSite(t);
    globex = await createSite(t);
    manager = await createPerson(t, acme, { firstName: 'Mana', lastName: 'Ger' });
    subject = await createPerson(t, acme, { firstName: 'Sub', lastName: 'Ject', reportsTo: manager.individualId });
    outsider = await createPerson(t, acme, { firstName: 'Out', lastName: 'Sider' });
    hidden = (await createPerson(t, acme, { firstName: 'Hid', lastName: 'Den' })).individualId;
    for (let i = 0; i < 26; i++) await repo().insert(role(subject.individualId, i));
    for (let i = 0; i < 4; i++) elsewhere.push((await repo().insert(role(manager.individualId, i))).id);
    for (let i = 0; i < 2; i++) await repo().insert(role(hidden, i));
    const theirs = await createPerson(t, globex);
    for (let i = 0; i < 3; i++) elsewhere.push((await repo(globex.siteId).insert(role(theirs.individualId, i))).id);
    all = (await get(`${ofSubject()}?deleted=2&limit=5000`, manager.token).expect(200)).body as Json[];
    expect(all.length).toBe(26);
    live = all.filter((r) => r.Deleted === false);
    expect(live.length).toBeGreaterThan(15);
    expect(live.length).toBeLessThan(26);
    await denyRead(t, acme.admin.token, hidden, outsider.userId);
  });
  afterAll(() => t?.close());

  it('answers every operator on every filterable field (guid, string, int, bool) as JavaScript does, in JSON and XML, with its total', async () => {
    const filterable = [...BasicRole.queryable.values()].filter((f) => f.filter);
    expect([...new Set(filterable.map((f) => f.kind))].sort()).toEqual(['bool', 'guid', 'int', 'string']);
    const by = (name: string) => BasicRole.queryable.get(name.toLowerCase())!;
    for (const [lists, token, rows] of [
      [[`${ofSubject()}?deleted=2&limit=5000`], manager.token, all],
      [[`${ofSubject()}?limit=5000`, '/v4/me/basicroles?limit=5000'], subject.token, live],
      [[`${ofSubject()}?deleted=1&limit=5000`], acme.admin.token, all.filter((r) => r.Deleted === true)],
    ] as const) {
      const cases: Case[] = grammarCases(BasicRole.queryable, rows);
      for (const f of filterable) for (const op of operatorsOf(f.kind)) expect(cases.some((c) => c.filter.startsWith(`${f.name} ${op}`))).toBe(true);
      cases.push(
        { filter: 'Name sw "COACH" or not (Rank ge 2)', pred: (r) => comparison(by('Name'), 'sw', 'coach')(r) || !comparison(by('Rank'), 'ge', 2)(r) },
        {
          filter: '(Rank eq 1 or Name co "_") and Deleted eq false',
          pred: (r) => (r.Rank === 1 || String(r.Name).includes('_')) && r.Deleted === false,
        },
      );
      await expectFilterCases(as(token), lists, cases, rows, 'BasicRole');
    }
  });

  it('applies the right to the individual’s roles before the filter and the total, and never finds another’s or another site’s', async () => {
    // Outside the reporting chain: 403 whatever the filter, by offset or by cursor, in JSON and XML; anonymous 401.
    for (const path of [`${ofSubject()}?filter=${q('Name sw "c"')}`, `${ofSubject()}?cursor=start&filter=${q(`ID eq "${all[0].ID as string}"`)}`]) {
      for (const xml of [false, true]) {
        const res = await get(path, outsider.token, xml);
        expect({ path, xml, status: res.status, total: res.headers['x-total-count'] }).toEqual({ path, xml, status: 403, total: undefined });
        expect(res.text).not.toContain(all[0].ID as string);
      }
      const anonymous = await t.http().get(path).set('Accept', 'application/json');
      expect({ path, status: anonymous.status, total: anonymous.headers['x-total-count'] }).toEqual({ path, status: 401, total: undefined });
    }
    await t.http().get(ofSubject()).set('Authorization', `Bearer ${outsider.token}`).set('Accept', 'text/csv').expect(403);
    // Another site's individual is 404 to the administrator, whatever the filter.
    const theirs = (await t.app.get(TenantDb).repo(RequestContext.system(globex.siteId), IndividualEntity).find({}))[0];
    await get(`/v4/individuals/${theirs.id}/basicroles?filter=${q('Name pr')}`, acme.admin.token).expect(404);
    for (const id of elsewhere) {
      for (const [list, token] of [
        [`${ofSubject()}?deleted=2`, acme.admin.token],
        ['/v4/me/basicroles?deleted=2', subject.token],
        ['/v4/me/basicroles?deleted=2', outsider.token],
      ] as const) {
        const res = await get(`${list}&filter=${q(`ID eq "${id}"`)}`, token).expect(200);
        expect({ list, id, found: res.body, total: res.headers['x-total-count'] }).toEqual({ list, id, found: [], total: '0' });
      }
    }
    const others = await get(`${ofSubject()}?deleted=2&filter=${q(`IndividualID eq "${manager.individualId}"`)}`, acme.admin.token).expect(200);
    expect({ body: others.body, total: others.headers['x-total-count'] }).toEqual({ body: [], total: '0' });
    // A caller's own list is theirs only.
    const mine = await get(`/v4/me/basicroles?filter=${q('Name pr')}`, outsider.token).expect(200);
    expect({ body: mine.body, total: mine.headers['x-total-count'] }).toEqual({ body: [], total: '0' });
  });

  it('sorts by Rank (then Name) and by Name, in JSON and XML, keeps the plain order without sort=, and answers only the fields asked for', async () => {
    const cmp = sortCompare;
    await expectSorts(
      as(manager.token),
      `${ofSubject()}?deleted=2&limit=5000`,
      all,
      [
        ['Rank', (a, b) => cmp(a.Rank, b.Rank) || cmp(a.Name, b.Name) || cmp(a.ID, b.ID)],
        ['-Rank', (a, b) => -cmp(a.Rank, b.Rank) || -cmp(a.Name, b.Name) || -cmp(a.ID, b.ID)],
        ['Name', (a, b) => cmp(a.Name, b.Name) || cmp(a.ID, b.ID)],
        ['-Name', (a, b) => -cmp(a.Name, b.Name) || -cmp(a.ID, b.ID)],
      ],
      'BasicRole',
    );
    const plain = (await get(`${ofSubject()}?limit=5000`, manager.token).expect(200)).body as Json[];
    const queried = (await get(`${ofSubject()}?limit=5000&filter=${q('ID pr')}`, manager.token).expect(200)).body as Json[];
    expect(ids(queried)).toEqual(ids(plain));
    await expectFields(
      as(manager.token),
      ofSubject(),
      live,
      'BasicRole',
      ['dialogsperperiod,Name', ['ID', 'Name', 'DialogsPerPeriod']],
      ['Rank,Deleted,Description', ['Deleted', 'Description', 'ID', 'Rank']],
    );
  });

  it('exports the same roles as CSV for the same query', async () => {
    expect(await expectCsvLikeJson(t, `${ofSubject()}?deleted=2&sort=-Name&filter=${q('Rank le 2')}`, manager.token, 'basicroles')).toBe(
      all.filter((r) => Number(r.Rank) <= 2).length,
    );
    expect(await expectCsvLikeJson(t, '/v4/me/basicroles?fields=Name,Rank', subject.token, 'basicroles')).toBe(live.length);
  });

  it('pages with a cursor while others insert and delete: every role present throughout exactly once', async () => {
    await cursorsUnderChurn<string>({
      get: (url) => get(url, acme.admin.token).expect(200),
      first: `${ofSubject()}?limit=4&cursor=start&filter=${q('Name sw "Churn"')}`,
      sorts: ['', '-Rank', 'Name'],
      stable: 12,
      churn: 8,
      insert: async (i) => (await repo().insert({ ...role(subject.individualId, i), name: `Churn ${i % 5}`, deleted: false })).id,
      remove: (id) => t.ds.getRepository(BasicRoleEntity).delete({ id }),
      label: { list: 'basicroles' },
    });
  });

  it('answers 400 problems naming what it cannot answer, never 500, in JSON and XML', async () => {
    const bad: [string, string, RegExp][] = [
      ['filter=Nope eq "x"', 'filter', /Unknown field Nope.*filterable: ID, IndividualID, Name, Rank, Deleted/],
      ['filter=Description co "x"', 'filter', /Description/],
      ['filter=Rank co "3"', 'filter', /operator co does not apply to Rank/],
      ['filter=Rank gt "one"', 'filter', /number/],
      ['filter=Deleted eq 1', 'filter', /true or false|bool/],
      ['sort=DialogsPerPeriod', 'sort', /sortable: Name, Rank|sortable: Rank, Name/],
      ['fields=ID,Nope', 'fields', /Unknown field Nope/],
      ['cursor=garbage', 'cursor', /not one this list gave/],
    ];
    await expectRefusals((path, xml) => get(path, acme.admin.token, xml), [ofSubject(), '/v4/me/basicroles'], bad);
  });

  describe('the site’s counts', () => {
    const ofSite = (siteId = acme.siteId) => `/v4/sites/${siteId}/individuals/basicroles`;
    const keysOf = (rows: Json[]) => rows.map((r) => r.IndividualID as string);
    const xmlKeysOf = (text: string) => [...text.matchAll(/<IndividualID>([^<]+)<\/IndividualID>/g)].map((m) => m[1]);

    it('filters on IndividualID with every operator as JavaScript does, in JSON and XML, with its total, in the plain list’s order', async () => {
      const filterable = [...IndividualBasicRolesCount.queryable.values()].filter((f) => f.filter);
      expect(filterable.map((f) => [f.name, f.kind])).toEqual([['IndividualID', 'guid']]);
      for (const token of [acme.admin.token, outsider.token]) {
        const rows = (await get(`${ofSite()}?limit=5000`, token).expect(200)).body as Json[];
        expect(rows.length).toBeGreaterThanOrEqual(token === outsider.token ? 4 : 5);
        const cases: Case[] = [
          ...grammarCases(IndividualBasicRolesCount.queryable, rows),
          {
            filter: `IndividualID eq "${subject.individualId.toUpperCase()}" or not (IndividualID ne "${manager.individualId}")`,
            pred: (r) => r.IndividualID === subject.individualId || r.IndividualID === manager.individualId,
          },
        ];
        for (const op of operatorsOf('guid')) expect(cases.some((c) => c.filter.startsWith(`IndividualID ${op}`))).toBe(true);
        for (const c of cases) {
          const expected = keysOf(rows.filter(c.pred));
          const path = `${ofSite()}?limit=5000&filter=${q(c.filter)}`;
          const json = await get(path, token).expect(200);
          expect({ filter: c.filter, keys: keysOf(json.body as Json[]), total: json.headers['x-total-count'] }).toEqual({
            filter: c.filter,
            keys: expected,
            total: String(expected.length),
          });
          expect(json.body).toEqual(rows.filter(c.pred));
          expect({ filter: c.filter, keys: xmlKeysOf((await get(path, token, true).expect(200)).text) }).toEqual({ filter: c.filter, keys: expected });
        }
      }
      const subjects = (await get(`${ofSite()}?filter=${q(`IndividualID eq "${subject.individualId}"`)}`, manager.token).expect(200)).body;
      expect(subjects).toEqual([{ IndividualID: subject.individualId, FullName: 'Sub Ject', BasicRolesCount: live.length }]);
    });

    it('leaves out an individual a Deny hides and another site’s, before the filter and the total; another site is for a global administrator', async () => {
      for (const f of [`IndividualID eq "${hidden}"`, `IndividualID eq "${globex.admin.individualId}"`]) {
        const res = await get(`${ofSite()}?filter=${q(f)}`, outsider.token).expect(200);
        expect({ f, body: res.body, total: res.headers['x-total-count'] }).toEqual({ f, body: [], total: '0' });
      }
      const seen = await get(`${ofSite()}?filter=${q(`IndividualID eq "${hidden}"`)}`, acme.admin.token).expect(200);
      expect(seen.body).toEqual([{ IndividualID: hidden, FullName: 'Hid Den', BasicRolesCount: 2 }]);
      const all = await get(`${ofSite()}?filter=${q('IndividualID pr')}`, outsider.token).expect(200);
      expect(keysOf(all.body as Json[])).not.toContain(hidden);
      const res = await get(`${ofSite(globex.siteId)}?filter=${q('IndividualID pr')}`, acme.admin.token);
      expect({ status: res.status, total: res.headers['x-total-count'] }).toEqual({ status: 403, total: undefined });
      const global = await get(`${ofSite(globex.siteId)}?filter=${q(`IndividualID ne "${globex.admin.individualId}"`)}`, t.adminToken).expect(200);
      expect(global.body).toEqual([expect.objectContaining({ BasicRolesCount: 3 })]);
      const anonymous = await t
        .http()
        .get(`${ofSite()}?filter=${q('IndividualID pr')}`)
        .set('Accept', 'application/json');
      expect(anonymous.status).toBe(401);
    });

    it('answers only the fields asked for, exports them as CSV, and 400 for what it cannot answer', async () => {
      const rows = (await get(`${ofSite()}?limit=5000`, acme.admin.token).expect(200)).body as Json[];
      const some = (await get(`${ofSite()}?fields=basicrolescount,IndividualID&limit=3`, acme.admin.token).expect(200)).body as Json[];
      expect(some).toEqual(rows.slice(0, 3).map((r) => ({ IndividualID: r.IndividualID, BasicRolesCount: r.BasicRolesCount })));
      const xml = (await get(`${ofSite()}?fields=FullName&limit=2`, acme.admin.token, true).expect(200)).text;
      expect([...xml.matchAll(/<IndividualBasicRolesCount>([\s\S]*?)<\/IndividualBasicRolesCount>/g)].map((m) => m[1])).toEqual(
        rows.slice(0, 2).map((r) => `<FullName>${r.FullName as string}</FullName>`),
      );
      const csv = await t.http().get(ofSite()).set('Authorization', `Bearer ${acme.admin.token}`).set('Accept', 'text/csv').buffer(true).expect(200);
      expect(csv.headers['content-disposition']).toBe('attachment; filename="basicroles.csv"');
      expect(csv.text.trim().split('\r\n')).toEqual([
        'BasicRolesCount,FullName,IndividualID',
        ...rows.map((r) => `${r.BasicRolesCount as number},${r.FullName as string},${r.IndividualID as string}`),
      ]);
      const bad: [string, string, RegExp][] = [
        ['filter=FullName sw "a"', 'filter', /Unknown field FullName.*filterable: IndividualID/],
        ['filter=BasicRolesCount gt 1', 'filter', /Unknown field BasicRolesCount/],
        ['sort=FullName', 'sort', /sortable: none/],
        ['fields=Nope', 'fields', /Unknown field Nope/],
        ['cursor=garbage', 'cursor', /not one this list gave/],
      ];
      await expectRefusals((path, xml) => get(path, acme.admin.token, xml), [ofSite()], bad);
    });

    it('pages with a cursor while others insert and delete: every individual present throughout exactly once', async () => {
      const site = await createSite(t);
      const people = t.app.get(TenantDb).repo(RequestContext.system(site.siteId), IndividualEntity);
      let k = 0;
      const insert = async () =>
        (
          await people.insert({
            userId: null,
            isAdmin: false,
            firstName: `F${k}`,
            lastName: `Churn ${k++ % 5}`,
            email: null,
            primaryOrganizationId: site.orgId,
            primaryTitle: null,
          })
        ).id;
      const stable: string[] = [];
      const churn: string[] = [];
      for (let i = 0; i < 12; i++) stable.push(await insert());
      for (let i = 0; i < 8; i++) churn.push(await insert());
      const everExisted = new Set([...stable, ...churn]);
      const seen: string[] = [];
      let url: string | null = `${ofSite(site.siteId)}?limit=4&cursor=start&filter=${q(`IndividualID ne "${site.admin.individualId}"`)}`;
      while (url) {
        const res: { body: unknown; headers: Record<string, string> } = await get(url, site.admin.token).expect(200);
        expect(res.headers['x-total-count']).toBeUndefined();
        seen.push(...keysOf(res.body as Json[]));
        everExisted.add(await insert());
        const gone = churn.shift();
        if (gone) await people.update(gone, { deleted: true });
        url = /<([^>]+)>; rel="next"/.exec(String(res.headers.link ?? ''))?.[1] ?? null;
      }
      expect(seen.length - new Set(seen).size).toBe(0);
      for (const id of stable) expect({ id, seen: seen.includes(id) }).toEqual({ id, seen: true });
      for (const id of seen) expect({ id, existed: everExisted.has(id) }).toEqual({ id, existed: true });
    });
  });
});
