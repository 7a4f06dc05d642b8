import type { Response } from 'supertest';
import { buildWorld, World } from '../factories/world.js';
import { startApp, TestApp } from './harness.js';
import { bodyFor, callRoute, missingCases, paramsFor, Params, ROUTE_CASES, RouteCase } from './route-cases.js';
import { AppRoute, listRoutes } from './routes.js';
import { guidsOf, siteRows, SiteRows } from './site-rows.js';

/**
 * The tenancy matrix: site A's administrator (a site administrator, not a global one) calls every
 * route of the app with the ids of site B's records, and B's rows must not change by a byte; every
 * answer A gets on its own records must not contain anything of B; SiteID in a body never moves a
 * record. Every route comes from the app itself (test/e2e/routes.ts) and is called as its line in
 * its feature's cases file says (test/e2e/route-cases.ts), so a new route without a case fails here by name.
 */
describe('tenancy matrix: site A’s administrator and the records of site B', () => {
  let t: TestApp;
  let A: World;
  let B: World;
  let routes: AppRoute[];
  /** The routes with a complete case (the first test names the others). */
  let cased: AppRoute[];
  let bRows: SiteRows;
  /** What no answer to A may contain: every guid of B's rows and B's tag. */
  let bMarks: string[];

  beforeAll(async () => {
    t = await startApp();
    A = await buildWorld(t, 'Alpha');
    B = await buildWorld(t, 'Bravo');
    routes = listRoutes(t.app);
    cased = routes.filter((r) => ROUTE_CASES[r.key] && (r.params.length === 0 || ROUTE_CASES[r.key].params));
    bRows = await siteRows(t, B.siteId);
    bMarks = [...guidsOf(bRows)].filter((g) => !/^[0-]+$/.test(g)).concat(B.tag);
  }, 60_000);
  afterAll(async () => {
    await t.close();
  });

  const caseOf = (r: AppRoute) => ROUTE_CASES[r.key] as RouteCase;
  /** A's call of the route: as its administrator, or with the credential the route takes (SCIM: A's scim token). */
  const send = (r: AppRoute, p: Params, body: object | undefined, accept?: string) =>
    callRoute(t, r, p, { token: ROUTE_CASES[r.key]?.token?.(A) ?? A.admin.token, body, accept });
  /** B's rows now against the rows read before: the rows that appeared or disappeared, per table. */
  const changesOfB = async () => {
    const now = await siteRows(t, B.siteId);
    const changes: string[] = [];
    for (const table of new Set([...Object.keys(bRows), ...Object.keys(now)])) {
      const before = new Set((bRows[table] ?? []).map((r) => JSON.stringify(r)));
      const after = new Set((now[table] ?? []).map((r) => JSON.stringify(r)));
      for (const row of before) if (!after.has(row)) changes.push(`${table}: was ${row}`);
      for (const row of after) if (!before.has(row)) changes.push(`${table}: now ${row}`);
    }
    if (!changes.length && JSON.stringify(now) !== JSON.stringify(bRows)) changes.push('the same rows, but not byte for byte the same');
    return changes;
  };
  const leaksIn = (text: string) => bMarks.filter((m) => text.toLowerCase().includes(m.toLowerCase()));

  it('has a case for every route of the app, with the path parameters of every route that has some', () => {
    expect(routes.length).toBeGreaterThan(150);
    expect(missingCases(routes)).toEqual([]);
    expect(routes.filter((r) => !cased.includes(r)).map((r) => `${r.key}: its case names no path parameters`)).toEqual([]);
    const stale = Object.keys(ROUTE_CASES).filter((key) => !routes.some((r) => r.key === key));
    expect(stale.map((key) => `${key}: no such route any more`)).toEqual([]);
  });

  it('answers 404 (403 under /sites/{siteid}) to every route with B’s ids, and B’s rows do not change by a byte', async () => {
    expect(Object.keys(bRows).length).toBeGreaterThanOrEqual(20);
    expect(Object.values(bRows).filter((rows) => rows.length > 0).length).toBeGreaterThanOrEqual(20);
    const wrong: string[] = [];
    let calls = 0;
    for (const r of cased.filter((r) => r.params.length > 0)) {
      const c = caseOf(r);
      const own = c.params!(A);
      const theirs = c.params!(B);
      // Every id B's: all at once, and, on routes naming several records, one at a time among A's.
      const ids = r.params.filter((name) => own[name] !== theirs[name]);
      const variants = ids.length > 1 ? [ids, ...ids.map((id) => [id])] : [ids];
      for (const foreign of variants) {
        const p = { ...own, ...Object.fromEntries(foreign.map((name) => [name, theirs[name]])) };
        const expected = c.foreign?.status ?? (foreign.some((name) => /^siteid$/i.test(name)) ? 403 : 404);
        const res = await send(r, p, bodyFor(r, A, p));
        calls++;
        if (res.status !== expected) wrong.push(`${r.key} with B’s ${foreign.join(', ')}: ${res.status} (expected ${expected}) ${res.text.slice(0, 300)}`);
        else if (res.status === 200 && leaksIn(res.text).length) wrong.push(`${r.key} with B’s ${foreign.join(', ')}: answers B’s ${leaksIn(res.text)}`);
      }
    }
    expect(wrong).toEqual([]);
    expect(calls).toBeGreaterThan(130);
    expect(await changesOfB()).toEqual([]);
  });

  it('answers A’s own records (so the 404s are about tenancy, not about the request), and SiteID of B in a body moves nothing', async () => {
    const aRows = await siteRows(t, A.siteId);
    const wrong: string[] = [];
    for (const r of cased.filter((r) => r.method !== 'GET')) {
      const c = caseOf(r);
      const p = await paramsFor(t, c, A);
      const body = bodyFor(r, A, p);
      const res = await send(r, p, body && { ...body, SiteID: B.siteId });
      const expected = c.foreignSiteId?.status ?? (r.rule === 'global-admin' ? 403 : 200);
      if (res.status !== expected) wrong.push(`${r.key}: ${res.status} (expected ${expected}) ${res.text.slice(0, 300)}`);
      else if (res.status === 200 && typeof res.body?.SiteID === 'string' && res.body.SiteID !== A.siteId) wrong.push(`${r.key}: SiteID ${res.body.SiteID}`);
      else if (leaksIn(res.text).length) wrong.push(`${r.key}: answers B’s ${leaksIn(res.text)}`);
    }
    expect(wrong).toEqual([]);
    expect(await changesOfB()).toEqual([]);
    // The same reading sees A's changes (so it would see B's).
    expect(await siteRows(t, A.siteId)).not.toEqual(aRows);
  });

  it('shows nothing of B in any GET answer to A — every list and every record of A, in JSON and in XML', async () => {
    const wrong: string[] = [];
    let checked = 0;
    for (const r of cased.filter((r) => r.method === 'GET')) {
      const p = await paramsFor(t, caseOf(r), A);
      for (const accept of ['application/json', 'application/xml']) {
        const res: Response = await send(r, p, undefined, accept);
        // A global administrator's read of every site (identity provider collisions) is not A's to make.
        if (r.rule === 'global-admin') {
          if (res.status !== 403) wrong.push(`${r.key} (${accept}): ${res.status}, but a site administrator may not read across sites (403)`);
          continue;
        }
        if (res.status !== 200) wrong.push(`${r.key} (${accept}): ${res.status} ${res.text.slice(0, 300)}`);
        else if (leaksIn(res.text).length) wrong.push(`${r.key} (${accept}): answers B’s ${leaksIn(res.text)}`);
        else checked++;
      }
    }
    expect(wrong).toEqual([]);
    expect(checked).toBeGreaterThan(150);
    expect(await changesOfB()).toEqual([]);
  });
});
