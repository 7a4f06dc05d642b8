import { randomUUID } from 'node:crypto';
import { CommentEntity } from '../../src/database/entities/comment.entity.js';
import { TaskEntity } from '../../src/database/entities/task.entity.js';
import { bearer, startApp, TestApp, WireCodec } from './harness.js';
import { createComment } from '../factories/comments.js';
import { createDialog, createTask, Json } from '../factories/dialogs.js';
import { createPeriods, createUnit } from '../factories/goals.js';
import { createPerson, createSite, TestPerson } from '../factories/index.js';
import { createProject, createTeamSite, TeamSite } from '../factories/performance.js';
import { setTimeout as sleep } from 'node:timers/promises';

const codec = new WireCodec('urn:pms:v4');
const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}\+00:00$/;
const JSON_ORDER = [
  'ID',
  'DialogID',
  'Kind',
  'AncestorID',
  'AssignedToID',
  'Name',
  'DueDate',
  'Completed',
  'CompletedDate',
  'SiteID',
  'Deleted',
  'DeletedByRef',
  'Created',
  'CreatedBy',
  'Updated',
  'UpdatedBy',
];
const XML_ORDER = [...JSON_ORDER].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
const recent = (iso: unknown) => typeof iso === 'string' && Math.abs(Date.now() - Date.parse(iso)) < 60_000;

describe('/v4/tasks', () => {
  let t: TestApp;
  let acme: TeamSite;
  let globex: TeamSite;
  let current: number;
  let dept: string;
  let projectId: string;
  let dialog: Json;
  let deletedDialog: Json;
  let globexDialog: Json;
  let globexTask: Json;
  const as = (p: { token: string }) => bearer(p.token);
  const post = (who: TestPerson, body: object) => t.http().post('/v4/tasks').set('Authorization', as(who)).send(body);
  const put = (who: TestPerson, id: string, body: object) => t.http().put(`/v4/tasks/${id}`).set('Authorization', as(who)).send(body);
  const body = (extra: object = {}) => ({
    Kind: 'individual',
    AncestorID: acme.worker.individualId,
    AssignedToID: acme.worker.individualId,
    Name: 'Write the plan',
    ...extra,
  });
  const row = (id: string) => t.ds.getRepository(TaskEntity).findOneBy({ id });

  beforeAll(async () => {
    t = await startApp();
    acme = await createTeamSite(t, { name: 'Acme' });
    globex = await createTeamSite(t, { name: 'Globex' });
    current = (await createPeriods(t, acme.siteId)).current.id;
    const globexPeriod = (await createPeriods(t, globex.siteId)).current.id;
    dept = (await createUnit(t, acme.siteId, { name: 'Sales', department: true, parentId: acme.orgId, managerId: acme.manager.individualId })).id;
    projectId = (await createProject(t, acme.worker.token, { OwnerID: acme.worker.individualId })).ID;
    // The worker's one-on-one, led by the manager.
    dialog = await createDialog(t, acme.admin.token, { AncestorID: acme.worker.individualId, LeaderID: acme.manager.individualId, PeriodID: current });
    deletedDialog = await createDialog(t, acme.admin.token, { AncestorID: acme.worker.individualId, LeaderID: acme.manager.individualId, PeriodID: current });
    await t.http().delete(`/v4/dialogs/${deletedDialog.ID}`).set('Authorization', as(acme.admin)).expect(200);
    globexDialog = await createDialog(t, globex.admin.token, {
      AncestorID: globex.worker.individualId,
      LeaderID: globex.manager.individualId,
      PeriodID: globexPeriod,
    });
    globexTask = await createTask(t, globex.admin.token, { AssignedToID: globex.worker.individualId, Name: 'Globex task' });
  });
  afterAll(async () => {
    await t.close();
  });

  describe('POST /v4/tasks', () => {
    it('creates a task from JSON: fields in order, not completed, read-only input (CompletedDate too) ignored', async () => {
      const res = await post(
        acme.manager,
        body({ DialogID: dialog.ID, DueDate: '2026-06-30T00:00:00Z', CompletedDate: '2020-01-01T00:00:00Z', SiteID: globex.siteId, Deleted: true }),
      ).expect(200);
      expect(Object.keys(res.body)).toEqual(JSON_ORDER);
      expect(res.body).toEqual({
        ID: expect.any(String),
        DialogID: dialog.ID,
        Kind: 'individual',
        AncestorID: acme.worker.individualId,
        AssignedToID: acme.worker.individualId,
        Name: 'Write the plan',
        DueDate: '2026-06-30T00:00:00.000+00:00',
        Completed: false,
        CompletedDate: null,
        SiteID: acme.siteId,
        Deleted: false,
        DeletedByRef: false,
        Created: expect.stringMatching(ISO),
        CreatedBy: acme.manager.individualId,
        Updated: expect.stringMatching(ISO),
        UpdatedBy: acme.manager.individualId,
      });
    });

    it('creates a completed task from XML with CompletedDate set by the service, answered in ordinal order', async () => {
      const res = await t
        .http()
        .post('/v4/tasks')
        .set('Authorization', as(acme.worker))
        .set('Content-Type', 'application/xml')
        .set('Accept', 'application/xml')
        .send(
          `<Task xmlns="urn:pms:v4" xmlns:i="http://www.w3.org/2001/XMLSchema-instance"><Name>Done already</Name><Completed>true</Completed><DialogID i:nil="true"/><Kind>project</Kind><AssignedToID>${acme.worker.individualId}</AssignedToID><AncestorID>${projectId}</AncestorID><CompletedDate>2001-01-01T00:00:00Z</CompletedDate></Task>`,
        )
        .expect(200);
      const order = [...res.text.matchAll(/<(\w+)(?: i:nil="true")?\/?>/g)].map((m) => m[1]).filter((n) => n !== 'Task');
      expect(order).toEqual(XML_ORDER);
      const task = (await codec.decodeXml(res.text)) as Record<string, string | null>;
      expect(task).toMatchObject({ Kind: 'project', AncestorID: projectId, Completed: 'true', DialogID: null });
      expect(recent(task.CompletedDate)).toBe(true);
    });

    it.each(['Kind', 'AncestorID', 'AssignedToID', 'Name'])('answers 400 naming %s when it is missing', async (field) => {
      const b: Record<string, unknown> = body();
      delete b[field];
      const res = await post(acme.admin, b).expect(400);
      expect(res.body.errors).toEqual([{ field, message: `${field} is required` }]);
    });

    it('answers 400 for wrong types and limits exceeded by one, and accepts the limit', async () => {
      const res = await post(acme.admin, {
        Kind: 'Individual',
        AncestorID: 1,
        AssignedToID: 'x',
        Name: 'n'.repeat(256),
        DueDate: 'soon',
        Completed: 'maybe',
        DialogID: 'd',
      }).expect(400);
      expect(res.body.errors.map((e: { field: string }) => e.field).sort()).toEqual([
        'AncestorID',
        'AssignedToID',
        'Completed',
        'DialogID',
        'DueDate',
        'Kind',
        'Name',
      ]);
      await post(acme.admin, body({ Name: 'n'.repeat(255) })).expect(200);
      await post(acme.admin, body({ Name: '  ' })).expect(400);
    });

    it('answers 400 naming each reference that is not a live record of the site', async () => {
      const gone = await createPerson(t, acme);
      await t.http().delete(`/v4/individuals/${gone.individualId}`).set('Authorization', as(acme.admin)).expect(200);
      const res = await post(
        acme.admin,
        body({ Kind: 'department', AncestorID: acme.orgId, AssignedToID: gone.individualId, DialogID: deletedDialog.ID }),
      ).expect(400);
      expect(res.body.errors.map((e: { field: string }) => e.field)).toEqual(['AncestorID', 'AssignedToID', 'DialogID']);
      const foreign = await post(
        acme.admin,
        body({ AncestorID: globex.worker.individualId, AssignedToID: globex.worker.individualId, DialogID: globexDialog.ID }),
      ).expect(400);
      expect(foreign.body.errors.map((e: { field: string }) => e.field)).toEqual(['AncestorID', 'AssignedToID', 'DialogID']);
      const unknown = await post(acme.admin, body({ DialogID: randomUUID() })).expect(400);
      expect(unknown.body.errors).toEqual([{ field: 'DialogID', message: expect.stringContaining('is not a dialog of this site') }]);
    });

    it('lets whoever manages the assignee, or the dialog followed up, create a task; others 403', async () => {
      await post(acme.worker, body()).expect(200);
      await post(acme.boss, body()).expect(200);
      await post(acme.manager, body({ Kind: 'department', AncestorID: dept })).expect(200);
      // The worker may not hand work to their manager, except as a follow-up of a dialog they may manage.
      await post(acme.worker, body({ AssignedToID: acme.manager.individualId })).expect(403);
      await post(acme.worker, body({ AssignedToID: acme.manager.individualId, DialogID: dialog.ID })).expect(200);
      const res = await post(acme.peer, body()).expect(403);
      expect(res.body.type).toBe('urn:pms:problem:forbidden');
      await post(acme.peer, body({ DialogID: dialog.ID })).expect(403);
    });

    it('answers 403 pm-disabled on a site with performance management off', async () => {
      const off = await createSite(t, { pm: false });
      expect((await t.http().get('/v4/me/tasks').set('Authorization', as(off.admin)).expect(403)).body.type).toBe('urn:pms:problem:pm-disabled');
    });
  });

  describe('reading', () => {
    let doer: TestPerson;
    let late: Json;
    let soon: Json;
    let undated: Json;
    let removed: Json;
    beforeAll(async () => {
      doer = await createPerson(t, acme, { firstName: 'Dora', lastName: 'Doer', reportsTo: acme.manager.individualId });
      late = await createTask(t, acme.admin.token, { AssignedToID: doer.individualId, Name: 'late', DueDate: '2026-09-01T00:00:00Z' });
      soon = await createTask(t, acme.admin.token, { AssignedToID: doer.individualId, Name: 'soon', DueDate: '2026-02-01T00:00:00Z' });
      undated = await createTask(t, acme.admin.token, { AssignedToID: doer.individualId, Name: 'whenever' });
      removed = await createTask(t, acme.admin.token, { AssignedToID: doer.individualId, Name: 'removed' });
      await t.http().delete(`/v4/tasks/${removed.ID}`).set('Authorization', as(acme.admin)).expect(200);
      await createTask(t, acme.admin.token, { AssignedToID: acme.peer.individualId, AncestorID: doer.individualId, Name: 'about Dora, for Pia' });
    });

    it('lists the tasks assigned to an individual by due date (undated first), filtered by deleted, JSON and XML', async () => {
      const res = await t.http().get(`/v4/individuals/${doer.individualId}/tasks`).set('Authorization', as(acme.manager)).expect(200);
      expect(res.body.map((x: Json) => x.ID)).toEqual([undated.ID, soon.ID, late.ID]);
      expect(res.headers['x-total-count']).toBe('3');
      const gone = await t.http().get(`/v4/individuals/${doer.individualId}/tasks?deleted=1`).set('Authorization', as(doer)).expect(200);
      expect(gone.body.map((x: Json) => x.ID)).toEqual([removed.ID]);
      const xml = await t.http().get(`/v4/individuals/${doer.individualId}/tasks`).set('Authorization', as(doer)).set('Accept', 'application/xml').expect(200);
      expect(xml.text).toMatch(/<ArrayOfTask xmlns="urn:pms:v4"[^>]*><Task><AncestorID>/);
      await t.http().get(`/v4/individuals/${doer.individualId}/tasks`).set('Authorization', as(acme.peer)).expect(403);
      await t.http().get(`/v4/individuals/${globex.worker.individualId}/tasks`).set('Authorization', as(acme.admin)).expect(404);
    });

    it('lists the caller’s tasks at /me/tasks', async () => {
      const res = await t.http().get('/v4/me/tasks?deleted=2').set('Authorization', as(doer)).expect(200);
      expect(res.body.map((x: Json) => x.ID)).toEqual([undated.ID, removed.ID, soon.ID, late.ID]);
    });

    it('reads one task (deleted ones too) for the assignee and their managers; 403 for others; 404 across sites', async () => {
      for (const who of [doer, acme.manager, acme.boss, acme.admin]) await t.http().get(`/v4/tasks/${soon.ID}`).set('Authorization', as(who)).expect(200);
      expect((await t.http().get(`/v4/tasks/${removed.ID}`).set('Authorization', as(doer)).expect(200)).body.Deleted).toBe(true);
      await t.http().get(`/v4/tasks/${soon.ID}`).set('Authorization', as(acme.peer)).expect(403);
      await t.http().get(`/v4/tasks/${globexTask.ID}`).set('Authorization', as(acme.admin)).expect(404);
      await t.http().get(`/v4/tasks/${randomUUID()}`).set('Authorization', as(acme.admin)).expect(404);
      const xml = await t.http().get(`/v4/tasks/${soon.ID}`).set('Authorization', as(doer)).set('Accept', 'application/xml').expect(200);
      expect(xml.text).toMatch(/<Task xmlns="urn:pms:v4"/);
    });

    it('lists every task of the site for administrators only', async () => {
      const res = await t.http().get('/v4/tasks?limit=5000').set('Authorization', as(acme.admin)).expect(200);
      const ids = res.body.map((x: Json) => x.ID);
      expect(ids).toEqual(expect.arrayContaining([late.ID, soon.ID, undated.ID]));
      expect(ids).not.toContain(removed.ID);
      expect(ids).not.toContain(globexTask.ID);
      expect((await t.http().get('/v4/tasks').set('Authorization', as(acme.boss)).expect(403)).body.type).toBe('urn:pms:problem:admin-required');
    });
  });

  describe('PUT /v4/tasks/{id}', () => {
    it('sets CompletedDate when Completed turns true, keeps it while true, clears it when false', async () => {
      const task = await createTask(t, acme.worker.token, { AssignedToID: acme.worker.individualId, DueDate: '2026-05-01T00:00:00Z' });
      const done = await put(acme.worker, task.ID, { ID: task.ID, Name: 'Write the plan', Completed: true, CompletedDate: '2001-01-01T00:00:00Z' }).expect(200);
      expect(done.body.Completed).toBe(true);
      expect(recent(done.body.CompletedDate)).toBe(true);
      const stamped = (await row(task.ID))!.completedDate!.getTime();
      await sleep(5);
      const still = await put(acme.worker, task.ID, { ID: task.ID, Name: 'Renamed' }).expect(200);
      expect(Date.parse(still.body.CompletedDate)).toBe(stamped);
      const again = await put(acme.worker, task.ID, { ID: task.ID, Name: 'Renamed', Completed: true }).expect(200);
      expect(Date.parse(again.body.CompletedDate)).toBe(stamped);
      const open = await put(acme.worker, task.ID, { ID: task.ID, Name: 'Renamed', Completed: false }).expect(200);
      expect(open.body).toMatchObject({ Completed: false, CompletedDate: null, DueDate: '2026-05-01T00:00:00.000+00:00' });
      const nulls = await put(acme.worker, task.ID, { ID: task.ID, Name: 'Renamed', Completed: null, DueDate: null }).expect(200);
      expect(nulls.body).toMatchObject({ Completed: false, DueDate: null });
    });

    it('reassigns and re-links with the same checks as a create; Kind and AncestorID are ignored; If-Match honoured', async () => {
      const task = await createTask(t, acme.manager.token, { AssignedToID: acme.worker.individualId, DialogID: dialog.ID });
      const etag = (await t.http().get(`/v4/tasks/${task.ID}`).set('Authorization', as(acme.manager))).headers.etag;
      const moved = await put(acme.manager, task.ID, {
        ID: task.ID,
        Name: 'x',
        AssignedToID: acme.manager.individualId,
        DialogID: null,
        Kind: 'project',
        AncestorID: projectId,
      })
        .set('If-Match', etag)
        .expect(200);
      expect(moved.body).toMatchObject({ AssignedToID: acme.manager.individualId, DialogID: null, Kind: 'individual', AncestorID: acme.worker.individualId });
      await put(acme.manager, task.ID, { ID: task.ID, Name: 'stale' }).set('If-Match', etag).expect(412);
      // The worker may not take over the manager's task.
      await put(acme.worker, task.ID, { ID: task.ID, Name: 'x', AssignedToID: acme.worker.individualId }).expect(403);
      const bad = await put(acme.manager, task.ID, { ID: task.ID, Name: 'x', AssignedToID: null, DialogID: globexDialog.ID }).expect(400);
      expect(bad.body.errors.map((e: { field: string }) => e.field)).toEqual(['AssignedToID', 'DialogID']);
      await put(acme.manager, task.ID, { ID: task.ID, Name: 'x', AssignedToID: globex.worker.individualId }).expect(400);
      expect((await row(task.ID))!.assignedToId).toBe(acme.manager.individualId);
    });

    it('answers 400 for a missing ID or Name, 404 across sites, 403 for others, 409 when deleted', async () => {
      const task = await createTask(t, acme.admin.token, { AssignedToID: acme.worker.individualId });
      expect((await put(acme.worker, task.ID, { Name: 'x' }).expect(400)).body.errors).toEqual([{ field: 'ID', message: 'ID is required' }]);
      expect((await put(acme.worker, task.ID, { ID: task.ID }).expect(400)).body.errors).toEqual([{ field: 'Name', message: 'Name is required' }]);
      await put(acme.admin, globexTask.ID, { ID: globexTask.ID, Name: 'hijack' }).expect(404);
      expect((await row(globexTask.ID))!.name).toBe('Globex task');
      await put(acme.peer, task.ID, { ID: task.ID, Name: 'x' }).expect(403);
      await t.http().delete(`/v4/tasks/${task.ID}`).set('Authorization', as(acme.worker)).expect(200);
      expect((await put(acme.worker, task.ID, { ID: task.ID, Name: 'x' }).expect(409)).body.type).toBe('urn:pms:problem:deleted');
    });
  });

  describe('DELETE, undelete and comments', () => {
    it('soft-deletes taking the task’s comments down by reference; undelete restores exactly those', async () => {
      const task = await createTask(t, acme.admin.token, { AssignedToID: acme.worker.individualId });
      const kept = await createComment(t, acme.manager.token, 'tasks', task.ID, 'how is it going?');
      const own = await createComment(t, acme.manager.token, 'tasks', task.ID, 'never mind');
      await t.http().delete(`/v4/comments/${own.ID}`).set('Authorization', as(acme.manager)).expect(200);
      await t.http().delete(`/v4/tasks/${task.ID}`).set('Authorization', as(acme.peer)).expect(403);
      expect((await t.http().delete(`/v4/tasks/${task.ID}`).set('Authorization', as(acme.worker)).expect(200)).body).toEqual({});
      await t.http().delete(`/v4/tasks/${task.ID}`).set('Authorization', as(acme.worker)).expect(200);
      const comments = t.ds.getRepository(CommentEntity);
      expect(await comments.findOneBy({ id: kept.ID })).toMatchObject({ deleted: true, deletedByRef: true });
      const back = await t.http().put(`/v4/tasks/${task.ID}/undelete`).set('Authorization', as(acme.worker)).set('Accept', 'application/xml').expect(200);
      expect(back.text).toMatch(/<Task xmlns="urn:pms:v4"/);
      expect(await comments.findOneBy({ id: kept.ID })).toMatchObject({ deleted: false, deletedByRef: false });
      expect(await comments.findOneBy({ id: own.ID })).toMatchObject({ deleted: true });
    });

    it('checks comment ancestors of kind tasks and never shows another site’s comments', async () => {
      for (const id of [randomUUID(), globexTask.ID]) {
        await t.http().post('/v4/comments').set('Authorization', as(acme.worker)).send({ AncestorType: 'tasks', AncestorID: id, Body: 'x' }).expect(400);
        await t.http().get(`/v4/tasks/${id}/comments`).set('Authorization', as(acme.worker)).expect(404);
      }
      const globexNote = await createComment(t, globex.worker.token, 'tasks', globexTask.ID, 'globex only');
      const seen = await t.http().get(`/v4/tasks/${globexTask.ID}/comments`).set('Authorization', as(globex.worker)).expect(200);
      expect(seen.body.map((c: Json) => c.ID)).toEqual([globexNote.ID]);
    });

    it('answers 404 for another site’s task and leaves it alone', async () => {
      await t.http().delete(`/v4/tasks/${globexTask.ID}`).set('Authorization', as(acme.admin)).expect(404);
      await t.http().put(`/v4/tasks/${globexTask.ID}/undelete`).set('Authorization', as(acme.admin)).expect(404);
      expect((await row(globexTask.ID))!.deleted).toBe(false);
    });
  });
});
