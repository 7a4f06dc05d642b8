import { bearer, startApp, TestApp, WireCodec } from './harness.js';
import { createSite, TestSite } from '../factories/index.js';

const codec = new WireCodec('urn:pms:v4');

describe('/v4/sites', () => {
  let t: TestApp;
  let acme: TestSite;
  let globex: TestSite;
  beforeAll(async () => {
    t = await startApp();
    acme = await createSite(t, { name: 'Acme' });
    globex = await createSite(t, { name: 'Globex', pm: false });
  });
  afterAll(async () => {
    await t.close();
  });

  describe('GET /v4/sites', () => {
    it('answers a site administrator with their own site only (JSON)', async () => {
      const res = await t.http().get('/v4/sites').set('Authorization', bearer(acme.admin.token)).expect(200);
      expect(res.body).toEqual([
        {
          ID: acme.siteId,
          Name: 'Acme',
          PerformanceManagement: true,
          Created: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}\+00:00$/),
          Updated: expect.any(String),
        },
      ]);
      expect(res.headers['x-total-count']).toBe('1');
    });

    it('answers a global administrator with every site, paged with X-Total-Count and Link', async () => {
      const all = await t.http().get('/v4/sites').set('Authorization', bearer(t.adminToken)).expect(200);
      expect(all.body.map((s: { Name: string }) => s.Name)).toEqual(expect.arrayContaining(['Acme', 'Globex', 'Default']));
      const page = await t.http().get('/v4/sites?limit=1&offset=0').set('Authorization', bearer(t.adminToken)).expect(200);
      expect(page.body).toHaveLength(1);
      expect(Number(page.headers['x-total-count'])).toBe(all.body.length);
      expect(page.headers.link).toBe('</v4/sites?limit=1&offset=1>; rel="next"');
      const last = await t
        .http()
        .get(`/v4/sites?limit=1&offset=${all.body.length - 1}`)
        .set('Authorization', bearer(t.adminToken))
        .expect(200);
      expect(last.headers.link).toBeUndefined();
    });

    it('answers XML: ArrayOfSite with Site children in ordinal element order', async () => {
      const res = await t.http().get('/v4/sites').set('Authorization', bearer(acme.admin.token)).set('Accept', 'text/xml').expect(200);
      expect(res.headers['content-type']).toMatch(/^text\/xml/);
      expect(res.text).toContain('<ArrayOfSite xmlns="urn:pms:v4" xmlns:i="http://www.w3.org/2001/XMLSchema-instance"><Site><Created>');
      const names = [...res.text.matchAll(/<Site>(.*)<\/Site>/g)][0][1].match(/<([A-Za-z]+)>/g);
      expect(names).toEqual(['<Created>', '<ID>', '<Name>', '<PerformanceManagement>', '<Updated>']);
      expect(await codec.decodeXml(res.text)).toEqual([expect.objectContaining({ ID: acme.siteId, Name: 'Acme', PerformanceManagement: 'true' })]);
    });

    it('refuses bad paging values with 400', async () => {
      const res = await t.http().get('/v4/sites?limit=0&offset=-1').set('Authorization', bearer(t.adminToken)).expect(400);
      expect(res.body.errors.map((e: { field: string }) => e.field).sort()).toEqual(['limit', 'offset']);
      await t.http().get('/v4/sites?limit=5001').set('Authorization', bearer(t.adminToken)).expect(400);
    });
  });

  describe('GET /v4/sites/{siteid}', () => {
    it('reads the own site in JSON and XML, with an ETag', async () => {
      const res = await t.http().get(`/v4/sites/${acme.siteId}`).set('Authorization', bearer(acme.admin.token)).expect(200);
      expect(res.body).toMatchObject({ ID: acme.siteId, Name: 'Acme', PerformanceManagement: true });
      expect(res.headers.etag).toMatch(/^"[A-Za-z0-9_-]+"$/);
      const xml = await t.http().get(`/v4/sites/${acme.siteId}`).set('Authorization', bearer(acme.admin.token)).set('Accept', 'application/xml').expect(200);
      expect(xml.text).toMatch(/^<\?xml[^>]+\?><Site xmlns="urn:pms:v4"/);
      expect(xml.headers.etag).toBe(res.headers.etag);
    });

    it('refuses another site with 403 for a site administrator, and lets a global administrator read it', async () => {
      const res = await t.http().get(`/v4/sites/${globex.siteId}`).set('Authorization', bearer(acme.admin.token)).expect(403);
      expect(res.body.type).toBe('urn:pms:problem:forbidden');
      await t.http().get(`/v4/sites/${globex.siteId}`).set('Authorization', bearer(t.adminToken)).expect(200);
    });

    it('answers 404 for an unknown site and 400 for a malformed id', async () => {
      await t.http().get('/v4/sites/1b4e28ba-2fa1-4d3b-a3f5-ef19b5a7633b').set('Authorization', bearer(t.adminToken)).expect(404);
      const bad = await t.http().get('/v4/sites/not-a-guid').set('Authorization', bearer(t.adminToken)).expect(400);
      expect(bad.body.errors).toEqual([{ field: 'siteid', message: 'siteid must be a UUID' }]);
    });
  });

  describe('POST /v4/sites', () => {
    it('creates a site from JSON, ignoring read-only fields', async () => {
      const res = await t
        .http()
        .post('/v4/sites')
        .set('Authorization', bearer(t.adminToken))
        .send({ Name: 'Initech', Created: '2001-01-01T00:00:00Z', Unknown: 1 })
        .expect(200);
      expect(res.body).toMatchObject({ Name: 'Initech', PerformanceManagement: true });
      expect(res.body.Created.startsWith('2001')).toBe(false);
      const read = await t.http().get(`/v4/sites/${res.body.ID}`).set('Authorization', bearer(t.adminToken)).expect(200);
      expect(read.body.Name).toBe('Initech');
    });

    it('creates a site from XML (any element order, i:nil) and answers XML', async () => {
      const res = await t
        .http()
        .post('/v4/sites')
        .set('Authorization', bearer(t.adminToken))
        .set('Content-Type', 'application/xml')
        .set('Accept', 'application/xml')
        .send(
          '<Site xmlns="urn:pms:v4" xmlns:i="http://www.w3.org/2001/XMLSchema-instance"><PerformanceManagement>false</PerformanceManagement><ID i:nil="true"/><Name>Umbrella</Name></Site>',
        )
        .expect(200);
      const site = (await codec.decodeXml(res.text)) as Record<string, string>;
      expect(site).toMatchObject({ Name: 'Umbrella', PerformanceManagement: 'false' });
    });

    it('uses a supplied ID, and answers 409 when it is taken', async () => {
      const id = '6a1f7c2e-5b3d-4e8f-9a0b-1c2d3e4f5a6b';
      await t.http().post('/v4/sites').set('Authorization', bearer(t.adminToken)).send({ ID: id, Name: 'Fixed' }).expect(200);
      const again = await t.http().post('/v4/sites').set('Authorization', bearer(t.adminToken)).send({ ID: id, Name: 'Fixed' }).expect(409);
      expect(again.body.type).toBe('urn:pms:problem:id-taken');
    });

    it('lists every failing field in one 400', async () => {
      const res = await t
        .http()
        .post('/v4/sites')
        .set('Authorization', bearer(t.adminToken))
        .send({ Name: 'x'.repeat(256), PerformanceManagement: 'yes', ID: 'abc' })
        .expect(400);
      expect(res.body.errors).toEqual(
        expect.arrayContaining([
          { field: 'Name', message: 'Name must be at most 255 characters' },
          { field: 'PerformanceManagement', message: 'PerformanceManagement must be true or false' },
          { field: 'ID', message: expect.stringContaining('UUID') },
        ]),
      );
      const missing = await t.http().post('/v4/sites').set('Authorization', bearer(t.adminToken)).send({}).expect(400);
      expect(missing.body.errors).toEqual([{ field: 'Name', message: 'Name is required' }]);
    });

    it('refuses a site administrator with 403', async () => {
      await t.http().post('/v4/sites').set('Authorization', bearer(acme.admin.token)).send({ Name: 'Mine' }).expect(403);
    });
  });

  describe('PUT /v4/sites/{siteid}', () => {
    it('updates name and PerformanceManagement; absent optional fields keep their value', async () => {
      const created = await t
        .http()
        .post('/v4/sites')
        .set('Authorization', bearer(t.adminToken))
        .send({ Name: 'Before', PerformanceManagement: false })
        .expect(200);
      const res = await t
        .http()
        .put(`/v4/sites/${created.body.ID}`)
        .set('Authorization', bearer(t.adminToken))
        .send({ ID: created.body.ID, Name: 'After' })
        .expect(200);
      expect(res.body).toMatchObject({ Name: 'After', PerformanceManagement: false });
    });

    it('takes an explicit null PerformanceManagement as not sent: true on create, the stored value kept on update', async () => {
      const admin = bearer(t.adminToken);
      const created = await t.http().post('/v4/sites').set('Authorization', admin).send({ Name: 'Nulls', PerformanceManagement: null }).expect(200);
      expect(created.body.PerformanceManagement).toBe(true);
      const id = created.body.ID as string;
      await t.http().put(`/v4/sites/${id}`).set('Authorization', admin).send({ ID: id, Name: 'Nulls', PerformanceManagement: false }).expect(200);
      const res = await t
        .http()
        .put(`/v4/sites/${id}`)
        .set('Authorization', admin)
        .set('Content-Type', 'application/xml')
        .send(
          `<Site xmlns="urn:pms:v4" xmlns:i="http://www.w3.org/2001/XMLSchema-instance"><ID>${id}</ID><Name> Nulls 2 </Name><PerformanceManagement i:nil="true"/></Site>`,
        )
        .expect(200);
      expect(res.body).toMatchObject({ Name: 'Nulls 2', PerformanceManagement: false });
    });

    it('accepts the whole object a client read back, read-only fields included (XML)', async () => {
      const read = await t.http().get(`/v4/sites/${acme.siteId}`).set('Authorization', bearer(t.adminToken)).set('Accept', 'application/xml').expect(200);
      const body = read.text.replace('<Name>Acme</Name>', '<Name>Acme Corp</Name>');
      const res = await t
        .http()
        .put(`/v4/sites/${acme.siteId}`)
        .set('Authorization', bearer(t.adminToken))
        .set('Content-Type', 'text/xml')
        .send(body)
        .expect(200);
      expect(res.body.Name).toBe('Acme Corp');
    });

    it('answers 400 when the body ID differs from the path id, and when it is missing', async () => {
      const res = await t.http().put(`/v4/sites/${acme.siteId}`).set('Authorization', bearer(t.adminToken)).send({ ID: globex.siteId, Name: 'X' }).expect(400);
      expect(res.body.errors[0].field).toBe('ID');
      await t.http().put(`/v4/sites/${acme.siteId}`).set('Authorization', bearer(t.adminToken)).send({ Name: 'X' }).expect(400);
    });

    it('honours If-Match: 412 for a stale ETag, 200 for the current one', async () => {
      const read = await t.http().get(`/v4/sites/${globex.siteId}`).set('Authorization', bearer(t.adminToken)).expect(200);
      await t
        .http()
        .put(`/v4/sites/${globex.siteId}`)
        .set('Authorization', bearer(t.adminToken))
        .set('If-Match', '"stale"')
        .send({ ID: globex.siteId, Name: 'G2' })
        .expect(412);
      const ok = await t
        .http()
        .put(`/v4/sites/${globex.siteId}`)
        .set('Authorization', bearer(t.adminToken))
        .set('If-Match', read.headers.etag)
        .send({ ID: globex.siteId, Name: 'G2' })
        .expect(200);
      expect(ok.headers.etag).not.toBe(read.headers.etag);
      await t
        .http()
        .put(`/v4/sites/${globex.siteId}`)
        .set('Authorization', bearer(t.adminToken))
        .set('If-Match', read.headers.etag)
        .send({ ID: globex.siteId, Name: 'G3' })
        .expect(412);
    });

    it('answers 404 for an unknown site and 403 for a site administrator', async () => {
      const id = '0e7b9a3c-1d2e-4f5a-8b9c-0d1e2f3a4b5c';
      await t.http().put(`/v4/sites/${id}`).set('Authorization', bearer(t.adminToken)).send({ ID: id, Name: 'X' }).expect(404);
      await t.http().put(`/v4/sites/${acme.siteId}`).set('Authorization', bearer(acme.admin.token)).send({ ID: acme.siteId, Name: 'X' }).expect(403);
    });
  });
});
