import { randomUUID } from 'node:crypto';
import { CommentEntity } from '../../src/database/entities/comment.entity.js';
import { DialogEntity } from '../../src/database/entities/dialog.entity.js';
import { bearer, startApp, TestApp, WireCodec } from './harness.js';
import { createComment } from '../factories/comments.js';
import { createDialog, Json } from '../factories/dialogs.js';
import { createPeriods, createUnit } from '../factories/goals.js';
import { createPerson, createSite, TestPerson } from '../factories/index.js';
import { createProject, createTeamSite, TeamSite } from '../factories/performance.js';

const codec = new WireCodec('urn:pms:v4');
const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}\+00:00$/;
const JSON_ORDER = [
  'ID',
  'Kind',
  'AncestorID',
  'LeaderID',
  'PeriodID',
  'ScheduledDate',
  'OccurredDate',
  'Notes',
  'SiteID',
  'Deleted',
  'DeletedByRef',
  'Created',
  'CreatedBy',
  'Updated',
  'UpdatedBy',
];
const XML_ORDER = [...JSON_ORDER].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));

describe('/v4/dialogs', () => {
  let t: TestApp;
  let acme: TeamSite;
  let globex: TeamSite;
  let current: number;
  let past: number;
  let globexPeriod: number;
  let dept: string;
  let deletedDept: string;
  let projectId: string;
  let globexDialog: Json;
  const as = (p: { token: string }) => bearer(p.token);
  const post = (who: TestPerson, body: object) => t.http().post('/v4/dialogs').set('Authorization', as(who)).send(body);
  const put = (who: TestPerson, id: string, body: object) => t.http().put(`/v4/dialogs/${id}`).set('Authorization', as(who)).send(body);
  const body = (extra: object = {}) => ({
    Kind: 'individual',
    AncestorID: acme.worker.individualId,
    LeaderID: acme.manager.individualId,
    PeriodID: current,
    ScheduledDate: '2026-03-01T10:00:00Z',
    ...extra,
  });
  const row = (id: string) => t.ds.getRepository(DialogEntity).findOneBy({ id });

  beforeAll(async () => {
    t = await startApp();
    acme = await createTeamSite(t, { name: 'Acme' });
    globex = await createTeamSite(t, { name: 'Globex' });
    ({
      current: { id: current },
      past: { id: past },
    } = await createPeriods(t, acme.siteId));
    globexPeriod = (await createPeriods(t, globex.siteId)).current.id;
    dept = (await createUnit(t, acme.siteId, { name: 'Sales', department: true, parentId: acme.orgId, managerId: acme.manager.individualId })).id;
    deletedDept = (await createUnit(t, acme.siteId, { name: 'Gone', department: true, parentId: acme.orgId, deleted: true })).id;
    projectId = (await createProject(t, acme.worker.token, { OwnerID: acme.worker.individualId, Name: 'Apollo' })).ID;
    globexDialog = await createDialog(t, globex.admin.token, {
      AncestorID: globex.worker.individualId,
      LeaderID: globex.manager.individualId,
      PeriodID: globexPeriod,
    });
  });
  afterAll(async () => {
    await t.close();
  });

  describe('POST /v4/dialogs', () => {
    it('plans a dialog from JSON: fields in order, OccurredDate null, read-only input ignored', async () => {
      const res = await post(
        acme.manager,
        body({ Notes: 'Quarterly check-in', SiteID: globex.siteId, Deleted: true, CreatedBy: acme.peer.individualId }),
      ).expect(200);
      expect(Object.keys(res.body)).toEqual(JSON_ORDER);
      expect(res.body).toEqual({
        ID: expect.any(String),
        Kind: 'individual',
        AncestorID: acme.worker.individualId,
        LeaderID: acme.manager.individualId,
        PeriodID: current,
        ScheduledDate: '2026-03-01T10:00:00.000+00:00',
        OccurredDate: null,
        Notes: 'Quarterly check-in',
        SiteID: acme.siteId,
        Deleted: false,
        DeletedByRef: false,
        Created: expect.stringMatching(ISO),
        CreatedBy: acme.manager.individualId,
        Updated: expect.stringMatching(ISO),
        UpdatedBy: acme.manager.individualId,
      });
      expect(res.headers.etag).toMatch(/^"1-/);
    });

    it('plans a dialog from XML (any order, i:nil) and answers a Dialog root in ordinal order, dates in tz', async () => {
      const res = await t
        .http()
        .post('/v4/dialogs?tz=%2B02:00')
        .set('Authorization', as(acme.worker))
        .set('Content-Type', 'application/xml')
        .set('Accept', 'application/xml')
        .send(
          `<Dialog xmlns="urn:pms:v4" xmlns:i="http://www.w3.org/2001/XMLSchema-instance"><ScheduledDate>2026-04-01T09:00:00</ScheduledDate><PeriodID>${current}</PeriodID><Notes i:nil="true"/><OccurredDate>2026-04-01T10:30:00+02:00</OccurredDate><LeaderID>${acme.manager.individualId}</LeaderID><Kind>individual</Kind><AncestorID>${acme.worker.individualId}</AncestorID></Dialog>`,
        )
        .expect(200);
      expect(res.text).toMatch(/^<\?xml[^>]+\?><Dialog xmlns="urn:pms:v4"/);
      const order = [...res.text.matchAll(/<(\w+)(?: i:nil="true")?\/?>/g)].map((m) => m[1]).filter((n) => n !== 'Dialog');
      expect(order).toEqual(XML_ORDER);
      expect(await codec.decodeXml(res.text)).toMatchObject({
        Kind: 'individual',
        ScheduledDate: '2026-04-01T11:00:00.000+02:00',
        OccurredDate: '2026-04-01T10:30:00.000+02:00',
        Notes: null,
        PeriodID: String(current),
      });
    });

    it.each(['Kind', 'AncestorID', 'LeaderID', 'PeriodID', 'ScheduledDate'])('answers 400 naming %s when it is missing', async (field) => {
      const b: Record<string, unknown> = body();
      delete b[field];
      const res = await post(acme.admin, b).expect(400);
      expect(res.body.errors).toEqual([{ field, message: `${field} is required` }]);
    });

    it('answers 400 for wrong types and limits exceeded by one, naming every field, and accepts the limit', async () => {
      const res = await post(acme.admin, {
        Kind: 'team',
        AncestorID: 'x',
        LeaderID: 42,
        PeriodID: 'one',
        ScheduledDate: 'soon',
        OccurredDate: '2026-13-45',
        Notes: 'n'.repeat(10001),
      }).expect(400);
      expect(res.body.errors.map((e: { field: string }) => e.field).sort()).toEqual([
        'AncestorID',
        'Kind',
        'LeaderID',
        'Notes',
        'OccurredDate',
        'PeriodID',
        'ScheduledDate',
      ]);
      expect(res.body.errors).toContainEqual({ field: 'Kind', message: 'Kind must be one of organization, department, project, individual' });
      await post(acme.admin, body({ Notes: 'n'.repeat(10000) })).expect(200);
      // An unset .NET DateTime counts as missing.
      const unset = await post(acme.admin, body({ ScheduledDate: '0001-01-01T00:00:00' })).expect(400);
      expect(unset.body.errors).toEqual([{ field: 'ScheduledDate', message: 'ScheduledDate is required' }]);
    });

    it('answers 400 naming AncestorID when it does not match Kind, is deleted, unknown or of another site', async () => {
      for (const [kind, ancestor] of [
        ['organization', dept],
        ['department', acme.orgId],
        ['department', deletedDept],
        ['project', acme.worker.individualId],
        ['individual', projectId],
        ['individual', randomUUID()],
        ['individual', globex.worker.individualId],
      ]) {
        const res = await post(acme.admin, body({ Kind: kind, AncestorID: ancestor })).expect(400);
        expect(res.body.errors).toEqual([{ field: 'AncestorID', message: expect.stringContaining(`not a live ${kind}`) }]);
      }
    });

    it('answers 400 naming LeaderID and PeriodID for records not of the site, all in one answer', async () => {
      const gone = await createPerson(t, acme);
      await t.http().delete(`/v4/individuals/${gone.individualId}`).set('Authorization', as(acme.admin)).expect(200);
      for (const leader of [randomUUID(), gone.individualId, globex.manager.individualId]) {
        const res = await post(acme.admin, body({ LeaderID: leader, PeriodID: globexPeriod })).expect(400);
        expect(res.body.errors.map((e: { field: string }) => e.field)).toEqual(['LeaderID', 'PeriodID']);
      }
      expect(await t.ds.getRepository(DialogEntity).countBy({ leaderId: gone.individualId })).toBe(0);
    });

    it('lets whoever manages what the dialog is about plan it; others 403', async () => {
      await post(acme.worker, body()).expect(200); // the individual asks for their own dialog
      await post(acme.boss, body()).expect(200); // above the individual
      await post(acme.manager, body({ Kind: 'department', AncestorID: dept })).expect(200); // the unit's manager
      await post(acme.boss, body({ Kind: 'department', AncestorID: dept })).expect(200); // above the manager
      await post(acme.worker, body({ Kind: 'project', AncestorID: projectId, LeaderID: acme.worker.individualId })).expect(200); // the owner
      await post(acme.admin, body({ Kind: 'organization', AncestorID: acme.orgId })).expect(200);
      for (const [who, b] of [
        [acme.peer, body()],
        [acme.peer, body({ LeaderID: acme.peer.individualId })],
        [acme.worker, body({ Kind: 'department', AncestorID: dept })],
        [acme.manager, body({ Kind: 'organization', AncestorID: acme.orgId })],
      ] as const) {
        const res = await post(who, b).expect(403);
        expect(res.body.type).toBe('urn:pms:problem:forbidden');
      }
    });

    it('answers 403 pm-disabled on a site with performance management off', async () => {
      const off = await createSite(t, { pm: false });
      const res = await t.http().post('/v4/dialogs').set('Authorization', as(off.admin)).send({}).expect(403);
      expect(res.body.type).toBe('urn:pms:problem:pm-disabled');
      await t.http().get(`/v4/individuals/${off.admin.individualId}/dialogs`).set('Authorization', as(off.admin)).expect(403);
    });
  });

  describe('reading', () => {
    let mine: TestPerson;
    let led: Json;
    let about: Json;
    let old: Json;
    let removed: Json;
    let unrelated: Json;
    beforeAll(async () => {
      mine = await createPerson(t, acme, { firstName: 'Lea', lastName: 'Lead', reportsTo: acme.manager.individualId });
      led = await createDialog(t, acme.admin.token, {
        Kind: 'department',
        AncestorID: dept,
        LeaderID: mine.individualId,
        PeriodID: current,
        ScheduledDate: '2026-05-01T00:00:00Z',
      });
      about = await createDialog(t, acme.admin.token, {
        AncestorID: mine.individualId,
        LeaderID: acme.manager.individualId,
        PeriodID: current,
        ScheduledDate: '2026-02-01T00:00:00Z',
      });
      old = await createDialog(t, acme.admin.token, { AncestorID: mine.individualId, LeaderID: acme.manager.individualId, PeriodID: past });
      removed = await createDialog(t, acme.admin.token, { AncestorID: mine.individualId, LeaderID: acme.manager.individualId, PeriodID: current });
      await t.http().delete(`/v4/dialogs/${removed.ID}`).set('Authorization', as(acme.admin)).expect(200);
      unrelated = await createDialog(t, acme.admin.token, { AncestorID: acme.peer.individualId, LeaderID: acme.peer.individualId, PeriodID: current });
    });

    it('lists the dialogs an individual leads or is the subject of, of the current period by default, in schedule order', async () => {
      const res = await t.http().get(`/v4/individuals/${mine.individualId}/dialogs`).set('Authorization', as(mine)).expect(200);
      expect(res.body.map((d: Json) => d.ID)).toEqual([about.ID, led.ID]);
      expect(res.headers['x-total-count']).toBe('2');
      const older = await t.http().get(`/v4/individuals/${mine.individualId}/dialogs?period=${past}`).set('Authorization', as(acme.manager)).expect(200);
      expect(older.body.map((d: Json) => d.ID)).toEqual([old.ID]);
      const gone = await t.http().get(`/v4/individuals/${mine.individualId}/dialogs?deleted=1`).set('Authorization', as(acme.boss)).expect(200);
      expect(gone.body.map((d: Json) => d.ID)).toEqual([removed.ID]);
      const xml = await t
        .http()
        .get(`/v4/individuals/${mine.individualId}/dialogs?limit=1`)
        .set('Authorization', as(acme.admin))
        .set('Accept', 'application/xml')
        .expect(200);
      expect(xml.text).toMatch(/<ArrayOfDialog xmlns="urn:pms:v4"[^>]*><Dialog><AncestorID>/);
      expect(xml.headers.link).toContain('offset=1');
    });

    it('answers 404 for an unknown period or individual, 403 for someone who may not manage the individual', async () => {
      await t.http().get(`/v4/individuals/${mine.individualId}/dialogs?period=999999`).set('Authorization', as(mine)).expect(404);
      await t.http().get(`/v4/individuals/${globex.worker.individualId}/dialogs`).set('Authorization', as(acme.admin)).expect(404);
      const res = await t.http().get(`/v4/individuals/${mine.individualId}/dialogs`).set('Authorization', as(acme.peer)).expect(403);
      expect(res.body.type).toBe('urn:pms:problem:forbidden');
    });

    it('reads one dialog (deleted ones too) for its leader, its subject and their managers; 403 for others; 404 across sites', async () => {
      for (const who of [mine, acme.manager, acme.boss, acme.admin]) {
        expect((await t.http().get(`/v4/dialogs/${led.ID}`).set('Authorization', as(who)).expect(200)).body.ID).toBe(led.ID);
      }
      expect((await t.http().get(`/v4/dialogs/${removed.ID}`).set('Authorization', as(mine)).expect(200)).body.Deleted).toBe(true);
      await t.http().get(`/v4/dialogs/${led.ID}`).set('Authorization', as(acme.peer)).expect(403);
      await t.http().get(`/v4/dialogs/${unrelated.ID}`).set('Authorization', as(mine)).expect(403);
      await t.http().get(`/v4/dialogs/${globexDialog.ID}`).set('Authorization', as(acme.admin)).expect(404);
      await t.http().get(`/v4/dialogs/${randomUUID()}`).set('Authorization', as(acme.admin)).expect(404);
      await t.http().get('/v4/dialogs/x').set('Authorization', as(acme.admin)).expect(400);
      const xml = await t.http().get(`/v4/dialogs/${led.ID}`).set('Authorization', as(mine)).set('Accept', 'application/xml').expect(200);
      expect(xml.text).toMatch(/<Dialog xmlns="urn:pms:v4"/);
    });

    it('lists every dialog of the site for administrators only', async () => {
      const res = await t.http().get('/v4/dialogs?deleted=2').set('Authorization', as(acme.admin)).expect(200);
      const ids = res.body.map((d: Json) => d.ID);
      expect(ids).toEqual(expect.arrayContaining([led.ID, about.ID, removed.ID, unrelated.ID]));
      expect(ids).not.toContain(old.ID);
      expect(ids).not.toContain(globexDialog.ID);
      const denied = await t.http().get('/v4/dialogs').set('Authorization', as(acme.manager)).expect(403);
      expect(denied.body.type).toBe('urn:pms:problem:admin-required');
    });
  });

  describe('PUT /v4/dialogs/{id}', () => {
    it('marks a dialog held, keeps absent fields, ignores Kind and AncestorID, honours If-Match', async () => {
      const d = await createDialog(t, acme.manager.token, {
        AncestorID: acme.worker.individualId,
        LeaderID: acme.manager.individualId,
        PeriodID: current,
        Notes: 'agenda',
      });
      const etag = (await t.http().get(`/v4/dialogs/${d.ID}`).set('Authorization', as(acme.manager))).headers.etag;
      const res = await put(acme.manager, d.ID, {
        ID: d.ID,
        OccurredDate: '2026-03-01T11:00:00Z',
        Kind: 'project',
        AncestorID: projectId,
        SiteID: globex.siteId,
      })
        .set('If-Match', etag)
        .expect(200);
      expect(res.body).toMatchObject({
        Kind: 'individual',
        AncestorID: acme.worker.individualId,
        OccurredDate: '2026-03-01T11:00:00.000+00:00',
        Notes: 'agenda',
        ScheduledDate: '2026-03-01T10:00:00.000+00:00',
        SiteID: acme.siteId,
      });
      await put(acme.manager, d.ID, { ID: d.ID, Notes: 'stale' }).set('If-Match', etag).expect(412);
      const moved = await put(acme.worker, d.ID, { ID: d.ID, OccurredDate: null, Notes: null, PeriodID: past, LeaderID: acme.boss.individualId }).expect(200);
      expect(moved.body).toMatchObject({ OccurredDate: null, Notes: null, PeriodID: past, LeaderID: acme.boss.individualId });
    });

    it('answers 400 for cleared required references, references not of the site and a wrong ID; 404 across sites; 403 for others', async () => {
      const d = await createDialog(t, acme.admin.token, { AncestorID: acme.worker.individualId, LeaderID: acme.manager.individualId, PeriodID: current });
      const cleared = await put(acme.admin, d.ID, { ID: d.ID, LeaderID: null, PeriodID: null, ScheduledDate: null }).expect(400);
      expect(cleared.body.errors.map((e: { field: string }) => e.field)).toEqual(['LeaderID', 'PeriodID', 'ScheduledDate']);
      const foreign = await put(acme.admin, d.ID, { ID: d.ID, LeaderID: globex.manager.individualId, PeriodID: globexPeriod }).expect(400);
      expect(foreign.body.errors.map((e: { field: string }) => e.field)).toEqual(['LeaderID', 'PeriodID']);
      await put(acme.admin, d.ID, { ID: randomUUID() }).expect(400);
      expect((await put(acme.admin, d.ID, {}).expect(400)).body.errors).toEqual([{ field: 'ID', message: 'ID is required' }]);
      await put(acme.admin, globexDialog.ID, { ID: globexDialog.ID, Notes: 'hijack' }).expect(404);
      expect((await row(globexDialog.ID))!.notes).toBeNull();
      await put(acme.peer, d.ID, { ID: d.ID, Notes: 'x' }).expect(403);
      expect((await row(d.ID))!.leaderId).toBe(acme.manager.individualId);
    });

    it('takes back the XML it wrote, read-only members included', async () => {
      const d = await createDialog(t, acme.admin.token, {
        AncestorID: acme.worker.individualId,
        LeaderID: acme.manager.individualId,
        PeriodID: current,
        Notes: 'x',
      });
      const xml = (await t.http().get(`/v4/dialogs/${d.ID}`).set('Authorization', as(acme.manager)).set('Accept', 'application/xml')).text;
      const res = await t
        .http()
        .put(`/v4/dialogs/${d.ID}`)
        .set('Authorization', as(acme.manager))
        .set('Content-Type', 'application/xml')
        .send(
          xml
            .replace('<Notes>x</Notes>', '<Notes>held well</Notes>')
            .replace('<OccurredDate i:nil="true"/>', '<OccurredDate>2026-03-02T08:00:00Z</OccurredDate>'),
        )
        .expect(200);
      expect(res.body).toMatchObject({ Notes: 'held well', OccurredDate: '2026-03-02T08:00:00.000+00:00', LeaderID: acme.manager.individualId });
    });
  });

  describe('DELETE, undelete and comments', () => {
    it('soft-deletes taking the dialog’s comments down by reference; undelete restores exactly those', async () => {
      const d = await createDialog(t, acme.admin.token, { AncestorID: acme.worker.individualId, LeaderID: acme.manager.individualId, PeriodID: current });
      const kept = await createComment(t, acme.worker.token, 'dialogs', d.ID, 'see you there');
      const own = await createComment(t, acme.worker.token, 'dialogs', d.ID, 'withdrawn');
      await t.http().delete(`/v4/comments/${own.ID}`).set('Authorization', as(acme.worker)).expect(200);

      const del = await t.http().delete(`/v4/dialogs/${d.ID}`).set('Authorization', as(acme.manager)).expect(200);
      expect(del.body).toEqual({});
      await t.http().delete(`/v4/dialogs/${d.ID}`).set('Authorization', as(acme.manager)).expect(200);
      const comments = t.ds.getRepository(CommentEntity);
      expect(await comments.findOneBy({ id: kept.ID })).toMatchObject({ deleted: true, deletedByRef: true });
      expect(await comments.findOneBy({ id: own.ID })).toMatchObject({ deleted: true, deletedByRef: false });
      expect((await put(acme.manager, d.ID, { ID: d.ID, Notes: 'x' }).expect(409)).body.type).toBe('urn:pms:problem:deleted');
      const onDeleted = await t
        .http()
        .post('/v4/comments')
        .set('Authorization', as(acme.worker))
        .send({ AncestorType: 'dialogs', AncestorID: d.ID, Body: 'late' })
        .expect(409);
      expect(onDeleted.body.type).toBe('urn:pms:problem:deleted');
      const listed = await t.http().get(`/v4/dialogs/${d.ID}/comments?deleted=1`).set('Authorization', as(acme.worker)).expect(200);
      expect(listed.body.map((c: Json) => c.ID).sort()).toEqual([kept.ID, own.ID].sort());
      await t.http().put(`/v4/dialogs/${d.ID}/undelete`).set('Authorization', as(acme.peer)).expect(403);

      const back = await t.http().put(`/v4/dialogs/${d.ID}/undelete`).set('Authorization', as(acme.manager)).expect(200);
      expect(back.body).toMatchObject({ ID: d.ID, Deleted: false, DeletedByRef: false });
      expect(await comments.findOneBy({ id: kept.ID })).toMatchObject({ deleted: false, deletedByRef: false });
      expect(await comments.findOneBy({ id: own.ID })).toMatchObject({ deleted: true });
      await t.http().put(`/v4/dialogs/${d.ID}/undelete`).set('Authorization', as(acme.manager)).expect(200);
    });

    it('checks comment ancestors of kind dialogs: unknown and other sites’ dialogs are 400 in a body and 404 in a path', async () => {
      for (const id of [randomUUID(), globexDialog.ID]) {
        const res = await t
          .http()
          .post('/v4/comments')
          .set('Authorization', as(acme.worker))
          .send({ AncestorType: 'dialogs', AncestorID: id, Body: 'x' })
          .expect(400);
        expect(res.body.errors).toEqual([{ field: 'AncestorID', message: expect.stringContaining('is not a dialog of this site') }]);
        await t.http().get(`/v4/dialogs/${id}/comments`).set('Authorization', as(acme.worker)).expect(404);
      }
    });

    it('answers 404 for deleting or undeleting another site’s dialog and leaves it alone; 403 for others', async () => {
      await t.http().delete(`/v4/dialogs/${globexDialog.ID}`).set('Authorization', as(acme.admin)).expect(404);
      await t.http().put(`/v4/dialogs/${globexDialog.ID}/undelete`).set('Authorization', as(acme.admin)).expect(404);
      expect((await row(globexDialog.ID))!.deleted).toBe(false);
      const d = await createDialog(t, acme.admin.token, { AncestorID: acme.worker.individualId, LeaderID: acme.manager.individualId, PeriodID: current });
      await t.http().delete(`/v4/dialogs/${d.ID}`).set('Authorization', as(acme.peer)).expect(403);
      expect((await row(d.ID))!.deleted).toBe(false);
    });

    it('keeps a period with dialogs from being deleted (409 in-use)', async () => {
      const res = await t.http().delete(`/v4/periods/${past}`).set('Authorization', as(acme.admin)).expect(409);
      expect(res.body.type).toBe('urn:pms:problem:in-use');
      expect(res.body.detail).toContain('dialogs');
    });
  });
});
