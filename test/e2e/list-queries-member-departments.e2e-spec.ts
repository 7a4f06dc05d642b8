import { RequestContext } from '../../src/common/context/request-context.js';
import { OrganizationEntity } from '../../src/database/entities/organization.entity.js';
import { OrganizationMemberEntity } from '../../src/database/entities/organization-member.entity.js';
import { TenantDb } from '../../src/database/tenant-db.js';
import { operatorsOf } from '../../src/http/wire/list-query.js';
import { Organization } from '../../src/modules/organizations/dto/organization.dto.js';
import { createPerson, createSite, TestPerson, TestSite } from '../factories/index.js';
import { addMember, createOrg } from '../factories/organizations.js';
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
 * `filter=`, `sort=`, `fields=` and `cursor=` on the organizations and departments of a person
 * (`GET /v4/me/departments`, `GET /v4/individuals/{id}/departments`, with `deleted`; docs/queries.md).
 * Every operator on every filterable field (guid, string, int, bool, date) against the same filter in
 * JavaScript, in JSON and XML; the units a Deny hides from the reader, those the person is no member
 * of and another site's left out before the filter and the total; 401, 404; keyset paging while
 * others insert and delete; the CSV export; 400 problems.
 */
const NAMES = ['Sales', 'sales east', 'Support', 'R&D 100%', 'Ops_team', '=Formula', 'Engineering', 'audit'];

describe(`list queries on a person’s departments (${DB_KIND})`, () => {
  let t: TestApp;
  let acme: TestSite;
  let globex: TestSite;
  let person: TestPerson;
  let reader: TestPerson;
  /** A department of the person's that a Deny hides from the reader. */
  let hidden: string;
  /** The person's units (primary included), live and deleted, as the administrator reads them; the live ones; the reader's view. */
  let all: Json[];
  let live: Json[];
  let seen: Json[];
  /** Units never on the person's list: the site's others and another site's. */
  const elsewhere: string[] = [];

  const get = (path: string, token: string, xml = false) => getAs(t, path, token, xml);
  const as = (token: string) => (path: string, xml: boolean) => get(path, token, xml);
  const q = (s: string) => encodeURIComponent(s);
  const ofPerson = () => `/v4/individuals/${person.individualId}/departments`;
  const members = () => t.app.get(TenantDb).repo(RequestContext.system(acme.siteId), OrganizationMemberEntity);

  beforeAll(async () => {
    t = await startApp();
    acme = await createSite(t);
    globex = await createSite(t);
    person = await createPerson(t, acme, { firstName: 'Per', lastName: 'Son' });
    reader = await createPerson(t, acme, { firstName: 'Rea', lastName: 'Der' });
    const parent = (await createOrg(t, acme.siteId, { name: 'Parent' })).id;
    const units: string[] = [];
    for (let i = 0; i < 20; i++) {
      const unit = await createOrg(t, acme.siteId, {
        name: `${NAMES[i % NAMES.length]}${i >= NAMES.length ? ` ${Math.floor(i / NAMES.length)}` : ''}`,
        rank: (i * 5) % 4,
        parentId: i % 3 ? parent : null,
      });
      units.push(unit.id);
      await addMember(t, acme.siteId, person.individualId, unit.id, null);
    }
    const orgs = t.app.get(TenantDb).repo(RequestContext.system(acme.siteId), OrganizationEntity);
    for (const i of [4, 11, 17]) await orgs.update(units[i], { deleted: true });
    for (let i = 0; i < 20; i += 3) await orgs.update(units[i], { externalId: `D-${String(i).padStart(2, '0')}` });
    hidden = units[2];
    for (let i = 0; i < 3; i++) elsewhere.push((await createOrg(t, acme.siteId, { name: `Sales other ${i}` })).id);
    elsewhere.push(parent);
    for (let i = 0; i < 2; i++) elsewhere.push((await createOrg(t, globex.siteId, { name: `Sales ${i}` })).id);
    all = (await get(`${ofPerson()}?deleted=2&limit=5000`, acme.admin.token).expect(200)).body as Json[];
    expect(all.length).toBe(21); // twenty departments and the primary organization
    live = all.filter((r) => r.Deleted === false);
    expect(live.length).toBe(18);
    await denyRead(t, acme.admin.token, hidden, reader.userId);
    seen = (await get(`${ofPerson()}?deleted=2&limit=5000`, reader.token).expect(200)).body as Json[];
    expect(ids(seen)).toEqual(ids(all.filter((r) => r.ID !== hidden)));
  });
  afterAll(() => t?.close());

  it('answers every operator on every filterable field (guid, string, int, bool, date) as JavaScript does, in JSON and XML, with its total', async () => {
    const filterable = [...Organization.queryable.values()].filter((f) => f.filter);
    expect([...new Set(filterable.map((f) => f.kind))].sort()).toEqual(['bool', 'date', 'guid', 'int', 'string']);
    const by = (name: string) => Organization.queryable.get(name.toLowerCase())!;
    for (const [lists, token, rows] of [
      [[`${ofPerson()}?deleted=2&limit=5000`], acme.admin.token, all],
      [[`${ofPerson()}?limit=5000`, '/v4/me/departments?limit=5000'], person.token, live],
      [[`${ofPerson()}?deleted=2&limit=5000`], reader.token, seen],
    ] as const) {
      const cases: Case[] = grammarCases(Organization.queryable, rows);
      for (const f of filterable) for (const op of operatorsOf(f.kind)) expect(cases.some((c) => c.filter.startsWith(`${f.name} ${op}`))).toBe(true);
      cases.push(
        { filter: 'Name sw "SALES" or not (Rank ge 2)', pred: (r) => comparison(by('Name'), 'sw', 'sales')(r) || !comparison(by('Rank'), 'ge', 2)(r) },
        {
          filter: '(ParentID eq null or Name co "_") and Deleted eq false',
          pred: (r) => (r.ParentID === null || String(r.Name).includes('_')) && r.Deleted === false,
        },
        { filter: `ID eq "${hidden}" or Name ew "1"`, pred: (r) => r.ID === hidden || String(r.Name).endsWith('1') },
      );
      await expectFilterCases(as(token), lists, cases, rows, 'Organization');
    }
  });

  it('leaves out a unit a Deny hides, the units the person is no member of and another site’s, before the filter and the total', async () => {
    for (const [f, token] of [
      [`ID eq "${hidden}"`, reader.token],
      [`Name eq "${String(all.find((r) => r.ID === hidden)!.Name)}"`, reader.token],
      ...elsewhere.map((id) => [`ID eq "${id}"`, acme.admin.token] as const),
      [`ParentID eq null and Name sw "Sales other"`, acme.admin.token],
    ] as const) {
      const res = await get(`${ofPerson()}?deleted=2&filter=${q(f)}`, token).expect(200);
      expect({ f, body: res.body, total: res.headers['x-total-count'] }).toEqual({ f, body: [], total: '0' });
    }
    // The caller's own list holds their own units only, whatever the filter.
    const theirs = await get(`/v4/me/departments?deleted=2&filter=${q(`ID eq "${all[1].ID as string}" or Name pr`)}`, reader.token).expect(200);
    expect(ids(theirs.body as Json[])).toEqual([acme.orgId]);
    // Anonymous 401; another site's individual 404, whatever the filter or cursor.
    for (const path of [`${ofPerson()}?filter=${q('Name pr')}`, `/v4/me/departments?cursor=start`]) {
      const res = await t.http().get(path).set('Accept', 'application/json');
      expect({ path, status: res.status, total: res.headers['x-total-count'] }).toEqual({ path, status: 401, total: undefined });
    }
    for (const path of [
      `/v4/individuals/${globex.admin.individualId}/departments?filter=${q('Name pr')}`,
      `/v4/individuals/${globex.admin.individualId}/departments?cursor=start`,
    ]) {
      const res = await get(path, acme.admin.token, true);
      expect({ path, status: res.status, total: res.headers['x-total-count'] }).toEqual({ path, status: 404, total: undefined });
    }
  });

  it('sorts by Name, Rank (then Name) and Updated, in JSON and XML, keeps the plain order without sort=, and answers only the fields asked for', async () => {
    const cmp = sortCompare;
    const time = (v: unknown) => new Date(v as string).getTime();
    await expectSorts(
      as(acme.admin.token),
      `${ofPerson()}?deleted=2&limit=5000`,
      all,
      [
        ['Name', (a, b) => cmp(a.Name, b.Name) || cmp(a.ID, b.ID)],
        ['-Rank', (a, b) => -cmp(a.Rank, b.Rank) || -cmp(a.Name, b.Name) || -cmp(a.ID, b.ID)],
        ['Updated', (a, b) => cmp(time(a.Updated), time(b.Updated)) || cmp(a.ID, b.ID)],
      ],
      'Organization',
    );
    for (const [path, token] of [
      [`${ofPerson()}?deleted=2&limit=5000`, acme.admin.token],
      ['/v4/me/departments?limit=5000', person.token],
    ] as const) {
      const plain = (await get(path, token).expect(200)).body as Json[];
      const queried = (await get(`${path}&filter=${q('ID pr')}`, token).expect(200)).body as Json[];
      expect({ path, ids: ids(queried) }).toEqual({ path, ids: ids(plain) });
    }
    await expectFields(
      as(acme.admin.token),
      ofPerson(),
      live,
      'Organization',
      ['rank,Name', ['ID', 'Name', 'Rank']],
      ['ParentID,Deleted,RowType', ['Deleted', 'ID', 'ParentID', 'RowType']],
    );
  });

  it('exports the same units as CSV for the same query', async () => {
    expect(await expectCsvLikeJson(t, `${ofPerson()}?deleted=2&sort=-Name&filter=${q('Rank le 2')}`, acme.admin.token, 'departments')).toBe(
      all.filter((r) => Number(r.Rank) <= 2).length,
    );
    expect(await expectCsvLikeJson(t, '/v4/me/departments?fields=Name,ParentID', person.token, 'departments')).toBe(live.length);
  });

  it('pages with a cursor while others insert and delete: every unit present throughout exactly once', async () => {
    await cursorsUnderChurn<string>({
      get: (url) => get(url, person.token).expect(200),
      first: `/v4/me/departments?limit=4&cursor=start&filter=${q('Name sw "Churn"')}`,
      sorts: ['', '-Rank', 'Name'],
      stable: 12,
      churn: 8,
      insert: async (i) => {
        const unit = await createOrg(t, acme.siteId, { name: `Churn ${i % 5}`, rank: i % 3 });
        await addMember(t, acme.siteId, person.individualId, unit.id, null);
        return unit.id;
      },
      // A unit leaves the list when the person leaves it.
      remove: (id) => members().deleteWhere({ organizationId: id, individualId: person.individualId }),
      label: { list: 'me/departments' },
    });
  });

  it('answers 400 problems naming what it cannot answer, never 500, in JSON and XML', async () => {
    const bad: [string, string, RegExp][] = [
      ['filter=Nope eq "x"', 'filter', /Unknown field Nope.*filterable: ID, ParentID, Name, Rank/],
      ['filter=Description co "x"', 'filter', /Description/],
      ['filter=Rank co "3"', 'filter', /operator co does not apply to Rank/],
      ['filter=Updated gt "soon"', 'filter', /date/],
      ['sort=ParentID', 'sort', /sortable:/],
      ['fields=ID,Nope', 'fields', /Unknown field Nope/],
      ['cursor=garbage', 'cursor', /not one this list gave/],
    ];
    await expectRefusals((path, xml) => get(path, acme.admin.token, xml), [ofPerson(), '/v4/me/departments'], bad);
  });
});
