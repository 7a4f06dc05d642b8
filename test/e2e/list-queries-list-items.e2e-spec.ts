import { RequestContext } from '../../src/common/context/request-context.js';
import { ListItemEntity, type ListItemKind } from '../../src/database/entities/list-item.entity.js';
import { ProjectEntity } from '../../src/database/entities/project.entity.js';
import { TenantDb } from '../../src/database/tenant-db.js';
import { operatorsOf } from '../../src/http/wire/list-query.js';
import { ListItem } from '../../src/modules/list-items/dto/list-item.dto.js';
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
 * `filter=`, `sort=`, `fields=` and `cursor=` on the list-item lists (docs/queries.md): an
 * individual's accountabilities, evaluation criteria and supervisory scopes and a project's scopes
 * (`GET /v4/individuals/{id}/{kind}`, `GET /v4/projects/{id}/projectscopes`), and the caller's own
 * (`GET /v4/me/{kind}`; project scopes: those of every project the caller owns). Every operator on
 * every filterable field (guid, int, string, bool) against the same filter in JavaScript, in JSON
 * and XML; the right to the list, the kind, the owner and another site before the filter and the
 * total; keyset paging while others insert and delete; the CSV export; 400 problems.
 */
const NAMES = ['Customer care', 'customer NPS', 'Renewals', 'Hiring 100%', 'Budget_plan', 'Coaching', 'Roadmap', 'Zero defects'];

describe(`list queries on list items (${DB_KIND})`, () => {
  let t: TestApp;
  let acme: TestSite;
  let globex: TestSite;
  let manager: TestPerson;
  let owner: TestPerson;
  let outsider: TestPerson;
  /** Two projects the owner owns, one the outsider owns. */
  let projects: string[];
  /** Every accountability of the owner, live and deleted, as the administrator reads them (the truth filters are checked against). */
  let all: Json[];
  /** The scopes of the owner's two projects, as the owner reads them (`me/projectscopes`). */
  let scopes: Json[];
  /** Items never on the owner's accountabilities: another kind's, another owner's, another site's. */
  const elsewhere: string[] = [];

  const get = (path: string, token: string, xml = false) => getAs(t, path, token, xml);
  const as = (token: string) => (path: string, xml: boolean) => get(path, token, xml);
  const q = (s: string) => encodeURIComponent(s);
  const accountabilities = () => `/v4/individuals/${owner.individualId}/accountabilities`;

  const item = (kind: ListItemKind, ancestorId: string, i: number): Partial<ListItemEntity> => ({
    kind,
    ancestorId,
    rank: i % 5,
    name: `${NAMES[i % NAMES.length]}${i % 3 ? ` ${String.fromCharCode(97 + (i % 4))}` : ''}`,
    description: i % 2 ? `About ${i}` : '',
    deleted: i % 7 === 0,
    deletedByRef: false,
  });

  beforeAll(async () => {
    t = await startApp();
    acme = await createSite(t);
    globex = await createSite(t);
    manager = await createPerson(t, acme, { firstName: 'Mana', lastName: 'Ger' });
    owner = await createPerson(t, acme, { firstName: 'Owen', lastName: 'Ner', reportsTo: manager.individualId });
    outsider = await createPerson(t, acme, { firstName: 'Out', lastName: 'Sider' });
    const db = t.app.get(TenantDb);
    const ctx = RequestContext.system(acme.siteId);
    const items = db.repo(ctx, ListItemEntity);
    projects = [];
    for (const who of [owner, owner, outsider]) {
      const p = await db.repo(ctx, ProjectEntity).insert({
        name: `Project of ${who.individualId.slice(0, 4)}`,
        description: null,
        ownerId: who.individualId,
        organizationId: null,
        startDate: null,
        dueDate: null,
        completedDate: null,
        dueDateChanges: 0,
      });
      projects.push(p.id);
    }
    for (let i = 0; i < 40; i++) await items.insert(item('accountability', owner.individualId, i));
    for (let i = 0; i < 4; i++) elsewhere.push((await items.insert(item('evaluationcriteria', owner.individualId, i))).id);
    for (let i = 0; i < 4; i++) elsewhere.push((await items.insert(item('accountability', manager.individualId, i))).id);
    for (let i = 0; i < 24; i++) await items.insert(item('projectscope', projects[i % 3], i));
    const them = await createPerson(t, globex);
    for (let i = 0; i < 3; i++)
      elsewhere.push((await db.repo(RequestContext.system(globex.siteId), ListItemEntity).insert(item('accountability', them.individualId, i))).id);
    all = (await get(`${accountabilities()}?deleted=2&limit=5000`, acme.admin.token).expect(200)).body as Json[];
    expect(all.length).toBe(40);
    scopes = (await get('/v4/me/projectscopes?deleted=2&limit=5000', owner.token).expect(200)).body as Json[];
    expect(new Set(scopes.map((r) => r.AncestorID))).toEqual(new Set(projects.slice(0, 2)));
  });
  afterAll(() => t?.close());

  it('answers every operator on every filterable field (guid, int, string, bool) as JavaScript does, in JSON and XML, with its total', async () => {
    const filterable = [...ListItem.queryable.values()].filter((f) => f.filter);
    expect([...new Set(filterable.map((f) => f.kind))].sort()).toEqual(['bool', 'guid', 'int', 'string']);
    const by = (name: string) => ListItem.queryable.get(name.toLowerCase())!;
    for (const [lists, token, rows] of [
      [[`${accountabilities()}?deleted=2&limit=5000`, '/v4/me/accountabilities?deleted=2&limit=5000'], owner.token, all],
      [['/v4/me/projectscopes?deleted=2&limit=5000'], owner.token, scopes],
    ] as const) {
      const cases: Case[] = grammarCases(ListItem.queryable, rows);
      for (const f of filterable) for (const op of operatorsOf(f.kind)) expect(cases.some((c) => c.filter.startsWith(`${f.name} ${op}`))).toBe(true);
      const top = comparison(by('Rank'), 'le', 1);
      cases.push(
        { filter: 'Rank le 1 and Name sw "c"', pred: (r) => top(r) && String(r.Name).toLowerCase().startsWith('c') },
        {
          filter: `AncestorID eq "${projects[0].toUpperCase()}" or not (Rank ge 3)`,
          pred: (r) => r.AncestorID === projects[0] || !comparison(by('Rank'), 'ge', 3)(r),
        },
        {
          filter: '(Deleted eq true or Name ew "a") and Rank ne 2',
          pred: (r) => (r.Deleted === true || String(r.Name).toLowerCase().endsWith('a')) && r.Rank !== 2,
        },
      );
      expect(cases.length).toBeGreaterThan(40);
      await expectFilterCases(as(token), lists, cases, rows, 'ListItem');
    }
  });

  it('checks the right to the list before any filter, and never finds another kind’s, another owner’s or another site’s items', async () => {
    for (const f of ['Name sw "c"', `ID eq "${ids(all)[1]}"`, 'Rank ge 0']) {
      const path = `${accountabilities()}?filter=${q(f)}`;
      const asAdmin = await get(path, acme.admin.token).expect(200);
      expect(asAdmin.body).not.toEqual([]);
      for (const who of [owner, manager]) {
        const path2 = who === owner ? `/v4/me/accountabilities?filter=${q(f)}` : path;
        const res = await get(path2, who.token).expect(200);
        expect({ f, body: res.body, total: res.headers['x-total-count'] }).toEqual({ f, body: asAdmin.body, total: asAdmin.headers['x-total-count'] });
      }
      // Someone outside the reporting chain: 403 whatever the filter, by offset or by cursor, no rows, no count.
      for (const denied of [path, `${path}&cursor=start`, `/v4/individuals/${owner.individualId}/evaluationcriteria?filter=${q(f)}`]) {
        const res = await get(denied, outsider.token);
        expect({ denied, status: res.status, total: res.headers['x-total-count'] }).toEqual({ denied, status: 403, total: undefined });
      }
    }
    // Another kind's, another owner's and another site's items, by ID: not found, not counted.
    for (const id of elsewhere) {
      for (const list of [accountabilities(), '/v4/me/accountabilities']) {
        const res = await get(`${list}?deleted=2&filter=${q(`ID eq "${id}"`)}`, owner.token).expect(200);
        expect({ list, id, found: res.body, total: res.headers['x-total-count'] }).toEqual({ list, id, found: [], total: '0' });
      }
    }
    // Project scopes: every member reads a project's; `me/projectscopes` holds only the caller's projects' scopes, however asked.
    const theirs = await get(`/v4/me/projectscopes?deleted=2&filter=${q(`AncestorID eq "${projects[2]}"`)}`, owner.token).expect(200);
    expect({ body: theirs.body, total: theirs.headers['x-total-count'] }).toEqual({ body: [], total: '0' });
    const read = await get(`/v4/projects/${projects[2]}/projectscopes?deleted=2&filter=${q('Rank ge 0')}`, owner.token).expect(200);
    expect((read.body as Json[]).length).toBe(8);
    // A caller who owns no project has no scopes, whatever the filter.
    const none = await get(`/v4/me/projectscopes?filter=${q('Rank ge 0')}`, globex.admin.token).expect(200);
    expect(none.body).toEqual([]);
    const them = (await get('/v4/individuals', globex.admin.token).expect(200)).body as Json[];
    expect((await get(`/v4/individuals/${them[0].ID as string}/accountabilities?filter=${q('Rank ge 0')}`, acme.admin.token)).status).toBe(404);
  });

  it('sorts by Rank (then Name) and Name, in JSON and XML, and answers only the fields asked for', async () => {
    const cmp = sortCompare;
    await expectSorts(
      as(acme.admin.token),
      `${accountabilities()}?deleted=2&limit=5000`,
      all,
      [
        ['Name', (a, b) => cmp(a.Name, b.Name) || cmp(a.ID, b.ID)],
        ['-Rank', (a, b) => -cmp(a.Rank, b.Rank) || -cmp(a.Name, b.Name) || -cmp(a.ID, b.ID)],
        ['-Name,Rank', (a, b) => -cmp(a.Name, b.Name) || cmp(a.Rank, b.Rank) || cmp(a.ID, b.ID)],
      ],
      'ListItem',
    );
    await expectSorts(
      as(owner.token),
      '/v4/me/projectscopes?deleted=2&limit=5000',
      scopes,
      [['-Name', (a, b) => -cmp(a.Name, b.Name) || -cmp(a.ID, b.ID)]],
      'ListItem',
    );
    await expectFields(
      as(acme.admin.token),
      accountabilities(),
      all,
      'ListItem',
      ['name,Rank,Deleted', ['ID', 'Rank', 'Name', 'Deleted']],
      ['Name,Rank,Description', ['Description', 'ID', 'Name', 'Rank']],
    );
  });

  it('exports the same items as CSV for the same query', async () => {
    const rows = await expectCsvLikeJson(t, `${accountabilities()}?deleted=2&sort=-Rank&filter=${q('Rank ge 1')}`, manager.token, 'accountabilities');
    expect(rows).toBeGreaterThan(20);
    await expectCsvLikeJson(t, `/v4/me/projectscopes?fields=Name,AncestorID`, owner.token, 'projectscopes');
    await t.http().get(accountabilities()).set('Authorization', `Bearer ${outsider.token}`).set('Accept', 'text/csv').expect(403);
  });

  it('pages with a cursor while others insert and delete: every item present throughout exactly once', async () => {
    const db = t.app.get(TenantDb);
    const ctx = RequestContext.system(acme.siteId);
    for (const [list, token, kind, ancestor] of [
      [accountabilities(), manager.token, 'accountability', () => owner.individualId],
      ['/v4/me/projectscopes', owner.token, 'projectscope', (i: number) => projects[i % 2]],
    ] as const) {
      const insert = async (i: number) =>
        (await db.repo(ctx, ListItemEntity).insert({ ...item(kind, ancestor(i), i), name: `Cur ${String.fromCharCode(97 + (i % 26))}${i}`, deleted: false }))
          .id;
      await cursorsUnderChurn<string>({
        get: (url) => get(url, token).expect(200),
        first: `${list}?limit=5&cursor=start&filter=${q('Name sw "Cur"')}`,
        sorts: ['', '-Name'],
        stable: 20,
        churn: 12,
        insert,
        remove: (id) => db.repo(ctx, ListItemEntity).update(id, { deleted: true }),
        label: { list },
      });
    }
  });

  it('answers 400 problems naming what it cannot answer, never 500, in JSON and XML', async () => {
    const bad: [string, string, RegExp][] = [
      ['filter=Nope eq "x"', 'filter', /Unknown field Nope.*filterable: ID, AncestorID, Rank, Name, Deleted/],
      ['filter=Description co "x"', 'filter', /Unknown field Description/],
      ['filter=Rank sw "1"', 'filter', /operator sw does not apply to Rank/],
      ['filter=Rank gt "one"', 'filter', /number/],
      ['sort=AncestorID', 'sort', /not sortable.*sortable: Rank, Name/],
      ['fields=ID,Nope', 'fields', /Unknown field Nope/],
      ['cursor=garbage', 'cursor', /not one this list gave/],
    ];
    await expectRefusals(
      (path, xml) => get(path, acme.admin.token, xml),
      [accountabilities(), `/v4/projects/${projects[0]}/projectscopes`, '/v4/me/supervisoryscopes', '/v4/me/projectscopes'],
      bad,
    );
  });
});
