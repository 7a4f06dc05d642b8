import { randomUUID } from 'node:crypto';
import { RequestContext } from '../../src/common/context/request-context.js';
import { TenantDb } from '../../src/database/tenant-db.js';
import { deleteCommentsByRef, undeleteCommentsByRef } from '../../src/modules/comments/comment-cascade.js';
import { UNCHECKED_KINDS } from '../../src/modules/comments/comment-ancestors.js';
import { COMMENT_KINDS, CommentKind } from '../../src/database/entities/comment.entity.js';
import { lastCommentsFor } from '../../src/database/queries/last-comment.js';
import { DialogEntity } from '../../src/database/entities/dialog.entity.js';
import { IndividualEntity } from '../../src/database/entities/individual.entity.js';
import { OrganizationEntity, ROW_TYPE_DEPARTMENT } from '../../src/database/entities/organization.entity.js';
import { ProjectEntity } from '../../src/database/entities/project.entity.js';
import { TaskEntity } from '../../src/database/entities/task.entity.js';
import { commentRow, CommentJson, createComment, setCommentCreated } from '../factories/comments.js';
import { createPeriod } from '../factories/goals.js';
import { createPerson, createSite, TestPerson, TestSite } from '../factories/index.js';
import { createMetric } from '../factories/metrics.js';
import { bearer, startApp, TestApp, WireCodec } from './harness.js';

const codec = new WireCodec('urn:pms:v4');
const NS = 'xmlns="urn:pms:v4" xmlns:i="http://www.w3.org/2001/XMLSchema-instance"';
const UTC_DATE = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}\+00:00$/;
const ORDINAL = [
  '<AncestorID>',
  '<AncestorType>',
  '<AuthorID>',
  '<AuthorName>',
  '<Body>',
  '<Created>',
  '<CreatedBy>',
  '<Deleted>',
  '<DeletedByRef>',
  '<ID>',
  '<SiteID>',
  '<Updated>',
  '<UpdatedBy>',
];

type Row = Record<string, unknown>;

/** Hooks and tests that create people (scrypt hashing, a login each) on a shared, busy machine. */
const SLOW = 60_000;

describe('/v4 comments', () => {
  let t: TestApp;
  let acme: TestSite;
  let globex: TestSite;
  /** Author of most comments: a plain member. */
  let alice: TestPerson;
  /** Another plain member of the same site. */
  let bob: TestPerson;
  let globexMember: TestPerson;
  let departmentId: string;
  let projectId: string;
  let globexProjectId: string;
  let dialogId: string;
  let taskId: string;

  const http = () => t.http();
  const auth = (p: { token: string }) => bearer(p.token);
  const fields = (res: { body: { errors?: { field: string }[] } }) => (res.body.errors ?? []).map((e) => e.field).sort();

  beforeAll(async () => {
    t = await startApp();
    acme = await createSite(t, { name: 'Acme' });
    globex = await createSite(t, { name: 'Globex' });
    alice = await createPerson(t, acme, { firstName: 'Alice', lastName: 'Author' });
    bob = await createPerson(t, acme, { firstName: 'Bob', lastName: 'Bystander' });
    globexMember = await createPerson(t, globex, { firstName: 'Gina', lastName: 'Globex' });
    const dept = await t.app
      .get(TenantDb)
      .repo(RequestContext.system(acme.siteId), OrganizationEntity)
      .insert({ name: 'Sales', rowType: ROW_TYPE_DEPARTMENT, parentId: acme.orgId, rank: 1 });
    departmentId = dept.id;
    const project = (siteId: string, ownerId: string) =>
      t.app.get(TenantDb).repo(RequestContext.system(siteId), ProjectEntity).insert({ name: 'Apollo', ownerId, dueDateChanges: 0 });
    projectId = (await project(acme.siteId, alice.individualId)).id;
    globexProjectId = (await project(globex.siteId, globexMember.individualId)).id;
    const system = RequestContext.system(acme.siteId);
    const period = await createPeriod(t, acme.siteId, { start: new Date('2026-01-01T00:00:00Z'), end: new Date('2026-12-31T00:00:00Z') });
    dialogId = (
      await t.app
        .get(TenantDb)
        .repo(system, DialogEntity)
        .insert({
          kind: 'individual',
          ancestorId: alice.individualId,
          leaderId: bob.individualId,
          periodId: period.id,
          scheduledDate: new Date('2026-03-01T00:00:00Z'),
        })
    ).id;
    taskId = (
      await t.app
        .get(TenantDb)
        .repo(system, TaskEntity)
        .insert({ kind: 'individual', ancestorId: alice.individualId, assignedToId: alice.individualId, dialogId, name: 'Do it' })
    ).id;
  }, SLOW);
  afterAll(async () => {
    await t.close();
  }, SLOW);

  describe('POST /v4/comments', () => {
    it('creates a comment from JSON; the caller is the author and read-only fields are ignored', async () => {
      const res = await http()
        .post('/v4/comments')
        .set('Authorization', auth(alice))
        .send({
          AncestorID: bob.individualId,
          AncestorType: 'individuals',
          Body: 'Great quarter, Bob.',
          SiteID: globex.siteId,
          AuthorID: bob.individualId,
          AuthorName: 'Somebody Else',
          Deleted: true,
          DeletedByRef: true,
          Created: '2001-01-01T00:00:00Z',
          CreatedBy: bob.individualId,
          Unknown: 1,
        })
        .expect(200);
      expect(res.body).toEqual({
        ID: expect.stringMatching(/^[0-9a-f-]{36}$/),
        SiteID: acme.siteId,
        AncestorID: bob.individualId,
        AncestorType: 'individuals',
        Body: 'Great quarter, Bob.',
        AuthorID: alice.individualId,
        AuthorName: 'Alice Author',
        Deleted: false,
        DeletedByRef: false,
        Created: expect.stringMatching(UTC_DATE),
        CreatedBy: alice.individualId,
        Updated: expect.stringMatching(UTC_DATE),
        UpdatedBy: alice.individualId,
      });
      expect(Object.keys(res.body)).toEqual([
        'ID',
        'SiteID',
        'AncestorID',
        'AncestorType',
        'Body',
        'AuthorID',
        'AuthorName',
        'Deleted',
        'DeletedByRef',
        'Created',
        'CreatedBy',
        'Updated',
        'UpdatedBy',
      ]);
      expect(res.headers.etag).toMatch(/^"[A-Za-z0-9_-]+"$/);
      expect(Date.now() - Date.parse(res.body.Created)).toBeLessThan(60_000);
      const row = await commentRow(t, res.body.ID);
      expect(row).toMatchObject({ siteId: acme.siteId, authorId: alice.individualId, deleted: false, deletedByRef: false });
    });

    it('creates a comment from XML (elements in any order) and answers XML in ordinal order; values round-trip', async () => {
      const text = 'Line one & <two>\nline "three" – ünïcødé';
      const res = await http()
        .post('/v4/comments')
        .set('Authorization', auth(alice))
        .set('Content-Type', 'application/xml')
        .set('Accept', 'application/xml')
        .send(
          `<Comment ${NS}><Body>${text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;')}</Body><AuthorName>Ignored</AuthorName>` +
            `<AncestorType>organizations</AncestorType><ID i:nil="true"/><AncestorID>${acme.orgId}</AncestorID></Comment>`,
        )
        .expect(200);
      expect(res.headers['content-type']).toMatch(/^application\/xml/);
      expect(res.text).toMatch(new RegExp(`^<\\?xml[^>]+\\?><Comment ${NS}>`));
      const names = res.text.replace(/^<\?xml[^>]+\?><Comment[^>]*>/, '').match(/<([A-Za-z]+)(?=[ >/])/g);
      expect(names?.map((n) => `${n}>`)).toEqual(ORDINAL);
      const c = (await codec.decodeXml(res.text)) as Row;
      expect(c).toMatchObject({
        AncestorID: acme.orgId,
        AncestorType: 'organizations',
        Body: text,
        AuthorID: alice.individualId,
        AuthorName: 'Alice Author',
        Deleted: 'false',
        DeletedByRef: 'false',
        SiteID: acme.siteId,
      });
      const list = await http().get(`/v4/organizations/${acme.orgId}/comments`).set('Authorization', auth(alice)).expect(200);
      expect(list.body.find((x: CommentJson) => x.ID === c.ID)?.Body).toBe(text);
    });

    it(
      'accepts every one of the seven kinds',
      async () => {
        // Bob may read each of these: the project's metric (every member), the dialog he leads and its follow-up.
        const metric = await createMetric(t, alice.token, { Kind: 'project', AncestorID: projectId, Name: 'Commented on' });
        const ids: Record<CommentKind, string> = {
          departments: departmentId,
          individuals: alice.individualId,
          organizations: acme.orgId,
          metrics: metric.ID,
          projects: projectId,
          tasks: taskId,
          dialogs: dialogId,
        };
        for (const kind of COMMENT_KINDS) {
          const c = await createComment(t, bob.token, kind, ids[kind], `on ${kind}`);
          expect(c).toMatchObject({ AncestorType: kind, AncestorID: ids[kind], AuthorID: bob.individualId });
          const list = await http().get(`/v4/${kind}/${ids[kind]}/comments`).set('Authorization', auth(alice)).expect(200);
          expect(list.body.map((x: CommentJson) => x.ID)).toContain(c.ID);
          expect(list.body.every((x: CommentJson) => x.AncestorType === kind && x.AncestorID === ids[kind])).toBe(true);
        }
      },
      SLOW,
    );

    it('answers 400 naming each missing required field', async () => {
      const res = await http().post('/v4/comments').set('Authorization', auth(alice)).send({}).expect(400);
      expect(res.body.type).toBe('urn:pms:problem:validation-failed');
      expect(fields(res)).toEqual(['AncestorID', 'AncestorType', 'Body']);
      const base = { AncestorID: alice.individualId, AncestorType: 'individuals', Body: 'x' };
      for (const missing of Object.keys(base)) {
        const body: Row = { ...base };
        delete body[missing];
        const one = await http().post('/v4/comments').set('Authorization', auth(alice)).send(body).expect(400);
        expect(fields(one)).toEqual([missing]);
      }
      const nil = await http()
        .post('/v4/comments')
        .set('Authorization', auth(alice))
        .set('Content-Type', 'text/xml')
        .send(`<Comment ${NS}><AncestorID>${alice.individualId}</AncestorID><AncestorType>individuals</AncestorType><Body i:nil="true"/></Comment>`)
        .expect(400);
      expect(nil.body.errors).toEqual([{ field: 'Body', message: 'Body is required' }]);
    });

    it('refuses an empty or blank Body and one of 10,001 characters; 10,000 is fine', async () => {
      const send = (Body: unknown) =>
        http().post('/v4/comments').set('Authorization', auth(alice)).send({ AncestorID: alice.individualId, AncestorType: 'individuals', Body });
      expect((await send('').expect(400)).body.errors).toEqual([{ field: 'Body', message: 'Body must not be empty' }]);
      expect(fields(await send(' \n\t ').expect(400))).toEqual(['Body']);
      const over = await send('x'.repeat(10_001)).expect(400);
      expect(over.body.errors).toEqual([{ field: 'Body', message: 'Body must be at most 10000 characters' }]);
      // Characters, not bytes or UTF-16 units: 10,000 emoji are 10,000 characters.
      const ok = await send('😀'.repeat(10_000)).expect(200);
      expect([...ok.body.Body]).toHaveLength(10_000);
      expect(fields(await send('😀'.repeat(10_001)).expect(400))).toEqual(['Body']);
    });

    it('refuses an AncestorType outside the seven path words, and wrong types', async () => {
      for (const kind of ['widgets', 'Individuals', 'individual', '']) {
        const res = await http()
          .post('/v4/comments')
          .set('Authorization', auth(alice))
          .send({ AncestorID: alice.individualId, AncestorType: kind, Body: 'x' })
          .expect(400);
        expect(fields(res)).toEqual(['AncestorType']);
      }
      const res = await http()
        .post('/v4/comments')
        .set('Authorization', auth(alice))
        .send({ AncestorID: 'abc', AncestorType: 7, Body: 5, ID: 'nope' })
        .expect(400);
      expect(fields(res)).toEqual(['AncestorID', 'AncestorType', 'Body', 'ID']);
      expect(res.body.errors.find((e: { field: string }) => e.field === 'AncestorID').message).toContain('UUID');
    });

    it('refuses an AncestorID that is not a record of that kind in the caller’s site (400, nothing written)', async () => {
      const cases: [CommentKind, string][] = [
        ['individuals', globexMember.individualId],
        ['individuals', randomUUID()],
        ['organizations', globex.orgId],
        ['organizations', departmentId],
        ['departments', acme.orgId],
        ['departments', randomUUID()],
        ['projects', globexProjectId],
        ['projects', randomUUID()],
        ['metrics', randomUUID()],
        ['metrics', alice.individualId],
      ];
      for (const [kind, id] of cases) {
        const res = await http().post('/v4/comments').set('Authorization', auth(alice)).send({ AncestorID: id, AncestorType: kind, Body: 'x' }).expect(400);
        expect(res.body.errors).toEqual([{ field: 'AncestorID', message: expect.stringContaining(id) }]);
      }
      const foreign = await http().get(`/v4/individuals/${globexMember.individualId}/comments?deleted=2`).set('Authorization', auth(globexMember)).expect(200);
      expect(foreign.body).toEqual([]);
    });

    it(
      'refuses a comment on a deleted ancestor with 409 deleted',
      async () => {
        const gone = await createPerson(t, acme, { firstName: 'Gone' });
        await t.app.get(TenantDb).repo(RequestContext.system(acme.siteId), IndividualEntity).updateWhere({ id: gone.individualId }, { deleted: true });
        const res = await http()
          .post('/v4/comments')
          .set('Authorization', auth(alice))
          .send({ AncestorID: gone.individualId, AncestorType: 'individuals', Body: 'x' })
          .expect(409);
        expect(res.body.type).toBe('urn:pms:problem:deleted');
      },
      SLOW,
    );

    it('uses a supplied ID (409 id-taken when it is used, in any site); the all-zero ID means none', async () => {
      const id = randomUUID();
      const body = { ID: id, AncestorID: alice.individualId, AncestorType: 'individuals', Body: 'fixed id' };
      const res = await http().post('/v4/comments').set('Authorization', auth(alice)).send(body).expect(200);
      expect(res.body.ID).toBe(id);
      const again = await http().post('/v4/comments').set('Authorization', auth(alice)).send(body).expect(409);
      expect(again.body.type).toBe('urn:pms:problem:id-taken');
      const otherSite = await http()
        .post('/v4/comments')
        .set('Authorization', auth(globexMember))
        .send({ ...body, AncestorID: globexMember.individualId })
        .expect(409);
      expect(otherSite.body.type).toBe('urn:pms:problem:id-taken');
      const zero = await http()
        .post('/v4/comments')
        .set('Authorization', auth(alice))
        .send({ ...body, ID: '00000000-0000-0000-0000-000000000000' })
        .expect(200);
      expect(zero.body.ID).not.toBe('00000000-0000-0000-0000-000000000000');
    });

    it('requires a bearer token', async () => {
      await http().post('/v4/comments').send({ AncestorID: alice.individualId, AncestorType: 'individuals', Body: 'x' }).expect(401);
      await http().get(`/v4/individuals/${alice.individualId}/comments`).expect(401);
      await http().get('/v4/me/comments').expect(401);
    });
  });

  describe('GET /v4/{kind}/{ancestorid}/comments', () => {
    let subject: TestPerson;
    let c1: CommentJson;
    let c2: CommentJson;
    let c3: CommentJson;
    beforeAll(async () => {
      subject = await createPerson(t, acme, { firstName: 'Sam', lastName: 'Subject' });
      c1 = await createComment(t, alice.token, 'individuals', subject.individualId, 'first');
      c2 = await createComment(t, bob.token, 'individuals', subject.individualId, 'second');
      c3 = await createComment(t, alice.token, 'individuals', subject.individualId, 'third');
      await setCommentCreated(t, c1.ID, new Date('2026-01-15T12:00:00.000Z'));
      await setCommentCreated(t, c2.ID, new Date('2026-07-15T12:00:00.000Z'));
      await setCommentCreated(t, c3.ID, new Date('2026-09-01T08:30:00.250Z'));
      // A comment on another kind with the same id is not on this individual (ids are unique per table only).
      await createMetric(t, alice.token, { ID: subject.individualId, Kind: 'individual', AncestorID: alice.individualId, Name: 'Same id' });
      await createComment(t, alice.token, 'metrics', subject.individualId, 'metric with a colliding id');
      await http().delete(`/v4/comments/${c2.ID}`).set('Authorization', auth(bob)).expect(200);
    }, SLOW);

    it('lists the live comments of the record, newest first, in JSON with X-Total-Count', async () => {
      const res = await http().get(`/v4/individuals/${subject.individualId}/comments`).set('Authorization', auth(bob)).expect(200);
      expect(res.body.map((c: CommentJson) => c.Body)).toEqual(['third', 'first']);
      expect(res.body[0]).toMatchObject({ ID: c3.ID, AuthorName: 'Alice Author', Created: '2026-09-01T08:30:00.250+00:00', Deleted: false });
      expect(res.headers['x-total-count']).toBe('2');
    });

    it('answers XML: ArrayOfComment with Comment children', async () => {
      const res = await http().get(`/v4/individuals/${subject.individualId}/comments`).set('Authorization', auth(bob)).set('Accept', 'text/xml').expect(200);
      expect(res.headers['content-type']).toMatch(/^text\/xml/);
      expect(res.text).toContain(`<ArrayOfComment ${NS}><Comment><AncestorID>`);
      const items = (await codec.decodeXml(res.text)) as Row[];
      expect(items.map((c) => [c.ID, c.Body, c.Created])).toEqual([
        [c3.ID, 'third', '2026-09-01T08:30:00.250+00:00'],
        [c1.ID, 'first', '2026-01-15T12:00:00.000+00:00'],
      ]);
    });

    it('filters on deleted: 0 live (default), 1 deleted, 2 all; anything else is 400', async () => {
      const get = (q: string) => http().get(`/v4/individuals/${subject.individualId}/comments${q}`).set('Authorization', auth(alice));
      expect((await get('?deleted=0').expect(200)).body.map((c: CommentJson) => c.ID)).toEqual([c3.ID, c1.ID]);
      const deleted = (await get('?deleted=1').expect(200)).body;
      expect(deleted.map((c: CommentJson) => c.ID)).toEqual([c2.ID]);
      expect(deleted[0]).toMatchObject({ Deleted: true, DeletedByRef: false });
      expect((await get('?deleted=2').expect(200)).body.map((c: CommentJson) => c.ID)).toEqual([c3.ID, c2.ID, c1.ID]);
      expect(fields(await get('?deleted=3').expect(400))).toEqual(['deleted']);
      expect(fields(await get('?deleted=yes').expect(400))).toEqual(['deleted']);
    });

    it('pages with limit and offset and a Link to the next page', async () => {
      const res = await http().get(`/v4/individuals/${subject.individualId}/comments?deleted=2&limit=2`).set('Authorization', auth(alice)).expect(200);
      expect(res.body.map((c: CommentJson) => c.ID)).toEqual([c3.ID, c2.ID]);
      expect(res.headers['x-total-count']).toBe('3');
      expect(res.headers.link).toBe(`</v4/individuals/${subject.individualId}/comments?deleted=2&limit=2&offset=2>; rel="next"`);
      const next = await http()
        .get(`/v4/individuals/${subject.individualId}/comments?deleted=2&limit=2&offset=2`)
        .set('Authorization', auth(alice))
        .expect(200);
      expect(next.body.map((c: CommentJson) => c.ID)).toEqual([c1.ID]);
      expect(next.headers.link).toBeUndefined();
      expect(fields(await http().get(`/v4/individuals/${subject.individualId}/comments?limit=0`).set('Authorization', auth(alice)).expect(400))).toEqual([
        'limit',
      ]);
    });

    it('renders every date in tz (fixed offset, IANA zone with summer time); an unknown zone is 400', async () => {
      const url = `/v4/individuals/${subject.individualId}/comments?deleted=2`;
      const india = await http().get(`${url}&tz=%2B05:30`).set('Authorization', auth(alice)).expect(200);
      expect(india.body.map((c: CommentJson) => c.Created)).toEqual([
        '2026-09-01T14:00:00.250+05:30',
        '2026-07-15T17:30:00.000+05:30',
        '2026-01-15T17:30:00.000+05:30',
      ]);
      expect(india.body[0].Updated).toMatch(/\+05:30$/);
      const ny = await http().get(`${url}&tz=America/New_York`).set('Authorization', auth(alice)).set('Accept', 'application/xml').expect(200);
      const items = (await codec.decodeXml(ny.text)) as Row[];
      expect(items.map((c) => c.Created)).toEqual(['2026-09-01T04:30:00.250-04:00', '2026-07-15T08:00:00.000-04:00', '2026-01-15T07:00:00.000-05:00']);
      expect(String(items[0].Updated)).toMatch(/-0[45]:00$/);
      const bad = await http().get(`${url}&tz=Nowhere/Zone`).set('Authorization', auth(alice)).expect(400);
      expect(fields(bad)).toEqual(['tz']);
    });

    it('answers 404 for an ancestor that is not in the caller’s site, 400 for a malformed id', async () => {
      const notFound: [string, string][] = [
        ['individuals', randomUUID()],
        ['individuals', globexMember.individualId],
        ['organizations', globex.orgId],
        ['organizations', departmentId],
        ['departments', acme.orgId],
        ['projects', globexProjectId],
        ['projects', randomUUID()],
        ['metrics', randomUUID()],
      ];
      for (const [kind, id] of notFound) {
        const res = await http().get(`/v4/${kind}/${id}/comments`).set('Authorization', auth(alice)).expect(404);
        expect(res.body.type).toBe('urn:pms:problem:not-found');
      }
      const bad = await http().get('/v4/individuals/not-a-guid/comments').set('Authorization', auth(alice)).expect(400);
      expect(bad.body.errors).toEqual([{ field: 'ancestorid', message: 'ancestorid must be a UUID' }]);
    });

    it('answers 404 for a kind that is not one of the seven', async () => {
      for (const kind of ['widgets', 'goals', 'individual']) {
        const res = await http().get(`/v4/${kind}/${subject.individualId}/comments`).set('Authorization', auth(alice)).expect(404);
        expect(res.body.type).toBe('urn:pms:problem:not-found');
      }
    });

    it('never shows another site’s comments on tasks, dialogs and metrics, checked kinds or not', async () => {
      for (const kind of ['tasks', 'dialogs', 'metrics'] as const) {
        const shared = randomUUID();
        if (UNCHECKED_KINDS.includes(kind)) {
          // Without a table to check, any id is accepted: the site alone keeps the comments apart.
          await createComment(t, globexMember.token, kind, shared, `globex ${kind} note`);
          const mine = await createComment(t, alice.token, kind, shared, `acme ${kind} note`);
          const res = await http().get(`/v4/${kind}/${shared}/comments`).set('Authorization', auth(bob)).expect(200);
          expect(res.body.map((c: CommentJson) => c.ID)).toEqual([mine.ID]);
          const empty = await http().get(`/v4/${kind}/${randomUUID()}/comments`).set('Authorization', auth(bob)).expect(200);
          expect(empty.body).toEqual([]);
          expect(empty.headers['x-total-count']).toBe('0');
        } else {
          // A checked kind: an id that is not a record of the caller's site is not found at all.
          await http().get(`/v4/${kind}/${shared}/comments`).set('Authorization', auth(bob)).expect(404);
          const res = await http()
            .post('/v4/comments')
            .set('Authorization', auth(alice))
            .send({ AncestorType: kind, AncestorID: shared, Body: 'x' })
            .expect(400);
          expect(res.body.errors).toEqual([{ field: 'AncestorID', message: expect.stringContaining('of this site') }]);
        }
      }
    });
  });

  describe('GET /v4/me/comments', () => {
    let writer: TestPerson;
    let older: CommentJson;
    let newer: CommentJson;
    let removed: CommentJson;
    beforeAll(async () => {
      writer = await createPerson(t, acme, { firstName: 'Wanda', lastName: 'Writer' });
      older = await createComment(t, writer.token, 'departments', departmentId, 'on the department');
      newer = await createComment(t, writer.token, 'individuals', bob.individualId, 'on Bob');
      removed = await createComment(t, writer.token, 'organizations', acme.orgId, 'withdrawn');
      await setCommentCreated(t, older.ID, new Date('2026-02-01T00:00:00Z'));
      await setCommentCreated(t, newer.ID, new Date('2026-03-01T00:00:00Z'));
      await setCommentCreated(t, removed.ID, new Date('2026-04-01T00:00:00Z'));
      await http().delete(`/v4/comments/${removed.ID}`).set('Authorization', auth(writer)).expect(200);
      await createComment(t, bob.token, 'individuals', writer.individualId, 'by Bob, about Wanda');
    }, SLOW);

    it('lists only the caller’s own live comments, newest first, on any kind (JSON)', async () => {
      const res = await http().get('/v4/me/comments').set('Authorization', auth(writer)).expect(200);
      expect(res.body.map((c: CommentJson) => c.ID)).toEqual([newer.ID, older.ID]);
      expect(res.body.every((c: CommentJson) => c.AuthorID === writer.individualId && c.AuthorName === 'Wanda Writer')).toBe(true);
      expect(res.headers['x-total-count']).toBe('2');
      const all = await http().get('/v4/me/comments?deleted=2').set('Authorization', auth(writer)).expect(200);
      expect(all.body.map((c: CommentJson) => c.ID)).toEqual([removed.ID, newer.ID, older.ID]);
      const bobs = await http().get('/v4/me/comments?deleted=2').set('Authorization', auth(bob)).expect(200);
      expect(bobs.body.length).toBeGreaterThan(0);
      expect(bobs.body.every((c: CommentJson) => c.AuthorID === bob.individualId)).toBe(true);
    });

    it('answers XML (ArrayOfComment) and honours tz and paging', async () => {
      const res = await http().get('/v4/me/comments?tz=%2B05:30&limit=1').set('Authorization', auth(writer)).set('Accept', 'application/xml').expect(200);
      expect(res.text).toContain(`<ArrayOfComment ${NS}><Comment>`);
      const items = (await codec.decodeXml(res.text)) as Row[];
      expect(items).toEqual([expect.objectContaining({ ID: newer.ID, Body: 'on Bob', Created: '2026-03-01T05:30:00.000+05:30' })]);
      expect(res.headers.link).toBe('</v4/me/comments?tz=%2B05%3A30&limit=1&offset=1>; rel="next"');
    });

    it(
      'answers an empty list to someone who wrote nothing',
      async () => {
        const quiet = await createPerson(t, acme);
        const res = await http().get('/v4/me/comments').set('Authorization', auth(quiet)).expect(200);
        expect(res.body).toEqual([]);
      },
      SLOW,
    );
  });

  describe('PUT /v4/comments/{id}', () => {
    let c: CommentJson;
    beforeEach(async () => {
      c = await createComment(t, alice.token, 'individuals', bob.individualId, 'original');
    });

    it('changes only Body (JSON); AncestorID, AncestorType and read-only fields are ignored', async () => {
      const res = await http()
        .put(`/v4/comments/${c.ID}`)
        .set('Authorization', auth(alice))
        .send({
          ...c,
          Body: 'edited',
          AncestorID: acme.orgId,
          AncestorType: 'organizations',
          AuthorID: bob.individualId,
          Deleted: true,
          Created: '2001-01-01T00:00:00Z',
        })
        .expect(200);
      expect(res.body).toEqual({ ...c, Body: 'edited', Updated: expect.stringMatching(UTC_DATE), UpdatedBy: alice.individualId });
      expect(Date.parse(res.body.Updated)).toBeGreaterThanOrEqual(Date.parse(c.Updated));
      expect(res.headers.etag).toMatch(/^"/);
      const row = await commentRow(t, c.ID);
      expect(row).toMatchObject({ body: 'edited', ancestorId: bob.individualId, ancestorType: 'individuals', authorId: alice.individualId, deleted: false });
    });

    it('accepts the exact XML it answered, with a changed Body, and answers XML in tz', async () => {
      const read = await http()
        .put(`/v4/comments/${c.ID}`)
        .set('Authorization', auth(alice))
        .set('Accept', 'application/xml')
        .send({ ID: c.ID, Body: 'first edit' })
        .expect(200);
      const body = read.text.replace('<Body>first edit</Body>', '<Body>second edit</Body>');
      expect(body).not.toBe(read.text);
      const res = await http()
        .put(`/v4/comments/${c.ID}?tz=America/New_York`)
        .set('Authorization', auth(alice))
        .set('Content-Type', 'text/xml')
        .set('Accept', 'text/xml')
        .send(body)
        .expect(200);
      expect(res.text).toMatch(new RegExp(`^<\\?xml[^>]+\\?><Comment ${NS}>`));
      const out = (await codec.decodeXml(res.text)) as Row;
      expect(out).toMatchObject({ ID: c.ID, Body: 'second edit', AncestorID: bob.individualId, AncestorType: 'individuals', AuthorID: alice.individualId });
      expect(String(out.Created)).toMatch(/-0[45]:00$/);
      expect(Date.parse(String(out.Created))).toBe(Date.parse(c.Created));
    });

    it('validates: ID required and equal to the path id; Body missing, empty, 10,001 characters', async () => {
      const put = (body: Row) => http().put(`/v4/comments/${c.ID}`).set('Authorization', auth(alice)).send(body);
      expect(fields(await put({ ID: c.ID }).expect(400))).toEqual(['Body']);
      expect(fields(await put({ ID: c.ID, Body: '' }).expect(400))).toEqual(['Body']);
      expect(fields(await put({ ID: c.ID, Body: 'y'.repeat(10_001) }).expect(400))).toEqual(['Body']);
      expect(fields(await put({ Body: 'x' }).expect(400))).toEqual(['ID']);
      expect(fields(await put({ ID: randomUUID(), Body: 'x' }).expect(400))).toEqual(['ID']);
      expect(fields(await put({ ID: c.ID, Body: 42 }).expect(400))).toEqual(['Body']);
      await put({ ID: c.ID, Body: 'y'.repeat(10_000) }).expect(200);
      const bad = await http().put('/v4/comments/123').set('Authorization', auth(alice)).send({ ID: c.ID, Body: 'x' }).expect(400);
      expect(fields(bad)).toEqual(['id']);
    });

    it('answers 404 for an unknown id and for another site’s comment, which stays unchanged', async () => {
      const unknown = randomUUID();
      await http().put(`/v4/comments/${unknown}`).set('Authorization', auth(acme.admin)).send({ ID: unknown, Body: 'x' }).expect(404);
      const theirs = await createComment(t, globexMember.token, 'individuals', globexMember.individualId, 'globex only');
      const res = await http().put(`/v4/comments/${theirs.ID}`).set('Authorization', auth(acme.admin)).send({ ID: theirs.ID, Body: 'hijacked' }).expect(404);
      expect(res.body.type).toBe('urn:pms:problem:not-found');
      expect((await commentRow(t, theirs.ID))?.body).toBe('globex only');
    });

    it('refuses someone other than the author with 403; an administrator may', async () => {
      const res = await http().put(`/v4/comments/${c.ID}`).set('Authorization', auth(bob)).send({ ID: c.ID, Body: 'not mine' }).expect(403);
      expect(res.body.type).toBe('urn:pms:problem:forbidden');
      expect((await commentRow(t, c.ID))?.body).toBe('original');
      const admin = await http().put(`/v4/comments/${c.ID}`).set('Authorization', auth(acme.admin)).send({ ID: c.ID, Body: 'moderated' }).expect(200);
      expect(admin.body).toMatchObject({ Body: 'moderated', AuthorID: alice.individualId, AuthorName: 'Alice Author', UpdatedBy: acme.admin.individualId });
    });

    it('answers 409 deleted for a deleted comment', async () => {
      await http().delete(`/v4/comments/${c.ID}`).set('Authorization', auth(alice)).expect(200);
      const res = await http().put(`/v4/comments/${c.ID}`).set('Authorization', auth(alice)).send({ ID: c.ID, Body: 'too late' }).expect(409);
      expect(res.body.type).toBe('urn:pms:problem:deleted');
      expect((await commentRow(t, c.ID))?.body).toBe('original');
    });

    it('honours If-Match: 412 for a stale ETag, 200 for the current one', async () => {
      const first = await http().put(`/v4/comments/${c.ID}`).set('Authorization', auth(alice)).send({ ID: c.ID, Body: 'v2' }).expect(200);
      await http().put(`/v4/comments/${c.ID}`).set('Authorization', auth(alice)).set('If-Match', '"stale"').send({ ID: c.ID, Body: 'v3' }).expect(412);
      const ok = await http()
        .put(`/v4/comments/${c.ID}`)
        .set('Authorization', auth(alice))
        .set('If-Match', first.headers.etag)
        .send({ ID: c.ID, Body: 'v3' })
        .expect(200);
      expect(ok.body.Body).toBe('v3');
    });
  });

  describe('DELETE /v4/comments/{id} and PUT /v4/comments/{id}/undelete', () => {
    let c: CommentJson;
    const list = async (deleted: number) =>
      (await http().get(`/v4/individuals/${bob.individualId}/comments?deleted=${deleted}`).set('Authorization', auth(bob)).expect(200)).body.map(
        (x: CommentJson) => x.ID,
      );
    beforeEach(async () => {
      c = await createComment(t, alice.token, 'individuals', bob.individualId, 'to be deleted');
    });

    it('deletes softly and idempotently (JSON {}), then restores idempotently (List of one)', async () => {
      const del = await http().delete(`/v4/comments/${c.ID}`).set('Authorization', auth(alice)).expect(200);
      expect(del.body).toEqual({});
      expect(await list(0)).not.toContain(c.ID);
      expect(await list(1)).toContain(c.ID);
      expect(await commentRow(t, c.ID)).toMatchObject({ deleted: true, deletedByRef: false, updatedBy: alice.individualId });
      // Again: same answer, nothing changes.
      const before = await commentRow(t, c.ID);
      expect((await http().delete(`/v4/comments/${c.ID}`).set('Authorization', auth(alice)).expect(200)).body).toEqual({});
      expect((await commentRow(t, c.ID))?.updated).toEqual(before?.updated);

      const un = await http().put(`/v4/comments/${c.ID}/undelete`).set('Authorization', auth(alice)).expect(200);
      expect(un.body).toEqual([{ ...c, Updated: expect.stringMatching(UTC_DATE) }]);
      expect(un.headers['x-total-count']).toBeUndefined();
      expect(await list(0)).toContain(c.ID);
      const again = await http().put(`/v4/comments/${c.ID}/undelete`).set('Authorization', auth(alice)).expect(200);
      expect(again.body).toEqual(un.body);
    });

    it('answers XML: <Object/> for the delete, a List root holding one Comment for the undelete, dates in tz', async () => {
      const del = await http().delete(`/v4/comments/${c.ID}`).set('Authorization', auth(alice)).set('Accept', 'application/xml').expect(200);
      expect(del.text).toMatch(new RegExp(`<Object ${NS}/>$`));
      await setCommentCreated(t, c.ID, new Date('2026-01-15T12:00:00.000Z'));
      const un = await http().put(`/v4/comments/${c.ID}/undelete?tz=%2B05:30`).set('Authorization', auth(alice)).set('Accept', 'application/xml').expect(200);
      expect(un.text).toMatch(new RegExp(`^<\\?xml[^>]+\\?><List ${NS}><Comment><AncestorID>`));
      expect(un.text.match(/<Comment>/g)).toHaveLength(1);
      const items = (await codec.decodeXml(un.text)) as Row[];
      expect(items).toEqual([expect.objectContaining({ ID: c.ID, Deleted: 'false', Body: 'to be deleted', Created: '2026-01-15T17:30:00.000+05:30' })]);
      const bad = await http().put(`/v4/comments/${c.ID}/undelete?tz=Nowhere/Zone`).set('Authorization', auth(alice)).expect(400);
      expect(fields(bad)).toEqual(['tz']);
    });

    it('refuses someone other than the author with 403 (nothing changes); an administrator may', async () => {
      const res = await http().delete(`/v4/comments/${c.ID}`).set('Authorization', auth(bob)).expect(403);
      expect(res.body.type).toBe('urn:pms:problem:forbidden');
      expect((await commentRow(t, c.ID))?.deleted).toBe(false);
      await http().delete(`/v4/comments/${c.ID}`).set('Authorization', auth(acme.admin)).expect(200);
      expect((await commentRow(t, c.ID))?.deleted).toBe(true);
      const un = await http().put(`/v4/comments/${c.ID}/undelete`).set('Authorization', auth(bob)).expect(403);
      expect(un.body.type).toBe('urn:pms:problem:forbidden');
      expect((await commentRow(t, c.ID))?.deleted).toBe(true);
      const ok = await http().put(`/v4/comments/${c.ID}/undelete`).set('Authorization', auth(acme.admin)).expect(200);
      expect(ok.body[0]).toMatchObject({ ID: c.ID, Deleted: false, AuthorID: alice.individualId, UpdatedBy: acme.admin.individualId });
    });

    it('answers 404 for an unknown id and another site’s comment (unchanged), 400 for a malformed id', async () => {
      await http().delete(`/v4/comments/${randomUUID()}`).set('Authorization', auth(acme.admin)).expect(404);
      await http().put(`/v4/comments/${randomUUID()}/undelete`).set('Authorization', auth(acme.admin)).expect(404);
      const theirs = await createComment(t, globexMember.token, 'individuals', globexMember.individualId, 'globex only');
      await http().delete(`/v4/comments/${theirs.ID}`).set('Authorization', auth(acme.admin)).expect(404);
      expect((await commentRow(t, theirs.ID))?.deleted).toBe(false);
      await http().delete(`/v4/comments/${theirs.ID}`).set('Authorization', auth(globexMember)).expect(200);
      await http().put(`/v4/comments/${theirs.ID}/undelete`).set('Authorization', auth(acme.admin)).expect(404);
      expect((await commentRow(t, theirs.ID))?.deleted).toBe(true);
      expect(fields(await http().delete('/v4/comments/xyz').set('Authorization', auth(alice)).expect(400))).toEqual(['id']);
      expect(fields(await http().put('/v4/comments/xyz/undelete').set('Authorization', auth(alice)).expect(400))).toEqual(['id']);
    });

    it('honours If-Match on delete (412 when stale) but stays idempotent once deleted', async () => {
      await http().delete(`/v4/comments/${c.ID}`).set('Authorization', auth(alice)).set('If-Match', '"stale"').expect(412);
      expect((await commentRow(t, c.ID))?.deleted).toBe(false);
      await http().delete(`/v4/comments/${c.ID}`).set('Authorization', auth(alice)).set('If-Match', '*').expect(200);
      await http().delete(`/v4/comments/${c.ID}`).set('Authorization', auth(alice)).set('If-Match', '"stale"').expect(200);
    });
  });

  describe('deletion by reference (helpers for the ancestors’ own delete and undelete)', () => {
    it(
      'takes down the live comments of a deleted ancestor and restores exactly those',
      async () => {
        const owner = await createPerson(t, acme, { firstName: 'Olive', lastName: 'Owner' });
        const live = await createComment(t, alice.token, 'individuals', owner.individualId, 'live');
        const own = await createComment(t, alice.token, 'individuals', owner.individualId, 'deleted on its own');
        await createMetric(t, alice.token, { ID: owner.individualId, Kind: 'individual', AncestorID: alice.individualId, Name: 'Same id' });
        const elsewhere = await createComment(t, alice.token, 'metrics', owner.individualId, 'other kind, same id');
        await http().delete(`/v4/comments/${own.ID}`).set('Authorization', auth(alice)).expect(200);
        const db = t.app.get(TenantDb);
        const ctx = RequestContext.system(acme.siteId);
        await db.transaction(ctx, async (tx) => {
          await tx.repo(IndividualEntity).updateWhere({ id: owner.individualId }, { deleted: true });
          expect(await deleteCommentsByRef(tx, 'individuals', [owner.individualId])).toBe(1);
        });
        expect(await commentRow(t, live.ID)).toMatchObject({ deleted: true, deletedByRef: true });
        expect(await commentRow(t, own.ID)).toMatchObject({ deleted: true, deletedByRef: false });
        expect(await commentRow(t, elsewhere.ID)).toMatchObject({ deleted: false });

        const listed = await http().get(`/v4/individuals/${owner.individualId}/comments?deleted=1`).set('Authorization', auth(bob)).expect(200);
        expect(listed.body.find((x: CommentJson) => x.ID === live.ID)).toMatchObject({ Deleted: true, DeletedByRef: true });
        // While the ancestor is deleted, the comment cannot come back on its own.
        const refused = await http().put(`/v4/comments/${live.ID}/undelete`).set('Authorization', auth(alice)).expect(409);
        expect(refused.body.type).toBe('urn:pms:problem:deleted');

        await db.transaction(ctx, async (tx) => {
          await tx.repo(IndividualEntity).updateWhere({ id: owner.individualId }, { deleted: false });
          expect(await undeleteCommentsByRef(tx, 'individuals', [owner.individualId])).toBe(1);
        });
        expect(await commentRow(t, live.ID)).toMatchObject({ deleted: false, deletedByRef: false });
        expect(await commentRow(t, own.ID)).toMatchObject({ deleted: true, deletedByRef: false });
        expect(await db.transaction(ctx, (tx) => deleteCommentsByRef(tx, 'individuals', []))).toBe(0);
      },
      SLOW,
    );
  });

  describe('lastCommentsFor (Individual.LastComment*)', () => {
    it(
      'answers the newest live comment per individual, skipping deleted ones, other kinds and other sites',
      async () => {
        const p1 = await createPerson(t, acme, { firstName: 'Pat', lastName: 'One' });
        const p2 = await createPerson(t, acme, { firstName: 'Pat', lastName: 'Two' });
        const p3 = await createPerson(t, acme, { firstName: 'Pat', lastName: 'Three' });
        const old1 = await createComment(t, alice.token, 'individuals', p1.individualId, 'p1 old');
        const new1 = await createComment(t, bob.token, 'individuals', p1.individualId, 'p1 newest');
        const del1 = await createComment(t, alice.token, 'individuals', p1.individualId, 'p1 deleted, newer still');
        await createMetric(t, alice.token, { ID: p1.individualId, Kind: 'individual', AncestorID: alice.individualId, Name: 'Same id' });
        const other1 = await createComment(t, alice.token, 'metrics', p1.individualId, 'metric, newest of all');
        const live2 = await createComment(t, alice.token, 'individuals', p2.individualId, 'p2 live');
        const del2 = await createComment(t, alice.token, 'individuals', p2.individualId, 'p2 deleted');
        const only3 = await createComment(t, alice.token, 'individuals', p3.individualId, 'p3 deleted only');
        await setCommentCreated(t, old1.ID, new Date('2026-01-01T00:00:00Z'));
        await setCommentCreated(t, new1.ID, new Date('2026-02-01T00:00:00Z'));
        await setCommentCreated(t, del1.ID, new Date('2026-03-01T00:00:00Z'));
        await setCommentCreated(t, other1.ID, new Date('2026-04-01T00:00:00Z'));
        await setCommentCreated(t, live2.ID, new Date('2026-01-01T00:00:00Z'));
        await setCommentCreated(t, del2.ID, new Date('2026-05-01T00:00:00Z'));
        for (const d of [del1, del2, only3]) await http().delete(`/v4/comments/${d.ID}`).set('Authorization', auth(alice)).expect(200);

        const db = t.app.get(TenantDb);
        const noComments = randomUUID();
        const got = await lastCommentsFor(db, RequestContext.system(acme.siteId), [p1.individualId, p2.individualId, p3.individualId, noComments]);
        expect([...got.keys()].sort()).toEqual([p1.individualId, p2.individualId].sort());
        expect(got.get(p1.individualId)).toEqual({
          body: 'p1 newest',
          created: new Date('2026-02-01T00:00:00Z'),
          authorId: bob.individualId,
          authorName: 'Bob Bystander',
        });
        expect(got.get(p2.individualId)).toEqual({
          body: 'p2 live',
          created: new Date('2026-01-01T00:00:00Z'),
          authorId: alice.individualId,
          authorName: 'Alice Author',
        });
        // Another site sees none of them.
        const foreign = await lastCommentsFor(db, RequestContext.system(globex.siteId), [p1.individualId, p2.individualId]);
        expect(foreign.size).toBe(0);
        // Undeleting the newest brings it back as the last comment.
        await http().put(`/v4/comments/${del1.ID}/undelete`).set('Authorization', auth(alice)).expect(200);
        const after = await lastCommentsFor(db, RequestContext.system(acme.siteId), [p1.individualId]);
        expect(after.get(p1.individualId)?.body).toBe('p1 deleted, newer still');
      },
      SLOW,
    );
  });
});
