import { ADMIN_PASSWORD, ADMIN_USER, bearer, startApp, TestApp } from './harness.js';

/**
 * HTTP details a client relies on: token answers are never cached, conditional GETs answer 304,
 * and `?tz=+02:00` typed as is (the `+` decodes to a space) means +02:00.
 */
describe('HTTP details', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startApp();
  });
  afterAll(async () => {
    await t.close();
  });
  const auth = () => bearer(t.adminToken);

  describe('token answers', () => {
    it('carry Cache-Control: no-store and Pragma: no-cache (RFC 6749 §5.1), in JSON, XML and form logins', async () => {
      const json = await t.http().post('/v4/auth/token').send({ UserName: ADMIN_USER, Password: ADMIN_PASSWORD }).expect(200);
      expect(json.headers['cache-control']).toBe('no-store');
      expect(json.headers.pragma).toBe('no-cache');
      const xml = await t
        .http()
        .post('/v4/auth/token')
        .set('Content-Type', 'application/xml')
        .set('Accept', 'application/xml')
        .send(`<TokenRequest xmlns="urn:pms:v4"><Password>${ADMIN_PASSWORD}</Password><UserName>${ADMIN_USER}</UserName></TokenRequest>`)
        .expect(200);
      expect(xml.headers['cache-control']).toBe('no-store');
      const form = await t
        .http()
        .post('/v4/auth/token')
        .type('form')
        .send({ grant_type: 'password', username: ADMIN_USER, password: ADMIN_PASSWORD })
        .expect(200);
      expect(form.headers['cache-control']).toBe('no-store');
    });

    it('are the only answers marked no-store (other reads stay revalidatable with their ETag)', async () => {
      const res = await t.http().get('/v4/me').set('Authorization', auth()).expect(200);
      expect(res.headers['cache-control']).toBeUndefined();
    });
  });

  describe('If-None-Match on single-record GETs', () => {
    it('answers 304 without a body for the current ETag, in JSON and XML, weak or strong, and 200 for a stale one', async () => {
      const path = `/v4/sites/${t.defaultSiteId}`;
      const first = await t.http().get(path).set('Authorization', auth()).expect(200);
      const etag = first.headers.etag;
      expect(etag).toMatch(/^"\d+-[A-Za-z0-9_-]{22}"$/); // "<row version>-<hash>" (docs/decisions.md)

      const same = await t.http().get(path).set('Authorization', auth()).set('If-None-Match', etag).expect(304);
      expect(same.text ?? '').toBe('');
      expect(same.headers.etag).toBe(etag);
      expect(same.headers['content-length'] ?? '0').toBe('0');
      await t.http().get(path).set('Authorization', auth()).set('Accept', 'application/xml').set('If-None-Match', etag).expect(304);
      await t.http().get(path).set('Authorization', auth()).set('If-None-Match', `W/${etag}`).expect(304);
      await t.http().get(path).set('Authorization', auth()).set('If-None-Match', `"other", ${etag}`).expect(304);
      await t.http().get(path).set('Authorization', auth()).set('If-None-Match', '*').expect(304);

      const stale = await t.http().get(path).set('Authorization', auth()).set('If-None-Match', '"not-the-current-one"').expect(200);
      expect(stale.body.ID).toBe(t.defaultSiteId);
      // Unquoted, the value names no entity tag.
      await t.http().get(path).set('Authorization', auth()).set('If-None-Match', etag.replace(/"/g, '')).expect(200);
    });

    it('answers 200 with the new ETag once the record changed', async () => {
      const created = await t
        .http()
        .post('/v4/periods')
        .set('Authorization', auth())
        .send({ Name: 'P1', StartDate: '2026-01-01', EndDate: '2026-12-31' })
        .expect(200);
      const path = `/v4/periods/${created.body.ID}`;
      const before = (await t.http().get(path).set('Authorization', auth()).expect(200)).headers.etag;
      await t.http().get(path).set('Authorization', auth()).set('If-None-Match', before).expect(304);
      const updated = await t
        .http()
        .put(path)
        .set('Authorization', auth())
        .set('If-Match', before)
        .send({ ...created.body, Name: 'P1 renamed' })
        .expect(200);
      const after = await t.http().get(path).set('Authorization', auth()).set('If-None-Match', before).expect(200);
      expect(after.body.Name).toBe('P1 renamed');
      expect(after.headers.etag).not.toBe(before);
      expect(after.headers.etag).toBe(updated.headers.etag);
    });

    it('gives a List-of-one record read (GET /accountabilities/{id}) the ETag of its record, usable in If-Match and If-None-Match', async () => {
      const me = (await t.http().get('/v4/me').set('Authorization', auth()).expect(200)).body;
      const item = (
        await t
          .http()
          .post('/v4/accountabilities')
          .set('Authorization', auth())
          .send({ AncestorID: me.ID, Rank: 1, Name: 'Budget', Description: 'Yearly budget' })
          .expect(200)
      ).body;
      const read = await t.http().get(`/v4/accountabilities/${item.ID}`).set('Authorization', auth()).expect(200);
      expect(read.body).toEqual([item]);
      expect(read.headers.etag).toMatch(/^"/);
      await t.http().get(`/v4/accountabilities/${item.ID}`).set('Authorization', auth()).set('If-None-Match', read.headers.etag).expect(304);
      await t
        .http()
        .put(`/v4/accountabilities/${item.ID}`)
        .set('Authorization', auth())
        .set('If-Match', read.headers.etag)
        .send({ ...item, Name: 'Budget 2027' })
        .expect(200);
      await t
        .http()
        .put(`/v4/accountabilities/${item.ID}`)
        .set('Authorization', auth())
        .set('If-Match', read.headers.etag)
        .send({ ...item, Name: 'Budget 2028' })
        .expect(412);
      // A collection read by a path ending in a word carries no ETag, even with one member.
      const list = await t.http().get(`/v4/individuals/${me.ID}/accountabilities`).set('Authorization', auth()).expect(200);
      expect(list.body).toHaveLength(1);
      expect(list.headers.etag).toBeUndefined();
    });
  });

  describe('tz', () => {
    it('reads ?tz=+02:00 written as is (the + arrives as a space) as +02:00, like %2B02:00', async () => {
      const plain = await t.http().get(`/v4/sites/${t.defaultSiteId}?tz=+02:00`).set('Authorization', auth()).expect(200);
      expect(plain.body.Created).toMatch(/\+02:00$/);
      const encoded = await t.http().get(`/v4/sites/${t.defaultSiteId}?tz=%2B02:00`).set('Authorization', auth()).expect(200);
      expect(encoded.body.Created).toBe(plain.body.Created);
      const west = await t.http().get(`/v4/sites/${t.defaultSiteId}?tz=-05:30`).set('Authorization', auth()).expect(200);
      expect(west.body.Created).toMatch(/-05:30$/);
      const bad = await t.http().get(`/v4/sites/${t.defaultSiteId}?tz=+25:00`).set('Authorization', auth()).expect(400);
      expect(bad.body.errors).toEqual([expect.objectContaining({ field: 'tz' })]);
    });
  });
});
