import type { RecordingExpressAdapter } from '../../src/http/pipeline/route-table.js';
import { buildWorld, World } from '../factories/world.js';
import { bearer, startApp, TestApp } from './harness.js';
import { bodyFor, paramsFor, restoringAccounts, ROUTE_CASES } from './route-cases.js';
import { AppRoute, fillPath, listRoutes } from './routes.js';

/**
 * The front door finds every route in its route table and runs the handler Nest built for it
 * (docs/architecture.md, "How a request runs"); with ROUTE_TABLE=off, Express's router finds the
 * same handler. Every route of the app is called both ways, as its line in route-cases.ts says:
 * anonymously, and as the site's administrator in JSON and (for reads) XML. The answers must be
 * the same — status, body and every header but Date and what remains of the request budgets; for a write that succeeds (which changes the
 * records, so the second call cannot see what the first saw), the status and header names. The
 * table must really serve: every call with it on is dispatched by it, none with it off.
 */
describe('the route table answers every route exactly as Express’s router', () => {
  let t: TestApp;
  let w: World;
  let routes: AppRoute[];
  let adapter: RecordingExpressAdapter;

  beforeAll(async () => {
    t = await startApp();
    w = await buildWorld(t, 'Diff');
    routes = listRoutes(t.app);
    adapter = t.app.getHttpAdapter() as unknown as RecordingExpressAdapter;
  }, 120_000);
  afterAll(() => t?.close());

  interface Answer {
    status: number;
    text: string;
    headers: Record<string, string>;
    routed: number;
  }

  async function send(r: AppRoute, path: string, body: object | undefined, opts: { token?: string; accept: string }, table: boolean): Promise<Answer> {
    t.config.routeTable = table;
    const before = adapter.table!.routed;
    const agent = t.http();
    const methods = { GET: agent.get, PUT: agent.put, PATCH: agent.patch, POST: agent.post, DELETE: agent.delete };
    let req = methods[r.method as keyof typeof methods].bind(agent)(path).set('Accept', opts.accept).set('X-Request-Id', 'route-table-probe');
    if (opts.token) req = req.set('Authorization', bearer(opts.token));
    if (body !== undefined) req = r.method === 'PATCH' ? req.set('Content-Type', 'application/merge-patch+json').send(JSON.stringify(body)) : req.send(body);
    const res = await req;
    const headers = { ...res.headers } as Record<string, string>;
    delete headers.date;
    // The instant a dashboard's figures are as of (the moment of the answer, like Date).
    delete headers['dashboard-as-of'];
    // What remains of the request budgets counts down with every request (docs/limits.md); its
    // policy (RateLimit-Policy) is compared, and the names of the headers below.
    const budget = headers.ratelimit;
    delete headers.ratelimit;
    if (budget !== undefined) headers['ratelimit (present)'] = 'yes';
    return { status: res.status, text: res.text, headers, routed: adapter.table!.routed - before };
  }

  const pathOf = (r: AppRoute, p: Record<string, string>) => {
    const query = ROUTE_CASES[r.key]?.query?.(p);
    return fillPath(r.path, p) + (query ? `?${new URLSearchParams(query).toString()}` : '');
  };

  it('has every controller route in the table', () => {
    expect(adapter.table!.size).toBe(routes.length);
    expect(routes.length).toBeGreaterThan(200);
  });

  it('answers every route the same with the table on and off', async () => {
    const differences: string[] = [];
    let compared = 0;
    let successes = 0;
    for (const r of routes) {
      const c = ROUTE_CASES[r.key];
      if (!c) {
        differences.push(`${r.key}: no case in route-cases.ts`);
        continue;
      }
      const calls: { token?: string; accept: string }[] = [
        { accept: 'application/json' },
        { token: w.admin.token, accept: 'application/json' },
        ...(r.method === 'GET' ? [{ token: w.admin.token, accept: 'application/xml' }] : []),
      ];
      for (const call of calls) {
        // A call that uses its record up gets a record of its own each way.
        const pOn = call.token ? await paramsFor(t, c, w) : (c.params?.(w) ?? {});
        const pOff = call.token && c.fresh ? await paramsFor(t, c, w) : pOn;
        // A call that ends the caller's tokens (logout everywhere) puts the accounts back after it.
        const sent = (p: Record<string, string>, table: boolean) => send(r, pathOf(r, p), call.token ? bodyFor(r, w, p) : undefined, call, table);
        const guarded = (p: Record<string, string>, table: boolean) => (c.endsCallerTokens ? restoringAccounts(t, () => sent(p, table)) : sent(p, table));
        const on = await guarded(pOn, true);
        const off = await guarded(pOff, false);
        compared++;
        const what = `${r.key} ${call.token ? 'admin' : 'anonymous'} ${call.accept}`;
        if (on.routed !== 1 || off.routed !== 0) differences.push(`${what}: dispatched ${on.routed}/${off.routed} times by the table (on/off)`);
        const wrote = r.method !== 'GET' && on.status < 300;
        if (wrote || pOn !== pOff) {
          if (on.status !== off.status || Object.keys(on.headers).sort().join() !== Object.keys(off.headers).sort().join())
            differences.push(`${what}: ${on.status} [${Object.keys(on.headers).sort().join()}] vs ${off.status} [${Object.keys(off.headers).sort().join()}]`);
        } else if (JSON.stringify(on) !== JSON.stringify({ ...off, routed: on.routed })) {
          differences.push(`${what}: ${on.status} ${on.text.slice(0, 200)} vs ${off.status} ${off.text.slice(0, 200)}`);
        }
        if (on.status < 300) successes++;
      }
    }
    expect(differences).toEqual([]);
    expect(compared).toBe(2 * routes.length + routes.filter((r) => r.method === 'GET').length);
    // Most calls as administrator succeed: the comparison is of real answers, not only of refusals.
    expect(successes).toBeGreaterThan(routes.length);
  }, 300_000);

  it('leaves to Express what the table does not hold: another method, a double slash, percent-encoding, other paths', async () => {
    const probes: [string, string, number][] = [
      ['DELETE', '/v4/individuals', 405],
      ['GET', `//v4//individuals/${w.ids.individual}`, 404],
      ['GET', `/v4/individuals/${encodeURIComponent(w.ids.individual)}%20`, 400],
      ['GET', '/v4/no-such-resource', 404],
      ['GET', '/docs/openapi.json', 200],
    ];
    for (const [method, path, status] of probes) {
      t.config.routeTable = true;
      const before = adapter.table!.routed;
      const res = await (method === 'GET' ? t.http().get(path) : t.http().delete(path)).set('Authorization', bearer(w.admin.token));
      expect([method, path, res.status, adapter.table!.routed - before]).toEqual([method, path, status, 0]);
    }
    t.config.routeTable = true;
    const before = adapter.table!.routed;
    const upper = await t.http().get(`/V4/Individuals/${w.ids.individual}/`).set('Authorization', bearer(w.admin.token)).expect(200);
    expect([upper.body.ID, adapter.table!.routed - before]).toEqual([w.ids.individual, 1]);
  });
});
