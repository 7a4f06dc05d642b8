import { ADMIN_PASSWORD, ADMIN_USER, startApp, TestApp } from '../e2e/harness.js';
import { dropPrefix, freshPrefix, REDIS_URL } from './redis-support.js';

/**
 * With REDIS_URL set, login failures are counted in Redis, so instances behind a load balancer
 * share one count. Needs a Redis server (TEST_REDIS_URL, default 127.0.0.1:6379; keys under a
 * prefix of its own): `npm run test:redis`, which .ci/run runs after starting Redis when it is
 * not running. The fail-open case without Redis is in test/e2e/throttle-redis-down.e2e-spec.ts.
 */
describe('login throttling shared through Redis', () => {
  const prefix = freshPrefix();
  let a: TestApp;
  let b: TestApp;
  beforeAll(async () => {
    a = await startApp({ REDIS_URL, REDIS_PREFIX: prefix });
    b = await startApp({ REDIS_URL, REDIS_PREFIX: prefix });
  });
  afterAll(async () => {
    await Promise.all([a?.close(), b?.close()]);
    await dropPrefix(prefix);
  });

  it('locks a user name after 10 failures spread over two instances', async () => {
    for (let i = 0; i < 5; i++)
      await a
        .http()
        .post('/v4/auth/token')
        .send({ UserName: ADMIN_USER, Password: `bad-a-${i}-x` })
        .expect(401);
    for (let i = 0; i < 4; i++)
      await b
        .http()
        .post('/v4/auth/token')
        .send({ UserName: ADMIN_USER, Password: `bad-b-${i}-x` })
        .expect(401);
    const tenth = await a.http().post('/v4/auth/token').send({ UserName: ADMIN_USER, Password: 'bad-last-x' }).expect(429);
    expect(Number(tenth.headers['retry-after'])).toBeGreaterThan(800);
    await b.http().post('/v4/auth/token').send({ UserName: ADMIN_USER, Password: ADMIN_PASSWORD }).expect(429);
  });
});
