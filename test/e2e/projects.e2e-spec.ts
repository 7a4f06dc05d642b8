import { bearer, startApp, TestApp, WireCodec } from './harness.js';
import { createItem, createProject, createTeamSite, deleteIndividual, TeamSite } from '../factories/performance.js';
import { createPerson } from '../factories/index.js';
import { RequestContext } from '../../src/common/context/request-context.js';
import { TenantDb } from '../../src/database/tenant-db.js';
import { CommentEntity } from '../../src/database/entities/comment.entity.js';
import { OrganizationEntity } from '../../src/database/entities/organization.entity.js';
import { ProjectDueDateChangeEntity } from '../../src/database/entities/project-due-date-change.entity.js';

const codec = new WireCodec('urn:pms:v4');
const UNKNOWN = '1b4e28ba-2fa1-4d3b-a3f5-ef19b5a7633b';
const JSON_ORDER = [
  'ID',
  'Name',
  'Description',
  'OwnerID',
  'OrganizationID',
  'StartDate',
  'DueDate',
  'CompletedDate',
  'DueDateChanges',
  'SiteID',
  'Deleted',
  'DeletedByRef',
  'Created',
  'CreatedBy',
  'Updated',
  'UpdatedBy',
];
const XML_ORDER = [...JSON_ORDER].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));

type Project = { ID: string } & Record<string, unknown>;

describe('/v4/projects', () => {
  let t: TestApp;
  let acme: TeamSite;
  let globex: TeamSite;
  let deletedOrgId: string;
  const as = (p: { token: string }) => bearer(p.token);
  const getProject = (id: string, who: { token: string } = acme.admin) => t.http().get(`/v4/projects/${id}`).set('Authorization', bearer(who.token));

  beforeAll(async () => {
    t = await startApp();
    acme = await createTeamSite(t, { name: 'Acme' });
    globex = await createTeamSite(t, { name: 'Globex' });
    const orgs = t.app.get(TenantDb).repo(RequestContext.system(acme.siteId), OrganizationEntity);
    deletedOrgId = (await orgs.insert({ name: 'Closed dept', rowType: 56, rank: 0, deleted: true })).id;
  });
  afterAll(async () => {
    await t.close();
  });

  describe('POST /v4/projects', () => {
    it('creates a project from JSON, fields in order, read-only fields ignored', async () => {
      const res = await t
        .http()
        .post('/v4/projects')
        .set('Authorization', as(acme.worker))
        .send({
          Name: ' Apollo ',
          Description: 'To the moon',
          OwnerID: acme.worker.individualId,
          OrganizationID: acme.orgId,
          StartDate: '2026-01-01T00:00:00Z',
          DueDate: '2026-06-30T00:00:00+02:00',
          DueDateChanges: 5,
          Deleted: true,
          SiteID: globex.siteId,
        })
        .expect(200);
      expect(Object.keys(res.body)).toEqual(JSON_ORDER);
      expect(res.body).toMatchObject({
        Name: 'Apollo',
        Description: 'To the moon',
        OwnerID: acme.worker.individualId,
        OrganizationID: acme.orgId,
        StartDate: '2026-01-01T00:00:00.000+00:00',
        DueDate: '2026-06-29T22:00:00.000+00:00',
        CompletedDate: null,
        DueDateChanges: 0,
        SiteID: acme.siteId,
        Deleted: false,
        DeletedByRef: false,
        CreatedBy: acme.worker.individualId,
      });
      expect(res.headers.etag).toMatch(/^"/);
      expect((await getProject(res.body.ID).expect(200)).body).toEqual(res.body);
    });

    it('creates a project from XML in any order with i:nil, answering XML (root Project, ordinal order)', async () => {
      const res = await t
        .http()
        .post('/v4/projects')
        .set('Authorization', as(acme.worker))
        .set('Content-Type', 'application/xml')
        .set('Accept', 'application/xml')
        .send(
          `<Project xmlns="urn:pms:v4" xmlns:i="http://www.w3.org/2001/XMLSchema-instance"><OwnerID>${acme.worker.individualId}</OwnerID><OrganizationID i:nil="true"/><Name>Gemini &amp; co</Name><DueDate>2026-09-01T00:00:00</DueDate><ID i:nil="true"/></Project>`,
        )
        .expect(200);
      expect(res.text).toMatch(/^<\?xml[^>]+\?><Project xmlns="urn:pms:v4"/);
      expect([...res.text.matchAll(/<([A-Za-z]+)[ >/]/g)].map((m) => m[1]).slice(1)).toEqual(XML_ORDER);
      const p = (await codec.decodeXml(res.text)) as Record<string, string | null>;
      expect(p).toMatchObject({
        Name: 'Gemini & co',
        OwnerID: acme.worker.individualId,
        OrganizationID: null,
        DueDate: '2026-09-01T00:00:00.000+00:00',
        DueDateChanges: '0',
      });
    });

    it.each(['Name', 'OwnerID'])('answers 400 naming %s when it is missing', async (field) => {
      const body: Record<string, unknown> = { Name: 'P', OwnerID: acme.worker.individualId };
      delete body[field];
      const res = await t.http().post('/v4/projects').set('Authorization', as(acme.worker)).send(body).expect(400);
      expect(res.body.errors).toEqual([{ field, message: `${field} is required` }]);
    });

    it('answers 400 for limits, wrong types and dates out of order', async () => {
      const owner = acme.worker.individualId;
      const limits = await t
        .http()
        .post('/v4/projects')
        .set('Authorization', as(acme.worker))
        .send({ Name: 'n'.repeat(256), Description: 'd'.repeat(10001), OwnerID: owner })
        .expect(400);
      expect(limits.body.errors.map((e: { field: string }) => e.field).sort()).toEqual(['Description', 'Name']);
      await t
        .http()
        .post('/v4/projects')
        .set('Authorization', as(acme.worker))
        .send({ Name: 'n'.repeat(255), Description: 'd'.repeat(10000), OwnerID: owner })
        .expect(200);
      const types = await t
        .http()
        .post('/v4/projects')
        .set('Authorization', as(acme.worker))
        .send({ Name: 1, OwnerID: 'me', OrganizationID: 7, StartDate: 'soon', DueDate: true })
        .expect(400);
      expect(types.body.errors.map((e: { field: string }) => e.field).sort()).toEqual(['DueDate', 'Name', 'OrganizationID', 'OwnerID', 'StartDate']);
      const order = await t
        .http()
        .post('/v4/projects')
        .set('Authorization', as(acme.worker))
        .send({ Name: 'P', OwnerID: owner, StartDate: '2026-05-01T00:00:00Z', DueDate: '2026-04-30T00:00:00Z', CompletedDate: '2026-04-01T00:00:00Z' })
        .expect(400);
      expect(order.body.errors).toEqual([
        { field: 'DueDate', message: 'DueDate must not be before StartDate' },
        { field: 'CompletedDate', message: 'CompletedDate must not be before StartDate' },
      ]);
    });

    it('answers 400 naming OwnerID / OrganizationID for records of another site, unknown or deleted ones', async () => {
      const gone = await createPerson(t, acme);
      await deleteIndividual(t, acme.siteId, gone.individualId);
      for (const owner of [globex.worker.individualId, UNKNOWN, gone.individualId]) {
        const res = await t.http().post('/v4/projects').set('Authorization', as(acme.admin)).send({ Name: 'P', OwnerID: owner }).expect(400);
        expect(res.body.errors).toEqual([{ field: 'OwnerID', message: expect.stringContaining(owner) }]);
      }
      for (const org of [globex.orgId, UNKNOWN, deletedOrgId]) {
        const res = await t
          .http()
          .post('/v4/projects')
          .set('Authorization', as(acme.admin))
          .send({ Name: 'P', OwnerID: acme.worker.individualId, OrganizationID: org })
          .expect(400);
        expect(res.body.errors).toEqual([{ field: 'OrganizationID', message: expect.stringContaining(org) }]);
      }
    });

    it('lets the owner’s managers and administrators create, refuses a peer (403), and takes a free ID (409 when taken)', async () => {
      for (const who of [acme.manager, acme.boss, acme.admin]) {
        await t.http().post('/v4/projects').set('Authorization', as(who)).send({ Name: 'For worker', OwnerID: acme.worker.individualId }).expect(200);
      }
      const peer = await t
        .http()
        .post('/v4/projects')
        .set('Authorization', as(acme.peer))
        .send({ Name: 'Nope', OwnerID: acme.worker.individualId })
        .expect(403);
      expect(peer.body.type).toBe('urn:pms:problem:forbidden');
      const id = '7b2e4c6d-8f10-4a2b-9c3d-4e5f6a7b8c9d';
      expect(
        (await t.http().post('/v4/projects').set('Authorization', as(acme.admin)).send({ ID: id, Name: 'Fixed', OwnerID: acme.peer.individualId }).expect(200))
          .body.ID,
      ).toBe(id);
      const taken = await t
        .http()
        .post('/v4/projects')
        .set('Authorization', as(globex.admin))
        .send({ ID: id, Name: 'Fixed', OwnerID: globex.peer.individualId })
        .expect(409);
      expect(taken.body.type).toBe('urn:pms:problem:id-taken');
    });
  });

  describe('GET /v4/projects, /v4/individuals/{id}/projects and /v4/me/projects', () => {
    let person: { individualId: string; token: string };
    let deleted: Project;
    beforeAll(async () => {
      person = await createPerson(t, acme, { reportsTo: acme.manager.individualId });
      for (const Name of ['Mercury', 'Atlas']) await createProject(t, person.token, { OwnerID: person.individualId, Name });
      deleted = await createProject(t, person.token, { OwnerID: person.individualId, Name: 'Cancelled' });
      await t.http().delete(`/v4/projects/${deleted.ID}`).set('Authorization', as(person)).expect(200);
      await createProject(t, globex.worker.token, { OwnerID: globex.worker.individualId, Name: 'Foreign' });
    });
    const names = (b: Project[]) => b.map((p) => p.Name);

    it('lists the site’s live projects by Name for any member (JSON and XML), with the deleted filter', async () => {
      const res = await t.http().get('/v4/projects').set('Authorization', as(acme.peer)).expect(200);
      const list = names(res.body);
      expect(list).toEqual(expect.arrayContaining(['Atlas', 'Mercury']));
      expect(list).not.toContain('Foreign');
      expect(list).not.toContain('Cancelled');
      expect(res.body.map((p: Project) => p.SiteID)).toEqual(res.body.map(() => acme.siteId));
      expect(res.headers['x-total-count']).toBe(String(res.body.length));
      const xml = await t.http().get('/v4/projects').set('Authorization', as(acme.peer)).set('Accept', 'application/xml').expect(200);
      expect(xml.text).toMatch(/<ArrayOfProject xmlns="urn:pms:v4"[^>]*><Project>/);
      expect(((await codec.decodeXml(xml.text)) as Project[]).map((p) => p.ID)).toEqual(res.body.map((p: Project) => p.ID));
      const gone = await t.http().get('/v4/projects?deleted=1').set('Authorization', as(acme.peer)).expect(200);
      expect(gone.body.map((p: Project) => p.ID)).toContain(deleted.ID);
      expect(gone.body.every((p: Project) => p.Deleted === true)).toBe(true);
      const all = await t.http().get('/v4/projects?deleted=2').set('Authorization', as(acme.peer)).expect(200);
      expect(all.body).toHaveLength(res.body.length + gone.body.length);
      await t.http().get('/v4/projects?deleted=4').set('Authorization', as(acme.peer)).expect(400);
      const page = await t.http().get('/v4/projects?limit=1').set('Authorization', as(acme.peer)).expect(200);
      expect(page.headers.link).toBe('</v4/projects?limit=1&offset=1>; rel="next"');
    });

    it('lists the projects an individual owns; 404 for unknown or foreign individuals', async () => {
      const res = await t.http().get(`/v4/individuals/${person.individualId}/projects`).set('Authorization', as(acme.peer)).expect(200);
      expect(names(res.body)).toEqual(['Atlas', 'Mercury']);
      const xml = await t
        .http()
        .get(`/v4/individuals/${person.individualId}/projects?deleted=2`)
        .set('Authorization', as(acme.peer))
        .set('Accept', 'text/xml')
        .expect(200);
      expect(((await codec.decodeXml(xml.text)) as Project[]).map((p) => p.Name)).toEqual(['Atlas', 'Cancelled', 'Mercury']);
      await t.http().get(`/v4/individuals/${UNKNOWN}/projects`).set('Authorization', as(acme.admin)).expect(404);
      await t.http().get(`/v4/individuals/${globex.worker.individualId}/projects`).set('Authorization', as(acme.admin)).expect(404);
      await t.http().get('/v4/individuals/x/projects').set('Authorization', as(acme.admin)).expect(400);
    });

    it('/me/projects lists the caller’s own projects', async () => {
      const res = await t.http().get('/v4/me/projects').set('Authorization', as(person)).expect(200);
      expect(names(res.body)).toEqual(['Atlas', 'Mercury']);
      expect(names((await t.http().get('/v4/me/projects?deleted=1').set('Authorization', as(person)).expect(200)).body)).toEqual(['Cancelled']);
    });

    it('GET /projects/{id} reads one (JSON and XML), deleted ones too; 404 for unknown and foreign ids; 400 malformed', async () => {
      const res = await getProject(deleted.ID, acme.peer).expect(200);
      expect(res.body).toMatchObject({ ID: deleted.ID, Deleted: true });
      const xml = await getProject(deleted.ID, acme.peer).set('Accept', 'application/xml').expect(200);
      expect(await codec.decodeXml(xml.text)).toMatchObject({ ID: deleted.ID, Deleted: 'true' });
      await getProject(UNKNOWN).expect(404);
      const theirs = await createProject(t, globex.worker.token, { OwnerID: globex.worker.individualId });
      await getProject(theirs.ID).expect(404);
      await getProject('nope').expect(400);
    });
  });

  describe('PUT /v4/projects/{id}', () => {
    let project: Project;
    beforeEach(async () => {
      project = await createProject(t, acme.worker.token, {
        OwnerID: acme.worker.individualId,
        Name: 'Editable',
        Description: 'Keep me',
        OrganizationID: acme.orgId,
        StartDate: '2026-01-01T00:00:00Z',
        DueDate: '2026-03-01T00:00:00Z',
      });
    });
    const put = (id: string, who: { token: string } = acme.worker) => t.http().put(`/v4/projects/${id}`).set('Authorization', bearer(who.token));

    it('updates; absent optional fields keep their value, null clears them; read-only fields are ignored', async () => {
      const res = await put(project.ID).send({ ID: project.ID, Name: 'Renamed', OrganizationID: null, DueDateChanges: 9, Deleted: true }).expect(200);
      expect(res.body).toMatchObject({
        Name: 'Renamed',
        Description: 'Keep me',
        OrganizationID: null,
        StartDate: project.StartDate,
        DueDate: project.DueDate,
        DueDateChanges: 0,
        Deleted: false,
        OwnerID: acme.worker.individualId,
      });
    });

    it('accepts exactly the XML a client read back (no due-date move), and answers XML', async () => {
      const read = await getProject(project.ID).set('Accept', 'application/xml').expect(200);
      const res = await put(project.ID).set('Content-Type', 'application/xml').set('Accept', 'application/xml').send(read.text).expect(200);
      expect(res.text).toContain('<Project xmlns="urn:pms:v4"');
      expect(await codec.decodeXml(res.text)).toMatchObject({ ID: project.ID, Name: 'Editable', DueDateChanges: '0', DueDate: project.DueDate });
      const renamed = await put(project.ID)
        .set('Content-Type', 'text/xml')
        .send(read.text.replace('<Name>Editable</Name>', '<Name>XML name</Name>'))
        .expect(200);
      expect(renamed.body).toMatchObject({ Name: 'XML name', Description: 'Keep me', OrganizationID: acme.orgId });
    });

    it('counts every move of a set DueDate, keeping a history row with the time of each', async () => {
      const due = async (DueDate: string | null | undefined) => {
        const body: Record<string, unknown> = { ID: project.ID, Name: 'Editable' };
        if (DueDate !== undefined) body.DueDate = DueDate;
        return (await put(project.ID).send(body).expect(200)).body.DueDateChanges as number;
      };
      expect(await due('2026-03-01T01:00:00+01:00')).toBe(0); // the same instant in another offset
      expect(await due('2026-04-01T00:00:00Z')).toBe(1);
      expect(await due('2026-04-01T00:00:00Z')).toBe(1);
      expect(await due(undefined)).toBe(1);
      expect(await due(null)).toBe(2); // clearing a due date moves it
      expect(await due('2026-05-01T00:00:00Z')).toBe(2); // setting one again is not a move
      expect(await due('2026-05-02T00:00:00Z')).toBe(3);
      const history = await t.app
        .get(TenantDb)
        .repo(RequestContext.system(acme.siteId), ProjectDueDateChangeEntity)
        .find({ where: { projectId: project.ID }, order: { created: 'ASC', id: 'ASC' } });
      expect(history).toHaveLength(3);
      expect(history.map((h) => [h.previousDueDate?.toISOString() ?? null, h.newDueDate?.toISOString() ?? null]).sort()).toEqual(
        [
          ['2026-03-01T00:00:00.000Z', '2026-04-01T00:00:00.000Z'],
          ['2026-04-01T00:00:00.000Z', null],
          ['2026-05-01T00:00:00.000Z', '2026-05-02T00:00:00.000Z'],
        ].sort(),
      );
      expect(history.every((h) => h.createdBy === acme.worker.individualId && h.created instanceof Date)).toBe(true);
      expect((await getProject(project.ID).expect(200)).body.DueDateChanges).toBe(3);
    });

    it('answers 400 for a wrong ID, a missing Name, a cleared owner and dates out of order, changing nothing', async () => {
      await put(project.ID).send({ ID: UNKNOWN, Name: 'X' }).expect(400);
      const missing = await put(project.ID).send({ Name: 'X' }).expect(400);
      expect(missing.body.errors).toEqual([{ field: 'ID', message: 'ID is required' }]);
      const noName = await put(project.ID).send({ ID: project.ID }).expect(400);
      expect(noName.body.errors).toEqual([{ field: 'Name', message: 'Name is required' }]);
      const owner = await put(project.ID).send({ ID: project.ID, Name: 'X', OwnerID: null }).expect(400);
      expect(owner.body.errors[0].field).toBe('OwnerID');
      const dates = await put(project.ID).send({ ID: project.ID, Name: 'X', StartDate: '2026-03-02T00:00:00Z' }).expect(400);
      expect(dates.body.errors).toEqual([{ field: 'DueDate', message: 'DueDate must not be before StartDate' }]);
      await put(project.ID)
        .send({ ID: project.ID, Name: 'n'.repeat(256) })
        .expect(400);
      expect((await getProject(project.ID).expect(200)).body).toEqual(project);
    });

    it('moves the owner only to someone the caller may manage', async () => {
      const res = await put(project.ID).send({ ID: project.ID, Name: 'Editable', OwnerID: acme.peer.individualId }).expect(403);
      expect(res.body.type).toBe('urn:pms:problem:forbidden');
      const other = await put(project.ID).send({ ID: project.ID, Name: 'Editable', OwnerID: globex.worker.individualId }).expect(400);
      expect(other.body.errors[0].field).toBe('OwnerID');
      const moved = await put(project.ID, acme.admin).send({ ID: project.ID, Name: 'Editable', OwnerID: acme.peer.individualId }).expect(200);
      expect(moved.body.OwnerID).toBe(acme.peer.individualId);
      await put(project.ID).send({ ID: project.ID, Name: 'Back' }).expect(403);
    });

    it('refuses a peer (403), answers 404 for another site’s project (unchanged) and 409 for a deleted one; honours If-Match', async () => {
      await put(project.ID, acme.peer).send({ ID: project.ID, Name: 'Peer' }).expect(403);
      const theirs = await createProject(t, globex.worker.token, { OwnerID: globex.worker.individualId, Name: 'Theirs' });
      await put(theirs.ID, acme.admin).send({ ID: theirs.ID, Name: 'Hijacked' }).expect(404);
      expect((await getProject(theirs.ID, globex.admin).expect(200)).body.Name).toBe('Theirs');
      await put(project.ID).set('If-Match', '"stale"').send({ ID: project.ID, Name: 'X' }).expect(412);
      const read = await getProject(project.ID).expect(200);
      await put(project.ID).set('If-Match', read.headers.etag).send({ ID: project.ID, Name: 'Y' }).expect(200);
      await t.http().delete(`/v4/projects/${project.ID}`).set('Authorization', as(acme.worker)).expect(200);
      const res = await put(project.ID).send({ ID: project.ID, Name: 'Z' }).expect(409);
      expect(res.body.type).toBe('urn:pms:problem:deleted');
    });
  });

  describe('DELETE /v4/projects/{id} and PUT /v4/projects/{id}/undelete', () => {
    it('deletes idempotently, taking live scopes and comments down by reference; undelete restores exactly those', async () => {
      const project = await createProject(t, acme.worker.token, { OwnerID: acme.worker.individualId, Name: 'Cascade' });
      const live = await createItem(t, 'projectscopes', acme.worker.token, { AncestorID: project.ID, Name: 'Live scope' });
      const before = await createItem(t, 'projectscopes', acme.worker.token, { AncestorID: project.ID, Name: 'Deleted before' });
      await t.http().delete(`/v4/projectscopes/${before.ID}`).set('Authorization', as(acme.worker)).expect(200);
      const comments = t.app.get(TenantDb).repo(RequestContext.system(acme.siteId), CommentEntity);
      const comment = await comments.insert({
        ancestorId: project.ID,
        ancestorType: 'projects',
        body: 'Nice',
        authorId: acme.worker.individualId,
        deleted: false,
        deletedByRef: false,
      });

      await t.http().delete(`/v4/projects/${project.ID}`).set('Authorization', as(acme.peer)).expect(403);
      const res = await t.http().delete(`/v4/projects/${project.ID}`).set('Authorization', as(acme.worker)).expect(200);
      expect(res.body).toEqual({});
      const xml = await t.http().delete(`/v4/projects/${project.ID}`).set('Authorization', as(acme.worker)).set('Accept', 'application/xml').expect(200);
      expect(xml.text).toMatch(/<Object xmlns="urn:pms:v4"[^>]*\/>$/);
      expect((await getProject(project.ID).expect(200)).body).toMatchObject({ Deleted: true });
      const scope = async (id: string) => (await t.http().get(`/v4/projectscopes/${id}`).set('Authorization', as(acme.admin)).expect(200)).body[0];
      expect(await scope(live.ID)).toMatchObject({ Deleted: true, DeletedByRef: true });
      expect(await scope(before.ID)).toMatchObject({ Deleted: true, DeletedByRef: false });
      expect(await comments.get(comment.id)).toMatchObject({ deleted: true, deletedByRef: true });

      await t.http().put(`/v4/projects/${project.ID}/undelete`).set('Authorization', as(acme.peer)).expect(403);
      const back = await t.http().put(`/v4/projects/${project.ID}/undelete`).set('Authorization', as(acme.manager)).expect(200);
      expect(back.body).toMatchObject({ ID: project.ID, Deleted: false, DeletedByRef: false });
      const again = await t
        .http()
        .put(`/v4/projects/${project.ID}/undelete`)
        .set('Authorization', as(acme.worker))
        .set('Accept', 'application/xml')
        .expect(200);
      expect(again.text).toContain('<Project xmlns="urn:pms:v4"');
      expect(await scope(live.ID)).toMatchObject({ Deleted: false, DeletedByRef: false });
      expect(await scope(before.ID)).toMatchObject({ Deleted: true, DeletedByRef: false });
      expect(await comments.get(comment.id)).toMatchObject({ deleted: false, deletedByRef: false });
    });

    it('answers 404 for unknown ids and another site’s project, which stays unchanged', async () => {
      await t.http().delete(`/v4/projects/${UNKNOWN}`).set('Authorization', as(acme.admin)).expect(404);
      await t.http().put(`/v4/projects/${UNKNOWN}/undelete`).set('Authorization', as(acme.admin)).expect(404);
      const theirs = await createProject(t, globex.worker.token, { OwnerID: globex.worker.individualId });
      await t.http().delete(`/v4/projects/${theirs.ID}`).set('Authorization', as(acme.admin)).expect(404);
      expect((await getProject(theirs.ID, globex.admin).expect(200)).body.Deleted).toBe(false);
      await t.http().delete(`/v4/projects/${theirs.ID}`).set('Authorization', as(globex.admin)).expect(200);
      await t.http().put(`/v4/projects/${theirs.ID}/undelete`).set('Authorization', as(acme.admin)).expect(404);
      expect((await getProject(theirs.ID, globex.admin).expect(200)).body.Deleted).toBe(true);
    });
  });
});
