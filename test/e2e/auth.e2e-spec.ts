import jwt from 'jsonwebtoken';
import { ADMIN_PASSWORD, ADMIN_USER, bearer, startApp, TestApp } from './harness.js';
import { createSite } from '../factories/index.js';

describe('POST /v4/auth/token and bearer authentication', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startApp();
  });
  afterAll(async () => {
    await t.close();
  });

  it('issues a bearer token for JSON credentials, and the token reads /v4/sites', async () => {
    const res = await t.http().post('/v4/auth/token').send({ UserName: ADMIN_USER, Password: ADMIN_PASSWORD }).expect(200);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expect(res.body).toEqual({ access_token: expect.any(String), token_type: 'Bearer', expires_in: 3600 });
    await t.http().get('/v4/sites').set('Authorization', bearer(res.body.access_token)).expect(200);
  });

  it('accepts the user name in any case', async () => {
    await t.http().post('/v4/auth/token').send({ UserName: ADMIN_USER.toUpperCase(), Password: ADMIN_PASSWORD }).expect(200);
  });

  it('issues a token for XML credentials and answers in XML when asked', async () => {
    const res = await t
      .http()
      .post('/v4/auth/token')
      .set('Content-Type', 'application/xml')
      .set('Accept', 'application/xml')
      .send(`<TokenRequest xmlns="urn:pms:v4"><UserName>${ADMIN_USER}</UserName><Password>${ADMIN_PASSWORD}</Password></TokenRequest>`)
      .expect(200);
    expect(res.headers['content-type']).toMatch(/^application\/xml/);
    expect(res.text).toMatch(
      /^<\?xml version="1.0" encoding="utf-8"\?><TokenResponse xmlns="urn:pms:v4"[^>]*><access_token>[^<]+<\/access_token><expires_in>3600<\/expires_in><token_type>Bearer<\/token_type><\/TokenResponse>$/,
    );
  });

  it('issues a token for the OAuth-style form encoding', async () => {
    const res = await t.http().post('/v4/auth/token').type('form').send({ grant_type: 'password', username: ADMIN_USER, password: ADMIN_PASSWORD }).expect(200);
    expect(res.body.token_type).toBe('Bearer');
  });

  it('refuses a form with another grant type', async () => {
    const res = await t
      .http()
      .post('/v4/auth/token')
      .type('form')
      .send({ grant_type: 'client_credentials', username: ADMIN_USER, password: ADMIN_PASSWORD })
      .expect(400);
    expect(res.body.errors).toEqual([{ field: 'grant_type', message: expect.stringContaining('password') }]);
  });

  it('names each missing credential in a 400', async () => {
    const res = await t.http().post('/v4/auth/token').send({}).expect(400);
    expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(res.body.errors.map((e: { field: string }) => e.field)).toEqual(['UserName', 'Password']);
  });

  it('answers an unknown user and a wrong password with the same 401', async () => {
    const unknown = await t.http().post('/v4/auth/token').send({ UserName: 'nobody-here', Password: 'whatever-1' }).expect(401);
    const wrong = await t.http().post('/v4/auth/token').send({ UserName: ADMIN_USER, Password: 'not-the-password' }).expect(401);
    const strip = (b: Record<string, unknown>) => ({ ...b, requestId: undefined });
    expect(strip(unknown.body)).toEqual(strip(wrong.body));
    expect(unknown.body.type).toBe('urn:pms:problem:invalid-credentials');
  });

  it('throttles from the 10th failure for one user name: 429 with Retry-After, even with the right password', async () => {
    const site = await createSite(t);
    const user = site.admin.userName;
    for (let i = 1; i <= 9; i++) {
      await t
        .http()
        .post('/v4/auth/token')
        .send({ UserName: user, Password: `wrong-${i}-pass` })
        .expect(401);
    }
    const tenth = await t.http().post('/v4/auth/token').send({ UserName: user, Password: 'wrong-10-pass' }).expect(429);
    expect(Number(tenth.headers['retry-after'])).toBeGreaterThan(0);
    expect(Number(tenth.headers['retry-after'])).toBeLessThanOrEqual(15 * 60);
    expect(tenth.body.type).toBe('urn:pms:problem:too-many-requests');
    await t.http().post('/v4/auth/token').send({ UserName: user, Password: site.admin.password }).expect(429);
    // Another user name from the same client is not locked out by it.
    await t.http().post('/v4/auth/token').send({ UserName: ADMIN_USER, Password: ADMIN_PASSWORD }).expect(200);
  });

  it('requires a bearer token on /v4 routes (401 with WWW-Authenticate)', async () => {
    const res = await t.http().get('/v4/sites').expect(401);
    expect(res.headers['www-authenticate']).toMatch(/^Bearer/);
    expect(res.body.type).toBe('urn:pms:problem:unauthorized');
  });

  it('refuses a token signed with another secret, a malformed one and an expired one', async () => {
    const forged = jwt.sign({ sid: t.defaultSiteId }, 'another-secret-another-secret-xx', { subject: 'x', audience: 'pms-api:v4', issuer: 'pms-api' });
    await t.http().get('/v4/sites').set('Authorization', bearer(forged)).expect(401);
    await t.http().get('/v4/sites').set('Authorization', 'Bearer not.a.jwt').expect(401);
    await t.http().get('/v4/sites').set('Authorization', 'Basic YWRtaW46eA==').expect(401);
    const claims = jwt.decode(t.adminToken) as { sub: string; sid: string };
    const expired = jwt.sign({ sid: claims.sid }, t.config.jwtSecret, {
      subject: claims.sub,
      audience: 'pms-api:v4',
      issuer: 'pms-api',
      expiresIn: -10,
    });
    const res = await t.http().get('/v4/sites').set('Authorization', bearer(expired)).expect(401);
    expect(res.body.detail).toMatch(/expired/);
  });

  it('refuses a token signed with the real secret but without exp, or without the expected issuer', async () => {
    const claims = jwt.decode(t.adminToken) as { sub: string; sid: string };
    const forever = jwt.sign({ sid: claims.sid }, t.config.jwtSecret, { subject: claims.sub, audience: 'pms-api:v4', issuer: 'pms-api' });
    expect(jwt.decode(forever)).not.toHaveProperty('exp');
    await t.http().get('/v4/sites').set('Authorization', bearer(forever)).expect(401);
    const noIssuer = jwt.sign({ sid: claims.sid }, t.config.jwtSecret, { subject: claims.sub, audience: 'pms-api:v4', expiresIn: 600 });
    await t.http().get('/v4/sites').set('Authorization', bearer(noIssuer)).expect(401);
    const proper = jwt.sign({ sid: claims.sid }, t.config.jwtSecret, { subject: claims.sub, audience: 'pms-api:v4', issuer: 'pms-api', expiresIn: 600 });
    await t.http().get('/v4/sites').set('Authorization', bearer(proper)).expect(200);
  });

  it('lets only a global administrator take a token for another site', async () => {
    const site = await createSite(t);
    const asGlobal = await t.http().post('/v4/auth/token').send({ UserName: ADMIN_USER, Password: ADMIN_PASSWORD, SiteID: site.siteId }).expect(200);
    const sites = await t
      .http()
      .get('/v4/sites/' + site.siteId)
      .set('Authorization', bearer(asGlobal.body.access_token))
      .expect(200);
    expect(sites.body.ID).toBe(site.siteId);
    const other = await createSite(t);
    await t.http().post('/v4/auth/token').send({ UserName: site.admin.userName, Password: site.admin.password, SiteID: other.siteId }).expect(403);
    await t.http().post('/v4/auth/token').send({ UserName: ADMIN_USER, Password: ADMIN_PASSWORD, SiteID: '7d1f6f4e-0000-4000-8000-000000000001' }).expect(404);
  });
});
