import { randomUUID } from 'node:crypto';
import { BasicRoleEntity } from '../../src/database/entities/basic-role.entity.js';
import { bearer, DB_KIND, startApp, TestApp, WireCodec } from './harness.js';
import { createPerson, createSite, TestPerson } from '../factories/index.js';
import { createTeamSite, TeamSite } from '../factories/performance.js';

const codec = new WireCodec('urn:pms:v4');
const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}\+00:00$/;
const JSON_ORDER = [
  'ID',
  'IndividualID',
  'Name',
  'Description',
  'Rank',
  'DialogsPerPeriod',
  'SiteID',
  'Deleted',
  'DeletedByRef',
  'Created',
  'CreatedBy',
  'Updated',
  'UpdatedBy',
];
const XML_ORDER = [...JSON_ORDER].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));

type Role = { ID: string } & Record<string, unknown>;

describe('/v4/basicroles', () => {
  let t: TestApp;
  let acme: TeamSite;
  let globex: TeamSite;
  let globexRole: Role;
  const as = (p: { token: string }) => bearer(p.token);
  const post = (who: TestPerson, body: object) => t.http().post('/v4/basicroles').set('Authorization', as(who)).send(body);
  const put = (who: TestPerson, id: string, body: object) => t.http().put(`/v4/basicroles/${id}`).set('Authorization', as(who)).send(body);
  const make = async (who: TestPerson, individualId: string, extra: object = {}): Promise<Role> =>
    (await post(who, { IndividualID: individualId, Name: 'Role', ...extra }).expect(200)).body;
  const row = (id: string) => t.ds.getRepository(BasicRoleEntity).findOneBy({ id });

  beforeAll(async () => {
    t = await startApp();
    acme = await createTeamSite(t, { name: 'Acme' });
    globex = await createTeamSite(t, { name: 'Globex' });
    globexRole = await make(globex.admin, globex.worker.individualId, { Name: 'Globex role' });
  });
  afterAll(async () => {
    await t.close();
  });

  describe('POST /v4/basicroles', () => {
    it('creates a role from JSON with defaults, fields in order, read-only input ignored', async () => {
      const res = await post(acme.worker, {
        IndividualID: acme.worker.individualId,
        Name: '  Team coach ',
        Description: 'Coaches the juniors',
        SiteID: globex.siteId,
        Deleted: true,
        DeletedByRef: true,
        CreatedBy: acme.peer.individualId,
      }).expect(200);
      expect(Object.keys(res.body)).toEqual(JSON_ORDER);
      expect(res.body).toEqual({
        ID: expect.any(String),
        IndividualID: acme.worker.individualId,
        Name: 'Team coach',
        Description: 'Coaches the juniors',
        Rank: 0,
        DialogsPerPeriod: 1,
        SiteID: acme.siteId,
        Deleted: false,
        DeletedByRef: false,
        Created: expect.stringMatching(ISO),
        CreatedBy: acme.worker.individualId,
        Updated: expect.stringMatching(ISO),
        UpdatedBy: acme.worker.individualId,
      });
      expect(res.headers.etag).toMatch(/^"1-/);
    });

    it('creates a role from XML (any element order, i:nil) and answers a BasicRole root in ordinal order', async () => {
      const res = await t
        .http()
        .post('/v4/basicroles')
        .set('Authorization', as(acme.manager))
        .set('Content-Type', 'application/xml')
        .set('Accept', 'application/xml')
        .send(
          `<BasicRole xmlns="urn:pms:v4" xmlns:i="http://www.w3.org/2001/XMLSchema-instance"><Rank>2</Rank><Name>Mentor</Name><DialogsPerPeriod>4</DialogsPerPeriod><Description i:nil="true"/><ID>00000000-0000-0000-0000-000000000000</ID><IndividualID>${acme.worker.individualId}</IndividualID></BasicRole>`,
        )
        .expect(200);
      expect(res.text).toMatch(/^<\?xml[^>]+\?><BasicRole xmlns="urn:pms:v4"/);
      const order = [...res.text.matchAll(/<(\w+)(?: i:nil="true")?\/?>/g)].map((m) => m[1]).filter((n) => n !== 'BasicRole');
      expect(order).toEqual(XML_ORDER);
      const role = (await codec.decodeXml(res.text)) as Record<string, string | null>;
      expect(role).toMatchObject({
        Name: 'Mentor',
        Rank: '2',
        DialogsPerPeriod: '4',
        Description: null,
        IndividualID: acme.worker.individualId,
        Deleted: 'false',
      });
    });

    it.each(['IndividualID', 'Name'])('answers 400 naming %s when it is missing', async (field) => {
      const body: Record<string, unknown> = { IndividualID: acme.worker.individualId, Name: 'x' };
      delete body[field];
      const res = await post(acme.admin, body).expect(400);
      expect(res.body.errors).toEqual([{ field, message: `${field} is required` }]);
    });

    it('answers 400 for limits exceeded by one and wrong types, naming every field, and accepts the limits', async () => {
      const res = await post(acme.admin, {
        IndividualID: 'nope',
        Name: 'n'.repeat(256),
        Description: 'd'.repeat(4001),
        Rank: 1.5,
        DialogsPerPeriod: 1001,
      }).expect(400);
      expect(res.body.errors.map((e: { field: string }) => e.field).sort()).toEqual(['Description', 'DialogsPerPeriod', 'IndividualID', 'Name', 'Rank']);
      expect((await post(acme.admin, { IndividualID: acme.worker.individualId, Name: 'x', DialogsPerPeriod: -1 }).expect(400)).body.errors).toEqual([
        { field: 'DialogsPerPeriod', message: 'DialogsPerPeriod must be between 0 and 1000' },
      ]);
      await post(acme.admin, { IndividualID: acme.worker.individualId, Name: ' ' }).expect(400);
      const ok = await post(acme.admin, {
        IndividualID: acme.worker.individualId,
        Name: 'n'.repeat(255),
        Description: 'd'.repeat(4000),
        DialogsPerPeriod: 1000,
      }).expect(200);
      expect(ok.body.DialogsPerPeriod).toBe(1000);
    });

    it('answers 400 naming IndividualID for an unknown, deleted or other site’s individual', async () => {
      const gone = await createPerson(t, acme, { firstName: 'Gone' });
      await t.http().delete(`/v4/individuals/${gone.individualId}`).set('Authorization', as(acme.admin)).expect(200);
      for (const id of [randomUUID(), gone.individualId, globex.worker.individualId]) {
        const res = await post(acme.admin, { IndividualID: id, Name: 'x' }).expect(400);
        expect(res.body.errors).toEqual([{ field: 'IndividualID', message: expect.stringContaining(id) }]);
      }
    });

    it('lets the individual, anyone above them and administrators create; others 403', async () => {
      await make(acme.worker, acme.worker.individualId);
      await make(acme.manager, acme.worker.individualId);
      await make(acme.boss, acme.worker.individualId);
      await make(acme.admin, acme.worker.individualId);
      const res = await post(acme.peer, { IndividualID: acme.worker.individualId, Name: 'x' }).expect(403);
      expect(res.body.type).toBe('urn:pms:problem:forbidden');
      await post(acme.worker, { IndividualID: acme.manager.individualId, Name: 'x' }).expect(403);
    });

    it('uses a supplied ID when free and answers 409 id-taken when it is not', async () => {
      const id = randomUUID();
      expect((await make(acme.admin, acme.worker.individualId, { ID: id })).ID).toBe(id);
      const res = await post(acme.admin, { ID: id, IndividualID: acme.worker.individualId, Name: 'again' }).expect(409);
      expect(res.body.type).toBe('urn:pms:problem:id-taken');
    });

    it('works on a site with performance management off (the spec does not label BasicRole PM)', async () => {
      const off = await createSite(t, { pm: false });
      await make(off.admin, off.admin.individualId);
    });
  });

  describe('reading', () => {
    let owner: TestPerson;
    let first: Role;
    let second: Role;
    let removed: Role;
    beforeAll(async () => {
      owner = await createPerson(t, acme, { firstName: 'Ola', lastName: 'Owner', reportsTo: acme.manager.individualId });
      second = await make(acme.admin, owner.individualId, { Name: 'Beta', Rank: 1 });
      first = await make(acme.admin, owner.individualId, { Name: 'Alpha', Rank: 1 });
      removed = await make(acme.admin, owner.individualId, { Name: 'Aaa', Rank: 0 });
      await t.http().delete(`/v4/basicroles/${removed.ID}`).set('Authorization', as(acme.admin)).expect(200);
    });

    it('lists an individual’s roles by Rank and Name, filtered by deleted, in JSON and as ArrayOfBasicRole', async () => {
      const live = await t.http().get(`/v4/individuals/${owner.individualId}/basicroles`).set('Authorization', as(owner)).expect(200);
      expect(live.body.map((r: Role) => r.ID)).toEqual([first.ID, second.ID]);
      expect(live.headers['x-total-count']).toBe('2');
      const all = await t.http().get(`/v4/individuals/${owner.individualId}/basicroles?deleted=2`).set('Authorization', as(acme.manager)).expect(200);
      expect(all.body.map((r: Role) => r.ID)).toEqual([removed.ID, first.ID, second.ID]);
      const gone = await t.http().get(`/v4/individuals/${owner.individualId}/basicroles?deleted=1`).set('Authorization', as(acme.boss)).expect(200);
      expect(gone.body.map((r: Role) => r.ID)).toEqual([removed.ID]);
      const xml = await t
        .http()
        .get(`/v4/individuals/${owner.individualId}/basicroles?limit=1`)
        .set('Authorization', as(acme.admin))
        .set('Accept', 'application/xml')
        .expect(200);
      expect(xml.text).toMatch(/<ArrayOfBasicRole xmlns="urn:pms:v4"[^>]*><BasicRole><Created>[^<]*<\/Created><CreatedBy>/);
      expect(xml.headers.link).toContain('offset=1');
      await t.http().get(`/v4/individuals/${owner.individualId}/basicroles?deleted=3`).set('Authorization', as(acme.admin)).expect(400);
    });

    it('lists the caller’s own roles at /me/basicroles', async () => {
      const res = await t.http().get('/v4/me/basicroles?deleted=2').set('Authorization', as(owner)).expect(200);
      expect(res.body.map((r: Role) => r.ID)).toEqual([removed.ID, first.ID, second.ID]);
      expect((await t.http().get('/v4/me/basicroles').set('Authorization', as(acme.peer)).expect(200)).body).toEqual([]);
    });

    it('reads one role by id (deleted ones too) and under its individual, with an ETag', async () => {
      const one = await t.http().get(`/v4/basicroles/${first.ID}`).set('Authorization', as(owner)).expect(200);
      expect(one.body).toEqual(first);
      expect(one.headers.etag).toBeDefined();
      expect((await t.http().get(`/v4/basicroles/${removed.ID}`).set('Authorization', as(owner)).expect(200)).body.Deleted).toBe(true);
      const under = await t.http().get(`/v4/individuals/${owner.individualId}/basicroles/${first.ID}`).set('Authorization', as(owner)).expect(200);
      expect(under.body.ID).toBe(first.ID);
      const xml = await t.http().get(`/v4/basicroles/${first.ID}`).set('Authorization', as(owner)).set('Accept', 'application/xml').expect(200);
      expect(xml.text).toMatch(/<BasicRole xmlns="urn:pms:v4"/);
    });

    it('answers 404 for unknown ids, another site’s records and a role of another individual; 400 for a malformed id', async () => {
      await t.http().get(`/v4/basicroles/${randomUUID()}`).set('Authorization', as(acme.admin)).expect(404);
      await t.http().get(`/v4/basicroles/${globexRole.ID}`).set('Authorization', as(acme.admin)).expect(404);
      await t.http().get(`/v4/individuals/${globex.worker.individualId}/basicroles`).set('Authorization', as(acme.admin)).expect(404);
      await t.http().get(`/v4/individuals/${acme.worker.individualId}/basicroles/${first.ID}`).set('Authorization', as(acme.admin)).expect(404);
      await t.http().get(`/v4/individuals/${owner.individualId}/basicroles/${globexRole.ID}`).set('Authorization', as(acme.admin)).expect(404);
      const bad = await t.http().get('/v4/basicroles/nope').set('Authorization', as(acme.admin)).expect(400);
      expect(bad.body.errors).toEqual([{ field: 'id', message: 'id must be a UUID' }]);
    });

    it('answers 403 to someone who may not manage the individual', async () => {
      for (const path of [
        `/v4/individuals/${owner.individualId}/basicroles`,
        `/v4/basicroles/${first.ID}`,
        `/v4/individuals/${owner.individualId}/basicroles/${first.ID}`,
      ]) {
        const res = await t.http().get(path).set('Authorization', as(acme.peer)).expect(403);
        expect(res.body.type).toBe('urn:pms:problem:forbidden');
      }
      await t.http().get(`/v4/basicroles/${first.ID}`).set('Authorization', as(acme.worker)).expect(403);
    });
  });

  describe('PUT /v4/basicroles/{id}', () => {
    it('updates the fields sent, keeps absent ones, ignores IndividualID and read-only fields, honours If-Match', async () => {
      const role = await make(acme.manager, acme.worker.individualId, { Name: 'Old', Description: 'keep', Rank: 3, DialogsPerPeriod: 2 });
      const etag = (await t.http().get(`/v4/basicroles/${role.ID}`).set('Authorization', as(acme.worker))).headers.etag;
      const res = await put(acme.worker, role.ID, {
        ID: role.ID,
        Name: 'New',
        IndividualID: acme.peer.individualId,
        Deleted: true,
        SiteID: globex.siteId,
        DialogsPerPeriod: null,
      })
        .set('If-Match', etag)
        .expect(200);
      expect(res.body).toMatchObject({
        Name: 'New',
        Description: 'keep',
        Rank: 3,
        DialogsPerPeriod: 2,
        IndividualID: acme.worker.individualId,
        Deleted: false,
        SiteID: acme.siteId,
      });
      expect(res.headers.etag).toMatch(/^"2-/);
      await put(acme.worker, role.ID, { ID: role.ID, Name: 'Stale' }).set('If-Match', etag).expect(412);
      const cleared = await put(acme.worker, role.ID, { ID: role.ID, Name: 'New', Description: null, Rank: null }).expect(200);
      expect(cleared.body).toMatchObject({ Description: null, Rank: 0 });
    });

    it('takes a whole .NET-style XML object back, read-only members included', async () => {
      const role = await make(acme.worker, acme.worker.individualId, { Name: 'Round trip' });
      const xml = (await t.http().get(`/v4/basicroles/${role.ID}`).set('Authorization', as(acme.worker)).set('Accept', 'application/xml')).text;
      const back = xml.replace('<Name>Round trip</Name>', '<Name>Round trip 2</Name>');
      const res = await t
        .http()
        .put(`/v4/basicroles/${role.ID}`)
        .set('Authorization', as(acme.worker))
        .set('Content-Type', 'application/xml')
        .send(back)
        .expect(200);
      expect(res.body).toMatchObject({ ID: role.ID, Name: 'Round trip 2', DialogsPerPeriod: 1 });
    });

    it('answers 400 for a missing or different ID and a missing Name, 404 for unknown or other site’s ids, 403 for others', async () => {
      const role = await make(acme.worker, acme.worker.individualId);
      expect((await put(acme.worker, role.ID, { Name: 'x' }).expect(400)).body.errors).toEqual([{ field: 'ID', message: 'ID is required' }]);
      await put(acme.worker, role.ID, { ID: randomUUID(), Name: 'x' }).expect(400);
      expect((await put(acme.worker, role.ID, { ID: role.ID }).expect(400)).body.errors).toEqual([{ field: 'Name', message: 'Name is required' }]);
      const unknown = randomUUID();
      await put(acme.admin, unknown, { ID: unknown, Name: 'x' }).expect(404);
      await put(acme.admin, globexRole.ID, { ID: globexRole.ID, Name: 'hijack' }).expect(404);
      expect((await row(globexRole.ID))!.name).toBe('Globex role');
      await put(acme.peer, role.ID, { ID: role.ID, Name: 'x' }).expect(403);
    });
  });

  describe('DELETE and undelete', () => {
    it('soft-deletes idempotently, refuses updates while deleted, and undelete answers the restored BasicRole', async () => {
      const role = await make(acme.worker, acme.worker.individualId, { Name: 'Temp' });
      const del = await t.http().delete(`/v4/basicroles/${role.ID}`).set('Authorization', as(acme.worker)).expect(200);
      expect(del.body).toEqual({});
      const xmlDel = await t.http().delete(`/v4/basicroles/${role.ID}`).set('Authorization', as(acme.worker)).set('Accept', 'application/xml').expect(200);
      expect(xmlDel.text).toMatch(/<Object xmlns="urn:pms:v4"[^>]*\/>$/);
      expect((await row(role.ID))!.deleted).toBe(true);
      const conflict = await put(acme.worker, role.ID, { ID: role.ID, Name: 'x' }).expect(409);
      expect(conflict.body.type).toBe('urn:pms:problem:deleted');
      await t.http().delete(`/v4/basicroles/${role.ID}`).set('Authorization', as(acme.peer)).expect(403);
      const back = await t.http().put(`/v4/basicroles/${role.ID}/undelete`).set('Authorization', as(acme.worker)).expect(200);
      expect(back.body).toMatchObject({ ID: role.ID, Name: 'Temp', Deleted: false, DeletedByRef: false });
      const again = await t.http().put(`/v4/basicroles/${role.ID}/undelete`).set('Authorization', as(acme.worker)).set('Accept', 'application/xml').expect(200);
      expect(again.text).toMatch(/<BasicRole xmlns="urn:pms:v4"/);
      await t.http().delete(`/v4/basicroles/${globexRole.ID}`).set('Authorization', as(acme.admin)).expect(404);
      await t.http().put(`/v4/basicroles/${globexRole.ID}/undelete`).set('Authorization', as(acme.admin)).expect(404);
      expect((await row(globexRole.ID))!.deleted).toBe(false);
    });

    it('deleting an individual takes their live roles down by reference; undeleting them restores exactly those', async () => {
      const person = await createPerson(t, acme, { firstName: 'Del', lastName: 'Person' });
      const kept = await make(acme.admin, person.individualId, { Name: 'Kept' });
      const other = await make(acme.admin, person.individualId, { Name: 'Other' });
      const own = await make(acme.admin, person.individualId, { Name: 'Deleted on its own' });
      await t.http().delete(`/v4/basicroles/${own.ID}`).set('Authorization', as(acme.admin)).expect(200);

      await t.http().delete(`/v4/individuals/${person.individualId}`).set('Authorization', as(acme.admin)).expect(200);
      for (const r of [kept, other]) expect(await row(r.ID)).toMatchObject({ deleted: true, deletedByRef: true });
      expect(await row(own.ID)).toMatchObject({ deleted: true, deletedByRef: false });
      // A role taken down with its individual comes back only with them.
      const refused = await t.http().put(`/v4/basicroles/${kept.ID}/undelete`).set('Authorization', as(acme.admin)).expect(409);
      expect(refused.body.type).toBe('urn:pms:problem:deleted');
      // Deleting a role that went down by reference makes it deleted in its own right.
      await t.http().delete(`/v4/basicroles/${other.ID}`).set('Authorization', as(acme.admin)).expect(200);

      await t.http().put(`/v4/individuals/${person.individualId}/undelete`).set('Authorization', as(acme.admin)).expect(200);
      expect(await row(kept.ID)).toMatchObject({ deleted: false, deletedByRef: false });
      expect(await row(other.ID)).toMatchObject({ deleted: true, deletedByRef: false });
      expect(await row(own.ID)).toMatchObject({ deleted: true, deletedByRef: false });
    });
  });

  it(`never leaves a live role of a deleted individual when the role is created while the individual is deleted (${DB_KIND})`, async () => {
    for (let round = 0; round < 8; round++) {
      const person = await createPerson(t, acme, { firstName: 'Race', lastName: `Round ${round}` });
      const [created, deleted] = await Promise.all([
        post(acme.admin, { IndividualID: person.individualId, Name: 'Racing role' }),
        t.http().delete(`/v4/individuals/${person.individualId}`).set('Authorization', as(acme.admin)),
      ]);
      expect(deleted.status).toBe(200);
      if (created.status === 200) {
        // The role was written first: the individual's delete took it down by reference.
        expect(await row(created.body.ID)).toMatchObject({ deleted: true, deletedByRef: true });
      } else {
        expect(created.status).toBe(400);
        expect(created.body.errors).toEqual([{ field: 'IndividualID', message: expect.stringContaining('deleted individual') }]);
      }
      expect(await t.ds.getRepository(BasicRoleEntity).countBy({ individualId: person.individualId, deleted: false })).toBe(0);
    }
  });

  describe('GET /v4/sites/{siteid}/individuals/basicroles', () => {
    it('answers one IndividualBasicRolesCount per live individual with the count of live roles, in JSON and XML', async () => {
      const site = await createSite(t, { name: 'Counting' });
      const ann = await createPerson(t, site, { firstName: 'Ann', lastName: 'Alpha' });
      const bob = await createPerson(t, site, { firstName: 'Bob', lastName: 'Beta' });
      const gone = await createPerson(t, site, { firstName: 'Gil', lastName: 'Gone' });
      for (const name of ['a', 'b', 'c']) await make(site.admin, ann.individualId, { Name: name });
      const dead = await make(site.admin, ann.individualId, { Name: 'dead' });
      await t.http().delete(`/v4/basicroles/${dead.ID}`).set('Authorization', as(site.admin)).expect(200);
      await make(site.admin, gone.individualId);
      await t.http().delete(`/v4/individuals/${gone.individualId}`).set('Authorization', as(site.admin)).expect(200);

      const res = await t.http().get(`/v4/sites/${site.siteId}/individuals/basicroles`).set('Authorization', as(bob)).expect(200);
      expect(res.body).toEqual([
        { IndividualID: ann.individualId, FullName: 'Ann Alpha', BasicRolesCount: 3 },
        { IndividualID: bob.individualId, FullName: 'Bob Beta', BasicRolesCount: 0 },
        { IndividualID: site.admin.individualId, FullName: expect.any(String), BasicRolesCount: 0 },
      ]);
      expect(res.headers['x-total-count']).toBe('3');
      const page = await t.http().get(`/v4/sites/${site.siteId}/individuals/basicroles?limit=1&offset=1`).set('Authorization', as(bob)).expect(200);
      expect(page.body.map((r: { IndividualID: string }) => r.IndividualID)).toEqual([bob.individualId]);
      expect(page.headers['x-total-count']).toBe('3');
      expect(page.headers.link).toContain('offset=2');
      const past = await t.http().get(`/v4/sites/${site.siteId}/individuals/basicroles?offset=10`).set('Authorization', as(bob)).expect(200);
      expect(past.body).toEqual([]);
      expect(past.headers['x-total-count']).toBe('3');

      const xml = await t
        .http()
        .get(`/v4/sites/${site.siteId}/individuals/basicroles`)
        .set('Authorization', as(bob))
        .set('Accept', 'application/xml')
        .expect(200);
      expect(xml.text).toContain(
        `<ArrayOfIndividualBasicRolesCount xmlns="urn:pms:v4" xmlns:i="http://www.w3.org/2001/XMLSchema-instance"><IndividualBasicRolesCount><BasicRolesCount>3</BasicRolesCount><FullName>Ann Alpha</FullName><IndividualID>${ann.individualId}</IndividualID></IndividualBasicRolesCount>`,
      );
    });

    it('answers 403 for another site unless the caller is a global administrator', async () => {
      await t.http().get(`/v4/sites/${globex.siteId}/individuals/basicroles`).set('Authorization', as(acme.admin)).expect(403);
      const res = await t.http().get(`/v4/sites/${globex.siteId}/individuals/basicroles`).set('Authorization', bearer(t.adminToken)).expect(200);
      const worker = res.body.find((r: { IndividualID: string }) => r.IndividualID === globex.worker.individualId);
      expect(worker).toMatchObject({ BasicRolesCount: 1 });
      await t.http().get('/v4/sites/nope/individuals/basicroles').set('Authorization', as(acme.admin)).expect(400);
    });
  });
});
