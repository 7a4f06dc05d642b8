import { UserEntity } from '../../src/database/entities/user.entity.js';
import { SecurityGroupMemberEntity } from '../../src/database/entities/security-group.entity.js';
import { createPerson, createSite, type TestPerson, type TestSite } from '../factories/index.js';
import { bearer, startApp, TestApp, WireCodec } from './harness.js';
import { signingKey, TestOidcProvider } from './oidc-test-provider.js';
import { setTimeout as sleep } from 'node:timers/promises';

const NS = 'urn:pms:v4';

describe('single sign-on with an OpenID provider (/v4/identityproviders)', () => {
  let t: TestApp;
  let site: TestSite;
  let other: TestSite;
  let idp: TestOidcProvider;
  let stranger: TestOidcProvider;
  let person: TestPerson;
  let providerId: string;
  let oldKey: Awaited<ReturnType<typeof signingKey>>;

  beforeAll(async () => {
    oldKey = await signingKey('RS256', 'key-1');
    idp = await TestOidcProvider.start([oldKey, await signingKey('ES256', 'ec-1')]);
    stranger = await TestOidcProvider.start([await signingKey('RS256', 'stranger')]);
    // JWKS kept 1 s (and no clock skew), so a rotation and an expiry show within the test.
    t = await startApp({ OIDC_JWKS_CACHE_MS: '1000', OIDC_CLOCK_SKEW_SECONDS: '0', EGRESS_ALLOW_PRIVATE: 'true' });
    site = await createSite(t);
    other = await createSite(t);
    person = await createPerson(t, site);
    await t.ds.getRepository(UserEntity).update({ id: person.userId }, { email: 'Ada.Lovelace@example.com' });
  });
  afterAll(async () => {
    await t.close();
    await idp.stop();
    await stranger.stop();
  });

  const admin = (token = site.admin.token) => ({ Authorization: bearer(token) });

  it('configures a provider in JSON and reads it back in XML', async () => {
    const res = await t
      .http()
      .post('/v4/identityproviders')
      .set(admin())
      .send({ Name: 'Test IdP', Issuer: idp.issuer, ClientID: 'pms-client', Audiences: 'api://pms api://pms-es' })
      .expect(200);
    expect(res.body).toMatchObject({
      Name: 'Test IdP',
      Issuer: idp.issuer,
      UserClaim: 'email',
      JitProvisioning: false,
      Enabled: true,
      GroupMappings: [],
      SiteID: site.siteId,
    });
    providerId = res.body.ID;
    const xml = await t.http().get(`/v4/identityproviders/${providerId}`).set(admin()).set('Accept', 'application/xml').expect(200);
    const body = (await new WireCodec(NS).decodeXml(xml.text)) as Record<string, unknown>;
    expect(body.Issuer).toBe(idp.issuer);
  });

  it('validates, keeps tenancy, and is for administrators', async () => {
    const bad = await t
      .http()
      .post('/v4/identityproviders')
      .set(admin())
      .send({ Name: 'x', Issuer: 'not a url', ClientID: 'c', JitOrganizationID: '00000000-0000-0000-0000-0000000000aa' })
      .expect(400);
    expect(bad.body.errors.map((e: { field: string }) => e.field).sort()).toEqual(['Issuer', 'JitOrganizationID']);
    const dup = await t
      .http()
      .post('/v4/identityproviders')
      .set(admin(other.admin.token))
      .send({ Name: 'x', Issuer: idp.issuer, ClientID: 'pms-client' })
      .expect(409);
    expect(dup.body.type).toBe('urn:pms:problem:duplicate-identity-provider');
    await t.http().get(`/v4/identityproviders/${providerId}`).set(admin(other.admin.token)).expect(404);
    await t.http().get('/v4/identityproviders').set(admin(person.token)).expect(403);
    const xml = await t
      .http()
      .post('/v4/identityproviders')
      .set(admin(other.admin.token))
      .set('Content-Type', 'application/xml')
      .send(`<IdentityProvider xmlns="${NS}"><Name>Other</Name><Issuer>https://login.example.com/</Issuer><ClientID>abc</ClientID></IdentityProvider>`)
      .expect(200);
    await t.http().patch(`/v4/identityproviders/${xml.body.ID}`).set(admin(other.admin.token)).send({ Enabled: false }).expect(200);
    await t.http().delete(`/v4/identityproviders/${xml.body.ID}`).set(admin(other.admin.token)).expect(200);
    await t.http().get(`/v4/identityproviders/${xml.body.ID}`).set(admin(other.admin.token)).expect(404);
  });

  it('accepts the provider’s RS256 and ES256 tokens as the person whose e-mail they name', async () => {
    const token = await idp.token({ email: 'ada.lovelace@example.com' });
    const me = await t.http().get('/v4/me').set('Authorization', bearer(token)).expect(200);
    expect(me.body.ID).toBe(person.individualId);
    const es = await idp.token({ email: 'ada.lovelace@example.com' }, 'api://pms-es');
    expect(JSON.parse(Buffer.from(es.split('.')[0], 'base64url').toString()).alg).toBe('ES256');
    await t.http().get('/v4/me').set('Authorization', bearer(es)).expect(200);
  });

  it('refuses a token of another issuer, for another audience, or naming nobody of the site', async () => {
    const foreign = await stranger.token({ email: 'ada.lovelace@example.com' });
    expect((await t.http().get('/v4/me').set('Authorization', bearer(foreign)).expect(401)).body.detail).toMatch(/No site accepts/);
    const otherAudience = await idp.token({ email: 'ada.lovelace@example.com' }, 'api://somebody-else');
    expect((await t.http().get('/v4/me').set('Authorization', bearer(otherAudience)).expect(401)).body.detail).toMatch(/aud/);
    const nobody = await idp.token({ email: 'nobody@example.com' });
    await t.http().get('/v4/me').set('Authorization', bearer(nobody)).expect(401);
    const noClaim = await idp.token({});
    await t.http().get('/v4/me').set('Authorization', bearer(noClaim)).expect(401);
    // Another site's person is not matched through this site's provider.
    await t.ds.getRepository(UserEntity).update({ id: other.admin.userId }, { email: 'grace@example.com' });
    await t
      .http()
      .get('/v4/me')
      .set('Authorization', bearer(await idp.token({ email: 'grace@example.com' })))
      .expect(401);
  });

  it('refuses an expired token', async () => {
    idp.ttl = 1;
    const token = await idp.token({ email: 'ada.lovelace@example.com' });
    idp.ttl = 300;
    await sleep(2100);
    expect((await t.http().get('/v4/me').set('Authorization', bearer(token)).expect(401)).body.detail).toMatch(/expired/);
  });

  it('follows a key rotation: the new key is fetched on its unknown kid, a rotated-out key is refused', async () => {
    const signedByOld = await idp.token({ email: 'ada.lovelace@example.com' });
    await t.http().get('/v4/me').set('Authorization', bearer(signedByOld)).expect(200);
    await idp.restart([await signingKey('RS256', 'key-2'), await signingKey('ES256', 'ec-2')]);
    await sleep(1100);
    const signedByNew = await idp.token({ email: 'ada.lovelace@example.com' });
    await t.http().get('/v4/me').set('Authorization', bearer(signedByNew)).expect(200);
    const res = await t.http().get('/v4/me').set('Authorization', bearer(signedByOld)).expect(401);
    expect(res.body.detail).toMatch(/key/);
  });

  it('logout-everywhere ends the provider tokens issued before it', async () => {
    const token = await idp.token({ email: 'ada.lovelace@example.com' });
    await t.http().get('/v4/me').set('Authorization', bearer(token)).expect(200);
    await t.http().post('/v4/auth/logout-everywhere').set('Authorization', bearer(token)).expect(200);
    await t.http().get('/v4/me').set('Authorization', bearer(token)).expect(401);
    await sleep(1100); // iat has a resolution of a second
    await t
      .http()
      .get('/v4/me')
      .set('Authorization', bearer(await idp.token({ email: 'ada.lovelace@example.com' })))
      .expect(200);
  });

  it('refuses the provider’s tokens, old and new, of a person provisioning deactivated, until reactivated', async () => {
    const scim = (await t.http().post('/v4/apitokens').set(admin()).send({ Name: 'Provisioning', Scopes: 'scim' }).expect(200)).body.Secret as string;
    const active = (value: boolean) =>
      t
        .http()
        .patch(`/scim/v2/Users/${person.individualId}`)
        .set('Authorization', bearer(scim))
        .set('Content-Type', 'application/scim+json')
        .send(JSON.stringify({ schemas: ['urn:ietf:params:scim:api:messages:2.0:PatchOp'], Operations: [{ op: 'replace', path: 'active', value }] }))
        .expect(200);
    const before = await idp.token({ email: 'ada.lovelace@example.com' });
    await t.http().get('/v4/me').set('Authorization', bearer(before)).expect(200);
    await active(false);
    await t.http().get('/v4/me').set('Authorization', bearer(before)).expect(401);
    await sleep(1100); // a token issued after the deactivation: refused for the account, not its age
    const during = await idp.token({ email: 'ada.lovelace@example.com' });
    const refused = await t.http().get('/v4/me').set('Authorization', bearer(during)).expect(401);
    expect(refused.body.detail).toMatch(/deactivated/);
    await active(true);
    await t.http().get('/v4/me').set('Authorization', bearer(during)).expect(200);
    await t.http().get('/v4/me').set('Authorization', bearer(before)).expect(401);
  });

  it('creates an unknown person just in time only when the site enables it, and maps groups', async () => {
    const claims = { email: 'new.hire@example.com', given_name: 'New', family_name: 'Hire', groups: ['hr-admins'] };
    await t
      .http()
      .get('/v4/me')
      .set('Authorization', bearer(await idp.token(claims)))
      .expect(401);
    const group = (await t.http().post('/v4/securitygroups').set(admin()).send({ Name: 'HR' }).expect(200)).body;
    const current = (await t.http().get(`/v4/identityproviders/${providerId}`).set(admin()).expect(200)).body;
    await t
      .http()
      .put(`/v4/identityproviders/${providerId}`)
      .set(admin())
      .send({ ...current, JitProvisioning: true, GroupsClaim: 'groups', GroupMappings: [{ Claim: 'hr-admins', SecurityGroupID: group.ID }] })
      .expect(200);
    const me = await t
      .http()
      .get('/v4/me')
      .set('Authorization', bearer(await idp.token(claims)))
      .expect(200);
    expect(me.body).toMatchObject({ FirstName: 'New', LastName: 'Hire', UserName: 'new.hire@example.com', SiteID: site.siteId });
    const members = await t.ds.getRepository(SecurityGroupMemberEntity).findBy({ groupId: group.ID });
    expect(members.map((m) => m.individualId)).toEqual([me.body.ID]);
    // Leaving the group at the provider leaves the mapped security group at the next sign-in.
    await sleep(1100);
    await t
      .http()
      .get('/v4/me')
      .set('Authorization', bearer(await idp.token({ ...claims, groups: [] })))
      .expect(200);
    expect(await t.ds.getRepository(SecurityGroupMemberEntity).countBy({ groupId: group.ID })).toBe(0);
  });

  it('refuses the provider’s tokens once it is disabled', async () => {
    const token = await idp.token({ email: 'ada.lovelace@example.com' });
    await t.http().get('/v4/me').set('Authorization', bearer(token)).expect(200);
    await t.http().patch(`/v4/identityproviders/${providerId}`).set(admin()).send({ Enabled: false }).expect(200);
    await t.http().get('/v4/me').set('Authorization', bearer(token)).expect(401);
  });
});
