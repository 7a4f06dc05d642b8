import { IP_FAILURE_LIMIT, USER_FAILURE_LIMIT } from '../../src/auth/login-throttle.js';
import { createPerson, createSite, type TestPerson } from '../factories/index.js';
import { startApp, type TestApp } from '../e2e/harness.js';

/**
 * Issue 46, row 9: behind a proxy that is not trusted every person shares one address, so an
 * address's failed logins must slow that address without refusing anyone's correct password —
 * while a user name is still locked after its own failures (docs/security.md, "Throttling without
 * lockout"). Every request here comes from the one address 127.0.0.1.
 */
describe('attack: locking a whole company out through its shared address', () => {
  let t: TestApp;
  let victim: TestPerson;
  let target: TestPerson;

  beforeAll(async () => {
    t = await startApp();
    const site = await createSite(t);
    victim = await createPerson(t, site);
    target = await createPerson(t, site);
  });
  afterAll(async () => {
    await t.close();
  });

  const login = (UserName: string, Password: string, xml = false) =>
    xml
      ? t
          .http()
          .post('/v4/auth/token')
          .set('Content-Type', 'application/xml')
          .set('Accept', 'application/xml')
          .send(`<TokenRequest xmlns="urn:pms:v4"><Password>${Password}</Password><UserName>${UserName}</UserName></TokenRequest>`)
      : t.http().post('/v4/auth/token').send({ UserName, Password });

  it('slows the address past its limit (429, Retry-After at most 2 s) but signs in a correct password of anyone not locked, JSON and XML', async () => {
    // Past the limit by a few (each slowed failure waits a second before its 429).
    const statuses: number[] = [];
    let retryAfter = 0;
    for (let i = 0; i < IP_FAILURE_LIMIT + 3; i++) {
      const res = await login(`nobody-${i}`, 'wrong-password');
      statuses.push(res.status);
      if (res.status === 429) retryAfter = Math.max(retryAfter, Number(res.headers['retry-after']));
    }
    expect(statuses.slice(0, IP_FAILURE_LIMIT).every((s) => s === 401)).toBe(true);
    expect(statuses.slice(IP_FAILURE_LIMIT)).toEqual([429, 429, 429]);
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(2);
    // The company's people still sign in from the same address.
    expect((await login(victim.userName, victim.password)).status).toBe(200);
    expect((await login(victim.userName, victim.password, true)).status).toBe(200);
    // A wrong password from the slowed address is still answered 429 (never a 200 for a guess).
    expect((await login(victim.userName, 'wrong-password')).status).toBe(429);
  });

  it('still locks a user name after its own failures, whatever the password', async () => {
    for (let i = 0; i < USER_FAILURE_LIMIT; i++) await login(target.userName, `wrong-${i}`);
    const locked = await login(target.userName, target.password);
    expect(locked.status).toBe(429);
    expect(Number(locked.headers['retry-after'])).toBeGreaterThan(60);
  });
});
