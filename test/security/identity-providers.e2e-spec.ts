import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomUUID } from 'node:crypto';
import { IdentityProviderEntity } from '../../src/database/entities/identity-provider.entity.js';
import { OrganizationEntity } from '../../src/database/entities/organization.entity.js';
import { UserEntity } from '../../src/database/entities/user.entity.js';
import { IndividualEntity } from '../../src/database/entities/individual.entity.js';
import { createPerson, createSite, type TestSite } from '../factories/index.js';
import { ADMIN_PASSWORD, ADMIN_USER, bearer, startApp, type TestApp } from '../e2e/harness.js';
import { ForgedIssuer } from './support/forged-issuer.js';
import { setTimeout as sleep } from 'node:timers/promises';

/**
 * Issue 46, rows 1–4: what a site administrator can do with the identity providers they may
 * register — never sign in as a global administrator, never capture another site's issuer and
 * audience, never point the service at an internal address, never mint a token that outlives
 * "log out everywhere" (docs/security.md, "Identity providers", "The network egress").
 */
const NS = 'urn:pms:v4';

describe('attack: identity providers of a site', () => {
  let t: TestApp;
  let forged: ForgedIssuer;
  /** A site administrator of the global administrator's own site (Default). */
  let defaultAdmin: { token: string };
  let A: TestSite;
  let B: TestSite;
  const as = (token: string) => ({ Authorization: bearer(token) });

  beforeAll(async () => {
    forged = await ForgedIssuer.start();
    // The forged issuer listens on 127.0.0.1: this app may reach it (the egress guard's refusals are shown below with an app that may not).
    t = await startApp({ EGRESS_ALLOW_PRIVATE: 'true', OIDC_CLOCK_SKEW_SECONDS: '2' });
    const [org] = await t.ds.getRepository(OrganizationEntity).findBy({ siteId: t.defaultSiteId });
    defaultAdmin = await createPerson(t, { siteId: t.defaultSiteId, orgId: org.id }, { isAdmin: true });
    A = await createSite(t);
    B = await createSite(t);
  });
  afterAll(async () => {
    await t.close();
    await forged.stop();
  });

  const register = (token: string, body: Record<string, unknown>) => t.http().post('/v4/identityproviders').set(as(token)).send(body);
  const me = (token: string) => t.http().get('/v4/me').set('Authorization', bearer(token));

  it('row 1: a site administrator’s provider never signs in the global administrator (by user name or e-mail), JSON and XML', async () => {
    const aud = `default-${randomUUID()}`;
    await register(defaultAdmin.token, { Name: 'Rogue', Issuer: forged.issuer, ClientID: aud, UserClaim: 'preferred_username' }).expect(200);
    const byName = await forged.sign({ preferred_username: ADMIN_USER }, { aud });
    const refused = await me(byName).expect(401);
    expect(refused.body.detail).toMatch(/global administrator/);
    await t.http().post('/v4/sites').set('Authorization', bearer(byName)).send({ Name: 'Escalated' }).expect(401);
    await t.http().get('/v4/me').set('Authorization', bearer(byName)).set('Accept', 'application/xml').expect(401);
    // The same through the e-mail the global administrator's account carries.
    await t.ds.getRepository(UserEntity).update({ userName: ADMIN_USER }, { email: 'root@operator.example' });
    const current = (await t.http().get('/v4/identityproviders').set(as(defaultAdmin.token)).expect(200)).body[0];
    await t
      .http()
      .put(`/v4/identityproviders/${current.ID}`)
      .set(as(defaultAdmin.token))
      .set('Content-Type', 'application/xml')
      .send(
        `<IdentityProvider xmlns="${NS}"><ClientID>${aud}</ClientID><ID>${current.ID}</ID><Issuer>${forged.issuer}</Issuer><Name>Rogue</Name><UserClaim>email</UserClaim></IdentityProvider>`,
      )
      .expect(200);
    await me(await forged.sign({ email: 'root@operator.example' }, { aud })).expect(401);
    // A person of the site is signed in (the provider works), and the global administrator still logs in with the password.
    const person = await t.ds.getRepository(UserEntity).findOneByOrFail({ siteId: t.defaultSiteId, isGlobalAdmin: false });
    await t.ds.getRepository(UserEntity).update({ id: person.id }, { email: 'someone@default.example' });
    expect((await me(await forged.sign({ email: 'someone@default.example' }, { aud })).expect(200)).body.IsGlobalAdmin).toBe(false);
    await t.http().post('/v4/auth/token').send({ UserName: ADMIN_USER, Password: ADMIN_PASSWORD }).expect(200);
  });

  it('row 2: an (issuer, audience) pair belongs to one provider: another site’s registration of it is 409 naming no site', async () => {
    const bClient = `b-app-${randomUUID()}`;
    // A squats B's client id under B's issuer, with just-in-time provisioning.
    const squat = await register(A.admin.token, {
      Name: 'Squat',
      Issuer: forged.issuer,
      ClientID: `a-app-${randomUUID()}`,
      Audiences: `api://a ${bClient}`,
      JitProvisioning: true,
    }).expect(200);
    const clash = await register(B.admin.token, { Name: 'Ours', Issuer: forged.issuer, ClientID: bClient }).expect(409);
    expect(clash.body.type).toBe('urn:pms:problem:duplicate-identity-provider');
    for (const leak of [A.siteId, squat.body.ID, 'Squat']) expect(clash.text).not.toContain(leak);
    // In XML too, and for a pair named through Audiences.
    const xml = await t
      .http()
      .post('/v4/identityproviders')
      .set(as(B.admin.token))
      .set('Content-Type', 'application/xml')
      .set('Accept', 'application/xml')
      .send(
        `<IdentityProvider xmlns="${NS}"><Audiences>${bClient}</Audiences><ClientID>b-other</ClientID><Issuer>${forged.issuer}</Issuer><Name>Ours</Name></IdentityProvider>`,
      )
      .expect(409);
    expect(xml.text).not.toContain(A.siteId);
    // The global administrator finds who holds it; a site administrator may not look.
    const holders = await t
      .http()
      .get(`/v4/identityproviders/collisions?issuer=${encodeURIComponent(forged.issuer)}`)
      .set(as(t.adminToken))
      .expect(200);
    expect(holders.body.map((p: { ID: string }) => p.ID)).toContain(squat.body.ID);
    await t
      .http()
      .get(`/v4/identityproviders/collisions?issuer=${encodeURIComponent(forged.issuer)}`)
      .set(as(B.admin.token))
      .expect(403);
    // Just-in-time provisioning creates people only in the provider's own site.
    const newcomer = await forged.sign({ email: `new-${randomUUID()}@b.example` }, { aud: bClient });
    expect((await me(newcomer).expect(200)).body.SiteID).toBe(A.siteId);
    // A person of B is never signed in to A, and no second account is made for them there.
    const bPerson = await createPerson(t, B);
    await me(await forged.sign({ email: bPerson.userName }, { aud: bClient })).expect(401);
    // Named by their e-mail, the token makes a new person of A (A's provider vouches for A only): B's person is not it.
    const bAccount = await t.ds.getRepository(UserEntity).findOneByOrFail({ id: bPerson.userId });
    const bPeople = await t.ds.getRepository(IndividualEntity).countBy({ siteId: B.siteId });
    const inA = (await me(await forged.sign({ email: bAccount.email }, { aud: bClient })).expect(200)).body;
    expect(inA.SiteID).toBe(A.siteId);
    expect(inA.ID).not.toBe(bPerson.individualId);
    expect(await t.ds.getRepository(IndividualEntity).countBy({ siteId: B.siteId })).toBe(bPeople);
  });

  it('row 2: providers that collide from before the rule are refused both, and listed to the global administrator', async () => {
    const shared = `legacy-${randomUUID()}`;
    await register(A.admin.token, { Name: 'Legacy A', Issuer: forged.issuer, ClientID: shared }).expect(200);
    // A registration made before pairs were kept (written straight to the table, as the migration found it).
    const now = new Date();
    await t.ds.getRepository(IdentityProviderEntity).insert({
      id: randomUUID(),
      siteId: B.siteId,
      name: 'Legacy B',
      issuer: forged.issuer,
      clientId: shared,
      audiences: null,
      userClaim: 'email',
      jitProvisioning: true,
      jitOrganizationId: null,
      groupsClaim: null,
      groupMappings: null,
      enabled: true,
      created: now,
      updated: now,
      createdBy: null,
      updatedBy: null,
      version: 1,
    });
    const refused = await me(await forged.sign({ email: `x-${randomUUID()}@example.com` }, { aud: shared })).expect(401);
    expect(refused.body.detail).toMatch(/more than one/);
    const collisions = (await t.http().get('/v4/identityproviders/collisions').set(as(t.adminToken)).expect(200)).body as { Name: string; SiteID: string }[];
    expect(
      collisions
        .filter((c) => c.Name.startsWith('Legacy'))
        .map((c) => c.SiteID)
        .sort(),
    ).toEqual([A.siteId, B.siteId].sort());
    const xml = await t.http().get('/v4/identityproviders/collisions').set(as(t.adminToken)).set('Accept', 'application/xml').expect(200);
    expect(xml.text).toContain('<ArrayOfIdentityProvider');
  });

  it('row 4: a provider token issued in the future (beyond the skew) is 401, and log out everywhere ends provider tokens', async () => {
    const aud = `c-${randomUUID()}`;
    const C = await createSite(t);
    const person = await createPerson(t, C);
    await register(C.admin.token, { Name: 'C', Issuer: forged.issuer, ClientID: aud, UserClaim: 'preferred_username' }).expect(200);
    const claims = { preferred_username: person.userName };
    const yearAhead = await forged.sign(claims, { aud, iatIn: 365 * 24 * 3600, expIn: 366 * 24 * 3600 });
    expect((await me(yearAhead).expect(401)).body.detail).toMatch(/iat/);
    await me(await forged.sign(claims, { aud, iatIn: 60 })).expect(401);
    const noIat = await forged.sign(claims, { aud });
    await me(noIat).expect(200);
    // Within the tolerated skew (2 s here): accepted, and still ended by "log out everywhere".
    const ahead = await forged.sign(claims, { aud, iatIn: 1 });
    await me(ahead).expect(200);
    await t.http().post('/v4/auth/logout-everywhere').set('Authorization', bearer(ahead)).expect(200);
    await me(ahead).expect(401);
    await me(noIat).expect(401);
    await sleep(3100);
    await me(await forged.sign(claims, { aud })).expect(200);
  });
});

describe('attack: an identity provider at an internal address (row 3)', () => {
  let t: TestApp;
  let site: TestSite;
  let internal: Server;
  let hits = 0;
  let internalUrl = '';

  beforeAll(async () => {
    internal = createServer((_req, res) => {
      hits++;
      res.end('# HELP process_cpu_seconds_total internal metrics\nsecret_value 42\n');
    });
    await new Promise<void>((resolve) => internal.listen(0, '127.0.0.1', resolve));
    internalUrl = `http://127.0.0.1:${(internal.address() as AddressInfo).port}`;
    t = await startApp();
    site = await createSite(t);
  });
  afterAll(async () => {
    await t.close();
    await new Promise<void>((resolve) => internal.close(() => resolve()));
  });

  it('refuses to register an issuer on a loopback, private, metadata or reserved address', async () => {
    for (const issuer of [
      `${internalUrl}/metrics#`,
      'http://169.254.169.254/latest',
      'http://10.0.0.5/',
      'http://[::1]/',
      'http://192.0.2.1/',
      'http://localhost:9/',
    ]) {
      const res = await t
        .http()
        .post('/v4/identityproviders')
        .set('Authorization', bearer(site.admin.token))
        .send({ Name: 'x', Issuer: issuer, ClientID: 'c' });
      expect({ issuer, status: res.status, field: res.body.errors?.[0]?.field }).toEqual({ issuer, status: 400, field: 'Issuer' });
    }
  });

  it('never fetches such an issuer when a token names it, and echoes nothing of what is there', async () => {
    // Registered before the guard refused it (straight to the table).
    const now = new Date();
    await t.ds.getRepository(IdentityProviderEntity).insert({
      id: randomUUID(),
      siteId: site.siteId,
      name: 'Internal',
      issuer: `${internalUrl}/metrics#`,
      clientId: 'internal',
      audiences: null,
      userClaim: 'email',
      jitProvisioning: false,
      jitOrganizationId: null,
      groupsClaim: null,
      groupMappings: null,
      enabled: true,
      created: now,
      updated: now,
      createdBy: null,
      updatedBy: null,
      version: 1,
    });
    // An unsigned token naming the issuer (alg none).
    const b64 = (o: object) => Buffer.from(JSON.stringify(o)).toString('base64url');
    const unsigned = `${b64({ alg: 'none', typ: 'JWT' })}.${b64({ iss: `${internalUrl}/metrics#`, aud: 'internal', email: 'x@y', iat: 1, exp: 9e9 })}.`;
    for (const accept of ['application/json', 'application/xml']) {
      const res = await t.http().get('/v4/me').set('Authorization', bearer(unsigned)).set('Accept', accept).expect(401);
      expect(res.text).not.toMatch(/HELP|secret_value|process_cpu/);
    }
    expect(hits).toBe(0);
  });
});
