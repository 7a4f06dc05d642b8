import { buildWorld, World } from '../factories/world.js';
import { ADMIN_PASSWORD, ADMIN_USER, bearer, startApp, TestApp } from './harness.js';
import { bodyFor, callRoute, missingCases, paramsFor, ROUTE_CASES } from './route-cases.js';
import { AppRoute, listRoutes } from './routes.js';

/**
 * The roles matrix: every route of the app (test/e2e/routes.ts), called as its line in
 * its feature's cases file says (test/e2e/route-cases.ts), by six kinds of caller, each on the records of their own site. The
 * statuses must keep the invariants of the route's declared rule, and the whole table is a
 * snapshot, so a change of who may call what shows as a diff.
 */
interface Caller {
  name: string;
  /** The caller's column heading in the snapshot. */
  column: string;
  /** Bearer token; none for the anonymous caller. */
  token?: string;
  /** The site whose records the caller calls the routes on. */
  world: World;
}

interface Outcome {
  status: number;
  /** The problem type of an error answer. */
  type?: string;
}

const ADMIN_RULES = ['admin', 'pm+admin'];
const PM_RULES = ['pm', 'pm+admin'];

describe('roles matrix: every route × every kind of caller', () => {
  let t: TestApp;
  let callers: Caller[];
  let routes: AppRoute[];
  /** Outcomes per route key, in the order of `callers`. */
  const table = new Map<string, Outcome[]>();

  beforeAll(async () => {
    t = await startApp();
    const site = await buildWorld(t, 'Alpha');
    const pmOff = await buildWorld(t, 'Charlie');
    await t
      .http()
      .put(`/v4/sites/${pmOff.siteId}`)
      .set('Authorization', bearer(t.adminToken))
      .send({ ID: pmOff.siteId, Name: `${pmOff.tag} site`, PerformanceManagement: false })
      .expect(200);
    const globalAdmin = await t.http().post('/v4/auth/token').send({ UserName: ADMIN_USER, Password: ADMIN_PASSWORD, SiteID: site.siteId }).expect(200);
    callers = [
      { name: 'anonymous', column: 'anon', world: site },
      { name: 'member', column: 'member', token: site.peer.token, world: site },
      { name: 'manager', column: 'manager', token: site.manager.token, world: site },
      { name: 'site admin', column: 'siteAdmin', token: site.admin.token, world: site },
      { name: 'global admin', column: 'global', token: globalAdmin.body.access_token, world: site },
      { name: 'PM-off member', column: 'pmOff', token: pmOff.peer.token, world: pmOff },
    ];
    routes = listRoutes(t.app).filter((r) => ROUTE_CASES[r.key]);
    for (const r of routes) {
      const outcomes: Outcome[] = [];
      for (const who of callers) outcomes.push(await call(r, who));
      table.set(r.key, outcomes);
    }
  }, 600_000); // every route × six callers (over 2,000 calls): 150 s on MariaDB on a loaded machine
  afterAll(async () => {
    await t.close();
  });

  /** One call of the route by the caller, on their site's records (fresh ones where the call uses its record up). */
  async function call(r: AppRoute, who: Caller): Promise<Outcome> {
    const c = ROUTE_CASES[r.key];
    // The guard answers before any record is read: no need to make one.
    const guardFirst = (!who.token && r.rule !== 'public') || (who.name === 'PM-off member' && PM_RULES.includes(r.rule));
    const p = guardFirst ? (c.params?.(who.world) ?? {}) : await paramsFor(t, c, who.world);
    const res = await callRoute(t, r, p, { token: who.token, body: bodyFor(r, who.world, p) });
    return { status: res.status, type: (res.body as { type?: string } | undefined)?.type };
  }
  const outcome = (r: AppRoute, caller: string) => table.get(r.key)![callers.findIndex((c) => c.name === caller)];

  it('has a case for every route of the app', () => {
    expect(missingCases(listRoutes(t.app))).toEqual([]);
    expect(table.size).toBeGreaterThan(150);
  });

  it('keeps the invariants of each route’s declared rule, and never answers 500', () => {
    const broken: string[] = [];
    const expect_ = (ok: boolean, r: AppRoute, caller: string, what: string) => {
      if (!ok) broken.push(`${r.key} (${r.rule}) as ${caller}: ${outcome(r, caller).status} ${outcome(r, caller).type ?? ''}, but ${what}`);
    };
    for (const r of routes) {
      for (const who of callers) expect_(outcome(r, who.name).status < 500, r, who.name, 'no route may answer 5xx');
      if (r.rule !== 'public') expect_(outcome(r, 'anonymous').status === 401, r, 'anonymous', 'a non-public route needs a token (401)');
      if (ADMIN_RULES.includes(r.rule)) {
        for (const caller of ['member', 'manager']) expect_(outcome(r, caller).status === 403, r, caller, 'an admin route refuses non-administrators (403)');
        for (const caller of ['site admin', 'global admin'])
          expect_(![401, 403].includes(outcome(r, caller).status), r, caller, 'administrators may call admin routes of their site');
      }
      if (PM_RULES.includes(r.rule)) {
        const o = outcome(r, 'PM-off member');
        expect_(o.status === 403 && /pm-disabled$/.test(o.type ?? ''), r, 'PM-off member', 'a PM route answers 403 pm-disabled on a site without PM');
      }
      if (r.rule === 'scim') {
        // SCIM takes an API token with the scope scim: no person, administrator or not (docs/identity.md).
        for (const who of callers.filter((c) => c.token)) expect_(outcome(r, who.name).status === 403, r, who.name, 'a SCIM route refuses every person (403)');
      }
      if (r.rule === 'global-admin') {
        expect_(outcome(r, 'site admin').status === 403, r, 'site admin', 'a global-admin route refuses site administrators (403)');
        expect_(![401, 403].includes(outcome(r, 'global admin').status), r, 'global admin', 'a global administrator may call it');
      }
    }
    expect(broken).toEqual([]);
  });

  it('prints who may call what (a change shows as a diff of this snapshot)', () => {
    const cell = (s: string) => s.padEnd(10);
    const lines = [`${'route'.padEnd(86)} ${'rule'.padEnd(14)}${callers.map((c) => cell(c.column)).join('')}`.trimEnd()];
    for (const r of routes)
      lines.push(
        `${r.method.padEnd(6)} ${r.path.padEnd(79)} ${r.rule.padEnd(14)}${table
          .get(r.key)!
          .map((o) => cell(String(o.status)))
          .join('')}`.trimEnd(),
      );
    expect(lines.join('\n')).toMatchSnapshot();
  });
});
