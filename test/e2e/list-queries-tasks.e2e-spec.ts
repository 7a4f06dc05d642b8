import { RequestContext } from '../../src/common/context/request-context.js';
import { TaskEntity } from '../../src/database/entities/task.entity.js';
import { TenantDb } from '../../src/database/tenant-db.js';
import { operatorsOf } from '../../src/http/wire/list-query.js';
import { Task } from '../../src/modules/tasks/dto/task.dto.js';
import { createPerson, createSite, TestPerson, TestSite } from '../factories/index.js';
import { createUnit } from '../factories/goals.js';
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
 * `filter=`, `sort=`, `fields=` and `cursor=` on the task lists (docs/queries.md): `GET /v4/tasks`
 * (the site's, for administrators), `GET /v4/individuals/{id}/tasks` and `GET /v4/me/tasks`. Every
 * operator on every filterable field (guid, string, date, bool, the Kind enum) against the same
 * filter in JavaScript, in JSON and XML; the caller's right to the list before any filter; another
 * site's tasks never found; keyset paging while others insert and delete; 400 problems.
 */
const NAMES = ['Write the plan', 'write notes', 'Call back', 'Review 50%', 'Book_room', 'Plan offsite', 'Send deck', 'Close loop'];

describe(`list queries on tasks (${DB_KIND})`, () => {
  let t: TestApp;
  let acme: TestSite;
  let globex: TestSite;
  let manager: TestPerson;
  let owner: TestPerson;
  let outsider: TestPerson;
  let dept: string;
  let dialogs: string[];
  /** Every task of acme, live and deleted, as the administrator reads them (the truth filters are checked against). */
  let all: Json[];
  let theirs: string[];

  const get = (path: string, token: string, xml = false) => getAs(t, path, token, xml);
  const xmlIds = (text: string) => xmlIdsOf(text, 'Task');
  const q = (s: string) => encodeURIComponent(s);

  beforeAll(async () => {
    t = await startApp();
    acme = await createSite(t);
    globex = await createSite(t);
    manager = await createPerson(t, acme, { firstName: 'Mana', lastName: 'Ger' });
    owner = await createPerson(t, acme, { firstName: 'Owen', lastName: 'Ner', reportsTo: manager.individualId });
    outsider = await createPerson(t, acme, { firstName: 'Out', lastName: 'Sider' });
    dept = (await createUnit(t, acme.siteId, { department: true, name: 'Sales' })).id;
    // Tasks name dialogs by id only (no foreign key): two ids stand for the dialogs they follow up.
    dialogs = [crypto.randomUUID(), crypto.randomUUID()];
    const db = t.app.get(TenantDb);
    const ctx = RequestContext.system(acme.siteId);
    const people = [owner, manager, outsider];
    for (let i = 0; i < 42; i++) {
      const about = i % 3 === 0 ? { kind: 'department' as const, ancestorId: dept } : { kind: 'individual' as const, ancestorId: people[i % 3].individualId };
      await db.repo(ctx, TaskEntity).insert({
        ...about,
        dialogId: i % 4 === 0 ? dialogs[i % 2] : null,
        assignedToId: people[i % 2].individualId,
        name: `${NAMES[i % NAMES.length]}${i % 3 ? ` ${String.fromCharCode(97 + (i % 5))}` : ''}`,
        dueDate: i % 5 === 0 ? null : new Date(Date.UTC(2026, i % 12, 1 + ((i * 7) % 28))),
        completed: i % 3 === 1,
        deleted: i % 7 === 0,
      });
    }
    const them = await createPerson(t, globex, { firstName: 'Owen', lastName: 'Ner' });
    const gctx = RequestContext.system(globex.siteId);
    theirs = [];
    for (let i = 0; i < 4; i++) {
      const row = await db
        .repo(gctx, TaskEntity)
        .insert({ kind: 'individual', ancestorId: them.individualId, assignedToId: them.individualId, name: NAMES[i], dueDate: null, completed: false });
      theirs.push(row.id);
    }
    all = (await get('/v4/tasks?deleted=2&limit=5000', acme.admin.token).expect(200)).body as Json[];
    expect(all.length).toBe(42);
  });
  afterAll(() => t?.close());

  it('answers every operator on every filterable field (guid, string, date, bool) as JavaScript does, in JSON and XML, with its total', async () => {
    const filterable = [...Task.queryable.values()].filter((f) => f.filter);
    expect([...new Set(filterable.map((f) => f.kind))].sort()).toEqual(['bool', 'date', 'guid', 'string']);
    const cases: Case[] = grammarCases(Task.queryable, all);
    for (const f of filterable) for (const op of operatorsOf(f.kind)) expect(cases.some((c) => c.filter.startsWith(`${f.name} ${op}`))).toBe(true);
    const by = (name: string) => Task.queryable.get(name.toLowerCase())!;
    const aboutDept = comparison(by('AncestorID'), 'eq', dept);
    const open = comparison(by('Completed'), 'eq', false);
    const mine = comparison(by('AssignedToID'), 'eq', owner.individualId);
    cases.push(
      { filter: `AncestorID eq "${dept.toUpperCase()}" and Completed eq false`, pred: (r) => aboutDept(r) && open(r) },
      { filter: `Kind eq "department" or AssignedToID eq "${owner.individualId}"`, pred: (r) => r.Kind === 'department' || mine(r) },
      {
        filter: `not (DialogID pr) and (Name sw "w" or Deleted eq true)`,
        pred: (r) => r.DialogID === null && (String(r.Name).toLowerCase().startsWith('w') || r.Deleted === true),
      },
    );
    expect(cases.length).toBeGreaterThan(50);
    for (const c of cases) {
      const expected = ids(all.filter(c.pred));
      const path = `/v4/tasks?deleted=2&limit=5000&filter=${q(c.filter)}`;
      const json = await get(path, acme.admin.token);
      // The list's own order (DueDate, then creation, then ID) is kept.
      expect({ filter: c.filter, status: json.status, ids: ids(json.body as Json[]) }).toEqual({ filter: c.filter, status: 200, ids: expected });
      expect({ filter: c.filter, total: json.headers['x-total-count'] }).toEqual({ filter: c.filter, total: String(expected.length) });
      const xml = await get(path, acme.admin.token, true).expect(200);
      expect({ filter: c.filter, ids: xmlIds(xml.text) }).toEqual({ filter: c.filter, ids: expected });
    }
  });

  it('checks the caller’s right to the list before any filter, keeps each list to its assignee and `deleted`, and never finds another site’s tasks', async () => {
    const owners = all.filter((r) => r.AssignedToID === owner.individualId && r.Deleted === false);
    for (const f of ['Name sw "w"', `ID eq "${ids(owners)[0]}"`, 'Completed eq false or Completed eq true']) {
      const expected = ids(
        owners.filter((r) => (f.startsWith('ID') ? r.ID === ids(owners)[0] : f.startsWith('Name') ? String(r.Name).toLowerCase().startsWith('w') : true)),
      );
      const path = `/v4/individuals/${owner.individualId}/tasks?filter=${q(f)}`;
      const asManager = await get(path, manager.token).expect(200);
      expect({ f, ids: ids(asManager.body as Json[]) }).toEqual({ f, ids: expected });
      expect(asManager.headers['x-total-count']).toBe(String(expected.length));
      expect((await get(`/v4/me/tasks?filter=${q(f)}`, owner.token).expect(200)).body).toEqual(asManager.body);
      // Someone outside the reporting chain: 403 whatever the filter, no rows, no count; the site's list is for administrators.
      for (const [path2, who] of [
        [path, outsider],
        [`${path}&cursor=start`, outsider],
        [`/v4/tasks?filter=${q(f)}`, manager],
      ] as const) {
        const denied = await get(path2, who.token);
        expect({ path2, status: denied.status }).toEqual({ path2, status: 403 });
        expect(denied.headers['x-total-count']).toBeUndefined();
      }
    }
    // The manager's own tasks are not on the owner's list, however asked.
    const managers = ids(all.filter((r) => r.AssignedToID === manager.individualId));
    const asked = await get(
      `/v4/individuals/${owner.individualId}/tasks?deleted=2&filter=${q(`AssignedToID eq "${manager.individualId}"`)}`,
      acme.admin.token,
    ).expect(200);
    expect({ body: asked.body, total: asked.headers['x-total-count'], managers: managers.length > 5 }).toEqual({ body: [], total: '0', managers: true });
    // Another site's tasks, by ID: not found, not counted; their individual's list: 404.
    for (const id of theirs) {
      const res = await get(`/v4/tasks?deleted=2&filter=${q(`ID eq "${id}"`)}`, acme.admin.token).expect(200);
      expect({ id, found: res.body, total: res.headers['x-total-count'] }).toEqual({ id, found: [], total: '0' });
    }
    const them = (await get('/v4/individuals', globex.admin.token).expect(200)).body as Json[];
    expect((await get(`/v4/individuals/${them[0].ID as string}/tasks?filter=${q('Name pr')}`, acme.admin.token)).status).toBe(404);
  });

  it('sorts by Name and DueDate (then creation), in JSON and XML, and answers only the fields asked for', async () => {
    const cmp = sortCompare;
    const time = (v: unknown) => (v === null ? null : new Date(v as string).getTime());
    const sorts: [string, (a: Json, b: Json) => number][] = [
      ['Name', (a, b) => cmp(a.Name, b.Name) || cmp(a.ID, b.ID)],
      ['-Name', (a, b) => -cmp(a.Name, b.Name) || -cmp(a.ID, b.ID)],
      ['-DueDate', (a, b) => -cmp(time(a.DueDate), time(b.DueDate)) || -cmp(time(a.Created), time(b.Created)) || -cmp(a.ID, b.ID)],
    ];
    await expectSorts((path, xml) => get(path, acme.admin.token, xml), '/v4/tasks?deleted=2&limit=5000', all, sorts, 'Task');
    await expectFields(
      (path, xml) => get(path, acme.admin.token, xml),
      '/v4/tasks',
      all,
      'Task',
      ['Name,kind,DueDate', ['ID', 'Kind', 'Name', 'DueDate']],
      ['Name,DueDate,AssignedToID', ['AssignedToID', 'DueDate', 'ID', 'Name']],
    );
  });

  it('pages with a cursor while others insert and delete: every task present throughout exactly once', async () => {
    const db = t.app.get(TenantDb);
    const ctx = RequestContext.system(acme.siteId);
    const insert = async (i: number) =>
      (
        await db.repo(ctx, TaskEntity).insert({
          kind: 'individual',
          ancestorId: owner.individualId,
          assignedToId: owner.individualId,
          name: `Cur ${String.fromCharCode(97 + (i % 26))}${i}`,
          dueDate: i % 3 === 0 ? null : new Date(Date.UTC(2026, i % 12, 1 + (i % 20))),
          completed: false,
        })
      ).id;
    for (const [list, token] of [
      ['/v4/tasks', acme.admin.token],
      [`/v4/individuals/${owner.individualId}/tasks`, manager.token],
    ] as const) {
      // Between pages: a new task, and one deleted (soft: it leaves the live list).
      await cursorsUnderChurn<string>({
        get: (url) => get(url, token).expect(200),
        first: `${list}?limit=6&cursor=start&filter=${q('Name sw "Cur"')}`,
        sorts: ['', '-DueDate', 'Name'],
        stable: 25,
        churn: 15,
        insert,
        remove: (id) => db.repo(ctx, TaskEntity).update(id, { deleted: true }),
        label: { list },
      });
    }
  });

  it('answers 400 problems naming what it cannot answer, never 500, in JSON and XML', async () => {
    const bad: [string, string, RegExp][] = [
      ['filter=Nope eq "x"', 'filter', /Unknown field Nope.*filterable: ID, DialogID, Kind, AncestorID, AssignedToID, Name, DueDate, Completed, Deleted/],
      ['filter=CompletedDate pr', 'filter', /Unknown field CompletedDate/],
      ['filter=AssignedToID sw "a"', 'filter', /operator sw does not apply to AssignedToID/],
      ['filter=DialogID eq "nope"', 'filter', /UUID/],
      ['filter=Completed eq "yes"', 'filter', /true or false/],
      ['sort=Kind', 'sort', /not sortable.*sortable: Name, DueDate/],
      ['fields=ID,Nope', 'fields', /Unknown field Nope/],
      ['cursor=garbage', 'cursor', /not one this list gave/],
    ];
    await expectRefusals((path, xml) => get(path, acme.admin.token, xml), ['/v4/tasks', '/v4/me/tasks'], bad);
  });
});
