import { createPerson, createSite } from '../factories/index.js';
import { bearer, startApp, type TestApp } from '../e2e/harness.js';
import { dropPrefix, freshPrefix, REDIS_URL } from './redis-support.js';
import { setTimeout as sleep } from 'node:timers/promises';

/**
 * SCIM deactivation across replicas (docs/identity.md, "Deactivation"): two instances of the
 * service on one database, sharing invalidations through Redis, each keeping resolved callers for
 * a minute (CALLER_CACHE_MS=60000, so only the invalidation can explain a refusal). A person's
 * token is in use on replica B; provisioning deactivates them through replica A; B refuses the
 * token within a second, and a password login on B is refused too. Needs Redis
 * (TEST_REDIS_URL, default 127.0.0.1:6379): `npm run test:redis`.
 */
describe('SCIM deactivation on every replica', () => {
  let a: TestApp;
  let b: TestApp;
  // Its own keys, dropped at the end: the refused login below leaves login-throttle counters.
  const prefix = freshPrefix();
  beforeAll(async () => {
    const shared = { REDIS_URL, REDIS_PREFIX: prefix, CALLER_CACHE_MS: '60000' };
    a = await startApp(shared);
    b = await startApp({ ...shared, DATABASE_URL: a.config.databaseUrl, JWT_SECRET: a.config.jwtSecret });
  });
  afterAll(async () => {
    await b?.close();
    await a?.close();
    await dropPrefix(prefix);
  });

  it('refuses the person’s token on the other replica within a second of active: false', async () => {
    const site = await createSite(a);
    const person = await createPerson(a, site);
    const scim = (await a.http().post('/v4/apitokens').set('Authorization', bearer(site.admin.token)).send({ Name: 'IdP', Scopes: 'scim' }).expect(200)).body
      .Secret as string;
    // B has resolved the person's caller and keeps it for a minute.
    await b.http().get('/v4/me').set('Authorization', bearer(person.token)).expect(200);

    await a
      .http()
      .patch(`/scim/v2/Users/${person.individualId}`)
      .set('Authorization', bearer(scim))
      .set('Content-Type', 'application/scim+json')
      .send(JSON.stringify({ schemas: ['urn:ietf:params:scim:api:messages:2.0:PatchOp'], Operations: [{ op: 'replace', value: { active: false } }] }))
      .expect(200);
    const done = Date.now();
    let status = 200;
    while (Date.now() - done < 1000) {
      status = (await b.http().get('/v4/me').set('Authorization', bearer(person.token))).status;
      if (status === 401) break;
      await sleep(20);
    }
    expect({ status, withinOneSecond: Date.now() - done < 1000 }).toEqual({ status: 401, withinOneSecond: true });
    await b.http().post('/v4/auth/token').send({ UserName: person.userName, Password: person.password }).expect(401);
  });
});
