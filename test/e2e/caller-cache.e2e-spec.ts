import { bearer, startApp, TestApp } from './harness.js';
import { createPerson, createSite, TestPerson, TestSite } from '../factories/index.js';
import { setTimeout as sleep } from 'node:timers/promises';

/** How many times `fn` made the app read a caller (the users-joined query) from the database. */
async function countCallerQueries(t: TestApp, fn: () => Promise<unknown>): Promise<number> {
  let n = 0;
  const original = t.ds.logger.logQuery.bind(t.ds.logger);
  t.ds.logger.logQuery = (query, ...rest) => {
    if (/\bFROM\s+[`"]?users[`"]?\s+[`"]?u[`"]?\s/i.test(query)) n++;
    return original(query, ...rest);
  };
  try {
    await fn();
  } finally {
    t.ds.logger.logQuery = original;
  }
  return n;
}

/**
 * A burst within the bound reads the caller once. Its own app with a bound no burst can outlast:
 * with the 400 ms bound below, five requests on a loaded CI machine took longer than the bound and
 * the caller was (rightly) read twice.
 */
describe('caller cache, a burst', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startApp({ CALLER_CACHE_MS: '60000' });
  });
  afterAll(() => t?.close());

  it('reads the caller once for a burst of requests with the same token', async () => {
    const site = await createSite(t);
    const person = await createPerson(t, site);
    const reads = await countCallerQueries(t, async () => {
      for (let i = 0; i < 5; i++) await t.http().get('/v4/me').set('Authorization', bearer(person.token)).expect(200);
    });
    expect(reads).toBe(1);
  });
});

/**
 * The caller behind a token is read once and reused for CALLER_CACHE_MS (here 400 ms). Changes
 * made through this instance apply to the next request; changes this instance cannot see (another
 * replica, a DBA's UPDATE — simulated with raw SQL, which bypasses the data layer) apply once the
 * bound has passed.
 */
describe('caller cache', () => {
  const BOUND_MS = 400;
  let t: TestApp;
  let site: TestSite;
  let boss: TestPerson;

  beforeAll(async () => {
    t = await startApp({ CALLER_CACHE_MS: String(BOUND_MS) });
    site = await createSite(t);
    boss = await createPerson(t, site, { isAdmin: true });
  });
  afterAll(() => t?.close());

  // An administrator gets 400 for an empty body; anyone else 403 before the body is looked at.
  const adminProbe = (token: string) => t.http().post('/v4/periods').set('Authorization', bearer(token)).send({});

  it('applies a demotion made through the API to the very next request', async () => {
    const admin = await createPerson(t, site, { isAdmin: true });
    await adminProbe(admin.token).expect(400);
    const me = (await t.http().get(`/v4/individuals/${admin.individualId}`).set('Authorization', bearer(boss.token)).expect(200)).body;
    await t
      .http()
      .put(`/v4/individuals/${admin.individualId}`)
      .set('Authorization', bearer(boss.token))
      .send({ ...me, IsAdmin: false, Password: null })
      .expect(200);
    await adminProbe(admin.token).expect(403);
  });

  it('applies a deletion made through the API to the very next request', async () => {
    const person = await createPerson(t, site);
    await t.http().get('/v4/me').set('Authorization', bearer(person.token)).expect(200);
    await t.http().delete(`/v4/individuals/${person.individualId}`).set('Authorization', bearer(boss.token)).expect(200);
    await t.http().get('/v4/me').set('Authorization', bearer(person.token)).expect(401);
  });

  it('applies a change this instance did not make within CALLER_CACHE_MS', async () => {
    const admin = await createPerson(t, site, { isAdmin: true });
    await adminProbe(admin.token).expect(400);
    await t.ds.query('UPDATE individuals SET is_admin = ? WHERE id = ?', [false, admin.individualId]);
    // Still the cached caller right away (this is the bound operators are told about)…
    await adminProbe(admin.token).expect(400);
    await sleep(BOUND_MS + 100);
    // …and the stored one once it has passed.
    await adminProbe(admin.token).expect(403);
    await t.ds.query('UPDATE individuals SET deleted = ? WHERE id = ?', [true, admin.individualId]);
    await sleep(BOUND_MS + 100);
    await t.http().get('/v4/me').set('Authorization', bearer(admin.token)).expect(401);
  });
});
