import { RequestContext } from '../../src/common/context/request-context.js';
import { ProjectEntity } from '../../src/database/entities/project.entity.js';
import { TenantDb } from '../../src/database/tenant-db.js';
import { operatorsOf } from '../../src/http/wire/list-query.js';
import { Project } from '../../src/modules/projects/dto/project.dto.js';
import { createPerson, createSite, TestPerson, TestSite } from '../factories/index.js';
import { createUnit } from '../factories/goals.js';
import { denyRead } from '../factories/permissions.js';
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
 * `filter=`, `sort=`, `fields=` and `cursor=` on the project lists (docs/queries.md):
 * `GET /v4/projects`, `GET /v4/individuals/{id}/projects` and `GET /v4/me/projects`. Every operator
 * on every filterable field (guid, string, date, bool) against the same filter in JavaScript, in
 * JSON and XML; a Deny on Read and another site applied before the filter and the total; keyset
 * paging while others insert and delete; 400 problems.
 */
const NAMES = ['Website relaunch', 'website copy', 'Shop', 'CRM 100%', 'New_office', 'Hiring', 'Audit', 'Migration'];

describe(`list queries on projects (${DB_KIND})`, () => {
  let t: TestApp;
  let acme: TestSite;
  let globex: TestSite;
  let owner: TestPerson;
  let member: TestPerson;
  let hiddenId: string;
  /** Every project of acme, live and deleted, as the administrator reads them (the truth filters are checked against). */
  let all: Json[];
  let theirs: string[];

  const get = (path: string, token: string, xml = false) => getAs(t, path, token, xml);
  const xmlIds = (text: string) => xmlIdsOf(text, 'Project');
  const q = (s: string) => encodeURIComponent(s);

  beforeAll(async () => {
    t = await startApp();
    acme = await createSite(t);
    globex = await createSite(t);
    owner = await createPerson(t, acme, { firstName: 'Owen', lastName: 'Ner' });
    member = await createPerson(t, acme, { firstName: 'Mem', lastName: 'Ber' });
    const dept = (await createUnit(t, acme.siteId, { department: true, name: 'Sales' })).id;
    const db = t.app.get(TenantDb);
    const ctx = RequestContext.system(acme.siteId);
    const owners = [owner.individualId, acme.admin.individualId, member.individualId];
    for (let i = 0; i < 40; i++) {
      const start = i % 6 === 0 ? null : new Date(Date.UTC(2025, i % 12, 1 + (i % 27)));
      await db.repo(ctx, ProjectEntity).insert({
        name: `${NAMES[i % NAMES.length]}${i % 3 ? ` ${String.fromCharCode(97 + (i % 5))}` : ''}`,
        description: null,
        ownerId: owners[i % 3],
        organizationId: i % 4 === 0 ? null : i % 4 === 1 ? dept : acme.orgId,
        startDate: start,
        dueDate: i % 5 === 0 ? null : new Date(Date.UTC(2026, i % 12, 1 + ((i * 7) % 28))),
        completedDate: i % 3 === 0 ? new Date(Date.UTC(2026, (i * 5) % 12, 2 + (i % 20))) : null,
        dueDateChanges: 0,
        deleted: i % 7 === 0,
      });
    }
    hiddenId = (
      await db.repo(ctx, ProjectEntity).insert({
        name: 'Website secret',
        description: null,
        ownerId: owner.individualId,
        organizationId: null,
        startDate: null,
        dueDate: null,
        completedDate: null,
        dueDateChanges: 0,
      })
    ).id;
    await denyRead(t, acme.admin.token, hiddenId, member.userId);
    const them = await createPerson(t, globex, { firstName: 'Owen', lastName: 'Ner' });
    theirs = [];
    for (let i = 0; i < 4; i++) {
      const row = await db.repo(RequestContext.system(globex.siteId), ProjectEntity).insert({
        name: NAMES[i],
        description: null,
        ownerId: them.individualId,
        organizationId: null,
        startDate: null,
        dueDate: null,
        completedDate: null,
        dueDateChanges: 0,
      });
      theirs.push(row.id);
    }
    all = (await get('/v4/projects?deleted=2&limit=5000', acme.admin.token).expect(200)).body as Json[];
    expect(all.length).toBe(41);
  });
  afterAll(() => t?.close());

  it('answers every operator on every filterable field (guid, string, date, bool) as JavaScript does, in JSON and XML, with its total', async () => {
    const filterable = [...Project.queryable.values()].filter((f) => f.filter);
    expect([...new Set(filterable.map((f) => f.kind))].sort()).toEqual(['bool', 'date', 'guid', 'string']);
    const cases: Case[] = grammarCases(Project.queryable, all);
    for (const f of filterable) for (const op of operatorsOf(f.kind)) expect(cases.some((c) => c.filter.startsWith(`${f.name} ${op}`))).toBe(true);
    const by = (name: string) => Project.queryable.get(name.toLowerCase())!;
    const web = comparison(by('Name'), 'sw', 'web');
    const done = comparison(by('CompletedDate'), 'pr', null);
    const due = comparison(by('DueDate'), 'lt', '2026-07-01');
    cases.push(
      { filter: 'Name sw "web" and not (CompletedDate pr)', pred: (r) => web(r) && !done(r) },
      { filter: `OwnerID eq "${owner.individualId.toUpperCase()}" or DueDate lt "2026-07-01"`, pred: (r) => r.OwnerID === owner.individualId || due(r) },
    );
    expect(cases.length).toBeGreaterThan(50);
    for (const c of cases) {
      const expected = ids(all.filter(c.pred));
      const path = `/v4/projects?deleted=2&limit=5000&filter=${q(c.filter)}`;
      const json = await get(path, acme.admin.token);
      // The list's own order (Name, then ID) is kept.
      expect({ filter: c.filter, status: json.status, ids: ids(json.body as Json[]) }).toEqual({ filter: c.filter, status: 200, ids: expected });
      expect({ filter: c.filter, total: json.headers['x-total-count'] }).toEqual({ filter: c.filter, total: String(expected.length) });
      const xml = await get(path, acme.admin.token, true).expect(200);
      expect({ filter: c.filter, ids: xmlIds(xml.text) }).toEqual({ filter: c.filter, ids: expected });
    }
  });

  it('never shows or counts a project a Deny hides or another site’s, whatever the filter, on every list', async () => {
    const webs = all.filter((r) => r.Deleted === false && String(r.Name).toLowerCase().startsWith('website'));
    expect(ids(webs)).toContain(hiddenId);
    for (const f of ['Name sw "Website"', `ID eq "${hiddenId}"`, 'CompletedDate eq null']) {
      for (const list of ['/v4/projects', `/v4/individuals/${owner.individualId}/projects`]) {
        const asMember = await get(`${list}?filter=${q(f)}`, member.token).expect(200);
        expect(ids(asMember.body as Json[])).not.toContain(hiddenId);
        expect(asMember.headers['x-total-count']).toBe(String((asMember.body as Json[]).length));
        const asAdmin = await get(`${list}?filter=${q(f)}`, acme.admin.token).expect(200);
        expect(ids(asAdmin.body as Json[])).toContain(hiddenId);
        expect(Number(asAdmin.headers['x-total-count'])).toBe(Number(asMember.headers['x-total-count']) + 1);
      }
      const mine = await get(`/v4/me/projects?filter=${q(f)}`, owner.token).expect(200);
      expect(mine.body).toEqual((await get(`/v4/individuals/${owner.individualId}/projects?filter=${q(f)}`, owner.token).expect(200)).body);
    }
    // An owner's list holds only their projects, however asked.
    const asked = await get(
      `/v4/individuals/${owner.individualId}/projects?deleted=2&filter=${q(`OwnerID eq "${member.individualId}"`)}`,
      acme.admin.token,
    ).expect(200);
    expect({ body: asked.body, total: asked.headers['x-total-count'] }).toEqual({ body: [], total: '0' });
    for (const id of theirs) {
      const res = await get(`/v4/projects?deleted=2&filter=${q(`ID eq "${id}"`)}`, acme.admin.token).expect(200);
      expect({ id, found: res.body, total: res.headers['x-total-count'] }).toEqual({ id, found: [], total: '0' });
    }
    const them = (await get('/v4/individuals', globex.admin.token).expect(200)).body as Json[];
    expect((await get(`/v4/individuals/${them[0].ID as string}/projects?filter=${q('Name pr')}`, acme.admin.token)).status).toBe(404);
  });

  it('sorts by Name and DueDate, in JSON and XML, and answers only the fields asked for', async () => {
    const cmp = sortCompare;
    const time = (v: unknown) => (v === null ? null : new Date(v as string).getTime());
    const sorts: [string, (a: Json, b: Json) => number][] = [
      ['-Name', (a, b) => -cmp(a.Name, b.Name) || -cmp(a.ID, b.ID)],
      ['DueDate', (a, b) => cmp(time(a.DueDate), time(b.DueDate)) || cmp(a.ID, b.ID)],
      ['-DueDate,Name', (a, b) => -cmp(time(a.DueDate), time(b.DueDate)) || cmp(a.Name, b.Name) || cmp(a.ID, b.ID)],
    ];
    await expectSorts((path, xml) => get(path, acme.admin.token, xml), '/v4/projects?deleted=2&limit=5000', all, sorts, 'Project');
    await expectFields(
      (path, xml) => get(path, acme.admin.token, xml),
      '/v4/projects',
      all,
      'Project',
      ['DueDate,name,OwnerID', ['ID', 'Name', 'OwnerID', 'DueDate']],
      ['Name,DueDate,DueDateChanges', ['DueDate', 'DueDateChanges', 'ID', 'Name']],
    );
  });

  it('pages with a cursor while others insert and delete: every project present throughout exactly once', async () => {
    const db = t.app.get(TenantDb);
    const ctx = RequestContext.system(acme.siteId);
    const insert = async (i: number) =>
      (
        await db.repo(ctx, ProjectEntity).insert({
          name: `Cur ${String.fromCharCode(97 + (i % 26))}${i}`,
          description: null,
          ownerId: owner.individualId,
          organizationId: null,
          startDate: null,
          dueDate: i % 3 === 0 ? null : new Date(Date.UTC(2026, i % 12, 1 + (i % 20))),
          completedDate: null,
          dueDateChanges: 0,
        })
      ).id;
    await cursorsUnderChurn<string>({
      get: (url) => get(url, member.token).expect(200),
      first: `/v4/individuals/${owner.individualId}/projects?limit=6&cursor=start&filter=${q('Name sw "Cur"')}`,
      sorts: ['', '-DueDate'],
      stable: 25,
      churn: 15,
      insert,
      remove: (id) => db.repo(ctx, ProjectEntity).update(id, { deleted: true }),
    });
  });

  it('answers 400 problems naming what it cannot answer, never 500, in JSON and XML', async () => {
    const bad: [string, string, RegExp][] = [
      ['filter=Description co "x"', 'filter', /Unknown field Description.*filterable: ID, Name, OwnerID, OrganizationID, DueDate, CompletedDate, Deleted/],
      ['filter=OwnerID gt "a"', 'filter', /operator gt does not apply to OwnerID/],
      ['filter=DueDate eq 2026', 'filter', /date/],
      ['sort=CompletedDate', 'sort', /not sortable.*sortable: Name, DueDate/],
      ['fields=ID,Nope', 'fields', /Unknown field Nope/],
      ['cursor=garbage', 'cursor', /not one this list gave/],
    ];
    await expectRefusals(
      (path, xml) => get(path, acme.admin.token, xml),
      ['/v4/projects', '/v4/me/projects', `/v4/individuals/${owner.individualId}/projects`],
      bad,
    );
  });
});
