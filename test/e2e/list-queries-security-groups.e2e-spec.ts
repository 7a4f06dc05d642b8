import { RequestContext } from '../../src/common/context/request-context.js';
import { SecurityGroupEntity, SecurityGroupMemberEntity } from '../../src/database/entities/security-group.entity.js';
import { TenantDb } from '../../src/database/tenant-db.js';
import { operatorsOf } from '../../src/http/wire/list-query.js';
import { SecurityGroup } from '../../src/modules/security-groups/dto/security-group.dto.js';
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
 * `filter=`, `sort=`, `fields=` and `cursor=` on the security groups of the site
 * (`GET /v4/securitygroups`, administrators; docs/queries.md). Every operator on every filterable
 * field (guid, string) against the same filter in JavaScript, in JSON and XML; each group with its
 * members as the plain list answers them; a member (403 whatever the filter, nothing counted), an
 * anonymous caller (401) and another site's groups before the filter and the total; keyset paging
 * while others insert and delete; the CSV export; 400 problems.
 */
describe(`list queries on security groups (${DB_KIND})`, () => {
  let t: TestApp;
  let acme: TestSite;
  let globex: TestSite;
  let member: TestPerson;
  const people: TestPerson[] = [];
  /** Every group of the site as the administrator reads it. */
  let all: Json[];
  /** Another site's groups. */
  const elsewhere: string[] = [];

  const get = (path: string, token: string, xml = false) => getAs(t, path, token, xml);
  const as = (token: string) => (path: string, xml: boolean) => get(path, token, xml);
  const q = (s: string) => encodeURIComponent(s);
  const repo = (siteId: string) => t.app.get(TenantDb).repo(RequestContext.system(siteId), SecurityGroupEntity);
  const NAMES = ['Reviewers', 'reviewers east', 'HR partners', 'Auditors', 'auditors (external)', 'Sales', 'Zeta', 'alpha', '=formula', 'Ops'];

  beforeAll(async () => {
    t = await startApp();
    acme = await createSite(t);
    globex = await createSite(t);
    member = await createPerson(t, acme, { firstName: 'Mem', lastName: 'Ber' });
    for (let i = 0; i < 4; i++) people.push(await createPerson(t, acme, { firstName: `P${i}`, lastName: `Person${i}` }));
    const members = t.app.get(TenantDb).repo(RequestContext.system(acme.siteId), SecurityGroupMemberEntity);
    for (let i = 0; i < 30; i++) {
      const group = await repo(acme.siteId).insert({
        name: `${NAMES[i % NAMES.length]}${i >= NAMES.length ? ` ${Math.floor(i / NAMES.length)}` : ''}`,
        description: i % 4 ? `Group ${i}` : null,
        externalId: null,
      });
      for (const [k, p] of people.entries()) if ((i + k) % 3 === 0) await members.insert({ groupId: group.id, individualId: p.individualId });
      if (i % 5 === 0) await members.insert({ groupId: group.id, individualId: member.individualId });
    }
    for (let i = 0; i < 3; i++) elsewhere.push((await repo(globex.siteId).insert({ name: `Reviewers ${i}`, description: null, externalId: null })).id);
    all = (await get('/v4/securitygroups?limit=5000', acme.admin.token).expect(200)).body as Json[];
    expect(all.length).toBe(30);
    expect(all.some((g) => (g.Members as unknown[]).length > 1)).toBe(true);
  });
  afterAll(() => t?.close());

  it('answers every operator on every filterable field (guid, string) as JavaScript does, in JSON and XML, with its total', async () => {
    const filterable = [...SecurityGroup.queryable.values()].filter((f) => f.filter);
    expect([...new Set(filterable.map((f) => f.kind))].sort()).toEqual(['guid', 'string']);
    const cases: Case[] = grammarCases(SecurityGroup.queryable, all);
    for (const f of filterable) for (const op of operatorsOf(f.kind)) expect(cases.some((c) => c.filter.startsWith(`${f.name} ${op}`))).toBe(true);
    const low = (r: Json) => String(r.Name).toLowerCase();
    cases.push(
      { filter: 'Name sw "reviewers" or not (Name co "a")', pred: (r) => low(r).startsWith('reviewers') || !low(r).includes('a') },
      {
        filter: `(ID eq "${all[3].ID as string}" or Name ew "1") and Name ne "Zeta 1"`,
        pred: (r) => (r.ID === all[3].ID || low(r).endsWith('1')) && low(r) !== 'zeta 1',
      },
    );
    await expectFilterCases(as(acme.admin.token), ['/v4/securitygroups?limit=5000'], cases, all, 'SecurityGroup');
    // Each group carries its members exactly as the plain list answers them.
    const found = (await get(`/v4/securitygroups?filter=${q('Name sw "Reviewers"')}`, acme.admin.token).expect(200)).body as Json[];
    expect(found.length).toBeGreaterThan(2);
    for (const g of found) expect(g).toEqual(all.find((a) => a.ID === g.ID));
  });

  it('is for administrators: a member and an anonymous caller are refused whatever the filter, and another site’s groups are never found', async () => {
    for (const path of [`/v4/securitygroups?filter=${q('Name sw "Rev"')}`, `/v4/securitygroups?cursor=start&filter=${q(`ID eq "${all[0].ID as string}"`)}`]) {
      for (const xml of [false, true]) {
        const res = await get(path, member.token, xml);
        expect({ path, xml, status: res.status, total: res.headers['x-total-count'] }).toEqual({ path, xml, status: 403, total: undefined });
        expect(res.text).not.toContain(all[0].ID as string);
      }
      const anonymous = await t.http().get(path).set('Accept', 'application/json');
      expect({ path, status: anonymous.status, total: anonymous.headers['x-total-count'] }).toEqual({ path, status: 401, total: undefined });
    }
    await t.http().get('/v4/securitygroups').set('Authorization', `Bearer ${member.token}`).set('Accept', 'text/csv').expect(403);
    for (const id of elsewhere) {
      const res = await get(`/v4/securitygroups?filter=${q(`ID eq "${id}"`)}`, acme.admin.token).expect(200);
      expect({ id, found: res.body, total: res.headers['x-total-count'] }).toEqual({ id, found: [], total: '0' });
    }
    // Another site's administrator finds only their own groups with the same filter.
    const theirs = await get(`/v4/securitygroups?filter=${q('Name sw "Reviewers"')}`, globex.admin.token).expect(200);
    expect({ ids: ids(theirs.body as Json[]).sort(), total: theirs.headers['x-total-count'] }).toEqual({ ids: [...elsewhere].sort(), total: '3' });
  });

  it('sorts by Name, in JSON and XML, keeps the plain order without sort=, and answers only the fields asked for', async () => {
    const cmp = sortCompare;
    await expectSorts(
      as(acme.admin.token),
      '/v4/securitygroups?limit=5000',
      all,
      [
        ['Name', (a, b) => cmp(a.Name, b.Name) || cmp(a.ID, b.ID)],
        ['-Name', (a, b) => -cmp(a.Name, b.Name) || -cmp(a.ID, b.ID)],
      ],
      'SecurityGroup',
    );
    const queried = (await get(`/v4/securitygroups?limit=5000&filter=${q('ID pr')}`, acme.admin.token).expect(200)).body as Json[];
    expect(ids(queried)).toEqual(ids(all));
    await expectFields(
      as(acme.admin.token),
      '/v4/securitygroups',
      all,
      'SecurityGroup',
      ['members,Name', ['ID', 'Name', 'Members']],
      ['SiteID,Description', ['Description', 'ID', 'SiteID']],
    );
  });

  it('exports the same groups as CSV for the same query', async () => {
    expect(await expectCsvLikeJson(t, `/v4/securitygroups?sort=-Name&filter=${q('Name co "e"')}`, acme.admin.token, 'securitygroups')).toBe(
      all.filter((r) => String(r.Name).toLowerCase().includes('e')).length,
    );
    expect(await expectCsvLikeJson(t, '/v4/securitygroups?fields=Name,Members', acme.admin.token, 'securitygroups')).toBe(all.length);
  });

  it('pages with a cursor while others insert and delete: every group present throughout exactly once', async () => {
    await cursorsUnderChurn<string>({
      get: (url) => get(url, acme.admin.token).expect(200),
      first: `/v4/securitygroups?limit=4&cursor=start&filter=${q('Name sw "Churn"')}`,
      sorts: ['', '-Name'],
      stable: 12,
      churn: 8,
      insert: async (i) => (await repo(acme.siteId).insert({ name: `Churn ${i % 7}`, description: null, externalId: null })).id,
      remove: (id) => t.ds.getRepository(SecurityGroupEntity).delete({ id }),
      label: { list: 'securitygroups' },
    });
  });

  it('answers 400 problems naming what it cannot answer, never 500, in JSON and XML', async () => {
    const bad: [string, string, RegExp][] = [
      ['filter=Nope eq "x"', 'filter', /Unknown field Nope.*filterable: ID, Name/],
      ['filter=Description co "x"', 'filter', /Description/],
      ['filter=Name gt 3', 'filter', /string|text|quoted/],
      ['filter=ID co "x"', 'filter', /operator co does not apply to ID/],
      ['sort=Description', 'sort', /Unknown field Description \(sortable: Name\)/],
      ['fields=ID,Nope', 'fields', /Unknown field Nope/],
      ['cursor=garbage', 'cursor', /not one this list gave/],
      ['cursor=start&offset=3', 'offset', /.+/],
    ];
    await expectRefusals((path, xml) => get(path, acme.admin.token, xml), ['/v4/securitygroups'], bad);
  });
});
