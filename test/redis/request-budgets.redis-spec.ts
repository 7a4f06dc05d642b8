import { bearer, startApp, TestApp } from '../e2e/harness.js';
import { createPerson, createSite, TestPerson } from '../factories/index.js';
import { dropPrefix, freshPrefix, REDIS_URL, withRedis } from './redis-support.js';

/**
 * With REDIS_URL set, the request budgets (docs/limits.md) are counted in Redis: two replicas
 * behind a balancer spend one budget, so a caller cannot double its quota by landing on both.
 * Needs a Redis server (TEST_REDIS_URL, default 127.0.0.1:6379; keys under a prefix of its own).
 */
const QUOTA = 8;

describe('request budgets shared through Redis', () => {
  const prefix = freshPrefix();
  let a: TestApp;
  let b: TestApp;
  let person: TestPerson;
  beforeAll(async () => {
    const env = { REDIS_URL, REDIS_PREFIX: prefix, RATE_LIMIT_PER_CALLER: String(QUOTA), RATE_LIMIT_PER_SITE: '0' };
    a = await startApp(env);
    // The second replica: the first one's database and token secret, as replicas behind a balancer.
    b = await startApp({ ...env, DATABASE_URL: a.config.databaseUrl, JWT_SECRET: a.config.jwtSecret });
    person = await createPerson(a, await createSite(a));
  });
  afterAll(async () => {
    await Promise.all([a?.close(), b?.close()]);
    await dropPrefix(prefix);
  });

  it('counts one budget for a caller across two replicas, and refuses on both once it is spent', async () => {
    const me = (t: TestApp) => t.http().get('/v4/me').set('Authorization', bearer(person.token));
    const left = (res: { headers: Record<string, string> }) => Number(/"caller";r=(\d+)/.exec(res.headers.ratelimit ?? '')?.[1]);
    const seen: number[] = [];
    for (let i = 0; i < QUOTA / 2; i++) {
      const onA = await me(a);
      expect(onA.status).toBe(200);
      seen.push(left(onA));
      const onB = await b.http().get('/health/live');
      expect(onB.status).toBe(200);
    }
    // a's requests counted down by one each; b's probe spent nothing.
    expect(seen).toEqual([QUOTA - 1, QUOTA - 2, QUOTA - 3, QUOTA - 4]);
    expect(await client()).toEqual(QUOTA / 2);
    // The same caller on the other replica goes on counting down the same budget…
    const fromB = await me(b);
    expect(fromB.status).toBe(200);
    expect(left(fromB)).toBe(QUOTA / 2 - 1);
    let last = fromB;
    while (last.status === 200) last = await me(a);
    // …so the quota is spent after QUOTA requests over both, not 2 × QUOTA, and both refuse.
    expect(await client()).toBe(QUOTA + 1);
    expect(last.status).toBe(429);
    const refusedB = await me(b);
    expect(refusedB.status).toBe(429);
    expect(Number(refusedB.headers['retry-after'])).toBeGreaterThanOrEqual(1);
  });

  /** The person's budget counter as Redis holds it. */
  function client(): Promise<number> {
    return withRedis(async (c) => Number(await c.get(`${prefix}budget:user:${person.userId}`)));
  }
});
