import { jest } from '@jest/globals';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { COUNTER_STORE, type CounterStore } from '../../src/auth/counter-store.js';
import { CallerResolver } from '../../src/auth/caller-resolver.js';
import { bearer, DB_KIND, startApp, TestApp } from './harness.js';
import { setTimeout as sleep } from 'node:timers/promises';

/**
 * What a client and an operator see when things are slow (issue 13, docs/operations.md): every
 * request is answered by the deadline, readiness answers within 2 s when the database does not,
 * and client addresses come from X-Forwarded-For only when TRUST_PROXY says so.
 * The database-side faults (a killed or stopped MariaDB) are in test/faults.
 */
describe(`request deadline and readiness (${DB_KIND})`, () => {
  let t: TestApp;
  let base: string;
  beforeAll(async () => {
    t = await startApp({ REQUEST_TIMEOUT_MS: '1500', DB_ACQUIRE_TIMEOUT_MS: '300', DB_QUERY_TIMEOUT_MS: '400' });
    await new Promise<void>((resolve) => t.app.getHttpServer().listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(t.app.getHttpServer().address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await t.close();
  });
  afterEach(() => {
    jest.restoreAllMocks();
  });

  /** One GET on a keep-alive agent: status, headers, body and how long it took. */
  function get(path: string, agent: http.Agent, headers: Record<string, string> = {}) {
    const started = Date.now();
    return new Promise<{ status: number; headers: http.IncomingHttpHeaders; body: string; ms: number; socket: unknown }>((resolve, reject) => {
      const req = http.get(`${base}${path}`, { agent, headers }, (res) => {
        let body = '';
        res.on('data', (d) => (body += d));
        res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body, ms: Date.now() - started, socket: req.socket }));
      });
      req.on('error', reject);
    });
  }

  it('answers a request stuck past REQUEST_TIMEOUT_MS with 503 + Retry-After, and the late answer breaks nothing', async () => {
    const resolver = t.app.get(CallerResolver);
    const resolve = resolver.resolve.bind(resolver);
    // The caller lookup (a database read on every request) hangs for 3 s.
    jest.spyOn(resolver, 'resolve').mockImplementationOnce(async (...args) => {
      await sleep(3000);
      return resolve(...args);
    });
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    try {
      const slow = await get('/v4/sites', agent, { Authorization: bearer(t.adminToken), Accept: 'application/xml' });
      expect(slow.status).toBe(503);
      expect(slow.ms).toBeGreaterThanOrEqual(1450);
      expect(slow.ms).toBeLessThan(2500);
      expect(slow.headers['retry-after']).toBe('5');
      expect(slow.headers['content-type']).toBe('application/problem+xml; charset=utf-8');
      expect(slow.body).toContain('<type>urn:pms:problem:service-unavailable</type>');
      expect(slow.body).toContain('did not complete within 1500 ms');

      // The handler finishes later; its answer is dropped without an error, and the same
      // keep-alive connection serves the next request normally.
      await sleep(1800);
      // (A 5xx is logged at level error by the access log; nothing else may be.)
      const next = await get('/v4/sites', agent, { Authorization: bearer(t.adminToken) });
      expect(next.status).toBe(200);
      expect(next.socket).toBe(slow.socket);
      expect(t.logs.filter((l) => /ERR_HTTP_HEADERS_SENT|"level":"error"/.test(l) && !l.includes('"context":"http"'))).toEqual([]);
    } finally {
      agent.destroy();
    }
  });

  it('gives a route found by the route table its deadline, and keeps the connection for the next request', async () => {
    const resolver = t.app.get(CallerResolver);
    const resolve = resolver.resolve.bind(resolver);
    // The caller lookup takes 2 s: past the 1.5 s deadline.
    const slowly = async (...args: Parameters<typeof resolve>) => {
      await sleep(2000);
      return resolve(...args);
    };
    jest.spyOn(resolver, 'resolve').mockImplementationOnce(slowly);
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    try {
      const missing = await get('/v4/individuals/00000000-0000-4000-8000-00000000dead', agent, { Authorization: bearer(t.adminToken) });
      expect(missing.status).toBe(503);
      expect(missing.ms).toBeGreaterThanOrEqual(1450);
      expect(missing.ms).toBeLessThan(2000);
      expect(missing.headers['x-request-id']).toBeTruthy();
      await sleep(700);
      const next = await get('/v4/individuals/00000000-0000-4000-8000-00000000dead', agent, { Authorization: bearer(t.adminToken) });
      expect(next.status).toBe(404);
      expect(next.socket).toBe(missing.socket);
    } finally {
      agent.destroy();
    }
  });

  it('answers /health/ready 503 within 2 s when the database does not answer a ping within 1 s, and 200 again when it does', async () => {
    const agent = new http.Agent({ keepAlive: false });
    jest.spyOn(t.ds, 'query').mockImplementation(() => new Promise(() => undefined));
    const stalled = await get('/health/ready', agent);
    expect(stalled.status).toBe(503);
    expect(stalled.ms).toBeGreaterThanOrEqual(950);
    expect(stalled.ms).toBeLessThan(2000);
    expect(stalled.headers['retry-after']).toBeDefined();
    expect(JSON.parse(stalled.body)).toMatchObject({ status: 503, detail: 'The database does not answer' });
    // Liveness does not depend on the database.
    expect((await get('/health/live', agent)).status).toBe(200);

    jest.restoreAllMocks();
    expect((await get('/health/ready', agent)).status).toBe(200);
  });
});

describe('client address behind proxies (TRUST_PROXY)', () => {
  const failLogin = (t: TestApp, forwardedFor: string) =>
    t.http().post('/v4/auth/token').set('X-Forwarded-For', forwardedFor).send({ UserName: 'nobody-at-all', Password: 'wrong-password' }).expect(401);
  const addressCount = async (t: TestApp, ip: string) => (await t.app.get<CounterStore>(COUNTER_STORE).peek(`login:a:${ip}`))?.count ?? 0;

  it('by default ignores X-Forwarded-For: rotating it does not escape the per-address login limit', async () => {
    const t = await startApp();
    try {
      for (let i = 1; i <= 5; i++) await failLogin(t, `203.0.113.${i}`);
      for (let i = 1; i <= 5; i++) expect(await addressCount(t, `203.0.113.${i}`)).toBe(0);
      // All five failures count against the one real (socket) address.
      const socketAddress = ['::ffff:127.0.0.1', '127.0.0.1', '::1'];
      const counts = await Promise.all(socketAddress.map((a) => addressCount(t, a)));
      expect(counts.reduce((a, b) => a + b, 0)).toBe(5);
    } finally {
      await t.close();
    }
  });

  it('with TRUST_PROXY naming the proxy network, takes the address the proxy forwards', async () => {
    const t = await startApp({ TRUST_PROXY: '127.0.0.0/8, ::1/128' });
    try {
      await failLogin(t, '198.51.100.7');
      expect(await addressCount(t, '198.51.100.7')).toBe(1);
    } finally {
      await t.close();
    }
  });
});
