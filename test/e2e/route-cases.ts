import type { Params, RouteCase as DeclaredCase } from '../../src/testing/cases.js';
import { FEATURES, type Features } from '../factories/features.js';
import { harnessOf, World } from '../factories/world.js';
import { UserEntity } from '../../src/database/entities/user.entity.js';
import { bearer, type TestApp } from './harness.js';
import { type AppRoute, fillPath } from './routes.js';

/**
 * How to call each route of the app on the records of a World (test/factories/world.ts), keyed
 * `METHOD /path` exactly as test/e2e/routes.ts lists it: collected from the cases file of each
 * feature (src/modules/<feature>/<feature>.cases.ts, test/factories/features.ts). The tenancy
 * matrix sends each call with another site's ids, the roles and token matrices as every kind of
 * caller; all three fail naming a route that has no case (`missingCases`), so a new route gets
 * its case when it is added.
 */
export type { Params };
type Json = Record<string, unknown>;

/** A route's case as the tests call it: a fresh record made on the running app. */
export interface RouteCase extends Omit<DeclaredCase, 'fresh'> {
  fresh?: (t: TestApp, w: World) => Promise<Params>;
}

/** The route cases of a set of features, their fresh records made through the test harness. */
export function routeCasesOf(features: Features): Record<string, RouteCase> {
  return Object.fromEntries(
    Object.entries(features.routes).map(([key, { fresh, ...c }]) => [
      key,
      fresh ? { ...c, fresh: (t: TestApp, w: World) => fresh(harnessOf(t, features), w) } : c,
    ]),
  );
}

export const ROUTE_CASES: Record<string, RouteCase> = routeCasesOf(FEATURES);

/** The routes without a case, each named with where its case goes. */
export function missingCases(routes: AppRoute[], cases: Record<string, RouteCase> = ROUTE_CASES): string[] {
  return routes.filter((r) => !cases[r.key]).map((r) => `${r.key}: add its case to the cases file of its feature (src/modules/<feature>/<feature>.cases.ts)`);
}

/** The parameters of a call on the world's records: a fresh record where the call uses one up. */
export async function paramsFor(t: TestApp, c: RouteCase, w: World): Promise<Params> {
  return { ...(c.params?.(w) ?? {}), ...((await c.fresh?.(t, w)) ?? {}) };
}

/** The body of a call of the route (PUT, PATCH and POST only; `{}` where the case needs none). */
export function bodyFor(r: AppRoute, w: World, p: Params, cases: Record<string, RouteCase> = ROUTE_CASES): Json | undefined {
  return r.method === 'PUT' || r.method === 'PATCH' || r.method === 'POST' ? (cases[r.key].body?.(w, p) ?? {}) : undefined;
}

/** How a route is sent: as the holder of `token` (anonymous without), JSON unless `accept` says otherwise, on these cases. */
interface CallOptions {
  token?: string;
  body?: object;
  accept?: string;
  cases?: Record<string, RouteCase>;
}

/** Sends one call of the route; a body as its case's media type says (a PATCH's as a merge patch, else JSON). */
export function callRoute(t: TestApp, r: AppRoute, p: Params, opts: CallOptions = {}) {
  if ((opts.cases ?? ROUTE_CASES)[r.key]?.endsCallerTokens) return restoringAccounts(t, () => sendRoute(t, r, p, opts));
  return sendRoute(t, r, p, opts);
}

/** Runs a call that ends the caller's tokens, then puts every account back as it was. */
export async function restoringAccounts<R>(t: TestApp, call: () => PromiseLike<R>): Promise<R> {
  const users = t.ds.getRepository(UserEntity);
  const before = await users.find();
  const res = await call();
  // Through the data layer, so the caller cache forgets the ended generation.
  await users.save(before);
  return res;
}

function sendRoute(t: TestApp, r: AppRoute, p: Params, opts: CallOptions) {
  const c = (opts.cases ?? ROUTE_CASES)[r.key];
  const agent = t.http();
  const methods = { GET: agent.get, PUT: agent.put, PATCH: agent.patch, POST: agent.post, DELETE: agent.delete };
  const send = methods[r.method as keyof typeof methods].bind(agent);
  let req = send(fillPath(r.path, p)).set('Accept', opts.accept ?? 'application/json');
  const query = c?.query?.(p);
  if (query) req = req.query(query);
  if (opts.token) req = req.set('Authorization', bearer(opts.token));
  if (opts.body === undefined) return req;
  const type = c?.contentType ?? (r.method === 'PATCH' ? 'application/merge-patch+json' : undefined);
  return type ? req.set('Content-Type', type).send(JSON.stringify(opts.body)) : req.send(opts.body);
}
