import type { CaseHarness, Json, Kind, KindCase, SetupStep, World, WorldIds } from '../../src/testing/cases.js';
import { bearer, TestApp } from '../e2e/harness.js';
import { FEATURES, type Features } from './features.js';
import { createTeamSite } from './performance.js';

/**
 * A site with one record of every kind the features declare (src/testing/cases.ts, `World`), all
 * about one subject (the team site's worker, who reports to its manager), built through the API
 * as the site's administrator. The matrices (test/e2e/tenancy-matrix, roles-matrix) call every
 * route on these records. Each feature's cases file says how a record of each of its kinds is made
 * and what it needs first; the World makes them in that order.
 */
export type { World, WorldIds } from '../../src/testing/cases.js';
export { example, unique } from '../../src/testing/cases.js';

/** How a record of each declared kind is made (a POST: its path and a body valid in a world); `make()` makes fresh ones. */
export const CREATES: Readonly<Record<string, KindCase>> = FEATURES.kinds;

/** Sends a request as the world's administrator; anything but 200 throws. */
async function call<T>(t: TestApp, w: World, method: 'get' | 'post' | 'put', path: string, body?: Json | Json[]): Promise<T> {
  const res = await t.http()[method](`/v4/${path}`).set('Authorization', bearer(w.admin.token)).send(body);
  // 202: an import, accepted (docs/imports.md).
  if (res.status !== 200 && res.status !== 202) throw new Error(`${method.toUpperCase()} /v4/${path} in ${w.tag} failed: ${res.status} ${res.text}`);
  return res.body as T;
}

/** Makes a fresh record of the kind in the world (named with its tag); answers its ID. */
export async function make(t: TestApp, w: World, kind: Kind, features: Features = FEATURES): Promise<string> {
  const declared = features.kinds[kind];
  if (!declared?.path || !declared.body) throw new Error(`no cases file says how to make a ${kind} (its path and body)`);
  const body: Json = declared.body(w);
  for (const field of ['Name', 'Body']) if (typeof body[field] === 'string') body[field] = `${w.tag} ${kind} ${body[field] as string}`;
  return String((await call<Json>(t, w, 'post', declared.path, body)).ID);
}

/** What the cases ask of the harness, on the running app. */
export function harnessOf(t: TestApp, features: Features = FEATURES): CaseHarness {
  return {
    make: (w, kind) => make(t, w, kind, features),
    send: (w, method, path, body) => call(t, w, method, path, body),
    globalAdminToken: t.adminToken,
  };
}

/** Each kind's record as a step of the world: made as the kind says, or by its POST. */
function stepOf(kind: string, k: KindCase): SetupStep {
  return {
    makes: [kind],
    needs: k.needs ?? [],
    last: k.last,
    run: async (h, w) => {
      const id = k.world ? await k.world(h, w) : await h.make(w, kind as Kind);
      return { [kind]: k.intId ? Number(id) : String(id) } as Partial<WorldIds>;
    },
  };
}

/**
 * The steps of building a world, in an order that makes what each needs first: the first step
 * (in the order of the cases files and their declarations) whose needs are made, then again; a
 * step marked `last` only when no other can run.
 */
export function worldSteps(features: Features = FEATURES): SetupStep[] {
  const all = [...Object.entries(features.kinds).map(([kind, k]) => stepOf(kind, k)), ...features.steps];
  const makers = new Set(all.flatMap((s) => s.makes));
  const unmade = all.flatMap((s) => s.needs.filter((n) => !makers.has(n)).map((n) => `${s.makes.join(', ')} needs ${n}, which no cases file makes`));
  if (unmade.length) throw new Error(unmade.join('\n'));
  const made = new Set<string>();
  const left = [...all];
  const order: SetupStep[] = [];
  while (left.length) {
    const ready = left.filter((s) => s.needs.every((n) => made.has(n)));
    const next = ready.find((s) => !s.last) ?? ready[0];
    if (!next) throw new Error(`the world cannot make ${left.map((s) => s.makes.join(', ')).join('; ')}: their needs wait on each other`);
    order.push(next);
    left.splice(left.indexOf(next), 1);
    for (const m of next.makes) made.add(m);
  }
  return order;
}

/** Builds the world of a new site (PerformanceManagement on; a test may switch it off afterwards). */
export async function buildWorld(t: TestApp, tag: string, features: Features = FEATURES): Promise<World> {
  const site = await createTeamSite(t, { name: `${tag} site` });
  const w: World = { ...site, tag, ids: {} as WorldIds };
  const h = harnessOf(t, features);
  for (const step of worldSteps(features)) Object.assign(w.ids, await step.run(h, w));
  return w;
}
