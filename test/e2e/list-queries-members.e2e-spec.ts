import { RequestContext } from '../../src/common/context/request-context.js';
import { IndividualEntity } from '../../src/database/entities/individual.entity.js';
import { OrganizationMemberEntity } from '../../src/database/entities/organization-member.entity.js';
import { TenantDb } from '../../src/database/tenant-db.js';
import { operatorsOf } from '../../src/http/wire/list-query.js';
import { OrganizationMember } from '../../src/modules/organizations/dto/organization-member.dto.js';
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
 * `filter=`, `sort=`, `fields=` and `cursor=` on the department membership lists (docs/queries.md):
 * a department's members (`GET /v4/departments/{id}/departmentmembers`) and an individual's
 * memberships (`GET /v4/individuals/{id}/departmentmembers`). Every operator on every filterable
 * field (guid, string) against the same filter in JavaScript, in JSON and XML; a member a Deny hides,
 * memberships taken down with their other end, another department's and another site's left out
 * before the filter and the total; keyset paging while others insert and delete; the CSV export;
 * 400 problems.
 */
const TITLES = ['Lead', 'lead engineer', 'Analyst', 'Coach 100%', 'Sales_rep', '=Formula', 'Engineer', null];

describe(`list queries on department members (${DB_KIND})`, () => {
  let t: TestApp;
  let acme: TestSite;
  let globex: TestSite;
  let reader: TestPerson;
  /** The department whose members are listed, and the person of many departments. */
  let department: string;
  let many: string;
  /** A member a Deny hides from the reader. */
  let hidden: string;
  /** The department's members as the administrator reads them queried (ID order), and the person's memberships. */
  let members: Json[];
  let memberships: Json[];
  /** Memberships never on the department's list: another department's, taken down with an end, another site's. */
  const elsewhere: string[] = [];

  const get = (path: string, token: string, xml = false) => getAs(t, path, token, xml);
  const as = (token: string) => (path: string, xml: boolean) => get(path, token, xml);
  const q = (s: string) => encodeURIComponent(s);
  const ofDepartment = () => `/v4/departments/${department}/departmentmembers`;
  const ofPerson = () => `/v4/individuals/${many}/departmentmembers`;
  const ctx = () => RequestContext.system(acme.siteId);
  const person = async (i: number, siteId = acme.siteId, orgId = acme.orgId) =>
    (
      await t.app
        .get(TenantDb)
        .repo(RequestContext.system(siteId), IndividualEntity)
        .insert({ userId: null, isAdmin: false, firstName: `F${i}`, lastName: `Member ${i}`, email: null, primaryOrganizationId: orgId, primaryTitle: null })
    ).id;

  beforeAll(async () => {
    t = await startApp();
    acme = await createSite(t);
    globex = await createSite(t);
    reader = await createPerson(t, acme, { firstName: 'Rea', lastName: 'Der' });
    department = (await createOrg(t, acme.siteId, { name: 'Sales' })).id;
    const other = (await createOrg(t, acme.siteId, { name: 'Support' })).id;
    const people: string[] = [];
    for (let i = 0; i < 24; i++) people.push(await person(i));
    for (let i = 0; i < 24; i++) await addMember(t, acme.siteId, people[i], department, TITLES[i % TITLES.length]);
    hidden = people[3];
    for (let i = 0; i < 3; i++) elsewhere.push((await addMember(t, acme.siteId, people[i], other, 'Lead')).id);
    const gone = await addMember(t, acme.siteId, await person(90), department, 'Lead');
    await t.app.get(TenantDb).repo(ctx(), OrganizationMemberEntity).update(gone.id, { deletedByRef: true });
    elsewhere.push(gone.id);
    const globexDept = (await createOrg(t, globex.siteId)).id;
    elsewhere.push((await addMember(t, globex.siteId, await person(91, globex.siteId, globex.orgId), globexDept, 'Lead')).id);
    // One person in twelve departments, one of them the hidden `other`.
    many = people[5];
    for (let i = 0; i < 11; i++)
      await addMember(t, acme.siteId, many, (await createOrg(t, acme.siteId, { name: `Unit ${i}`, rank: i % 3 })).id, TITLES[(i + 2) % TITLES.length]);
    members = (await get(`${ofDepartment()}?filter=${q('ID pr')}&limit=5000`, acme.admin.token).expect(200)).body as Json[];
    expect(members.length).toBe(24);
    // The queried list holds the plain list's members (its order is by ID: the plain one's is the members' names).
    const plain = (await get(`${ofDepartment()}?limit=5000`, acme.admin.token).expect(200)).body as Json[];
    expect(new Set(ids(plain))).toEqual(new Set(ids(members)));
    memberships = (await get(`${ofPerson()}?filter=${q('ID pr')}&limit=5000`, acme.admin.token).expect(200)).body as Json[];
    expect(memberships.length).toBe(12); // Sales and eleven units
    await denyRead(t, acme.admin.token, hidden, reader.userId);
  });
  afterAll(() => t?.close());

  it('answers every operator on every filterable field (guid, string) as JavaScript does, in JSON and XML, with its total', async () => {
    const filterable = [...OrganizationMember.queryable.values()].filter((f) => f.filter);
    expect([...new Set(filterable.map((f) => f.kind))].sort()).toEqual(['guid', 'string']);
    const by = (name: string) => OrganizationMember.queryable.get(name.toLowerCase())!;
    for (const [list, rows] of [
      [`${ofDepartment()}?limit=5000`, members],
      [`${ofPerson()}?limit=5000`, memberships],
    ] as const) {
      const cases: Case[] = grammarCases(OrganizationMember.queryable, rows);
      for (const f of filterable) for (const op of operatorsOf(f.kind)) expect(cases.some((c) => c.filter.startsWith(`${f.name} ${op}`))).toBe(true);
      const lead = comparison(by('Title'), 'sw', 'lead');
      cases.push(
        { filter: 'Title sw "LEAD" and Title ne null', pred: (r) => lead(r) && r.Title !== null },
        {
          filter: `IndividualID eq "${hidden.toUpperCase()}" or not (Title ge "c")`,
          pred: (r) => r.IndividualID === hidden || !comparison(by('Title'), 'ge', 'c')(r),
        },
        {
          filter: '(Title eq null or Title ew "r") and Title ne "lead"',
          pred: (r) => (r.Title === null || String(r.Title).toLowerCase().endsWith('r')) && r.Title !== 'Lead',
        },
      );
      expect(cases.length).toBeGreaterThan(20);
      await expectFilterCases(as(acme.admin.token), [list], cases, rows, 'OrganizationMember');
    }
  });

  it('leaves out a member a Deny hides, memberships taken down with an end, another department’s and another site’s, before the filter and the total', async () => {
    const visible = members.filter((r) => r.IndividualID !== hidden);
    for (const f of ['Title sw "l"', `IndividualID eq "${hidden}"`, 'ID pr']) {
      const res = await get(`${ofDepartment()}?limit=5000&filter=${q(f)}`, reader.token).expect(200);
      const want = ids(
        visible.filter((r) =>
          f === 'ID pr'
            ? true
            : f.startsWith('Title')
              ? String(r.Title ?? '')
                  .toLowerCase()
                  .startsWith('l')
              : false,
        ),
      );
      expect({ f, ids: ids(res.body as Json[]), total: res.headers['x-total-count'] }).toEqual({ f, ids: want, total: String(want.length) });
      // By cursor too: the same members, no count.
      const byCursor = await get(`${ofDepartment()}?limit=5000&cursor=start&filter=${q(f)}`, reader.token).expect(200);
      expect({ f, ids: ids(byCursor.body as Json[]), total: byCursor.headers['x-total-count'] }).toEqual({ f, ids: want, total: undefined });
    }
    // The hidden member's own memberships: not there for the reader (404), whatever the filter.
    expect((await get(`/v4/individuals/${hidden}/departmentmembers?filter=${q('Title pr')}`, reader.token)).status).toBe(404);
    for (const id of elsewhere) {
      const res = await get(`${ofDepartment()}?filter=${q(`ID eq "${id}"`)}`, acme.admin.token).expect(200);
      expect({ id, found: res.body, total: res.headers['x-total-count'] }).toEqual({ id, found: [], total: '0' });
    }
    const asked = await get(`${ofPerson()}?filter=${q(`IndividualID ne "${many}"`)}`, acme.admin.token).expect(200);
    expect({ body: asked.body, total: asked.headers['x-total-count'] }).toEqual({ body: [], total: '0' });
    // Another site's department: 404 for acme's administrator, whatever the filter.
    const theirs = (await get('/v4/departments', globex.admin.token).expect(200)).body as Json[];
    expect((await get(`/v4/departments/${theirs[0].ID as string}/departmentmembers?filter=${q('Title pr')}`, acme.admin.token)).status).toBe(404);
  });

  it('sorts by Title, in JSON and XML, and answers only the fields asked for', async () => {
    const cmp = sortCompare;
    await expectSorts(
      as(acme.admin.token),
      `${ofDepartment()}?limit=5000`,
      members,
      [
        ['Title', (a, b) => cmp(a.Title, b.Title) || cmp(a.ID, b.ID)],
        ['-Title', (a, b) => -cmp(a.Title, b.Title) || -cmp(a.ID, b.ID)],
      ],
      'OrganizationMember',
    );
    await expectSorts(
      as(acme.admin.token),
      `${ofPerson()}?limit=5000`,
      memberships,
      [['-Title', (a, b) => -cmp(a.Title, b.Title) || -cmp(a.ID, b.ID)]],
      'OrganizationMember',
    );
    await expectFields(
      as(acme.admin.token),
      ofDepartment(),
      members,
      'OrganizationMember',
      ['title,IndividualID,IndividualName', ['ID', 'IndividualID', 'Title', 'IndividualName']],
      ['Title,IsPrimary,OrganizationName', ['ID', 'IsPrimary', 'OrganizationName', 'Title']],
    );
  });

  it('exports the same members as CSV for the same query, its formulas neutralized', async () => {
    const rows = await expectCsvLikeJson(t, `${ofDepartment()}?sort=-Title&filter=${q('Title pr')}`, reader.token, 'departmentmembers');
    expect(rows).toBe(members.filter((r) => r.Title !== null && r.IndividualID !== hidden).length);
    await expectCsvLikeJson(t, `${ofPerson()}?fields=Title,OrganizationName`, acme.admin.token, 'departmentmembers');
    const csv = await t
      .http()
      .get(`${ofDepartment()}?filter=${q('Title sw "="')}`)
      .set('Authorization', `Bearer ${reader.token}`)
      .set('Accept', 'text/csv')
      .expect(200);
    expect(csv.text).toContain("'=Formula");
  });

  it('pages with a cursor while others insert and delete: every membership present throughout exactly once', async () => {
    const repo = t.app.get(TenantDb).repo(ctx(), OrganizationMemberEntity);
    let k = 0;
    for (const [list, insert] of [
      [
        ofPerson(),
        async () => (await addMember(t, acme.siteId, many, (await createOrg(t, acme.siteId)).id, `Cur ${String.fromCharCode(97 + (k % 26))}${k++}`)).id,
      ],
      [ofDepartment(), async () => (await addMember(t, acme.siteId, await person(200 + k), department, `Cur ${String.fromCharCode(97 + (k % 26))}${k++}`)).id],
    ] as const) {
      await cursorsUnderChurn<string>({
        get: (url) => get(url, acme.admin.token).expect(200),
        first: `${list}?limit=4&cursor=start&filter=${q('Title sw "Cur"')}`,
        sorts: ['', '-Title'],
        stable: 12,
        churn: 8,
        insert,
        remove: (id) => repo.update(id, { deletedByRef: true }),
        label: { list },
      });
    }
  });

  it('answers 400 problems naming what it cannot answer, never 500, in JSON and XML', async () => {
    const bad: [string, string, RegExp][] = [
      ['filter=Nope eq "x"', 'filter', /Unknown field Nope.*filterable: ID, IndividualID, OrganizationID, Title/],
      ['filter=IndividualName co "x"', 'filter', /Unknown field IndividualName/],
      ['filter=Title gt 3', 'filter', /string|text|quoted/i],
      ['filter=IndividualID sw "a"', 'filter', /operator sw does not apply to IndividualID/],
      ['sort=IndividualID', 'sort', /not sortable.*sortable: Title/],
      ['fields=ID,Nope', 'fields', /Unknown field Nope/],
      ['cursor=garbage', 'cursor', /not one this list gave/],
    ];
    await expectRefusals((path, xml) => get(path, acme.admin.token, xml), [ofDepartment(), ofPerson()], bad);
  });
});
