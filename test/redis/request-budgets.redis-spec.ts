import { spawn, type ChildProcess } from 'node:child_process';
import { connect, createServer, type AddressInfo } from 'node:net';
import { REDIS_COUNTER_TIMEOUT_MS } from '../../src/auth/counter-store.js';
import { bearer, startApp, TestApp } from '../e2e/harness.js';
import { remaining } from '../e2e/rate-limit-headers.js';
import { createPerson, createSite, TestPerson } from '../factories/index.js';
import { dropPrefix, freshPrefix, REDIS_URL, withRedis, withRedisAt } from './redis-support.js';
import { setTimeout as sleep } from 'node:timers/promises';

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

/**
 * The site's budget and an API token's, each spent across two replicas through Redis: every caller
 * of a site together, and a token apart from the person who made it (docs/limits.md).
 */
describe("a site's and an API token's request budgets shared through Redis", () => {
  const SITE_QUOTA = 12;
  const WINDOW = 60;
  const prefix = freshPrefix();
  let a: TestApp;
  let b: TestApp;
  type Res = { status: number; headers: Record<string, string>; body: Record<string, unknown> };
  const get = (t: TestApp, token: string, path = '/v4/me'): Promise<Res> => t.http().get(path).set('Authorization', bearer(token)) as unknown as Promise<Res>;
  /** What remains after each of the last `n` requests of a budget: n - 1, …, 0. */
  const countdown = (n: number) => Array.from({ length: n }, (_, i) => n - 1 - i);
  const counter = (key: string) => withRedis(async (c) => Number(await c.get(`${prefix}budget:${key}`)));
  beforeAll(async () => {
    const env = {
      REDIS_URL,
      REDIS_PREFIX: prefix,
      RATE_LIMIT_PER_CALLER: String(QUOTA),
      RATE_LIMIT_PER_SITE: String(SITE_QUOTA),
      RATE_LIMIT_WINDOW_SECONDS: String(WINDOW),
    };
    a = await startApp(env);
    b = await startApp({ ...env, DATABASE_URL: a.config.databaseUrl, JWT_SECRET: a.config.jwtSecret });
  });
  afterAll(async () => {
    await Promise.all([a?.close(), b?.close()]);
    await dropPrefix(prefix);
  });

  it("counts one budget for a site's callers across two replicas; the second replica's 429 announces it", async () => {
    const site = await createSite(a);
    const [alice, bob] = [await createPerson(a, site), await createPerson(a, site)];
    // Alice on replica A spends half the site's budget…
    for (let i = 1; i <= SITE_QUOTA / 2; i++) {
      const res = await get(a, alice.token);
      expect(res.status).toBe(200);
      expect(remaining(res.headers.ratelimit)).toMatchObject({ caller: { r: QUOTA - i }, site: { r: SITE_QUOTA - i } });
    }
    // …and Bob, another caller of the site, on replica B counts down the same site budget, not a fresh one.
    const bobs: Res[] = [];
    for (let res = await get(b, bob.token); ; res = await get(b, bob.token)) {
      bobs.push(res);
      if (res.status !== 200) break;
      expect(bobs.length).toBeLessThanOrEqual(SITE_QUOTA);
    }
    expect(bobs.slice(0, -1).map((r) => remaining(r.headers.ratelimit).site.r)).toEqual(countdown(SITE_QUOTA / 2));
    expect(await counter(`site:${site.siteId}`)).toBe(SITE_QUOTA + 1);
    // B refuses once the site's budget is spent, though Bob's own (QUOTA) is not.
    const refused = bobs.at(-1)!;
    expect(refused.status).toBe(429);
    expect(refused.body).toMatchObject({ type: 'urn:pms:problem:too-many-requests', status: 429 });
    expect(String(refused.body.detail)).toContain(`this site (${SITE_QUOTA} requests every ${WINDOW} s)`);
    expect(refused.headers['ratelimit-policy']).toBe(`"caller";q=${QUOTA};w=${WINDOW}, "site";q=${SITE_QUOTA};w=${WINDOW}`);
    const left = remaining(refused.headers.ratelimit);
    expect(Object.keys(left)).toEqual(['caller', 'site']);
    expect(left.caller.r).toBe(QUOTA - bobs.length);
    expect(left.site.r).toBe(0);
    // Retry-After: the seconds until the site's window (started by Alice on A) ends, as `t` announces them.
    const retryAfter = Number(refused.headers['retry-after']);
    expect(retryAfter).toBe(left.site.t);
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(WINDOW);
    // Back on A, Alice is refused too: one site budget, spent on both replicas.
    const aliceAgain = await get(a, alice.token);
    expect(aliceAgain.status).toBe(429);
    expect(remaining(aliceAgain.headers.ratelimit)).toMatchObject({ caller: { r: QUOTA - SITE_QUOTA / 2 - 1 }, site: { r: 0 } });
  });

  it("counts one budget for an API token across two replicas, apart from its maker's", async () => {
    const site = await createSite(a);
    const person = await createPerson(a, site);
    const made = await a.http().post('/v4/apitokens').set('Authorization', bearer(site.admin.token)).send({ Name: 'Feed', Scopes: 'individuals:read' });
    expect(made.status).toBe(200);
    const secret = made.body.Secret as string;
    const path = `/v4/individuals/${person.individualId}`;
    for (let i = 1; i <= QUOTA / 2; i++) {
      const res = await get(a, secret, path);
      expect(res.status).toBe(200);
      expect(remaining(res.headers.ratelimit).caller.r).toBe(QUOTA - i);
    }
    // Replica B goes on counting down the token's budget, then refuses it after QUOTA requests over both.
    const onB: Res[] = [];
    for (let res = await get(b, secret, path); ; res = await get(b, secret, path)) {
      onB.push(res);
      if (res.status !== 200) break;
      expect(onB.length).toBeLessThanOrEqual(QUOTA);
    }
    expect(onB.slice(0, -1).map((r) => remaining(r.headers.ratelimit).caller.r)).toEqual(countdown(QUOTA / 2));
    expect(await counter(`token:${made.body.ID as string}`)).toBe(QUOTA + 1);
    const refused = onB.at(-1)!;
    expect(refused.status).toBe(429);
    expect(String(refused.body.detail)).toContain(`this API token (${QUOTA} requests every ${WINDOW} s)`);
    expect(refused.headers['ratelimit-policy']).toBe(`"caller";q=${QUOTA};w=${WINDOW}, "site";q=${SITE_QUOTA};w=${WINDOW}`);
    expect(remaining(refused.headers.ratelimit).caller.r).toBe(0);
    expect(Number(refused.headers['retry-after'])).toBe(remaining(refused.headers.ratelimit).caller.t);
    expect((await get(a, secret, path)).status).toBe(429);
    // The person who made it has a budget of their own: one request spent on A (the token), this one on B.
    const maker = await get(b, site.admin.token);
    expect(maker.status).toBe(200);
    expect(remaining(maker.headers.ratelimit).caller.r).toBe(QUOTA - 2);
  });
});

/**
 * A Redis that stops answering (here its own redis-server, paused with SIGSTOP): a request waits
 * for its budgets at most REDIS_COUNTER_TIMEOUT_MS, then goes on uncounted, with one warning; once
 * Redis answers again the budgets count again. Needs `redis-server` on the PATH.
 */
describe('request budgets when Redis stalls', () => {
  let redis: ChildProcess;
  let t: TestApp;
  let person: TestPerson;
  beforeAll(async () => {
    const port = await freePort();
    redis = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], { stdio: 'ignore' });
    const url = `redis://127.0.0.1:${port}`;
    for (let i = 0; !(await accepts(port)); i++) {
      if (i > 100) throw new Error('redis-server did not start');
      await sleep(50);
    }
    expect(await withRedisAt(url, (c) => c.ping())).toBe('PONG');
    t = await startApp({ REDIS_URL: url, REDIS_PREFIX: freshPrefix(), RATE_LIMIT_PER_CALLER: String(QUOTA), RATE_LIMIT_PER_SITE: '0', LOG_LEVEL: 'warn' });
    person = await createPerson(t, await createSite(t));
  });
  afterAll(async () => {
    if (redis?.pid) process.kill(redis.pid, 'SIGCONT');
    await t?.close();
    redis?.kill('SIGKILL');
  });

  it('answers within about a second uncounted while Redis is paused, warns once, and counts again after', async () => {
    const me = () => t.http().get('/v4/me').set('Authorization', bearer(person.token));
    const left = (res: { headers: Record<string, string> }) => Number(/"caller";r=(\d+)/.exec(res.headers.ratelimit ?? '')?.[1]);
    expect(left(await me())).toBe(QUOTA - 1);
    process.kill(redis.pid!, 'SIGSTOP');
    const took: number[] = [];
    const answers = [];
    for (let i = 0; i < 3; i++) {
      const started = Date.now();
      answers.push(await me());
      took.push(Date.now() - started);
    }
    expect(answers.map((a) => a.status)).toEqual([200, 200, 200]);
    // Nothing counted: the whole quota announced, the request not held past the bound (1 s, checked every 100 ms).
    expect(answers.map(left)).toEqual([QUOTA, QUOTA, QUOTA]);
    for (const ms of took) {
      expect(ms).toBeGreaterThanOrEqual(REDIS_COUNTER_TIMEOUT_MS - 50);
      expect(ms).toBeLessThan(REDIS_COUNTER_TIMEOUT_MS + 1000);
    }
    expect(t.logs.filter((l) => l.includes(`Redis did not answer within ${REDIS_COUNTER_TIMEOUT_MS} ms`))).toHaveLength(1);
    process.kill(redis.pid!, 'SIGCONT');
    // The paused commands' late answers are dropped; the next request is counted again.
    let after = await me();
    for (let i = 0; i < 20 && left(after) === QUOTA; i++) after = await me();
    expect(after.status).toBe(200);
    expect(left(after)).toBeLessThan(QUOTA);
  });
});

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}
