import { ApiTokenEntity } from '../../src/database/entities/api-token.entity.js';
import { ApiTokenUses } from '../../src/modules/auth/api-token-uses.js';
import { createPerson, createSite, type TestSite } from '../factories/index.js';
import { bearer, startApp, TestApp, WireCodec } from './harness.js';
import { setTimeout as sleep } from 'node:timers/promises';

const NS = 'urn:pms:v4';

describe('API tokens (/v4/apitokens) and token revocation', () => {
  let t: TestApp;
  let site: TestSite;
  let other: TestSite;

  beforeAll(async () => {
    t = await startApp();
    site = await createSite(t);
    other = await createSite(t);
  });
  afterAll(async () => {
    await t.close();
  });

  const create = (token: string, body: Record<string, unknown>) => t.http().post('/v4/apitokens').set('Authorization', bearer(token)).send(body);

  it('creates a token whose secret is shown once, prefixed, stored only as a hash', async () => {
    const res = await create(site.admin.token, { Name: 'Payroll sync', Scopes: 'individuals:read goals:write' }).expect(200);
    expect(res.body).toMatchObject({ Name: 'Payroll sync', Scopes: 'individuals:read goals:write', SiteID: site.siteId, Revoked: null, LastUsed: null });
    expect(res.body.Secret).toMatch(/^pms_[0-9A-Za-z]{46}$/);
    expect(res.body.Hint).toBe(res.body.Secret.slice(0, 12));
    expect(new Date(res.body.Expires).getTime()).toBeGreaterThan(Date.now() + 89 * 24 * 3600_000);
    const row = await t.ds.getRepository(ApiTokenEntity).findOneByOrFail({ id: res.body.ID });
    expect(JSON.stringify(row)).not.toContain(res.body.Secret);
    const read = await t.http().get(`/v4/apitokens/${res.body.ID}`).set('Authorization', bearer(site.admin.token)).expect(200);
    expect(read.body.Secret).toBeNull();
    const list = await t.http().get('/v4/apitokens').set('Authorization', bearer(site.admin.token)).expect(200);
    expect(list.body.map((x: { ID: string }) => x.ID)).toContain(res.body.ID);
    expect(list.body.every((x: { Secret: unknown }) => x.Secret === null)).toBe(true);
  });

  it('speaks XML', async () => {
    const res = await t
      .http()
      .post('/v4/apitokens')
      .set('Authorization', bearer(site.admin.token))
      .set('Content-Type', 'application/xml')
      .set('Accept', 'application/xml')
      .send(`<ApiToken xmlns="${NS}"><Name>XML client</Name><Scopes>*:read</Scopes></ApiToken>`)
      .expect(200);
    const body = (await new WireCodec(NS).decodeXml(res.text)) as Record<string, unknown>;
    expect(body.Name).toBe('XML client');
    expect(String(body.Secret)).toMatch(/^pms_/);
    const list = await t.http().get('/v4/apitokens').set('Authorization', bearer(site.admin.token)).set('Accept', 'application/xml').expect(200);
    expect(list.text).toContain('<ArrayOfApiToken');
  });

  it('refuses bad input with 400 naming the field, and writes nothing', async () => {
    const before = await t.ds.getRepository(ApiTokenEntity).count();
    const res = await create(site.admin.token, { Name: ' ', Scopes: 'individuals:read nonsense:read goals:admin' }).expect(400);
    expect(res.body.errors.map((e: { field: string }) => e.field).sort()).toEqual(['Name']);
    const scopes = await create(site.admin.token, { Name: 'x', Scopes: 'individuals:read nonsense:read goals:admin' }).expect(400);
    expect(scopes.body.errors[0]).toMatchObject({ field: 'Scopes', message: expect.stringContaining('nonsense:read, goals:admin') });
    const past = await create(site.admin.token, { Name: 'x', Scopes: '*:read', Expires: '2020-01-01T00:00:00Z' }).expect(400);
    expect(past.body.errors[0].field).toBe('Expires');
    expect(await t.ds.getRepository(ApiTokenEntity).count()).toBe(before);
  });

  it('is for administrators only, and a token of another site is 404', async () => {
    const person = await createPerson(t, site);
    await create(person.token, { Name: 'x', Scopes: '*:read' }).expect(403);
    await t.http().get('/v4/apitokens').set('Authorization', bearer(person.token)).expect(403);
    const theirs = await create(other.admin.token, { Name: 'theirs', Scopes: '*:read' }).expect(200);
    await t.http().get(`/v4/apitokens/${theirs.body.ID}`).set('Authorization', bearer(site.admin.token)).expect(404);
    await t.http().delete(`/v4/apitokens/${theirs.body.ID}`).set('Authorization', bearer(site.admin.token)).expect(404);
    await t.http().get('/v4/apitokens/00000000-0000-0000-0000-00000000abcd').set('Authorization', bearer(site.admin.token)).expect(404);
    await t.http().get('/v4/apitokens/not-a-guid').set('Authorization', bearer(site.admin.token)).expect(400);
  });

  it('acts as a service principal within its scopes: a missing scope is 403 naming it', async () => {
    const secret = (await create(site.admin.token, { Name: 'Reader', Scopes: 'individuals:read' }).expect(200)).body.Secret as string;
    const list = await t.http().get('/v4/individuals').set('Authorization', bearer(secret)).expect(200);
    expect(list.body.length).toBeGreaterThan(0);
    // Only its own site.
    await t.http().get(`/v4/individuals/${other.admin.individualId}`).set('Authorization', bearer(secret)).expect(404);
    const denied = await t.http().post('/v4/colors').set('Authorization', bearer(secret)).send({ Name: 'x' }).expect(403);
    expect(denied.body).toMatchObject({ type: 'urn:pms:problem:insufficient-scope', detail: 'The API token lacks the scope colors:write' });
    expect(denied.headers['www-authenticate']).toContain('scope="colors:write"');
    await t.http().get('/v4/colors').set('Authorization', bearer(secret)).expect(403);
    // Never credentials, whatever the scopes.
    const all = (await create(site.admin.token, { Name: 'All', Scopes: '*:write' }).expect(200)).body.Secret as string;
    await create(all, { Name: 'minted', Scopes: '*:write' }).expect(403);
    await t.http().post('/v4/auth/logout-everywhere').set('Authorization', bearer(all)).expect(403);
  });

  it('records its writes as the token (CreatedBy/UpdatedBy) and its last use, batched', async () => {
    const made = (await create(site.admin.token, { Name: 'Groups', Scopes: 'securitygroups:write' }).expect(200)).body;
    const group = await t.http().post('/v4/securitygroups').set('Authorization', bearer(made.Secret)).send({ Name: 'Synced group' });
    expect(group.status).toBe(200);
    expect(group.body.CreatedBy).toBe(made.ID);
    expect(group.body.UpdatedBy).toBe(made.ID);
    expect((await t.ds.getRepository(ApiTokenEntity).findOneByOrFail({ id: made.ID })).lastUsed).toBeNull();
    await t.app.get(ApiTokenUses).flush();
    const used = (await t.http().get(`/v4/apitokens/${made.ID}`).set('Authorization', bearer(site.admin.token)).expect(200)).body;
    expect(new Date(used.LastUsed).getTime()).toBeGreaterThan(Date.now() - 60_000);
  });

  it('is refused from the next request on once revoked, and stays listed', async () => {
    const made = (await create(site.admin.token, { Name: 'Soon gone', Scopes: '*:read' }).expect(200)).body;
    await t.http().get('/v4/individuals').set('Authorization', bearer(made.Secret)).expect(200);
    await t.http().delete(`/v4/apitokens/${made.ID}`).set('Authorization', bearer(site.admin.token)).expect(200);
    const res = await t.http().get('/v4/individuals').set('Authorization', bearer(made.Secret)).expect(401);
    expect(res.body.detail).toMatch(/revoked/);
    await t.http().delete(`/v4/apitokens/${made.ID}`).set('Authorization', bearer(site.admin.token)).expect(200);
    const read = await t.http().get(`/v4/apitokens/${made.ID}`).set('Authorization', bearer(site.admin.token)).expect(200);
    expect(read.body.Revoked).not.toBeNull();
  });

  it('refuses an expired token, a typo of a secret and an unknown one', async () => {
    const made = (await create(site.admin.token, { Name: 'Short', Scopes: '*:read', Expires: new Date(Date.now() + 1500).toISOString() }).expect(200)).body;
    await t.http().get('/v4/individuals').set('Authorization', bearer(made.Secret)).expect(200);
    await sleep(1600);
    expect((await t.http().get('/v4/individuals').set('Authorization', bearer(made.Secret)).expect(401)).body.detail).toMatch(/expired/);
    const typo = made.Secret.slice(0, -1) + (made.Secret.endsWith('a') ? 'b' : 'a');
    await t.http().get('/v4/individuals').set('Authorization', bearer(typo)).expect(401);
  });

  it('logout-everywhere ends every earlier token of the person, in JSON and XML', async () => {
    const person = await createPerson(t, site);
    const second = (await t.http().post('/v4/auth/token').send({ UserName: person.userName, Password: person.password }).expect(200)).body.access_token;
    await t.http().get('/v4/me').set('Authorization', bearer(person.token)).expect(200);
    await t.http().post('/v4/auth/logout-everywhere').set('Authorization', bearer(person.token)).set('Accept', 'application/xml').expect(200);
    await t.http().get('/v4/me').set('Authorization', bearer(person.token)).expect(401);
    await t.http().get('/v4/me').set('Authorization', bearer(second)).expect(401);
    const fresh = (await t.http().post('/v4/auth/token').send({ UserName: person.userName, Password: person.password }).expect(200)).body.access_token;
    await t.http().get('/v4/me').set('Authorization', bearer(fresh)).expect(200);
    await t.http().post('/v4/auth/logout-everywhere').expect(401);
  });

  it('a deletion ends the person’s tokens for good, an undelete does not bring them back', async () => {
    const person = await createPerson(t, site);
    await t.http().delete(`/v4/individuals/${person.individualId}`).set('Authorization', bearer(site.admin.token)).expect(200);
    await t.http().get('/v4/me').set('Authorization', bearer(person.token)).expect(401);
    await t.http().put(`/v4/individuals/${person.individualId}/undelete`).set('Authorization', bearer(site.admin.token)).expect(200);
    await t.http().get('/v4/me').set('Authorization', bearer(person.token)).expect(401);
  });
});
