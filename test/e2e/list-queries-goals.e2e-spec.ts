import { RequestContext } from '../../src/common/context/request-context.js';
import { GoalEntity } from '../../src/database/entities/goal.entity.js';
import { TenantDb } from '../../src/database/tenant-db.js';
import { operatorsOf } from '../../src/http/wire/list-query.js';
import { Goal } from '../../src/modules/goals/dto/goal.dto.js';
import { createPerson, createSite, TestPerson, TestSite } from '../factories/index.js';
import { createPeriods } from '../factories/goals.js';
import { DB_KIND, startApp, TestApp } from './harness.js';
import {
  type Case,
  comparison,
  cursorsUnderChurn,
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
 * `filter=`, `sort=`, `fields=` and `cursor=` on the goal lists (docs/queries.md):
 * `GET /v4/individuals/{id}/goals` and `GET /v4/me/goals`, an individual's goals in a period. Every
 * operator on every filterable field (int, string, bool, date) against the same filter in
 * JavaScript, in JSON and XML; the issue's "goals due this quarter, newest first"; the caller's
 * right to read the individual's goals before any filter; keyset paging while others insert and
 * delete; 400 problems naming what cannot be answered.
 */
const NAMES = [
  'Grow revenue',
  'grow margin',
  'Hire a rep',
  'Open an office',
  'Ship v2',
  'Cut churn',
  'Raise CSAT',
  'Train the team',
  'Renew 100%',
  'Close_books',
];

describe(`list queries on goals (${DB_KIND})`, () => {
  let t: TestApp;
  let acme: TestSite;
  let globex: TestSite;
  let manager: TestPerson;
  let owner: TestPerson;
  let outsider: TestPerson;
  let current: number;
  let past: number;
  /** Every goal of the owner in the current period, as the administrator reads them (the truth filters are checked against). */
  let all: Json[];
  /** Goals that are never on the owner's current list: another period's, another individual's, another site's. */
  const elsewhere: number[] = [];

  const get = (path: string, token: string, xml = false) => getAs(t, path, token, xml);
  const xmlIds = (text: string) => xmlIdsOf(text, 'Goal').map(Number);
  const list = () => `/v4/individuals/${owner.individualId}/goals`;
  const q = (s: string) => encodeURIComponent(s);

  const goal = (individualId: string, periodId: number, i: number): Partial<GoalEntity> => ({
    individualId,
    periodId,
    name: `${NAMES[i % NAMES.length]}${i % 3 ? ` ${String.fromCharCode(97 + (i % 5))}` : ''}`,
    completed: i % 3 === 0,
    comment: '',
    why: '',
    dueDate: i % 5 === 0 ? null : new Date(Date.UTC(2026, i % 12, 1 + ((i * 7) % 28))),
    measure1: i % 2 ? 'Do it' : '',
  });

  beforeAll(async () => {
    t = await startApp();
    acme = await createSite(t);
    globex = await createSite(t);
    manager = await createPerson(t, acme, { firstName: 'Mana', lastName: 'Ger' });
    owner = await createPerson(t, acme, { firstName: 'Owen', lastName: 'Ner', reportsTo: manager.individualId });
    outsider = await createPerson(t, acme, { firstName: 'Out', lastName: 'Sider' });
    const periods = await createPeriods(t, acme.siteId);
    current = periods.current.id;
    past = periods.past.id;
    const db = t.app.get(TenantDb);
    const ctx = RequestContext.system(acme.siteId);
    for (let i = 0; i < 40; i++) await db.repo(ctx, GoalEntity).insert(goal(owner.individualId, current, i));
    // The same names in another period, under another individual and in another site: never on the owner's current list.
    for (let i = 0; i < 4; i++) elsewhere.push((await db.repo(ctx, GoalEntity).insert(goal(owner.individualId, past, i))).id);
    for (let i = 0; i < 4; i++) elsewhere.push((await db.repo(ctx, GoalEntity).insert(goal(manager.individualId, current, i))).id);
    const theirPeriods = await createPeriods(t, globex.siteId);
    const theirs = await createPerson(t, globex, { firstName: 'Owen', lastName: 'Ner' });
    const gctx = RequestContext.system(globex.siteId);
    for (let i = 0; i < 4; i++) elsewhere.push((await db.repo(gctx, GoalEntity).insert(goal(theirs.individualId, theirPeriods.current.id, i))).id);
    all = (await get(`${list()}?limit=5000`, acme.admin.token).expect(200)).body as Json[];
    expect(all.length).toBe(40);
  });
  afterAll(() => t?.close());

  // ------------------------------------------------------------------ the grammar, against JavaScript

  it('answers every operator on every filterable field (int, string, bool, date) as JavaScript does, in JSON and XML, with its total', async () => {
    const filterable = [...Goal.queryable.values()].filter((f) => f.filter);
    expect([...new Set(filterable.map((f) => f.kind))].sort()).toEqual(['bool', 'date', 'int', 'string']);
    const cases: Case[] = grammarCases(Goal.queryable, all);
    for (const f of filterable) for (const op of operatorsOf(f.kind)) expect(cases.some((c) => c.filter.startsWith(`${f.name} ${op}`))).toBe(true);
    const by = (name: string) => Goal.queryable.get(name.toLowerCase())!;
    const grow = comparison(by('Name'), 'sw', 'grow');
    const open = comparison(by('Completed'), 'eq', false);
    const late = comparison(by('DueDate'), 'ge', '2026-07-01');
    cases.push(
      { filter: 'Name sw "grow" and Completed eq false', pred: (r) => grow(r) && open(r) },
      { filter: 'name SW "GROW" or DueDate ge "2026-07-01"', pred: (r) => grow(r) || late(r) },
      {
        filter: 'not (DueDate ge "2026-07-01") and (Completed eq false or Name co "a")',
        pred: (r) => !late(r) && (open(r) || comparison(by('Name'), 'co', 'a')(r)),
      },
    );
    expect(cases.length).toBeGreaterThan(40);
    for (const c of cases) {
      const expected = ids(all.filter(c.pred));
      const path = `${list()}?limit=5000&filter=${q(c.filter)}`;
      const json = await get(path, acme.admin.token);
      // The list's own order (DueDate, then ID) is kept: the same sequence as the full list filtered.
      expect({ filter: c.filter, status: json.status, ids: ids(json.body as Json[]) }).toEqual({ filter: c.filter, status: 200, ids: expected });
      expect({ filter: c.filter, total: json.headers['x-total-count'] }).toEqual({ filter: c.filter, total: String(expected.length) });
      const xml = await get(path, acme.admin.token, true).expect(200);
      expect({ filter: c.filter, ids: xmlIds(xml.text) }).toEqual({ filter: c.filter, ids: expected });
    }
  });

  it('answers "goals due this quarter, newest first" as the issue asks it', async () => {
    const res = await get(`${list()}?filter=${q('DueDate ge "2026-04-01" and DueDate lt "2026-07-01"')}&sort=-DueDate`, acme.admin.token).expect(200);
    const quarter = all.filter((r) => r.DueDate !== null && String(r.DueDate) >= '2026-04-01' && String(r.DueDate) < '2026-07-01');
    const time = (r: Json) => new Date(r.DueDate as string).getTime();
    const expected = [...quarter].sort((a, b) => time(b) - time(a) || (b.ID as number) - (a.ID as number));
    expect(expected.length).toBeGreaterThan(5);
    expect(ids(res.body as Json[])).toEqual(ids(expected));
  });

  it('exports the same goals as CSV for the same query (a list without `deleted` streams too)', async () => {
    const path = `${list()}?filter=${q('DueDate ge "2026-04-01" and DueDate lt "2026-07-01"')}&sort=-DueDate&fields=ID,Name`;
    const json = (await get(path, acme.admin.token).expect(200)).body as Json[];
    const res = await t.http().get(path).set('Authorization', `Bearer ${acme.admin.token}`).set('Accept', 'text/csv').expect(200);
    expect(res.headers['content-type']).toMatch(/^text\/csv/);
    const lines = res.text.trim().split('\r\n');
    expect(lines[0]).toBe('ID,Name');
    expect(lines.slice(1).map((l) => Number(l.split(',')[0]))).toEqual(ids(json));
  });

  // ------------------------------------------------------------------ permissions and tenancy

  it('checks the caller may read the individual’s goals before any filter, and never shows another period’s, individual’s or site’s goals', async () => {
    const filters = ['Name sw "Grow"', `ID eq ${String(all[0].ID)}`, 'ID ge 0'];
    for (const f of filters) {
      // Someone outside the reporting chain: 403 whatever the filter, no rows, no count.
      const denied = await get(`${list()}?filter=${q(f)}`, outsider.token);
      expect({ f, status: denied.status }).toEqual({ f, status: 403 });
      expect(denied.headers['x-total-count']).toBeUndefined();
      const cursor = await get(`${list()}?filter=${q(f)}&cursor=start`, outsider.token);
      expect({ f, status: cursor.status }).toEqual({ f, status: 403 });
      // The manager and the owner read the same page as the administrator.
      const asAdmin = await get(`${list()}?filter=${q(f)}`, acme.admin.token).expect(200);
      expect((await get(`${list()}?filter=${q(f)}`, manager.token).expect(200)).body).toEqual(asAdmin.body);
      expect((await get(`/v4/me/goals?filter=${q(f)}`, owner.token).expect(200)).body).toEqual(asAdmin.body);
    }
    // Another site's individual: 404 (not 403, not an empty list) from the queried list as from the plain one.
    const theirs = (await get('/v4/individuals', globex.admin.token).expect(200)).body as Json[];
    for (const one of theirs) expect((await get(`/v4/individuals/${one.ID as string}/goals?filter=${q('ID ge 0')}`, acme.admin.token)).status).toBe(404);
    // Goals of another period, individual or site: not found by ID, not counted.
    for (const id of elsewhere) {
      const res = await get(`${list()}?filter=${q(`ID eq ${id}`)}`, acme.admin.token).expect(200);
      expect({ id, found: res.body, total: res.headers['x-total-count'] }).toEqual({ id, found: [], total: '0' });
    }
    const named = await get(`${list()}?limit=5000&filter=${q('Name sw "Grow"')}`, acme.admin.token).expect(200);
    expect(ids(named.body as Json[]).every((id) => all.some((r) => r.ID === id))).toBe(true);
    // `period` still chooses the period: the past one's goals, filtered.
    const pastGoals = await get(`${list()}?period=${past}&filter=${q('ID ge 0')}`, acme.admin.token).expect(200);
    expect(ids(pastGoals.body as Json[]).sort()).toEqual(elsewhere.slice(0, 4).sort());
    // A caller without an individual of their own gets an empty page; bad queries are still 400.
    expect((await get(`/v4/me/goals?filter=${q('Nope eq 1')}`, owner.token)).status).toBe(400);
  });

  // ------------------------------------------------------------------ sort and fields

  it('sorts by Name and DueDate, in JSON and XML, ID ending every order', async () => {
    const cmp = sortCompare;
    const due = (r: Json) => (r.DueDate === null ? null : new Date(r.DueDate as string).getTime());
    const sorts: [string, (a: Json, b: Json) => number][] = [
      ['Name', (a, b) => cmp(a.Name, b.Name) || cmp(a.ID, b.ID)],
      ['-Name', (a, b) => -cmp(a.Name, b.Name) || -cmp(a.ID, b.ID)],
      ['-DueDate', (a, b) => -cmp(due(a), due(b)) || -cmp(a.ID, b.ID)],
      ['DueDate,Name', (a, b) => cmp(due(a), due(b)) || cmp(a.Name, b.Name) || cmp(a.ID, b.ID)],
    ];
    await expectSorts((path, xml) => get(path, acme.admin.token, xml), `${list()}?limit=5000`, all, sorts, 'Goal');
  });

  it('answers only the fields asked for, ID always, in declared order (JSON) and ordinal order (XML)', async () => {
    const json = await get(`${list()}?fields=DueDate,FullName,name&limit=3`, acme.admin.token).expect(200);
    const rows = json.body as Json[];
    expect(rows.length).toBe(3);
    for (const r of rows) {
      expect(Object.keys(r)).toEqual(['ID', 'Name', 'DueDate', 'FullName']);
      const full = all.find((a) => a.ID === r.ID)!;
      expect(r).toEqual({ ID: full.ID, Name: full.Name, DueDate: full.DueDate, FullName: 'Owen Ner' });
    }
    const xml = await get(`${list()}?fields=Name,DueDate,MeasuresTotal&limit=3`, acme.admin.token, true).expect(200);
    const items = [...xml.text.matchAll(/<Goal>([\s\S]*?)<\/Goal>/g)].map((m) => [...m[1].matchAll(/<([A-Za-z0-9]+)[ />]/g)].map((e) => e[1]));
    expect(items.length).toBe(3);
    for (const names of items) expect(names).toEqual(['DueDate', 'ID', 'MeasuresTotal', 'Name']);
    const mine = await get('/v4/me/goals?fields=ID&cursor=start&limit=2', owner.token).expect(200);
    for (const r of mine.body as Json[]) expect(Object.keys(r)).toEqual(['ID']);
  });

  // ------------------------------------------------------------------ cursors

  it('pages with a cursor while others insert and delete: every goal present throughout exactly once', async () => {
    const db = t.app.get(TenantDb);
    const ctx = RequestContext.system(acme.siteId);
    const insert = async (i: number) => (await db.repo(ctx, GoalEntity).insert({ ...goal(owner.individualId, current, i), name: `Cur ${i}` })).id;
    // Between pages: a new goal, and one removed (goals are hard-deleted).
    await cursorsUnderChurn<number>({
      get: (url) => get(url, manager.token).expect(200),
      first: `${list()}?limit=7&cursor=start&filter=${q('Name sw "Cur"')}`,
      sorts: ['', '-DueDate', 'Name', '-Name'],
      stable: 30,
      churn: 15,
      insert,
      remove: (id) => db.repo(ctx, GoalEntity).remove(id),
    });
  });

  it('walks the same pages by cursor as by offset when nothing changes, in JSON and XML', async () => {
    const base = `${list()}?limit=6&sort=${q('-DueDate,Name')}&filter=${q('Completed eq false or Name sw "g"')}`;
    const full = ids((await get(base.replace('limit=6', 'limit=5000'), acme.admin.token).expect(200)).body as Json[]);
    expect(full.length).toBeGreaterThan(12);
    for (const xml of [false, true]) {
      const seen: unknown[] = [];
      let url: string | null = `${base}&cursor=start`;
      while (url) {
        const res: { body: unknown; text: string; headers: Record<string, string> } = await get(url, acme.admin.token, xml).expect(200);
        seen.push(...(xml ? xmlIds(res.text) : ids(res.body as Json[])));
        url = /<([^>]+)>; rel="next"/.exec(String(res.headers.link ?? ''))?.[1] ?? null;
      }
      expect(seen).toEqual(full);
    }
  });

  // ------------------------------------------------------------------ refusals

  it('answers 400 problems naming what it cannot answer, never 500, in JSON and XML', async () => {
    const start = await get(`${list()}?limit=2&cursor=start`, acme.admin.token).expect(200);
    const cursor = new URL(/<([^>]+)>/.exec(String(start.headers.link))![1], 'http://x').searchParams.get('cursor')!;
    const bad: [string, string, RegExp][] = [
      ['filter=Nope eq "x"', 'filter', /Unknown field Nope.*filterable: ID, Name, Completed, DueDate/],
      ['filter=Comment eq "x"', 'filter', /Unknown field Comment/],
      ['filter=Name xx "x"', 'filter', /Unknown operator xx/],
      ['filter=ID eq "7"', 'filter', /takes a number/],
      ['filter=ID co 7', 'filter', /operator co does not apply to ID/],
      ['filter=Completed gt true', 'filter', /operator gt does not apply to Completed/],
      ['filter=DueDate ge "next quarter"', 'filter', /date/],
      ['sort=Completed', 'sort', /not sortable.*sortable: Name, DueDate/],
      ['sort=Why', 'sort', /Unknown field Why/],
      ['fields=ID,Nope', 'fields', /Unknown field Nope/],
      ['cursor=garbage', 'cursor', /not one this list gave/],
      [`cursor=${cursor}&sort=Name`, 'cursor', /other parameters \(filter, sort/],
      [`cursor=${cursor}&offset=4`, 'offset', /not taken with cursor/],
    ];
    await expectRefusals((path, xml) => get(path, acme.admin.token, xml), [list()], bad);
    // A cursor is bound to its list: the individual it hangs under and its period too. On another
    // individual's list, or with another period, it is a 400, not a page of that list.
    const mine = await get('/v4/me/goals?limit=3&cursor=start', owner.token).expect(200);
    const next = new URL(/<([^>]+)>/.exec(String(mine.headers.link))![1], 'http://x').searchParams.get('cursor')!;
    for (const path of [`/v4/individuals/${manager.individualId}/goals`, `/v4/individuals/${owner.individualId}/goals`, `/v4/me/goals?period=${past}`]) {
      const res = await get(
        `${path}${path.includes('?') ? '&' : '?'}limit=100&cursor=${encodeURIComponent(next)}`,
        path.startsWith('/v4/me') ? owner.token : acme.admin.token,
      );
      expect({ path, status: res.status }).toEqual({ path, status: 400 });
      expect((res.body as { errors: { field: string; message: string }[] }).errors[0]).toMatchObject({
        field: 'cursor',
        message: expect.stringMatching(/another list/),
      });
    }
    // Its own list continues where it stopped.
    const rest = await get(`/v4/me/goals?limit=100&cursor=${encodeURIComponent(next)}`, owner.token).expect(200);
    expect((rest.body as Json[]).length).toBeGreaterThan(0);
    // Goals take no `deleted` (they are not soft-deleted): the parameter is no part of the list.
    const opId = (await t.http().get('/docs/openapi.json')).body as { paths: Record<string, { get: { parameters: { name?: string; $ref?: string }[] } }> };
    const params = opId.paths['/v4/individuals/{id}/goals']?.get.parameters.map((p) => p.name ?? p.$ref);
    expect(params).toEqual(expect.arrayContaining(['#/components/parameters/ListFilter', '#/components/parameters/ListCursor', 'period']));
    expect(params).not.toContain('deleted');
  });
});
