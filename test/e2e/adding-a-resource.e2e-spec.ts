import { requestExample } from '../../src/http/wire/examples.js';
import { BadgeEntity } from '../fixtures/badges/badge.entity.js';
import { Badges1900000000000 } from '../fixtures/badges/1900000000000-badges.js';
import { BadgesModule } from '../fixtures/badges/badges.module.js';
import { FEATURES, findFeatures, joinFeatures, type Features } from '../factories/features.js';
import { buildWorld, World } from '../factories/world.js';
import type { AuditEntry, SyncEntry } from './history-wire.js';
import { bearer, startApp, TestApp } from './harness.js';
import { bodyFor, callRoute, missingCases, paramsFor, routeCasesOf, type RouteCase } from './route-cases.js';
import { type AppRoute, listRoutes, routeLines } from './routes.js';

/**
 * Adding a resource is one folder (docs/adding-a-resource.md): test/fixtures/badges holds a whole
 * throwaway resource — its entity and migration, its resource() declaration with the examples,
 * its controller (tag and description), its service declaring its record kind, its module and
 * its cases file — and this test composes the app with it, touching no other file. The new
 * resource must then be everywhere a resource of the app is: in the OpenAPI document, in the
 * audit trail and a record's history, in delta sync, in the route listing with its access rules,
 * and in the route cases and the World the matrices run on.
 */
type Json = Record<string, unknown>;
interface Document {
  paths: Record<string, Record<string, { tags?: string[]; requestBody?: { content: Record<string, { example?: unknown }> }; parameters?: Json[] }>>;
  components: { schemas: Record<string, Json> };
  tags: { name: string; description?: string }[];
}

describe('a resource added from test fixtures', () => {
  let t: TestApp;
  let fixtures: Features;
  let features: Features;
  let cases: Record<string, RouteCase>;
  let w: World;
  let routes: AppRoute[];

  beforeAll(async () => {
    t = await startApp({ WEBHOOKS: 'off' }, [{ module: BadgesModule, entities: [BadgeEntity], migrations: [Badges1900000000000] }]);
    fixtures = await findFeatures('test/fixtures');
    features = joinFeatures(FEATURES, fixtures);
    cases = routeCasesOf(features);
    w = await buildWorld(t, 'Badger', features);
    routes = listRoutes(t.app).filter((r) => r.path.startsWith('/v4/badges'));
  }, 120_000);
  afterAll(async () => {
    await t.close();
  });

  const admin = (method: 'get' | 'post' | 'put' | 'delete', path: string) => t.http()[method](path).set('Authorization', bearer(w.admin.token));

  it('is in the OpenAPI document: its paths, its schemas, its tag with its description and its request examples', async () => {
    const doc = (await t.http().get('/docs/openapi.json').expect(200)).body as Document;
    expect(Object.keys(doc.paths['/v4/badges']).sort()).toEqual(['get', 'post']);
    expect(Object.keys(doc.paths['/v4/badges/{id}']).sort()).toEqual(['delete', 'get', 'patch', 'put']);
    expect(doc.paths['/v4/badges'].get.tags).toEqual(['Badge']);
    expect(doc.tags).toContainEqual({ name: 'Badge', description: 'The badges a site awards: a resource added by a test, to show what adding one takes.' });
    for (const schema of ['Badge', 'CreateBadgeDto', 'UpdateBadgeDto', 'PatchBadgeDto'])
      expect({ schema, declared: schema in doc.components.schemas }).toEqual({ schema, declared: true });
    expect(doc.paths['/v4/badges'].post.requestBody!.content['application/json'].example).toEqual(requestExample('CreateBadgeDto')!.body);
    expect(doc.paths['/v4/badges/{id}'].patch.requestBody!.content['application/merge-patch+json'].example).toEqual(requestExample('PatchBadgeDto')!.body);
    // Its collection is a kind the history and sync routes take.
    for (const path of ['/v4/{kind}/{id}/history', '/v4/sync/{kind}']) {
      const kind = doc.paths[path].get.parameters!.find((p) => p.name === 'kind') as { schema: { enum: string[] } };
      expect({ path, badges: kind.schema.enum.includes('badges') }).toEqual({ path, badges: true });
    }
  });

  it('is in the route listing with its access rules and stages (the lines of the route-permissions snapshot)', () => {
    expect(routeLines(routes)).toEqual([
      `POST   ${'/v4/badges'.padEnd(70)} admin + idempotent-write`,
      `GET    ${'/v4/badges'.padEnd(70)} authenticated + delta-list + list-export`,
      `PATCH  ${'/v4/badges/:id'.padEnd(70)} admin + idempotent-write`,
      `PUT    ${'/v4/badges/:id'.padEnd(70)} admin + idempotent-write`,
      `DELETE ${'/v4/badges/:id'.padEnd(70)} admin`,
      `GET    ${'/v4/badges/:id'.padEnd(70)} authenticated`,
    ]);
  });

  it('is in the cases the matrices collect: its cases file is found, covers every route of it, and the World has a badge', () => {
    expect(fixtures.files).toEqual(['test/fixtures/badges/badges.cases.ts']);
    const all = listRoutes(t.app);
    // Without its cases file, the matrices would name each of its routes; with it, none.
    expect(missingCases(all).map((m) => m.slice(0, m.indexOf(': ')))).toEqual(routes.map((r) => r.key));
    expect(missingCases(all, cases)).toEqual([]);
    expect(features.patches.map((p) => p.route)).toContain('PATCH /v4/badges/:id');
    expect(w.ids.badge).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('answers its routes as its cases call them: every route to the site administrator, the reads alone to a member', async () => {
    const answers: string[] = [];
    for (const r of routes) {
      const c = cases[r.key];
      const p = await paramsFor(t, c, w);
      for (const [who, token] of [
        ['admin', w.admin.token],
        ['member', w.peer.token],
      ]) {
        const res = await callRoute(t, r, p, { token, body: bodyFor(r, w, p, cases), cases });
        answers.push(`${r.key} as ${who}: ${res.status}`);
      }
    }
    expect(answers).toEqual(routes.flatMap((r) => [`${r.key} as admin: 200`, `${r.key} as member: ${r.rule === 'admin' ? 403 : 200}`]));
  });

  it('is in the audit trail and the history of a record, and in delta sync, tombstone included', async () => {
    const made = await admin('post', '/v4/badges').send({ Name: 'Badge of the trail' }).expect(200);
    const id = made.body.ID as string;
    const changed = await admin('put', `/v4/badges/${id}`).send({ ID: id, Name: 'Renamed badge', Rank: 3 }).expect(200);
    expect(changed.body.Name).toBe('Renamed badge');
    const trail = (await admin('get', `/v4/audit?kind=badge&rowid=${id}`).expect(200)).body as AuditEntry[];
    expect(trail.map((e) => e.Action)).toEqual(['update', 'create']);
    expect(trail[0].Changes).toContainEqual(expect.objectContaining({ Field: 'Name', After: 'Renamed badge' }));
    const history = (await admin('get', `/v4/badges/${id}/history`).expect(200)).body as AuditEntry[];
    expect(history.map((e) => [e.Kind, e.Action])).toEqual([
      ['badge', 'update'],
      ['badge', 'create'],
    ]);
    const sync = await admin('get', '/v4/sync/badges?updatedSince=seq-0').expect(200);
    expect((sync.body as SyncEntry[]).find((e) => e.ID === id)).toMatchObject({ Deleted: false, Record: { ID: id, Name: 'Renamed badge' } });
    await admin('delete', `/v4/badges/${id}`).expect(200);
    const after = await admin('get', `/v4/sync/badges?updatedSince=${encodeURIComponent(sync.headers['x-sync-cursor'] as string)}`).expect(200);
    expect((after.body as SyncEntry[]).map((e) => [e.ID, e.Deleted])).toEqual([[id, true]]);
  });
});
