import { ADMIN_PASSWORD, ADMIN_USER, bearer, DB_KIND, startApp, TestApp } from './harness.js';
import { MAX_BODY_DEPTH } from '../../src/http/wire/body-limits.js';

/**
 * Input limits checked before any work (issue 13, docs/operations.md "Input limits"): bodies
 * nested deeper than 64 levels are 400 before validation — logged in or not — and only UTF-8
 * bodies are read.
 */
describe(`input limits (${DB_KIND})`, () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startApp();
  });
  afterAll(async () => {
    await t.close();
  });

  const deepArray = (depth: number) => '['.repeat(depth) + ']'.repeat(depth);
  const deepXml = (depth: number) => '<X>'.repeat(depth) + '</X>'.repeat(depth);

  it('answers the 1,500-deep login body that overflowed the stack with 400 body-too-deep, naming the limit', async () => {
    const body = `{"UserName":"x","Password":"y","X":${deepArray(1500)}}`;
    const res = await t.http().post('/v4/auth/token').set('Content-Type', 'application/json').send(body);
    expect(res.status).toBe(400);
    expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(res.body).toMatchObject({ type: 'urn:pms:problem:body-too-deep', status: 400, detail: `The body is nested deeper than ${MAX_BODY_DEPTH} levels` });
  });

  it('refuses the same depth on an authenticated endpoint, in JSON and in XML, without writing anything', async () => {
    const json = await t
      .http()
      .post('/v4/sites')
      .set('Authorization', bearer(t.adminToken))
      .set('Content-Type', 'application/json')
      .send(`{"Name":"Deep","X":${deepArray(MAX_BODY_DEPTH)}}`);
    expect(json.status).toBe(400);
    expect(json.body.type).toBe('urn:pms:problem:body-too-deep');

    const xml = await t
      .http()
      .post('/v4/sites')
      .set('Authorization', bearer(t.adminToken))
      .set('Content-Type', 'application/xml')
      .set('Accept', 'application/xml')
      .send(`<Site xmlns="urn:pms:v4"><Name>Deep</Name>${deepXml(1500)}</Site>`);
    expect(xml.status).toBe(400);
    expect(xml.text).toContain('<type>urn:pms:problem:body-too-deep</type>');

    const sites = await t.http().get('/v4/sites?limit=100').set('Authorization', bearer(t.adminToken)).expect(200);
    expect(sites.body.map((s: { Name: string }) => s.Name)).not.toContain('Deep');
  });

  it('reads a body just inside the limit as usual (validation decides, not the depth check)', async () => {
    const res = await t
      .http()
      .post('/v4/auth/token')
      .set('Content-Type', 'application/json')
      .send(`{"UserName":"${ADMIN_USER}","Password":"${ADMIN_PASSWORD}","X":${deepArray(MAX_BODY_DEPTH - 1)}}`);
    expect(res.status).toBe(200);
    expect(res.body.access_token).toEqual(expect.any(String));
  });

  it.each(['utf-7', 'iso-8859-1', 'utf-16'])('refuses a JSON body declared charset=%s with 415', async (charset) => {
    const res = await t
      .http()
      .post('/v4/auth/token')
      .set('Content-Type', `application/json; charset=${charset}`)
      .send(`{"UserName":"${ADMIN_USER}","Password":"${ADMIN_PASSWORD}"}`);
    expect(res.status).toBe(415);
    expect(res.body).toMatchObject({ type: 'urn:pms:problem:unsupported-media-type' });
    expect(res.body.detail).toContain(`"${charset}"`);
  });

  it('refuses an XML body declared charset=utf-7 with 415, and a form body in latin-1', async () => {
    const xml = await t
      .http()
      .post('/v4/auth/token')
      .set('Content-Type', 'application/xml; charset=utf-7')
      .send(`<TokenRequest xmlns="urn:pms:v4"><UserName>${ADMIN_USER}</UserName><Password>${ADMIN_PASSWORD}</Password></TokenRequest>`);
    expect(xml.status).toBe(415);
    const form = await t
      .http()
      .post('/v4/auth/token')
      .set('Content-Type', 'application/x-www-form-urlencoded; charset=iso-8859-1')
      .send(`grant_type=password&username=${ADMIN_USER}&password=${ADMIN_PASSWORD}`);
    expect(form.status).toBe(415);
  });

  it.each(['utf-8', 'UTF-8', '"utf-8"'])('accepts charset=%s', async (charset) => {
    const res = await t
      .http()
      .post('/v4/auth/token')
      .set('Content-Type', `application/json; charset=${charset}`)
      .send(`{"UserName":"${ADMIN_USER}","Password":"${ADMIN_PASSWORD}"}`);
    expect(res.status).toBe(200);
  });
});
