import { randomUUID } from 'node:crypto';
import { bearer, startApp, TestApp, WireCodec } from './harness.js';
import { createPerson, createSite, TestPerson, TestSite } from '../factories/index.js';

const codec = new WireCodec('urn:pms:v4');
const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}\+00:00$/;

describe('/v4/corevalues', () => {
  let t: TestApp;
  let acme: TestSite;
  let globex: TestSite;
  let off: TestSite;
  let plain: TestPerson;
  let globexValueId: string;

  beforeAll(async () => {
    t = await startApp();
    acme = await createSite(t, { name: 'Acme' });
    globex = await createSite(t, { name: 'Globex' });
    off = await createSite(t, { name: 'NoPm', pm: false });
    plain = await createPerson(t, acme);
    const g = await t.http().post('/v4/corevalues').set('Authorization', bearer(globex.admin.token)).send({ Name: 'Globex value' }).expect(200);
    globexValueId = g.body.ID;
  });
  afterAll(async () => {
    await t.close();
  });

  const as = (p: TestPerson) => bearer(p.token);
  const create = (site: TestSite, body: object) => t.http().post('/v4/corevalues').set('Authorization', as(site.admin)).send(body).expect(200);

  describe('POST /v4/corevalues', () => {
    it('creates a core value from JSON with the common read-only fields, ignoring read-only input', async () => {
      const res = await t
        .http()
        .post('/v4/corevalues')
        .set('Authorization', as(acme.admin))
        .send({ Name: ' Integrity ', Description: 'Do what you say', Rank: 3, SiteID: globex.siteId, Deleted: true, Created: '2001-01-01T00:00:00Z' })
        .expect(200);
      expect(res.body).toEqual({
        ID: expect.stringMatching(/^[0-9a-f-]{36}$/),
        Name: 'Integrity',
        Description: 'Do what you say',
        Rank: 3,
        SiteID: acme.siteId,
        Deleted: false,
        DeletedByRef: false,
        Created: expect.stringMatching(ISO),
        CreatedBy: acme.admin.individualId,
        Updated: expect.stringMatching(ISO),
        UpdatedBy: acme.admin.individualId,
      });
      expect(res.body.Created.startsWith('2001')).toBe(false);
    });

    it('creates a core value from XML (any order, i:nil) and answers a CoreValue root', async () => {
      const res = await t
        .http()
        .post('/v4/corevalues')
        .set('Authorization', as(acme.admin))
        .set('Content-Type', 'text/xml')
        .set('Accept', 'application/xml')
        .send(
          '<CoreValue xmlns="urn:pms:v4" xmlns:i="http://www.w3.org/2001/XMLSchema-instance"><Rank>7</Rank><ID>00000000-0000-0000-0000-000000000000</ID><Description i:nil="true"/><Name>Courage</Name></CoreValue>',
        )
        .expect(200);
      expect(res.text).toMatch(/^<\?xml[^>]+\?><CoreValue xmlns="urn:pms:v4"/);
      expect(await codec.decodeXml(res.text)).toMatchObject({ Name: 'Courage', Rank: '7', Description: null, Deleted: 'false', SiteID: acme.siteId });
    });

    it('uses a supplied ID, and answers 409 id-taken when it is used', async () => {
      const id = randomUUID();
      const res = await create(acme, { ID: id, Name: 'Fixed' });
      expect(res.body.ID).toBe(id);
      const again = await t.http().post('/v4/corevalues').set('Authorization', as(acme.admin)).send({ ID: id, Name: 'Fixed' }).expect(409);
      expect(again.body.type).toBe('urn:pms:problem:id-taken');
    });

    it('answers 400 for a missing Name, limits exceeded by one and wrong types', async () => {
      const missing = await t.http().post('/v4/corevalues').set('Authorization', as(acme.admin)).send({ Description: 'x' }).expect(400);
      expect(missing.body.errors).toEqual([{ field: 'Name', message: 'Name is required' }]);
      const res = await t
        .http()
        .post('/v4/corevalues')
        .set('Authorization', as(acme.admin))
        .send({ Name: 'n'.repeat(256), Description: 'd'.repeat(4001), Rank: 1.5, ID: 'nope' })
        .expect(400);
      expect(res.body.errors.map((e: { field: string }) => e.field).sort()).toEqual(['Description', 'ID', 'Name', 'Rank']);
      await create(acme, { Name: 'n'.repeat(255), Description: 'd'.repeat(4000) });
      await t.http().post('/v4/corevalues').set('Authorization', as(acme.admin)).send({ Name: '' }).expect(400);
    });

    it('refuses a non-administrator (admin-required) and a site without PM (pm-disabled)', async () => {
      const res = await t.http().post('/v4/corevalues').set('Authorization', as(plain)).send({ Name: 'X' }).expect(403);
      expect(res.body.type).toBe('urn:pms:problem:admin-required');
      const pm = await t.http().post('/v4/corevalues').set('Authorization', as(off.admin)).send({ Name: 'X' }).expect(403);
      expect(pm.body.type).toBe('urn:pms:problem:pm-disabled');
    });
  });

  describe('GET /v4/corevalues', () => {
    it('lists the site’s live core values by Rank, then Name, in JSON and XML', async () => {
      const site = await createSite(t);
      await create(site, { Name: 'Beta', Rank: 1 });
      await create(site, { Name: 'Alpha', Rank: 1 });
      await create(site, { Name: 'Zero', Rank: 0 });
      const res = await t.http().get('/v4/corevalues').set('Authorization', as(site.admin)).expect(200);
      expect(res.body.map((v: { Name: string }) => v.Name)).toEqual(['Zero', 'Alpha', 'Beta']);
      expect(res.headers['x-total-count']).toBe('3');
      const xml = await t.http().get('/v4/corevalues').set('Authorization', as(site.admin)).set('Accept', 'application/xml').expect(200);
      expect(xml.text).toContain('<ArrayOfCoreValue xmlns="urn:pms:v4"');
      expect(((await codec.decodeXml(xml.text)) as { Name: string }[]).map((v) => v.Name)).toEqual(['Zero', 'Alpha', 'Beta']);
    });

    it('refuses a site without PM with 403 pm-disabled, and checks deleted values', async () => {
      const res = await t.http().get('/v4/corevalues').set('Authorization', as(off.admin)).expect(403);
      expect(res.body.type).toBe('urn:pms:problem:pm-disabled');
      await t.http().get('/v4/corevalues?deleted=3').set('Authorization', as(plain)).expect(400);
    });

    it('lists /sites/{siteId}/corevalues for the own site, 403 for another, any PM site for a global administrator', async () => {
      const own = await t.http().get(`/v4/sites/${acme.siteId}/corevalues`).set('Authorization', as(plain)).expect(200);
      expect(own.body.length).toBeGreaterThan(0);
      expect(own.body.every((v: { SiteID: string }) => v.SiteID === acme.siteId)).toBe(true);
      const other = await t.http().get(`/v4/sites/${globex.siteId}/corevalues`).set('Authorization', as(acme.admin)).expect(403);
      expect(other.body.type).toBe('urn:pms:problem:forbidden');
      const ga = await t.http().get(`/v4/sites/${globex.siteId}/corevalues`).set('Authorization', bearer(t.adminToken)).expect(200);
      expect(ga.body).toEqual([expect.objectContaining({ ID: globexValueId, SiteID: globex.siteId })]);
      const noPm = await t.http().get(`/v4/sites/${off.siteId}/corevalues`).set('Authorization', bearer(t.adminToken)).expect(403);
      expect(noPm.body.type).toBe('urn:pms:problem:pm-disabled');
      await t.http().get(`/v4/sites/${off.siteId}/corevalues`).set('Authorization', as(off.admin)).expect(403);
      await t.http().get('/v4/sites/xyz/corevalues').set('Authorization', as(plain)).expect(400);
    });
  });

  describe('PUT /v4/corevalues/{id}', () => {
    it('updates; absent optional fields keep their value, null clears Description', async () => {
      const c = await create(acme, { Name: 'Old', Description: 'Desc', Rank: 4 });
      const kept = await t.http().put(`/v4/corevalues/${c.body.ID}`).set('Authorization', as(acme.admin)).send({ ID: c.body.ID, Name: 'New' }).expect(200);
      expect(kept.body).toMatchObject({ Name: 'New', Description: 'Desc', Rank: 4 });
      const cleared = await t
        .http()
        .put(`/v4/corevalues/${c.body.ID}`)
        .set('Authorization', as(acme.admin))
        .send({ ID: c.body.ID, Name: 'New', Description: null })
        .expect(200);
      expect(cleared.body.Description).toBeNull();
    });

    it('accepts exactly the XML a client read back (read-only fields included)', async () => {
      const c = await create(acme, { Name: 'Round', Description: 'trip', Rank: 2 });
      const list = await t.http().get('/v4/corevalues').set('Authorization', as(acme.admin)).set('Accept', 'application/xml').expect(200);
      const one = list.text.match(new RegExp(`<CoreValue>(?:(?!</CoreValue>).)*<ID>${c.body.ID}</ID>.*?</CoreValue>`))![0];
      const body = one
        .replace('<CoreValue>', '<CoreValue xmlns="urn:pms:v4" xmlns:i="http://www.w3.org/2001/XMLSchema-instance">')
        .replace('<Name>Round</Name>', '<Name>Round 2</Name>');
      const res = await t
        .http()
        .put(`/v4/corevalues/${c.body.ID}`)
        .set('Authorization', as(acme.admin))
        .set('Content-Type', 'application/xml')
        .send(body)
        .expect(200);
      expect(res.body).toMatchObject({ ID: c.body.ID, Name: 'Round 2', Description: 'trip', Rank: 2, CreatedBy: acme.admin.individualId });
    });

    it('answers 400 for a mismatching or missing ID and a missing Name, 404 unknown, 400 malformed', async () => {
      const c = await create(acme, { Name: 'V' });
      await t.http().put(`/v4/corevalues/${c.body.ID}`).set('Authorization', as(acme.admin)).send({ ID: randomUUID(), Name: 'X' }).expect(400);
      await t.http().put(`/v4/corevalues/${c.body.ID}`).set('Authorization', as(acme.admin)).send({ Name: 'X' }).expect(400);
      const noName = await t.http().put(`/v4/corevalues/${c.body.ID}`).set('Authorization', as(acme.admin)).send({ ID: c.body.ID }).expect(400);
      expect(noName.body.errors).toEqual([{ field: 'Name', message: 'Name is required' }]);
      const id = randomUUID();
      await t.http().put(`/v4/corevalues/${id}`).set('Authorization', as(acme.admin)).send({ ID: id, Name: 'X' }).expect(404);
      await t.http().put('/v4/corevalues/123').set('Authorization', as(acme.admin)).send({ ID: '123', Name: 'X' }).expect(400);
    });

    it('refuses non-administrators (admin-required), stale If-Match (412)', async () => {
      const c = await create(acme, { Name: 'V' });
      const res = await t.http().put(`/v4/corevalues/${c.body.ID}`).set('Authorization', as(plain)).send({ ID: c.body.ID, Name: 'X' }).expect(403);
      expect(res.body.type).toBe('urn:pms:problem:admin-required');
      await t
        .http()
        .put(`/v4/corevalues/${c.body.ID}`)
        .set('Authorization', as(acme.admin))
        .set('If-Match', '"old"')
        .send({ ID: c.body.ID, Name: 'X' })
        .expect(412);
    });
  });

  describe('DELETE and undelete', () => {
    it('soft-deletes (idempotent), hides from the default list, refuses updates (409 deleted), and restores', async () => {
      const c = await create(acme, { Name: 'Temporary' });
      const del = await t.http().delete(`/v4/corevalues/${c.body.ID}`).set('Authorization', as(acme.admin)).expect(200);
      expect(del.body).toEqual({});
      const xml = await t.http().delete(`/v4/corevalues/${c.body.ID}`).set('Authorization', as(acme.admin)).set('Accept', 'application/xml').expect(200);
      expect(xml.text).toMatch(/<Object xmlns="urn:pms:v4"[^>]*\/>$/);
      const live = await t.http().get('/v4/corevalues').set('Authorization', as(acme.admin)).expect(200);
      expect(live.body.map((v: { ID: string }) => v.ID)).not.toContain(c.body.ID);
      const deleted = await t.http().get('/v4/corevalues?deleted=1').set('Authorization', as(acme.admin)).expect(200);
      expect(deleted.body).toEqual([expect.objectContaining({ ID: c.body.ID, Deleted: true })]);
      const all = await t.http().get('/v4/corevalues?deleted=2').set('Authorization', as(acme.admin)).expect(200);
      expect(all.body.length).toBe(live.body.length + 1);
      const upd = await t.http().put(`/v4/corevalues/${c.body.ID}`).set('Authorization', as(acme.admin)).send({ ID: c.body.ID, Name: 'X' }).expect(409);
      expect(upd.body.type).toBe('urn:pms:problem:deleted');
      const back = await t.http().put(`/v4/corevalues/${c.body.ID}/undelete`).set('Authorization', as(acme.admin)).expect(200);
      expect(back.body).toMatchObject({ ID: c.body.ID, Name: 'Temporary', Deleted: false });
      await t.http().put(`/v4/corevalues/${c.body.ID}/undelete`).set('Authorization', as(acme.admin)).expect(200);
    });

    it('refuses non-administrators and PM-off sites, 404 unknown', async () => {
      const c = await create(acme, { Name: 'Keep' });
      const res = await t.http().delete(`/v4/corevalues/${c.body.ID}`).set('Authorization', as(plain)).expect(403);
      expect(res.body.type).toBe('urn:pms:problem:admin-required');
      await t.http().put(`/v4/corevalues/${c.body.ID}/undelete`).set('Authorization', as(plain)).expect(403);
      const pm = await t.http().delete(`/v4/corevalues/${c.body.ID}`).set('Authorization', as(off.admin)).expect(403);
      expect(pm.body.type).toBe('urn:pms:problem:pm-disabled');
      await t.http().delete(`/v4/corevalues/${randomUUID()}`).set('Authorization', as(acme.admin)).expect(404);
      await t.http().put(`/v4/corevalues/${randomUUID()}/undelete`).set('Authorization', as(acme.admin)).expect(404);
    });
  });

  it('answers 404 for another site’s core value on every write, leaving it unchanged', async () => {
    await t.http().put(`/v4/corevalues/${globexValueId}`).set('Authorization', as(acme.admin)).send({ ID: globexValueId, Name: 'Hijack' }).expect(404);
    await t.http().delete(`/v4/corevalues/${globexValueId}`).set('Authorization', as(acme.admin)).expect(404);
    await t.http().put(`/v4/corevalues/${globexValueId}/undelete`).set('Authorization', as(acme.admin)).expect(404);
    const res = await t.http().get('/v4/corevalues').set('Authorization', as(globex.admin)).expect(200);
    expect(res.body).toEqual([expect.objectContaining({ ID: globexValueId, Name: 'Globex value', Deleted: false })]);
  });
});
