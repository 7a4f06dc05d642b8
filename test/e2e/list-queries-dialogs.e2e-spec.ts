import { RequestContext } from '../../src/common/context/request-context.js';
import { DialogEntity } from '../../src/database/entities/dialog.entity.js';
import { TenantDb } from '../../src/database/tenant-db.js';
import { operatorsOf } from '../../src/http/wire/list-query.js';
import { Dialog } from '../../src/modules/dialogs/dto/dialog.dto.js';
import { createPerson, createSite, TestPerson, TestSite } from '../factories/index.js';
import { createPeriods, createUnit } from '../factories/goals.js';
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
 * `filter=`, `sort=`, `fields=` and `cursor=` on the dialog lists (docs/queries.md): `GET /v4/dialogs`
 * (the site's, for administrators) and `GET /v4/individuals/{id}/dialogs` (those the individual leads
 * and the individual dialogs about them), in a period. Every operator on every filterable field
 * (guid, string, date, bool) against the same filter in JavaScript, in JSON and XML; the right to
 * the list, the period, a Deny on one dialog and another site applied before the filter and the
 * total; keyset paging while others insert and delete; the CSV export; 400 problems.
 */
describe(`list queries on dialogs (${DB_KIND})`, () => {
  let t: TestApp;
  let acme: TestSite;
  let globex: TestSite;
  let manager: TestPerson;
  let owner: TestPerson;
  let outsider: TestPerson;
  let dept: string;
  let current: number;
  let hiddenId: string;
  /** Every dialog of acme in the current period, live and deleted, as the administrator reads them (the truth filters are checked against). */
  let all: Json[];
  /** The owner's dialogs among them: those they lead and the individual dialogs about them. */
  let owners: Json[];
  /** Dialogs never on acme's current lists: another period's and another site's. */
  const elsewhere: string[] = [];

  const get = (path: string, token: string, xml = false) => getAs(t, path, token, xml);
  const as = (token: string) => (path: string, xml: boolean) => get(path, token, xml);
  const q = (s: string) => encodeURIComponent(s);
  const ownersList = () => `/v4/individuals/${owner.individualId}/dialogs`;
  const isOwners = (r: Json) => r.LeaderID === owner.individualId || (r.Kind === 'individual' && r.AncestorID === owner.individualId);

  beforeAll(async () => {
    t = await startApp();
    acme = await createSite(t);
    globex = await createSite(t);
    manager = await createPerson(t, acme, { firstName: 'Mana', lastName: 'Ger' });
    owner = await createPerson(t, acme, { firstName: 'Owen', lastName: 'Ner', reportsTo: manager.individualId });
    outsider = await createPerson(t, acme, { firstName: 'Out', lastName: 'Sider' });
    dept = (await createUnit(t, acme.siteId, { department: true, name: 'Sales' })).id;
    const periods = await createPeriods(t, acme.siteId);
    current = periods.current.id;
    const db = t.app.get(TenantDb);
    const ctx = RequestContext.system(acme.siteId);
    const people = [owner, manager, outsider];
    const dialog = (i: number, periodId: number): Partial<DialogEntity> => ({
      ...(i % 4 === 0 ? { kind: 'department' as const, ancestorId: dept } : { kind: 'individual' as const, ancestorId: people[i % 3].individualId }),
      leaderId: people[(i + 1) % 3].individualId,
      periodId,
      // Some share a date: the ID breaks the tie.
      scheduledDate: new Date(Date.UTC(2026, i % 12, 1 + ((i * 5) % 28), 9 + (i % 3))),
      occurredDate: i % 3 === 0 ? null : new Date(Date.UTC(2026, (i + 1) % 12, 1 + (i % 27), 14)),
      notes: i % 2 ? `Notes ${i}` : null,
      deleted: i % 7 === 0,
      deletedByRef: false,
    });
    for (let i = 0; i < 44; i++) await db.repo(ctx, DialogEntity).insert(dialog(i, current));
    hiddenId = (await db.repo(ctx, DialogEntity).insert({ ...dialog(1, current), leaderId: owner.individualId, deleted: false })).id;
    await denyRead(t, acme.admin.token, hiddenId, owner.userId);
    for (let i = 0; i < 4; i++) elsewhere.push((await db.repo(ctx, DialogEntity).insert(dialog(i, periods.past.id))).id);
    const theirPeriods = await createPeriods(t, globex.siteId);
    const them = await createPerson(t, globex, { firstName: 'Owen', lastName: 'Ner' });
    for (let i = 0; i < 4; i++) {
      const row = await db.repo(RequestContext.system(globex.siteId), DialogEntity).insert({
        kind: 'individual',
        ancestorId: them.individualId,
        leaderId: them.individualId,
        periodId: theirPeriods.current.id,
        scheduledDate: new Date(Date.UTC(2026, i, 3)),
        occurredDate: null,
        notes: null,
        deleted: false,
        deletedByRef: false,
      });
      elsewhere.push(row.id);
    }
    all = (await get('/v4/dialogs?deleted=2&limit=5000', acme.admin.token).expect(200)).body as Json[];
    expect(all.length).toBe(45);
    owners = all.filter(isOwners);
    expect(owners.length).toBeGreaterThan(20);
  });
  afterAll(() => t?.close());

  it('answers every operator on every filterable field (guid, string, date, bool) as JavaScript does, in JSON and XML, with its total', async () => {
    const filterable = [...Dialog.queryable.values()].filter((f) => f.filter);
    expect([...new Set(filterable.map((f) => f.kind))].sort()).toEqual(['bool', 'date', 'guid', 'string']);
    const cases: Case[] = grammarCases(Dialog.queryable, all);
    for (const f of filterable) for (const op of operatorsOf(f.kind)) expect(cases.some((c) => c.filter.startsWith(`${f.name} ${op}`))).toBe(true);
    const by = (name: string) => Dialog.queryable.get(name.toLowerCase())!;
    const held = comparison(by('OccurredDate'), 'pr', null);
    const spring = (r: Json) => comparison(by('ScheduledDate'), 'ge', '2026-03-01')(r) && comparison(by('ScheduledDate'), 'lt', '2026-06-01')(r);
    cases.push(
      { filter: 'ScheduledDate ge "2026-03-01" and ScheduledDate lt "2026-06-01"', pred: spring },
      {
        filter: `Kind eq "department" or LeaderID eq "${owner.individualId.toUpperCase()}"`,
        pred: (r) => r.Kind === 'department' || r.LeaderID === owner.individualId,
      },
      { filter: 'not (OccurredDate pr) and (Deleted eq true or Kind sw "ind")', pred: (r) => !held(r) && (r.Deleted === true || r.Kind === 'individual') },
    );
    expect(cases.length).toBeGreaterThan(40);
    await expectFilterCases(
      as(acme.admin.token),
      ['/v4/dialogs?deleted=2&limit=5000', `/v4/dialogs?deleted=2&limit=5000&period=${current}`],
      cases,
      all,
      'Dialog',
    );
    // The individual's list: the same filters within their dialogs, as their manager reads them.
    await expectFilterCases(as(manager.token), [`${ownersList()}?deleted=2&limit=5000`], cases, owners, 'Dialog');
  });

  it('checks the right to the list, and leaves out a dialog a Deny hides, another period’s and another site’s, before the filter and the total', async () => {
    for (const f of [`ID eq "${hiddenId}"`, 'Deleted eq false', `LeaderID eq "${owner.individualId}"`]) {
      const path = `${ownersList()}?filter=${q(f)}`;
      // The manager reads every dialog of the owner; the owner the same but the one a Deny hides from them.
      const asManager = await get(path, manager.token).expect(200);
      expect(ids(asManager.body as Json[])).toContain(hiddenId);
      const asOwner = await get(path, owner.token).expect(200);
      expect({ f, ids: ids(asOwner.body as Json[]) }).toEqual({ f, ids: ids(asManager.body as Json[]).filter((id) => id !== hiddenId) });
      expect({ f, total: asOwner.headers['x-total-count'] }).toEqual({ f, total: String((asOwner.body as Json[]).length) });
      const paged = await get(`${path}&cursor=start`, owner.token).expect(200);
      expect(ids(paged.body as Json[])).not.toContain(hiddenId);
      // Someone outside the reporting chain: 403 whatever the filter, no rows, no count; the site's list is for administrators.
      for (const [denied, who] of [
        [path, outsider],
        [`${path}&cursor=start`, outsider],
        [`/v4/dialogs?filter=${q(f)}`, manager],
      ] as const) {
        const res = await get(denied, who.token);
        expect({ denied, status: res.status, total: res.headers['x-total-count'] }).toEqual({ denied, status: 403, total: undefined });
      }
    }
    // Another dialog of the site is not on the owner's list, however asked.
    const others = all.filter((r) => !isOwners(r));
    expect(others.length).toBeGreaterThan(5);
    const asked = await get(`${ownersList()}?deleted=2&filter=${q(`ID eq "${others[0].ID as string}"`)}`, acme.admin.token).expect(200);
    expect({ body: asked.body, total: asked.headers['x-total-count'] }).toEqual({ body: [], total: '0' });
    // Another period's and another site's, by ID: not found, not counted.
    for (const id of elsewhere) {
      const res = await get(`/v4/dialogs?deleted=2&filter=${q(`ID eq "${id}"`)}`, acme.admin.token).expect(200);
      expect({ id, found: res.body, total: res.headers['x-total-count'] }).toEqual({ id, found: [], total: '0' });
    }
    const them = (await get('/v4/individuals', globex.admin.token).expect(200)).body as Json[];
    expect((await get(`/v4/individuals/${them[0].ID as string}/dialogs?filter=${q('Deleted eq false')}`, acme.admin.token)).status).toBe(404);
  });

  it('sorts by ScheduledDate and OccurredDate, in JSON and XML, and answers only the fields asked for', async () => {
    const cmp = sortCompare;
    const time = (v: unknown) => (v === null ? null : new Date(v as string).getTime());
    await expectSorts(
      as(acme.admin.token),
      '/v4/dialogs?deleted=2&limit=5000',
      all,
      [
        ['-ScheduledDate', (a, b) => -cmp(time(a.ScheduledDate), time(b.ScheduledDate)) || -cmp(a.ID, b.ID)],
        ['OccurredDate', (a, b) => cmp(time(a.OccurredDate), time(b.OccurredDate)) || cmp(a.ID, b.ID)],
        [
          '-OccurredDate,ScheduledDate',
          (a, b) => -cmp(time(a.OccurredDate), time(b.OccurredDate)) || cmp(time(a.ScheduledDate), time(b.ScheduledDate)) || cmp(a.ID, b.ID),
        ],
      ],
      'Dialog',
    );
    await expectSorts(
      as(manager.token),
      `${ownersList()}?deleted=2&limit=5000`,
      owners,
      [['-OccurredDate', (a, b) => -cmp(time(a.OccurredDate), time(b.OccurredDate)) || -cmp(a.ID, b.ID)]],
      'Dialog',
    );
    await expectFields(
      as(acme.admin.token),
      '/v4/dialogs',
      all,
      'Dialog',
      ['notes,Kind,ScheduledDate', ['ID', 'Kind', 'ScheduledDate', 'Notes']],
      ['ScheduledDate,LeaderID,OccurredDate', ['ID', 'LeaderID', 'OccurredDate', 'ScheduledDate']],
    );
  });

  it('exports the same dialogs as CSV for the same query, the site’s and an individual’s', async () => {
    const rows = await expectCsvLikeJson(
      t,
      `/v4/dialogs?deleted=2&sort=-OccurredDate&filter=${q('OccurredDate pr or Kind eq "department"')}`,
      acme.admin.token,
      'dialogs',
    );
    expect(rows).toBeGreaterThan(20);
    await expectCsvLikeJson(t, `${ownersList()}?fields=Kind,ScheduledDate,Notes&filter=${q('Deleted eq false')}`, owner.token, 'dialogs');
    await t.http().get(ownersList()).set('Authorization', `Bearer ${outsider.token}`).set('Accept', 'text/csv').expect(403);
  });

  it('pages with a cursor while others insert and delete: every dialog present throughout exactly once', async () => {
    const db = t.app.get(TenantDb);
    const ctx = RequestContext.system(acme.siteId);
    const leader = await createPerson(t, acme, { firstName: 'Lea', lastName: 'Der' });
    const insert = async (i: number) =>
      (
        await db.repo(ctx, DialogEntity).insert({
          kind: 'individual',
          ancestorId: owner.individualId,
          leaderId: leader.individualId,
          periodId: current,
          scheduledDate: new Date(Date.UTC(2026, i % 12, 1 + (i % 20))),
          occurredDate: i % 3 === 0 ? null : new Date(Date.UTC(2026, i % 12, 2 + (i % 20))),
          notes: null,
          deleted: false,
          deletedByRef: false,
        })
      ).id;
    for (const [list, token] of [
      ['/v4/dialogs', acme.admin.token],
      [ownersList(), manager.token],
    ] as const) {
      await cursorsUnderChurn<string>({
        get: (url) => get(url, token).expect(200),
        first: `${list}?limit=5&cursor=start&filter=${q(`LeaderID eq "${leader.individualId}"`)}`,
        sorts: ['', '-OccurredDate', 'ScheduledDate'],
        stable: 20,
        churn: 12,
        insert,
        remove: (id) => db.repo(ctx, DialogEntity).update(id, { deleted: true }),
        label: { list },
      });
    }
  });

  it('answers 400 problems naming what it cannot answer, never 500, in JSON and XML', async () => {
    const bad: [string, string, RegExp][] = [
      ['filter=Nope eq "x"', 'filter', /Unknown field Nope.*filterable: ID, Kind, AncestorID, LeaderID, ScheduledDate, OccurredDate, Deleted/],
      ['filter=Notes co "x"', 'filter', /Unknown field Notes/],
      ['filter=LeaderID sw "a"', 'filter', /operator sw does not apply to LeaderID/],
      ['filter=AncestorID eq "nope"', 'filter', /UUID/],
      ['filter=ScheduledDate gt "soon"', 'filter', /date/],
      ['sort=Kind', 'sort', /not sortable.*sortable: ScheduledDate, OccurredDate/],
      ['fields=ID,Nope', 'fields', /Unknown field Nope/],
      ['cursor=garbage', 'cursor', /not one this list gave/],
    ];
    await expectRefusals((path, xml) => get(path, acme.admin.token, xml), ['/v4/dialogs', ownersList()], bad);
  });
});
