import { RequestContext } from '../../src/common/context/request-context.js';
import { BasicRoleDialogEntity } from '../../src/database/entities/basic-role-dialog.entity.js';
import { BasicRoleEntity } from '../../src/database/entities/basic-role.entity.js';
import { TenantDb } from '../../src/database/tenant-db.js';
import { operatorsOf } from '../../src/http/wire/list-query.js';
import { BasicRoleDialog } from '../../src/modules/basic-roles/dto/basic-role.dto.js';
import { createDialog } from '../factories/dialogs.js';
import { createPeriods } from '../factories/goals.js';
import { createTeamSite, type TeamSite } from '../factories/performance.js';
import { bearer, DB_KIND, startApp, TestApp } from './harness.js';
import {
  type Case,
  comparison,
  cursorsUnderChurn,
  expectCsvLikeJson,
  expectFields,
  expectFilterCases,
  expectRefusals,
  expectRefusedUncounted,
  expectSorts,
  getAs,
  grammarCases,
  ids,
  type Json,
  sortCompare,
} from './list-query-grammar.js';

/**
 * `filter=`, `sort=`, `fields=` and `cursor=` on a dialog's basic-role ratings
 * (`GET /v4/dialogs/{dialogid}/basicroledialogs`, docs/queries.md): every operator on every
 * filterable field (guid, int, date) against the same filter in JavaScript, in JSON and XML; the
 * dialog before the filter (another dialog's and another site's ratings are never found, another
 * site's dialog is 404) and the right to manage it before any record is read (403 to a member who
 * may not, whatever the filter, cursor or export; 401 anonymous); the orders and the fields; keyset
 * paging while others insert and delete; the CSV export; 400 problems.
 */
const COMMENTS = ['Coached well', 'coached juniors', null, 'Hired two', '=Formula', 'Plan 100%', 'Run_ops', null];

describe(`list queries on a dialog's basic-role ratings (${DB_KIND})`, () => {
  let t: TestApp;
  let acme: TeamSite;
  let globex: TeamSite;
  /** The dialog under test (about the worker, led by the manager), another of the site, the one the cursor walks, and globex's. */
  let dialogId: string;
  let otherDialogId: string;
  let churnDialogId: string;
  let globexDialogId: string;
  /** The dialog's ratings as its leader reads them. */
  let all: Json[];
  /** Ratings never on the dialog's list: another dialog's and another site's. */
  const elsewhere: string[] = [];
  /** A basic role rated only in the other dialog. */
  let otherRoleId: string;

  const get = (path: string, token: string, xml = false) => getAs(t, path, token, xml);
  const as = (token: string) => (path: string, xml: boolean) => get(path, token, xml);
  const q = (s: string) => encodeURIComponent(s);
  const of = (id = dialogId) => `/v4/dialogs/${id}/basicroledialogs`;
  const repo = <E extends BasicRoleEntity | BasicRoleDialogEntity>(entity: new () => E, siteId = acme.siteId) =>
    t.app.get(TenantDb).repo(RequestContext.system(siteId), entity);
  /** A new basic role of `individualId` (each rating needs its own: one record per role and dialog). */
  const newRole = async (individualId: string, i: number, siteId = acme.siteId) =>
    (await repo(BasicRoleEntity, siteId).insert({ individualId, name: `Role ${i}`, description: null, rank: 0, dialogsPerPeriod: 1, deleted: false })).id;
  const rate = async (dialog: string, roleId: string, i: number, siteId = acme.siteId) =>
    (
      await repo(BasicRoleDialogEntity, siteId).insert({
        basicRoleId: roleId,
        dialogId: dialog,
        rating: i % 7 === 6 ? null : ((i * 3) % 5) + 1,
        comment: COMMENTS[i % COMMENTS.length],
      })
    ).id;

  beforeAll(async () => {
    t = await startApp();
    acme = await createTeamSite(t, { name: 'Acme' });
    globex = await createTeamSite(t, { name: 'Globex' });
    const period = (await createPeriods(t, acme.siteId)).current.id;
    const about = { AncestorID: acme.worker.individualId, LeaderID: acme.manager.individualId, PeriodID: period };
    dialogId = (await createDialog(t, acme.admin.token, about)).ID as string;
    otherDialogId = (await createDialog(t, acme.admin.token, about)).ID as string;
    churnDialogId = (await createDialog(t, acme.admin.token, about)).ID as string;
    const theirPeriod = (await createPeriods(t, globex.siteId)).current.id;
    globexDialogId = (
      await createDialog(t, globex.admin.token, { AncestorID: globex.worker.individualId, LeaderID: globex.manager.individualId, PeriodID: theirPeriod })
    ).ID as string;
    const roles: string[] = [];
    for (let i = 0; i < 26; i++) roles.push(await newRole(acme.worker.individualId, i));
    const rated: string[] = [];
    for (let i = 0; i < 26; i++) rated.push(await rate(dialogId, roles[i], i));
    // Some changed later, in another order than their creation: Updated orders them otherwise than Created.
    for (const i of [20, 3, 11, 7, 25, 0]) await repo(BasicRoleDialogEntity).update(rated[i], { rating: (i % 5) + 1 });
    for (let i = 0; i < 3; i++) elsewhere.push(await rate(otherDialogId, roles[i], i));
    otherRoleId = await newRole(acme.worker.individualId, 99);
    elsewhere.push(await rate(otherDialogId, otherRoleId, 4));
    const theirRole = await newRole(globex.worker.individualId, 0, globex.siteId);
    elsewhere.push(await rate(globexDialogId, theirRole, 1, globex.siteId));
    all = (await get(`${of()}?limit=5000`, acme.manager.token).expect(200)).body as Json[];
    expect(all.length).toBe(26);
    expect(new Set(all.map((r) => r.Rating)).size).toBe(6);
  });
  afterAll(() => t?.close());

  it('answers every operator on every filterable field (guid, int, date) as JavaScript does, in JSON and XML, with its total', async () => {
    const filterable = [...BasicRoleDialog.queryable.values()].filter((f) => f.filter);
    expect(filterable.map((f) => f.name)).toEqual(['ID', 'BasicRoleID', 'DialogID', 'Rating', 'Created', 'Updated']);
    expect([...new Set(filterable.map((f) => f.kind))].sort()).toEqual(['date', 'guid', 'int']);
    const by = (name: string) => BasicRoleDialog.queryable.get(name.toLowerCase())!;
    const cases: Case[] = grammarCases(BasicRoleDialog.queryable, all);
    for (const f of filterable) for (const op of operatorsOf(f.kind)) expect(cases.some((c) => c.filter.startsWith(`${f.name} ${op}`))).toBe(true);
    const updated = String(all[9].Updated);
    cases.push(
      {
        filter: `Rating ge 4 or not (Updated lt "${updated}")`,
        pred: (r) => comparison(by('Rating'), 'ge', 4)(r) || !comparison(by('Updated'), 'lt', updated)(r),
      },
      {
        filter: `(Rating eq null or Rating eq 1) and BasicRoleID ne "${String(all[0].BasicRoleID).toUpperCase()}"`,
        pred: (r) => (r.Rating === null || r.Rating === 1) && r.BasicRoleID !== all[0].BasicRoleID,
      },
    );
    for (const [token, who] of [
      [acme.manager.token, 'leader'],
      [acme.admin.token, 'administrator'],
      [acme.worker.token, 'the dialog’s subject'],
    ] as const) {
      const rows = (await get(`${of()}?limit=5000`, token).expect(200)).body as Json[];
      expect({ who, rows }).toEqual({ who, rows: all });
      await expectFilterCases(as(token), [`${of()}?limit=5000`], cases, all, 'BasicRoleDialog');
    }
  });

  it('checks the dialog (404) and the right to manage it (403) before any record is read, whatever the filter, cursor or export', async () => {
    const first = all[0].ID as string;
    const asked = [
      `${of()}?filter=${q('Rating pr')}`,
      `${of()}?filter=${q(`ID eq "${first}"`)}&cursor=start`,
      `${of()}?sort=-Rating&fields=Comment&limit=1`,
      // Refused before the query is read: a bad filter is no 400 to someone who may not see the list.
      `${of()}?filter=${q('Nope eq 1')}`,
    ];
    // A member who may not manage the dialog (not its leader, above them or its subject): 403 with no total; anonymous 401.
    await expectRefusedUncounted(t, asked, [['peer', acme.peer.token]]);
    for (const path of asked) {
      const res = await get(path, acme.peer.token, true);
      expect({ path, status: res.status, type: res.headers['content-type'], total: res.headers['x-total-count'] }).toEqual({
        path,
        status: 403,
        type: expect.stringMatching(/application\/problem\+xml/),
        total: undefined,
      });
      expect(res.text).not.toContain(first);
    }
    for (const accept of ['text/csv', 'application/x-ndjson']) {
      const res = await t
        .http()
        .get(`${of()}?filter=${q('Rating pr')}`)
        .set('Authorization', bearer(acme.peer.token))
        .set('Accept', accept);
      expect({ accept, status: res.status }).toEqual({ accept, status: 403 });
      expect(res.text).not.toContain(first);
    }
    // Another site's dialog is 404 to the administrator, whatever the query; an export too.
    for (const path of [
      `${of(globexDialogId)}?filter=${q('Rating pr')}`,
      `${of(globexDialogId)}?cursor=start&sort=Updated`,
      `${of(globexDialogId)}?filter=${q(`ID eq "${elsewhere.at(-1)!}"`)}`,
      `${of(globexDialogId)}?filter=${q('Nope eq 1')}`,
    ]) {
      for (const xml of [false, true]) {
        const res = await get(path, acme.admin.token, xml);
        expect({ path, xml, status: res.status, total: res.headers['x-total-count'] }).toEqual({ path, xml, status: 404, total: undefined });
        expect(res.text).not.toContain(elsewhere.at(-1)!);
      }
    }
    const csv = await t.http().get(of(globexDialogId)).set('Authorization', bearer(acme.admin.token)).set('Accept', 'text/csv');
    expect(csv.status).toBe(404);
    // The dialog's ratings only: another dialog's and another site's are not found by ID, dialog or role.
    for (const filter of [...elsewhere.map((id) => `ID eq "${id}"`), `DialogID eq "${otherDialogId}"`, `BasicRoleID eq "${otherRoleId}"`]) {
      for (const token of [acme.admin.token, acme.manager.token]) {
        const res = await get(`${of()}?filter=${q(filter)}`, token).expect(200);
        expect({ filter, found: res.body, total: res.headers['x-total-count'] }).toEqual({ filter, found: [], total: '0' });
      }
    }
    const own = await get(`${of()}?filter=${q(`DialogID eq "${dialogId}"`)}`, acme.manager.token).expect(200);
    expect(ids(own.body as Json[])).toEqual(ids(all));
  });

  it('sorts by Rating (then Created), Created and Updated, in JSON and XML, keeps the plain order without sort=, and answers only the fields asked for', async () => {
    const cmp = sortCompare;
    await expectSorts(
      as(acme.manager.token),
      `${of()}?limit=5000`,
      all,
      [
        ['Rating', (a, b) => cmp(a.Rating, b.Rating) || cmp(a.Created, b.Created) || cmp(a.ID, b.ID)],
        ['-Rating', (a, b) => -cmp(a.Rating, b.Rating) || -cmp(a.Created, b.Created) || -cmp(a.ID, b.ID)],
        ['Created', (a, b) => cmp(a.Created, b.Created) || cmp(a.ID, b.ID)],
        ['-Created', (a, b) => -cmp(a.Created, b.Created) || -cmp(a.ID, b.ID)],
        ['Updated', (a, b) => cmp(a.Updated, b.Updated) || cmp(a.ID, b.ID)],
        ['-Updated,Rating', (a, b) => -cmp(a.Updated, b.Updated) || cmp(a.Rating, b.Rating) || cmp(a.Created, b.Created) || cmp(a.ID, b.ID)],
      ],
      'BasicRoleDialog',
    );
    // Updated is not Created's order here: the sort is no accident of the insert order.
    expect(ids([...all].sort((a, b) => cmp(a.Updated, b.Updated) || cmp(a.ID, b.ID)))).not.toEqual(ids(all));
    const queried = (await get(`${of()}?limit=5000&filter=${q('ID pr')}`, acme.manager.token).expect(200)).body as Json[];
    expect(ids(queried)).toEqual(ids(all));
    expect(ids(all)).toEqual(ids([...all].sort((a, b) => cmp(a.Created, b.Created) || cmp(a.ID, b.ID))));
    await expectFields(
      as(acme.manager.token),
      of(),
      all,
      'BasicRoleDialog',
      ['comment,Rating', ['ID', 'Rating', 'Comment']],
      ['Updated,Rating,basicroleid', ['BasicRoleID', 'ID', 'Rating', 'Updated']],
    );
  });

  it('exports the same ratings as CSV for the same query', async () => {
    const f = 'Rating ge 3 or Rating eq null';
    expect(await expectCsvLikeJson(t, `${of()}?sort=-Rating&filter=${q(f)}`, acme.manager.token, 'basicroledialogs')).toBe(
      all.filter((r) => r.Rating === null || Number(r.Rating) >= 3).length,
    );
    expect(await expectCsvLikeJson(t, `${of()}?fields=Rating,Comment`, acme.worker.token, 'basicroledialogs')).toBe(all.length);
  });

  it('pages with a cursor while others insert and delete: every rating present throughout exactly once', async () => {
    await cursorsUnderChurn<string>({
      get: (url) => get(url, acme.manager.token).expect(200),
      first: `${of(churnDialogId)}?limit=4&cursor=start&filter=${q('Created ge "2000-01-01"')}`,
      sorts: ['', '-Rating', 'Updated', '-Created'],
      stable: 12,
      churn: 8,
      insert: async (i) => rate(churnDialogId, await newRole(acme.worker.individualId, 1000 + i), i),
      remove: (id) => t.ds.getRepository(BasicRoleDialogEntity).delete({ id }),
      label: { list: 'basicroledialogs' },
    });
  });

  it('answers 400 problems naming what it cannot answer, never 500, in JSON and XML', async () => {
    const bad: [string, string, RegExp][] = [
      ['filter=Nope eq "x"', 'filter', /Unknown field Nope.*filterable: ID, BasicRoleID, DialogID, Rating, Created, Updated/],
      ['filter=Comment co "x"', 'filter', /Unknown field Comment/],
      ['filter=SiteID eq "x"', 'filter', /Unknown field SiteID/],
      ['filter=Rating co "3"', 'filter', /operator co does not apply to Rating/],
      ['filter=Rating xx 3', 'filter', /Unknown operator xx/],
      ['filter=Rating gt "one"', 'filter', /takes a number/],
      ['filter=Rating gt null', 'filter', /only eq and ne compare with null/],
      ['filter=BasicRoleID eq "nope"', 'filter', /quoted UUID/],
      ['filter=Created ge "yesterday"', 'filter', /quoted date/],
      ['filter=Rating eq', 'filter', /./],
      ['sort=Comment', 'sort', /Unknown field Comment \(sortable: Rating, Created, Updated\)/],
      ['sort=BasicRoleID', 'sort', /sortable: Rating, Created, Updated/],
      ['fields=ID,Nope', 'fields', /Unknown field Nope/],
      ['cursor=garbage', 'cursor', /not one this list gave/],
      ['cursor=start&offset=3', 'offset', /not taken with cursor/],
    ];
    await expectRefusals((path, xml) => get(path, acme.manager.token, xml), [of()], bad);
    // A cursor of this list is not taken by another dialog's.
    const start = await get(`${of()}?limit=2&cursor=start`, acme.manager.token).expect(200);
    const next = /<([^>]+)>; rel="next"/.exec(String(start.headers.link))![1];
    const cursor = new URL(next, 'http://x').searchParams.get('cursor')!;
    const res = await get(`${of(otherDialogId)}?limit=2&cursor=${q(cursor)}`, acme.manager.token);
    expect({ status: res.status, field: (res.body as { errors?: { field: string }[] }).errors?.[0].field }).toEqual({ status: 400, field: 'cursor' });
    // An export answers the whole list: limit, offset and cursor are refused before any byte.
    for (const extra of ['limit=3', 'offset=1', 'cursor=start']) {
      const csv = await t.http().get(`${of()}?${extra}`).set('Authorization', bearer(acme.manager.token)).set('Accept', 'text/csv');
      expect({ extra, status: csv.status }).toEqual({ extra, status: 400 });
    }
  });
});
