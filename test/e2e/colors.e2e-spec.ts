import { bearer, startApp, TestApp, WireCodec } from './harness.js';
import { createPerson, createSite, TestPerson, TestSite } from '../factories/index.js';

const codec = new WireCodec('urn:pms:v4');
const DEFAULTS = [
  { ID: -1, Name: 'Red', ColorValue: 16711680, MinPercent: 0, MaxPercent: 70, Rank: 1 },
  { ID: -2, Name: 'Yellow', ColorValue: 16776960, MinPercent: 70, MaxPercent: 90, Rank: 2 },
  { ID: -3, Name: 'Green', ColorValue: 65280, MinPercent: 90, MaxPercent: 100, Rank: 3 },
];

describe('/v4/colors', () => {
  let t: TestApp;
  let acme: TestSite;
  let globex: TestSite;
  let plain: TestPerson;
  let globexColorId: number;
  const valid = { Name: 'Amber', ColorValue: 0xffbf00, MinPercent: 50, MaxPercent: 80.5, Rank: 2 };

  beforeAll(async () => {
    t = await startApp();
    acme = await createSite(t, { name: 'Acme' });
    globex = await createSite(t, { name: 'Globex' });
    plain = await createPerson(t, acme);
    const g = await t
      .http()
      .post('/v4/colors')
      .set('Authorization', bearer(globex.admin.token))
      .send({ Name: 'Globex red', ColorValue: 1, MinPercent: 0, MaxPercent: 100 })
      .expect(200);
    globexColorId = g.body.ID;
  });
  afterAll(async () => {
    await t.close();
  });

  const as = (p: TestPerson) => bearer(p.token);

  describe('defaults', () => {
    it('answers the defaults on /colors while the site has no colors, and on /colors/defaults', async () => {
      const res = await t.http().get('/v4/colors').set('Authorization', as(plain)).expect(200);
      expect(res.body).toEqual(DEFAULTS.map((d) => ({ ...d, SiteID: acme.siteId })));
      expect(res.headers['x-total-count']).toBe('3');
      const def = await t.http().get('/v4/colors/defaults').set('Authorization', as(plain)).expect(200);
      expect(def.body).toEqual(res.body);
    });

    it('answers the defaults in XML as ArrayOfColor', async () => {
      const res = await t.http().get('/v4/colors/defaults').set('Authorization', as(plain)).set('Accept', 'application/xml').expect(200);
      expect(res.text).toContain('<ArrayOfColor xmlns="urn:pms:v4"');
      const items = (await codec.decodeXml(res.text)) as Record<string, string>[];
      expect(items.map((c) => [c.ID, c.Name, c.ColorValue, c.MinPercent, c.MaxPercent])).toEqual([
        ['-1', 'Red', '16711680', '0', '70'],
        ['-2', 'Yellow', '16776960', '70', '90'],
        ['-3', 'Green', '65280', '90', '100'],
      ]);
    });

    it('reads a default color by its negative ID, and refuses to change or delete it (409 default-color)', async () => {
      const res = await t.http().get('/v4/colors/-2').set('Authorization', as(plain)).expect(200);
      expect(res.body).toMatchObject({ ID: -2, Name: 'Yellow' });
      await t.http().get('/v4/colors/-4').set('Authorization', as(plain)).expect(404);
      const put = await t
        .http()
        .put('/v4/colors/-2')
        .set('Authorization', as(acme.admin))
        .send({ ...valid, ID: -2 })
        .expect(409);
      expect(put.body.type).toBe('urn:pms:problem:default-color');
      const del = await t.http().delete('/v4/colors/-1').set('Authorization', as(acme.admin)).expect(409);
      expect(del.body.type).toBe('urn:pms:problem:default-color');
    });

    it('answers /sites/{siteid}/colors/defaults for the own site, 403 for another, any site for a global administrator', async () => {
      const own = await t.http().get(`/v4/sites/${acme.siteId}/colors/defaults`).set('Authorization', as(plain)).expect(200);
      expect(own.body).toHaveLength(3);
      const other = await t.http().get(`/v4/sites/${globex.siteId}/colors/defaults`).set('Authorization', as(acme.admin)).expect(403);
      expect(other.body.type).toBe('urn:pms:problem:forbidden');
      const ga = await t.http().get(`/v4/sites/${globex.siteId}/colors/defaults`).set('Authorization', bearer(t.adminToken)).expect(200);
      expect(ga.body[0].SiteID).toBe(globex.siteId);
    });
  });

  describe('POST /v4/colors', () => {
    it('creates a color from JSON, ignoring read-only fields and a supplied ID; the defaults then no longer apply', async () => {
      const res = await t
        .http()
        .post('/v4/colors')
        .set('Authorization', as(acme.admin))
        .send({ ...valid, ID: 999, SiteID: globex.siteId })
        .expect(200);
      expect(res.body).toEqual({ ...valid, ID: expect.any(Number), SiteID: acme.siteId });
      expect(res.body.ID).not.toBe(999);
      const list = await t.http().get('/v4/colors').set('Authorization', as(plain)).expect(200);
      expect(list.body).toEqual([res.body]);
      const read = await t.http().get(`/v4/colors/${res.body.ID}`).set('Authorization', as(plain)).expect(200);
      expect(read.body).toEqual(res.body);
      expect(read.headers.etag).toBeDefined();
      const defaults = await t.http().get('/v4/colors/defaults').set('Authorization', as(plain)).expect(200);
      expect(defaults.body).toHaveLength(3);
    });

    it('creates a color from XML (any element order, i:nil) and answers a Color root', async () => {
      const res = await t
        .http()
        .post('/v4/colors')
        .set('Authorization', as(acme.admin))
        .set('Content-Type', 'application/xml')
        .set('Accept', 'application/xml')
        .send(
          '<Color xmlns="urn:pms:v4" xmlns:i="http://www.w3.org/2001/XMLSchema-instance"><Rank i:nil="true"/><MaxPercent>100</MaxPercent><Name>Top</Name><MinPercent>80.25</MinPercent><ID>0</ID><ColorValue>255</ColorValue></Color>',
        )
        .expect(200);
      expect(res.text).toMatch(/^<\?xml[^>]+\?><Color xmlns="urn:pms:v4"/);
      const c = (await codec.decodeXml(res.text)) as Record<string, string>;
      expect(c).toMatchObject({ Name: 'Top', ColorValue: '255', MinPercent: '80.25', MaxPercent: '100', Rank: '0', SiteID: acme.siteId });
    });

    it.each(['Name', 'ColorValue', 'MinPercent', 'MaxPercent'])('answers 400 when %s is missing', async (field) => {
      const body: Record<string, unknown> = { ...valid };
      delete body[field];
      const res = await t.http().post('/v4/colors').set('Authorization', as(acme.admin)).send(body).expect(400);
      expect(res.body.errors).toEqual([{ field, message: `${field} is required` }]);
    });

    it('answers 400 for limits exceeded by one and wrong types, naming each field', async () => {
      const res = await t
        .http()
        .post('/v4/colors')
        .set('Authorization', as(acme.admin))
        .send({ Name: 'x'.repeat(256), ColorValue: 16777216, MinPercent: -0.01, MaxPercent: 1000.01, Rank: 'first' })
        .expect(400);
      expect(res.body.errors.map((e: { field: string }) => e.field).sort()).toEqual(['ColorValue', 'MaxPercent', 'MinPercent', 'Name', 'Rank']);
      const types = await t
        .http()
        .post('/v4/colors')
        .set('Authorization', as(acme.admin))
        .send({ Name: 5, ColorValue: 1.5, MinPercent: 'low', MaxPercent: true })
        .expect(400);
      expect(types.body.errors.map((e: { field: string }) => e.field).sort()).toEqual(['ColorValue', 'MaxPercent', 'MinPercent', 'Name']);
      await t
        .http()
        .post('/v4/colors')
        .set('Authorization', as(acme.admin))
        .send({ ...valid, Name: '   ' })
        .expect(400);
    });

    it('accepts the limits themselves', async () => {
      const res = await t
        .http()
        .post('/v4/colors')
        .set('Authorization', as(acme.admin))
        .send({ Name: 'y'.repeat(255), ColorValue: 16777215, MinPercent: 0, MaxPercent: 1000 })
        .expect(200);
      expect(res.body).toMatchObject({ ColorValue: 16777215, MaxPercent: 1000 });
      await t.http().delete(`/v4/colors/${res.body.ID}`).set('Authorization', as(acme.admin)).expect(200);
    });

    it('answers 400 naming MaxPercent when it is not above MinPercent', async () => {
      const res = await t
        .http()
        .post('/v4/colors')
        .set('Authorization', as(acme.admin))
        .send({ ...valid, MinPercent: 60, MaxPercent: 60 })
        .expect(400);
      expect(res.body.errors).toEqual([{ field: 'MaxPercent', message: expect.stringContaining('greater than MinPercent') }]);
    });

    it('refuses a non-administrator with 403 admin-required', async () => {
      const res = await t.http().post('/v4/colors').set('Authorization', as(plain)).send(valid).expect(403);
      expect(res.body.type).toBe('urn:pms:problem:admin-required');
    });
  });

  describe('PUT /v4/colors/{id}', () => {
    it('updates a color; an absent Rank keeps its value', async () => {
      const c = await t.http().post('/v4/colors').set('Authorization', as(acme.admin)).send(valid).expect(200);
      const res = await t
        .http()
        .put(`/v4/colors/${c.body.ID}`)
        .set('Authorization', as(acme.admin))
        .send({ ID: c.body.ID, Name: 'Orange', ColorValue: 0xffa500, MinPercent: 40, MaxPercent: 60 })
        .expect(200);
      expect(res.body).toEqual({ ID: c.body.ID, Name: 'Orange', ColorValue: 0xffa500, MinPercent: 40, MaxPercent: 60, Rank: 2, SiteID: acme.siteId });
    });

    it('accepts exactly the XML a client read back', async () => {
      const c = await t.http().post('/v4/colors').set('Authorization', as(acme.admin)).send(valid).expect(200);
      const read = await t.http().get(`/v4/colors/${c.body.ID}`).set('Authorization', as(acme.admin)).set('Accept', 'application/xml').expect(200);
      const res = await t
        .http()
        .put(`/v4/colors/${c.body.ID}`)
        .set('Authorization', as(acme.admin))
        .set('Content-Type', 'application/xml')
        .send(read.text.replace('<Name>Amber</Name>', '<Name>Amber 2</Name>'))
        .expect(200);
      expect(res.body).toEqual({ ...c.body, Name: 'Amber 2' });
    });

    it('answers 400 for a body ID that differs or is missing, and for malformed ids; 404 for unknown ids', async () => {
      const c = await t.http().post('/v4/colors').set('Authorization', as(acme.admin)).send(valid).expect(200);
      const res = await t
        .http()
        .put(`/v4/colors/${c.body.ID}`)
        .set('Authorization', as(acme.admin))
        .send({ ...valid, ID: c.body.ID + 1 })
        .expect(400);
      expect(res.body.errors[0].field).toBe('ID');
      await t.http().put(`/v4/colors/${c.body.ID}`).set('Authorization', as(acme.admin)).send(valid).expect(400);
      const bad = await t.http().get('/v4/colors/abc').set('Authorization', as(plain)).expect(400);
      expect(bad.body.errors).toEqual([{ field: 'id', message: 'id must be a whole number (int32)' }]);
      await t.http().get('/v4/colors/99999').set('Authorization', as(plain)).expect(404);
      await t
        .http()
        .put('/v4/colors/99999')
        .set('Authorization', as(acme.admin))
        .send({ ...valid, ID: 99999 })
        .expect(404);
    });

    it('honours If-Match (412 on a stale ETag)', async () => {
      const c = await t.http().post('/v4/colors').set('Authorization', as(acme.admin)).send(valid).expect(200);
      await t
        .http()
        .put(`/v4/colors/${c.body.ID}`)
        .set('Authorization', as(acme.admin))
        .set('If-Match', '"stale"')
        .send({ ...valid, ID: c.body.ID })
        .expect(412);
    });

    it('refuses a non-administrator with 403 admin-required', async () => {
      const c = await t.http().post('/v4/colors').set('Authorization', as(acme.admin)).send(valid).expect(200);
      const res = await t
        .http()
        .put(`/v4/colors/${c.body.ID}`)
        .set('Authorization', as(plain))
        .send({ ...valid, ID: c.body.ID })
        .expect(403);
      expect(res.body.type).toBe('urn:pms:problem:admin-required');
    });
  });

  describe('tenancy', () => {
    it('answers 404 for a color of another site and leaves it unchanged', async () => {
      await t.http().get(`/v4/colors/${globexColorId}`).set('Authorization', as(acme.admin)).expect(404);
      await t
        .http()
        .put(`/v4/colors/${globexColorId}`)
        .set('Authorization', as(acme.admin))
        .send({ ...valid, ID: globexColorId })
        .expect(404);
      await t.http().delete(`/v4/colors/${globexColorId}`).set('Authorization', as(acme.admin)).expect(404);
      const still = await t.http().get(`/v4/colors/${globexColorId}`).set('Authorization', as(globex.admin)).expect(200);
      expect(still.body).toMatchObject({ Name: 'Globex red', ColorValue: 1, MaxPercent: 100 });
    });

    it('lists another site’s colors only for a global administrator', async () => {
      await t.http().get(`/v4/sites/${globex.siteId}/colors`).set('Authorization', as(acme.admin)).expect(403);
      const ga = await t.http().get(`/v4/sites/${globex.siteId}/colors`).set('Authorization', bearer(t.adminToken)).expect(200);
      expect(ga.body).toEqual([expect.objectContaining({ ID: globexColorId, Name: 'Globex red', SiteID: globex.siteId })]);
      const own = await t.http().get(`/v4/sites/${acme.siteId}/colors`).set('Authorization', as(plain)).expect(200);
      expect(own.body.every((c: { SiteID: string }) => c.SiteID === acme.siteId)).toBe(true);
      await t.http().get('/v4/sites/not-a-guid/colors').set('Authorization', as(plain)).expect(400);
    });
  });

  describe('DELETE /v4/colors/{id}', () => {
    it('removes the color ({} / <Object/>); the defaults come back when the last one goes', async () => {
      const site = await createSite(t);
      const c = await t.http().post('/v4/colors').set('Authorization', as(site.admin)).send(valid).expect(200);
      const listed = await t.http().get('/v4/colors').set('Authorization', as(site.admin)).expect(200);
      expect(listed.body.map((x: { ID: number }) => x.ID)).toEqual([c.body.ID]);
      await t.http().delete(`/v4/colors/${c.body.ID}`).set('Authorization', as(site.admin)).set('If-Match', '"stale"').expect(412);
      const xml = await t.http().delete(`/v4/colors/${c.body.ID}`).set('Authorization', as(site.admin)).set('Accept', 'application/xml').expect(200);
      expect(xml.text).toMatch(/<Object xmlns="urn:pms:v4"[^>]*\/>$/);
      await t.http().get(`/v4/colors/${c.body.ID}`).set('Authorization', as(site.admin)).expect(404);
      await t.http().delete(`/v4/colors/${c.body.ID}`).set('Authorization', as(site.admin)).expect(404);
      const after = await t.http().get('/v4/colors').set('Authorization', as(site.admin)).expect(200);
      expect(after.body.map((x: { ID: number }) => x.ID)).toEqual([-1, -2, -3]);
    });

    it('answers {} in JSON and refuses a non-administrator with 403 admin-required', async () => {
      const c = await t.http().post('/v4/colors').set('Authorization', as(acme.admin)).send(valid).expect(200);
      const res = await t.http().delete(`/v4/colors/${c.body.ID}`).set('Authorization', as(plain)).expect(403);
      expect(res.body.type).toBe('urn:pms:problem:admin-required');
      const ok = await t.http().delete(`/v4/colors/${c.body.ID}`).set('Authorization', as(acme.admin)).expect(200);
      expect(ok.body).toEqual({});
    });
  });

  it('lists the site’s colors ordered by Rank, then MinPercent', async () => {
    const site = await createSite(t);
    const post = (body: object) => t.http().post('/v4/colors').set('Authorization', as(site.admin)).send(body).expect(200);
    await post({ Name: 'C', ColorValue: 3, MinPercent: 50, MaxPercent: 100, Rank: 2 });
    await post({ Name: 'B', ColorValue: 2, MinPercent: 20, MaxPercent: 50, Rank: 2 });
    await post({ Name: 'A', ColorValue: 1, MinPercent: 0, MaxPercent: 20, Rank: 1 });
    const res = await t.http().get('/v4/colors?limit=2').set('Authorization', as(site.admin)).expect(200);
    expect(res.body.map((c: { Name: string }) => c.Name)).toEqual(['A', 'B']);
    expect(res.headers['x-total-count']).toBe('3');
    expect(res.headers.link).toContain('offset=2');
  });
});
