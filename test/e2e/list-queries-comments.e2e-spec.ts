import { RequestContext } from '../../src/common/context/request-context.js';
import { CommentEntity, type CommentKind } from '../../src/database/entities/comment.entity.js';
import { DialogEntity } from '../../src/database/entities/dialog.entity.js';
import { TenantDb } from '../../src/database/tenant-db.js';
import { operatorsOf } from '../../src/http/wire/list-query.js';
import { Comment } from '../../src/modules/comments/dto/comment.dto.js';
import { createPerson, createSite, TestPerson, TestSite } from '../factories/index.js';
import { createPeriods } from '../factories/goals.js';
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
 * `filter=`, `sort=`, `fields=` and `cursor=` on the comment lists (docs/queries.md): the comments of
 * a record (`GET /v4/{kind}/{ancestorid}/comments`) and the caller's own (`GET /v4/me/comments`).
 * Every operator on every filterable field (guid, string, date, bool) against the same filter in
 * JavaScript, in JSON and XML; the right to read the record's comments (a dialog's only for those
 * who may read the dialog, an individual's hidden by a Deny) and another site before the filter and
 * the total; keyset paging while others insert and delete; the CSV export; 400 problems.
 */
const BODIES = ['Great work', 'great call', '=1+2', 'Needs a plan', 'Done 100%', 'Ship_it', 'Follow up', '-see notes'];

describe(`list queries on comments (${DB_KIND})`, () => {
  let t: TestApp;
  let acme: TestSite;
  let globex: TestSite;
  let manager: TestPerson;
  let owner: TestPerson;
  let outsider: TestPerson;
  /** A dialog about the owner (they and their manager read it) and one about the outsider (the owner may not). */
  let ownersDialog: string;
  let othersDialog: string;
  /** Every comment on the owner's dialog, live and deleted, as the administrator reads them (the truth filters are checked against). */
  let all: Json[];
  /** Every comment the owner wrote, on anything, as the owner reads them. */
  let mine: Json[];
  let theirs: string[];

  const get = (path: string, token: string, xml = false) => getAs(t, path, token, xml);
  const as = (token: string) => (path: string, xml: boolean) => get(path, token, xml);
  const q = (s: string) => encodeURIComponent(s);
  const dialogsComments = () => `/v4/dialogs/${ownersDialog}/comments`;
  /** The authors' names, as their comments keep them. */
  const names = new Map<string, { FirstName: string; LastName: string }>();

  /** Comments written around the API, each with its own Created (two share one: the ID breaks the tie). */
  async function comment(siteId: string, kind: CommentKind, ancestorId: string, author: TestPerson, i: number, extra: Partial<CommentEntity> = {}) {
    const created = new Date(Date.UTC(2026, i % 12, 1 + ((i * 3) % 27), 8, i % 2 ? 0 : 30));
    const row = {
      id: crypto.randomUUID(),
      siteId,
      ancestorType: kind,
      ancestorId,
      body: `${BODIES[i % BODIES.length]}${i % 3 ? ` ${i}` : ''}`,
      authorId: author.individualId,
      authorFirstName: names.get(author.individualId)?.FirstName ?? null,
      authorLastName: names.get(author.individualId)?.LastName ?? null,
      deleted: i % 6 === 0,
      deletedByRef: false,
      created,
      updated: created,
      ...extra,
    };
    await t.ds.getRepository(CommentEntity).insert(row as never);
    return row.id;
  }

  beforeAll(async () => {
    t = await startApp();
    acme = await createSite(t);
    globex = await createSite(t);
    manager = await createPerson(t, acme, { firstName: 'Mana', lastName: 'Ger' });
    owner = await createPerson(t, acme, { firstName: 'Owen', lastName: 'Ner', reportsTo: manager.individualId });
    outsider = await createPerson(t, acme, { firstName: 'Out', lastName: 'Sider' });
    const period = (await createPeriods(t, acme.siteId)).current.id;
    const db = t.app.get(TenantDb);
    const ctx = RequestContext.system(acme.siteId);
    const dialog = async (about: TestPerson) =>
      (
        await db.repo(ctx, DialogEntity).insert({
          kind: 'individual',
          ancestorId: about.individualId,
          leaderId: about.individualId,
          periodId: period,
          scheduledDate: new Date(Date.UTC(2026, 2, 1)),
          occurredDate: null,
          notes: null,
          deleted: false,
          deletedByRef: false,
        })
      ).id;
    ownersDialog = await dialog(owner);
    othersDialog = await dialog(outsider);
    const authors = [owner, manager, owner, acme.admin];
    for (const who of [...authors, outsider]) {
      names.set(
        who.individualId,
        (await get(`/v4/individuals/${who.individualId}`, acme.admin.token).expect(200)).body as { FirstName: string; LastName: string },
      );
    }
    for (let i = 0; i < 36; i++) await comment(acme.siteId, 'dialogs', ownersDialog, authors[i % 4], i);
    // The same two instants twice: the order falls back to the ID.
    await comment(acme.siteId, 'dialogs', ownersDialog, owner, 1);
    await comment(acme.siteId, 'dialogs', ownersDialog, manager, 2);
    for (let i = 0; i < 8; i++) await comment(acme.siteId, 'dialogs', othersDialog, i % 2 ? owner : outsider, i + 40);
    for (let i = 0; i < 8; i++) await comment(acme.siteId, 'individuals', outsider.individualId, i % 2 ? owner : manager, i + 50);
    const them = await createPerson(t, globex, { firstName: 'Owen', lastName: 'Ner' });
    names.set(them.individualId, { FirstName: 'Owen', LastName: 'Ner' });
    theirs = [];
    for (let i = 0; i < 3; i++) theirs.push(await comment(globex.siteId, 'individuals', them.individualId, them, i, { deleted: false }));
    all = (await get(`${dialogsComments()}?deleted=2&limit=5000`, acme.admin.token).expect(200)).body as Json[];
    expect(all.length).toBe(38);
    mine = (await get('/v4/me/comments?deleted=2&limit=5000', owner.token).expect(200)).body as Json[];
    expect(new Set(mine.map((r) => r.AncestorID)).size).toBe(3);
  });
  afterAll(() => t?.close());

  it('answers every operator on every filterable field (guid, string, date, bool) as JavaScript does, in JSON and XML, with its total', async () => {
    const filterable = [...Comment.queryable.values()].filter((f) => f.filter);
    expect([...new Set(filterable.map((f) => f.kind))].sort()).toEqual(['bool', 'date', 'guid', 'string']);
    const by = (name: string) => Comment.queryable.get(name.toLowerCase())!;
    for (const [lists, token, rows] of [
      [[`${dialogsComments()}?deleted=2&limit=5000`], acme.admin.token, all],
      [['/v4/me/comments?deleted=2&limit=5000'], owner.token, mine],
    ] as const) {
      const cases: Case[] = grammarCases(Comment.queryable, rows);
      for (const f of filterable) for (const op of operatorsOf(f.kind)) expect(cases.some((c) => c.filter.startsWith(`${f.name} ${op}`))).toBe(true);
      const spring = (r: Json) => comparison(by('Created'), 'ge', '2026-03-01')(r) && comparison(by('Created'), 'lt', '2026-06-01T08:30:00Z')(r);
      cases.push(
        { filter: 'Created ge "2026-03-01" and Created lt "2026-06-01T10:30:00+02:00"', pred: spring },
        {
          filter: `AuthorID eq "${manager.individualId.toUpperCase()}" or AncestorType eq "INDIVIDUALS"`,
          pred: (r) => r.AuthorID === manager.individualId || r.AncestorType === 'individuals',
        },
        { filter: `not (Deleted eq true) and AncestorID ne "${othersDialog}"`, pred: (r) => r.Deleted === false && r.AncestorID !== othersDialog },
      );
      expect(cases.length).toBeGreaterThan(40);
      await expectFilterCases(as(token), lists, cases, rows, 'Comment');
    }
  });

  it('checks the right to read the record’s comments before any filter, and never finds another record’s or another site’s', async () => {
    const owned = all.filter((r) => r.AuthorID === owner.individualId && r.Deleted === false);
    for (const f of [`AuthorID eq "${owner.individualId}"`, `ID eq "${ids(owned)[0]}"`, 'Deleted eq false or Deleted eq true']) {
      // The owner and their manager read the owner's dialog's comments as the administrator does.
      const asAdmin = await get(`${dialogsComments()}?filter=${q(f)}`, acme.admin.token).expect(200);
      expect(asAdmin.body).not.toEqual([]);
      for (const who of [owner, manager]) {
        const res = await get(`${dialogsComments()}?filter=${q(f)}`, who.token).expect(200);
        expect({ f, body: res.body, total: res.headers['x-total-count'] }).toEqual({ f, body: asAdmin.body, total: asAdmin.headers['x-total-count'] });
      }
      // Another's dialog: 403 for the owner whatever the filter, by offset or by cursor, even for the comments they wrote there.
      for (const path of [`/v4/dialogs/${othersDialog}/comments?filter=${q(f)}`, `/v4/dialogs/${othersDialog}/comments?filter=${q(f)}&cursor=start`]) {
        const denied = await get(path, owner.token);
        expect({ path, status: denied.status, total: denied.headers['x-total-count'] }).toEqual({ path, status: 403, total: undefined });
      }
    }
    // An individual a Deny hides from the caller: their comments are not there (404), whatever the filter.
    await denyRead(t, acme.admin.token, outsider.individualId, manager.userId);
    const hidden = await get(`/v4/individuals/${outsider.individualId}/comments?filter=${q(`AuthorID eq "${manager.individualId}"`)}`, manager.token);
    expect({ status: hidden.status, total: hidden.headers['x-total-count'] }).toEqual({ status: 404, total: undefined });
    const seen = await get(`/v4/individuals/${outsider.individualId}/comments?filter=${q(`AuthorID eq "${manager.individualId}"`)}`, owner.token).expect(200);
    expect((seen.body as Json[]).length).toBeGreaterThan(0);
    // The owner's dialog's list never holds another record's comments, nor `me/comments` another author's, however asked.
    const asked = await get(
      `${dialogsComments()}?deleted=2&filter=${q(`AncestorID eq "${othersDialog}" or AncestorType eq "individuals"`)}`,
      acme.admin.token,
    ).expect(200);
    expect({ body: asked.body, total: asked.headers['x-total-count'] }).toEqual({ body: [], total: '0' });
    const others = await get(`/v4/me/comments?deleted=2&filter=${q(`AuthorID eq "${manager.individualId}"`)}`, owner.token).expect(200);
    expect({ body: others.body, total: others.headers['x-total-count'] }).toEqual({ body: [], total: '0' });
    // Another site's comments, by ID: not found, not counted; the record of another site: 404.
    for (const id of theirs) {
      const res = await get(`/v4/me/comments?deleted=2&filter=${q(`ID eq "${id}"`)}`, acme.admin.token).expect(200);
      expect({ id, found: res.body, total: res.headers['x-total-count'] }).toEqual({ id, found: [], total: '0' });
    }
    const them = (await get('/v4/individuals', globex.admin.token).expect(200)).body as Json[];
    expect((await get(`/v4/individuals/${them[0].ID as string}/comments?filter=${q('Deleted eq false')}`, acme.admin.token)).status).toBe(404);
  });

  it('sorts by Created, in JSON and XML, and answers only the fields asked for', async () => {
    const cmp = sortCompare;
    const time = (v: unknown) => new Date(v as string).getTime();
    await expectSorts(
      as(acme.admin.token),
      `${dialogsComments()}?deleted=2&limit=5000`,
      all,
      [
        ['Created', (a, b) => cmp(time(a.Created), time(b.Created)) || cmp(a.ID, b.ID)],
        ['-Created', (a, b) => -cmp(time(a.Created), time(b.Created)) || -cmp(a.ID, b.ID)],
      ],
      'Comment',
    );
    await expectSorts(
      as(owner.token),
      '/v4/me/comments?deleted=2&limit=5000',
      mine,
      [['Created', (a, b) => cmp(time(a.Created), time(b.Created)) || cmp(a.ID, b.ID)]],
      'Comment',
    );
    await expectFields(
      as(acme.admin.token),
      dialogsComments(),
      all,
      'Comment',
      ['authorname,Body,Created', ['ID', 'Body', 'AuthorName', 'Created']],
      ['Body,AuthorID,Created', ['AuthorID', 'Body', 'Created', 'ID']],
    );
  });

  it('exports the same comments as CSV for the same query, formulas neutralized', async () => {
    const rows = await expectCsvLikeJson(t, `${dialogsComments()}?deleted=2&sort=Created&fields=Body,AuthorName,Created`, acme.admin.token, 'comments');
    expect(rows).toBe(all.length);
    await expectCsvLikeJson(t, `/v4/me/comments?filter=${q('AncestorType eq "dialogs"')}`, owner.token, 'comments');
    const csv = await t.http().get(`${dialogsComments()}?fields=Body`).set('Authorization', `Bearer ${owner.token}`).set('Accept', 'text/csv').expect(200);
    expect(csv.text).toContain(`'=1+2`);
    await t.http().get(`/v4/dialogs/${othersDialog}/comments`).set('Authorization', `Bearer ${owner.token}`).set('Accept', 'text/csv').expect(403);
  });

  it('pages with a cursor while others insert and delete: every comment present throughout exactly once', async () => {
    const db = t.app.get(TenantDb);
    const ctx = RequestContext.system(acme.siteId);
    let n = 0;
    // Each new comment a minute after the one before, some at the same instant.
    const insert = (i: number) =>
      comment(acme.siteId, 'dialogs', ownersDialog, owner, 0, {
        body: `Cur ${i}`,
        deleted: false,
        created: new Date(Date.UTC(2027, 0, 1, 0, Math.floor(n++ / 2))),
      });
    for (const [list, token] of [
      [dialogsComments(), manager.token],
      ['/v4/me/comments', owner.token],
    ] as const) {
      await cursorsUnderChurn<string>({
        get: (url) => get(url, token).expect(200),
        first: `${list}?limit=5&cursor=start&filter=${q('Created ge "2027-01-01"')}`,
        sorts: ['', 'Created'],
        stable: 20,
        churn: 12,
        insert,
        remove: (id) => db.repo(ctx, CommentEntity).update(id, { deleted: true }),
        label: { list },
      });
    }
  });

  it('answers 400 problems naming what it cannot answer, never 500, in JSON and XML', async () => {
    const bad: [string, string, RegExp][] = [
      ['filter=Nope eq "x"', 'filter', /Unknown field Nope.*filterable: ID, AncestorID, AncestorType, AuthorID, Deleted, Created/],
      ['filter=Body co "x"', 'filter', /Unknown field Body/],
      ['filter=AuthorID sw "a"', 'filter', /operator sw does not apply to AuthorID/],
      ['filter=Created gt "soon"', 'filter', /date/],
      ['sort=AuthorID', 'sort', /not sortable.*sortable: Created/],
      ['fields=ID,Nope', 'fields', /Unknown field Nope/],
      ['cursor=garbage', 'cursor', /not one this list gave/],
    ];
    await expectRefusals(
      (path, xml) => get(path, acme.admin.token, xml),
      [dialogsComments(), '/v4/me/comments', `/v4/individuals/${owner.individualId}/comments`],
      bad,
    );
  });
});
