import { ADMIN_PASSWORD, ADMIN_USER, startApp, TestApp } from './harness.js';

/**
 * REDIS_URL names a Redis nobody answers on: login throttling fails open (counted per instance
 * again) and says so in the log. Needs no Redis, so it runs in `npm test`; the shared count
 * through a real Redis is test/redis/throttle-redis.redis-spec.ts (`npm run test:redis`).
 */
describe('login throttling when Redis cannot be reached', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startApp({ REDIS_URL: 'redis://127.0.0.1:1', REDIS_PREFIX: 'unused:', LOG_LEVEL: 'warn' });
  });
  afterAll(async () => {
    await t.close();
  });

  it('fails open: logins still work, and the outage is logged', async () => {
    await t.http().post('/v4/auth/token').send({ UserName: ADMIN_USER, Password: 'wrong-password' }).expect(401);
    await t.http().post('/v4/auth/token').send({ UserName: ADMIN_USER, Password: ADMIN_PASSWORD }).expect(200);
    expect(t.logs.some((l) => l.includes('rate-limit store unavailable'))).toBe(true);
  });
});
