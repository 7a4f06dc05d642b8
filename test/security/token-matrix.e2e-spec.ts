import { scopeFor, scopeGranted } from '../../src/auth/api-token.js';
import { buildWorld, type World } from '../factories/world.js';
import { bearer, startApp, type TestApp } from '../e2e/harness.js';
import { bodyFor, callRoute, missingCases, paramsFor, ROUTE_CASES } from '../e2e/route-cases.js';
import { type AppRoute, fillPath, listRoutes } from '../e2e/routes.js';

/**
 * The generated check of deliverable 9 (docs/security.md, "How it is proven"): every route of the
 * app (read from the same metadata the guard reads) is called by the integration actors — API
 * tokens of several scopes and a SCIM client — and what each gets must be what the route's
 * declared access rule and the scope rules say, computed here from the declarations, not listed
 * by hand:
 *
 * - a SCIM route: only a token holding `scim` passes the guard; every other token is 403;
 * - a global administrator's route: 403 to every token (no token is a global administrator);
 * - any other route: the scope it needs (scopeFor, from method and path) is held → the guard lets
 *   it through (not 401/403); not held, or a path no token may use (credentials) → 403
 *   insufficient-scope;
 * - never a 5xx.
 *
 * A route with no case (its feature's cases file, test/e2e/route-cases.ts) fails the first test by name, so a new route
 * cannot skip this matrix (nor the roles and tenancy matrices, which read the same cases).
 */
const ACTORS = ['*:read', '*:write', 'goals:read', 'individuals:write', 'scim'] as const;
type Actor = (typeof ACTORS)[number];

describe('attack matrix: every route × every integration actor', () => {
  let t: TestApp;
  let w: World;
  let routes: AppRoute[];
  const tokens = {} as Record<Actor, string>;
  interface Outcome {
    actor: Actor;
    /** The path called (with the case's parameters), from which the needed scope is worked out. */
    path: string;
    /** The body carries a privilege-bearing field (IsAdmin true, a Password): it also needs the scope admin. */
    privileged: boolean;
    status: number;
    type?: string;
  }
  const outcomes = new Map<string, Outcome[]>();

  beforeAll(async () => {
    t = await startApp({ EGRESS_ALLOW_PRIVATE: 'true', WEBHOOKS: 'off' });
    w = await buildWorld(t, 'Matrix');
    for (const scopes of ACTORS) {
      tokens[scopes] = (
        await t.http().post('/v4/apitokens').set('Authorization', bearer(w.admin.token)).send({ Name: scopes, Scopes: scopes }).expect(200)
      ).body.Secret;
    }
    routes = listRoutes(t.app).filter((r) => ROUTE_CASES[r.key] && r.rule !== 'public');
    for (const r of routes) {
      const row: Outcome[] = [];
      for (const actor of ACTORS) {
        const c = ROUTE_CASES[r.key];
        const p = await paramsFor(t, c, w);
        const body = bodyFor(r, w, p);
        const res = await callRoute(t, r, p, { token: tokens[actor], body });
        const privileged = !!body && (body.IsAdmin === true || (typeof body.Password === 'string' && body.Password !== ''));
        row.push({ actor, path: fillPath(r.path, p), privileged, status: res.status, type: (res.body as { type?: string } | undefined)?.type });
      }
      outcomes.set(r.key, row);
    }
  }, 300_000);
  afterAll(async () => {
    await t.close();
  });

  it('has a case for every route of the app', () => {
    expect(missingCases(listRoutes(t.app))).toEqual([]);
    expect(outcomes.size).toBeGreaterThan(150);
    // The privilege rule is exercised too (a create with a Password, at least).
    expect([...outcomes.values()].flat().filter((o) => o.privileged).length).toBeGreaterThan(0);
  });

  it('answers each actor what the route’s declared rule and the scope rules say, and never 5xx', () => {
    const wrong: string[] = [];
    let allowed = 0;
    let refused = 0;
    for (const r of routes) {
      for (const o of outcomes.get(r.key)!) {
        const needed = scopeFor(r.method, o.path);
        const scopes = [o.actor];
        // A body that sets a privilege needs the scope admin besides the route's (docs/security.md, "Privileges"); no actor here holds it.
        const passes =
          r.rule === 'scim' ? scopes.includes('scim') : r.rule === 'global-admin' ? false : needed !== null && scopeGranted(scopes, needed) && !o.privileged;
        const guard = o.status === 401 || o.status === 403;
        if (o.status >= 500) wrong.push(`${r.key} as ${o.actor}: ${o.status}`);
        else if (passes && guard)
          wrong.push(`${r.key} (${r.rule}, needs ${needed}) as ${o.actor}: ${o.status} ${o.type ?? ''}, but the token holds what the route needs`);
        else if (!passes && o.status !== 403)
          wrong.push(`${r.key} (${r.rule}, needs ${needed}) as ${o.actor}: ${o.status}, but the token does not hold what the route needs (403)`);
        else if (!passes && r.rule !== 'scim' && r.rule !== 'global-admin' && o.type !== 'urn:pms:problem:insufficient-scope')
          wrong.push(`${r.key} as ${o.actor}: 403 ${o.type}, expected insufficient-scope`);
        if (passes) allowed++;
        else refused++;
      }
    }
    expect(wrong).toEqual([]);
    // Both sides of the rule were exercised, on many routes.
    expect(allowed).toBeGreaterThan(150);
    expect(refused).toBeGreaterThan(300);
  });

  it('serves no credential route to any token, whatever its scopes', () => {
    const credentials = routes.filter((r) => /^\/v4\/(?:apitokens|identityproviders|auth)\b/.test(r.path));
    expect(credentials.length).toBeGreaterThanOrEqual(10);
    for (const r of credentials)
      for (const o of outcomes.get(r.key)!) expect({ route: r.key, actor: o.actor, status: o.status }).toEqual({ route: r.key, actor: o.actor, status: 403 });
  });
});
