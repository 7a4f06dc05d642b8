import { randomUUID } from 'node:crypto';
import type { FindOptionsWhere } from 'typeorm';
import { BasicRoleDialogEntity } from '../../src/database/entities/basic-role-dialog.entity.js';
import { bearer, DB_KIND, startApp, TestApp, WireCodec } from './harness.js';
import { createBasicRole, createDialog, Json } from '../factories/dialogs.js';
import { createPeriods } from '../factories/goals.js';
import { createPerson, createSite, TestPerson } from '../factories/index.js';
import { createTeamSite, TeamSite } from '../factories/performance.js';

const codec = new WireCodec('urn:pms:v4');
const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}\+00:00$/;
const JSON_ORDER = ['ID', 'BasicRoleID', 'DialogID', 'Rating', 'Comment', 'SiteID', 'Created', 'CreatedBy', 'Updated', 'UpdatedBy'];

describe('BasicRoleDialog: /v4/basicroles/{basicRoleid}/dialogs/{dialogid} and /v4/dialogs/{dialogid}/basicroledialogs', () => {
  let t: TestApp;
  let acme: TeamSite;
  let globex: TeamSite;
  let current: number;
  let role: Json;
  let otherRole: Json;
  let dialog: Json;
  let globexRole: Json;
  let globexDialog: Json;
  const as = (p: { token: string }) => bearer(p.token);
  const path = (roleId: string, dialogId: string) => `/v4/basicroles/${roleId}/dialogs/${dialogId}`;
  const put = (who: TestPerson, roleId: string, dialogId: string, body: object) =>
    t.http().put(path(roleId, dialogId)).set('Authorization', as(who)).send(body);
  const rows = (where: FindOptionsWhere<BasicRoleDialogEntity>) => t.ds.getRepository(BasicRoleDialogEntity).findBy(where);

  beforeAll(async () => {
    t = await startApp();
    acme = await createTeamSite(t, { name: 'Acme' });
    globex = await createTeamSite(t, { name: 'Globex' });
    current = (await createPeriods(t, acme.siteId)).current.id;
    const globexPeriod = (await createPeriods(t, globex.siteId)).current.id;
    role = await createBasicRole(t, acme.worker.token, acme.worker.individualId, 'Coach');
    otherRole = await createBasicRole(t, acme.worker.token, acme.worker.individualId, 'Scribe');
    dialog = await createDialog(t, acme.admin.token, { AncestorID: acme.worker.individualId, LeaderID: acme.manager.individualId, PeriodID: current });
    globexRole = await createBasicRole(t, globex.admin.token, globex.worker.individualId);
    globexDialog = await createDialog(t, globex.admin.token, {
      AncestorID: globex.worker.individualId,
      LeaderID: globex.manager.individualId,
      PeriodID: globexPeriod,
    });
  });
  afterAll(async () => {
    await t.close();
  });

  describe('PUT', () => {
    it('creates the record of the pair from JSON, then replaces it (absent fields become null), keeping its ID', async () => {
      const created = await put(acme.manager, role.ID, dialog.ID, { Rating: 4, Comment: 'Solid', SiteID: globex.siteId, ID: randomUUID() }).expect(200);
      expect(Object.keys(created.body)).toEqual(JSON_ORDER);
      expect(created.body).toEqual({
        ID: expect.any(String),
        BasicRoleID: role.ID,
        DialogID: dialog.ID,
        Rating: 4,
        Comment: 'Solid',
        SiteID: acme.siteId,
        Created: expect.stringMatching(ISO),
        CreatedBy: acme.manager.individualId,
        Updated: expect.stringMatching(ISO),
        UpdatedBy: acme.manager.individualId,
      });
      const replaced = await put(acme.manager, role.ID, dialog.ID, { Rating: 5, BasicRoleID: role.ID, DialogID: dialog.ID }).expect(200);
      expect(replaced.body).toMatchObject({ ID: created.body.ID, Rating: 5, Comment: null });
      expect(await rows({ basicRoleId: role.ID, dialogId: dialog.ID })).toHaveLength(1);
      const unrated = await put(acme.manager, role.ID, dialog.ID, { Rating: null, Comment: 'Not discussed' }).expect(200);
      expect(unrated.body).toMatchObject({ Rating: null, Comment: 'Not discussed' });
    });

    it('reads and answers XML (ordinal order, BasicRoleDialog root)', async () => {
      const res = await t
        .http()
        .put(path(otherRole.ID, dialog.ID))
        .set('Authorization', as(acme.manager))
        .set('Content-Type', 'application/xml')
        .set('Accept', 'application/xml')
        .send(
          `<BasicRoleDialog xmlns="urn:pms:v4" xmlns:i="http://www.w3.org/2001/XMLSchema-instance"><Rating>3</Rating><Comment>Ok &amp; fine</Comment><DialogID i:nil="true"/></BasicRoleDialog>`,
        )
        .expect(200);
      expect(res.text).toMatch(
        /^<\?xml[^>]+\?><BasicRoleDialog xmlns="urn:pms:v4"[^>]*><BasicRoleID>[^<]+<\/BasicRoleID><Comment>Ok &amp; fine<\/Comment><Created>[^<]+<\/Created><CreatedBy>[^<]+<\/CreatedBy><DialogID>[^<]+<\/DialogID><ID>[^<]+<\/ID><Rating>3<\/Rating><SiteID>/,
      );
      expect(await codec.decodeXml(res.text)).toMatchObject({ BasicRoleID: otherRole.ID, DialogID: dialog.ID, Rating: '3' });
    });

    it('answers 400 for a rating outside 1–5, a too long comment and body ids that differ from the path', async () => {
      for (const rating of [0, 6, 2.5, 'high']) {
        const res = await put(acme.manager, role.ID, dialog.ID, { Rating: rating }).expect(400);
        expect(res.body.errors).toEqual([{ field: 'Rating', message: expect.any(String) }]);
      }
      await put(acme.manager, role.ID, dialog.ID, { Comment: 'c'.repeat(4001) }).expect(400);
      const ids = await put(acme.manager, role.ID, dialog.ID, { BasicRoleID: otherRole.ID, DialogID: randomUUID(), Rating: 1 }).expect(400);
      expect(ids.body.errors.map((e: { field: string }) => e.field)).toEqual(['BasicRoleID', 'DialogID']);
      expect((await rows({ basicRoleId: role.ID, dialogId: dialog.ID }))[0].rating).not.toBe(1);
    });

    it('answers 404 for unknown or other sites’ roles and dialogs, 409 for deleted ones, 403 for who may not manage the dialog', async () => {
      await put(acme.admin, randomUUID(), dialog.ID, { Rating: 1 }).expect(404);
      await put(acme.admin, role.ID, randomUUID(), { Rating: 1 }).expect(404);
      await put(acme.admin, globexRole.ID, dialog.ID, { Rating: 1 }).expect(404);
      await put(acme.admin, role.ID, globexDialog.ID, { Rating: 1 }).expect(404);
      expect(await rows({ dialogId: globexDialog.ID })).toHaveLength(0);
      await put(acme.admin, 'x', dialog.ID, { Rating: 1 }).expect(400);

      const gone = await createBasicRole(t, acme.admin.token, acme.worker.individualId, 'Gone');
      await t.http().delete(`/v4/basicroles/${gone.ID}`).set('Authorization', as(acme.admin)).expect(200);
      expect((await put(acme.admin, gone.ID, dialog.ID, { Rating: 1 }).expect(409)).body.type).toBe('urn:pms:problem:deleted');
      const held = await createDialog(t, acme.admin.token, { AncestorID: acme.worker.individualId, LeaderID: acme.manager.individualId, PeriodID: current });
      await t.http().delete(`/v4/dialogs/${held.ID}`).set('Authorization', as(acme.admin)).expect(200);
      await put(acme.admin, role.ID, held.ID, { Rating: 1 }).expect(409);

      const res = await put(acme.peer, role.ID, dialog.ID, { Rating: 1 }).expect(403);
      expect(res.body.type).toBe('urn:pms:problem:forbidden');
      await put(acme.boss, role.ID, dialog.ID, { Rating: 2 }).expect(200);
    });

    it('honours If-Match: a stale tag is 412, and so is any tag for a pair with no record yet', async () => {
      const fresh = await createBasicRole(t, acme.admin.token, acme.worker.individualId, 'Fresh');
      const first = await put(acme.manager, fresh.ID, dialog.ID, { Rating: 2 }).expect(200);
      await put(acme.manager, fresh.ID, dialog.ID, { Rating: 3 }).set('If-Match', first.headers.etag).expect(200);
      await put(acme.manager, fresh.ID, dialog.ID, { Rating: 4 }).set('If-Match', first.headers.etag).expect(412);
      const none = await createBasicRole(t, acme.admin.token, acme.worker.individualId, 'None');
      await put(acme.manager, none.ID, dialog.ID, { Rating: 4 }).set('If-Match', first.headers.etag).expect(412);
      expect(await rows({ basicRoleId: none.ID })).toHaveLength(0);
    });

    it(`leaves one record per pair when many PUTs of the pair arrive at once (${DB_KIND})`, async () => {
      const ratings = [1, 2, 3, 4, 5, 1, 2, 3];
      for (let round = 0; round < 5; round++) {
        const r = await createBasicRole(t, acme.admin.token, acme.worker.individualId, `Race ${round}`);
        const answers = await Promise.all(
          ratings.map((rating, i) => put(i % 2 ? acme.manager : acme.admin, r.ID, dialog.ID, { Rating: rating, Comment: `writer ${i}` })),
        );
        expect(answers.map((a) => a.status)).toEqual(ratings.map(() => 200));
        const stored = await rows({ basicRoleId: r.ID, dialogId: dialog.ID });
        expect(stored).toHaveLength(1);
        // Every writer created or replaced that one record; the last one to run is what is stored.
        expect(new Set(answers.map((a) => a.body.ID))).toEqual(new Set([stored[0].id]));
        expect(answers.map((a) => a.body.Comment)).toContain(stored[0].comment);
      }
    });

    it('has the pair unique in the database itself', async () => {
      const [existing] = await rows({ basicRoleId: role.ID, dialogId: dialog.ID });
      await expect(t.ds.getRepository(BasicRoleDialogEntity).insert({ ...existing, id: randomUUID() })).rejects.toThrow();
    });
  });

  describe('PATCH', () => {
    it('creates the record of a basic role in a dialog from the patch when the pair has none, as its PUT does', async () => {
      const fresh = await createBasicRole(t, acme.admin.token, acme.worker.individualId, 'Mentor');
      const at = path(fresh.ID, dialog.ID);
      const patch = (body: string) => t.http().patch(at).set('Authorization', as(acme.admin)).set('Content-Type', 'application/merge-patch+json').send(body);
      expect((await t.http().get(at).set('Authorization', as(acme.admin))).status).toBe(404);
      const stale = await patch('{"Rating":4}').set('If-Match', '"1-abc"');
      expect(stale.status).toBe(412);
      const res = await patch('{"Rating":4}');
      expect({ status: res.status, Rating: res.body.Rating, Comment: res.body.Comment }).toEqual({ status: 200, Rating: 4, Comment: null });
      expect((await t.http().get(at).set('Authorization', as(acme.admin))).body).toEqual(res.body);
    });
  });

  describe('GET', () => {
    it('reads the single record of a pair (JSON and XML), 404 when the pair has none', async () => {
      const res = await t.http().get(path(role.ID, dialog.ID)).set('Authorization', as(acme.manager)).expect(200);
      expect(res.body).toMatchObject({ BasicRoleID: role.ID, DialogID: dialog.ID });
      expect(res.headers.etag).toBeDefined();
      const xml = await t.http().get(path(role.ID, dialog.ID)).set('Authorization', as(acme.worker)).set('Accept', 'application/xml').expect(200);
      expect(xml.text).toMatch(/<BasicRoleDialog xmlns="urn:pms:v4"/);
      const unrated = await createBasicRole(t, acme.admin.token, acme.worker.individualId, 'Unrated');
      const none = await t.http().get(path(unrated.ID, dialog.ID)).set('Authorization', as(acme.manager)).expect(404);
      expect(none.body.type).toBe('urn:pms:problem:not-found');
      await t.http().get(path(globexRole.ID, dialog.ID)).set('Authorization', as(acme.admin)).expect(404);
      await t.http().get(path(role.ID, globexDialog.ID)).set('Authorization', as(acme.admin)).expect(404);
      await t.http().get(path(role.ID, dialog.ID)).set('Authorization', as(acme.peer)).expect(403);
    });

    it('lists the records of a dialog (ArrayOfBasicRoleDialog), paged; 404 across sites; 403 for others', async () => {
      const d = await createDialog(t, acme.admin.token, { AncestorID: acme.worker.individualId, LeaderID: acme.manager.individualId, PeriodID: current });
      const a = (await put(acme.manager, role.ID, d.ID, { Rating: 5 }).expect(200)).body;
      const b = (await put(acme.manager, otherRole.ID, d.ID, { Rating: 3 }).expect(200)).body;
      const res = await t.http().get(`/v4/dialogs/${d.ID}/basicroledialogs`).set('Authorization', as(acme.worker)).expect(200);
      expect(res.body.map((x: Json) => x.ID)).toEqual([a.ID, b.ID]);
      expect(res.headers['x-total-count']).toBe('2');
      const page = await t
        .http()
        .get(`/v4/dialogs/${d.ID}/basicroledialogs?limit=1`)
        .set('Authorization', as(acme.worker))
        .set('Accept', 'application/xml')
        .expect(200);
      expect(page.text).toMatch(/<ArrayOfBasicRoleDialog xmlns="urn:pms:v4"[^>]*><BasicRoleDialog><BasicRoleID>/);
      expect(page.headers.link).toContain('offset=1');
      await t.http().get(`/v4/dialogs/${globexDialog.ID}/basicroledialogs`).set('Authorization', as(acme.admin)).expect(404);
      await t.http().get(`/v4/dialogs/${d.ID}/basicroledialogs`).set('Authorization', as(acme.peer)).expect(403);
    });

    it('works on a site with performance management off (the spec does not label BasicRoleDialog PM)', async () => {
      const off = await createSite(t, { pm: false });
      const person = await createPerson(t, off);
      const res = await t.http().get(`/v4/dialogs/${randomUUID()}/basicroledialogs`).set('Authorization', as(person)).expect(404);
      expect(res.body.type).toBe('urn:pms:problem:not-found');
    });
  });
});
