import { buildWorld, World } from '../factories/world.js';
import type { SyncEntry } from './history-wire.js';
import { bearer, DB_KIND, startApp, TestApp, WireCodec } from './harness.js';
import { Params, ROUTE_CASES } from './route-cases.js';
import { AppRoute, fillPath, listRoutes } from './routes.js';

/**
 * Every list takes `updatedSince` (docs/delta-sync.md, "Every list"): asked with it, a list answers
 * its records created or changed since then, still of its own type (no union in a list's answer,
 * DESIGN.md), paged by the sync cursor; deletions and records that left the list are the sync
 * route's tombstones, which `/v4/sync/{kind}?parent=` answers for each sub-list (a person's goals).
 * A sub-list answers only its parent's records, or 400 naming what to use when no field of its
 * records ties them to it. The OpenAPI document declares the parameter on every list of records.
 */

type Json = Record<string, unknown>;
type Operation = {
  parameters?: { name: string; in: string; description?: string }[];
  responses?: Record<string, { content?: Record<string, { schema?: Json }> }>;
};

/** GET routes answering a collection that are no list of records of a kind: no updatedSince, and why. */
const NOT_RECORD_LISTS: Record<string, string> = {
  'GET /v4/audit': 'the trail itself, paged by its own key',
  'GET /v4/:kind/:id/history': 'a record’s trail',
  'GET /v4/sync/:kind': 'the changes themselves',
  'GET /v4/colors/defaults': 'built-in colors, not records',
  'GET /v4/sites/:siteid/colors/defaults': 'built-in colors, not records',
  'GET /v4/dashboards': 'computed figures, not records',
  'GET /v4/sites/:siteid/individuals/basicroles': 'counts, not records',
  'GET /v4/webhooks/:id/deliveries': 'the delivery log, not records of the trail',
  'GET /v4/imports/:id/errors': 'an import’s failed rows, not records of the trail',
};

describe(`every list asked with updatedSince (${DB_KIND})`, () => {
  let t: TestApp;
  let w: World;
  let other: World;
  let routes: AppRoute[];
  let doc: { paths: Record<string, Record<string, Operation>> };
  const codec = new WireCodec('urn:pms:v4');

  beforeAll(async () => {
    t = await startApp({ WEBHOOKS: 'off' });
    w = await buildWorld(t, 'Dl');
    other = await buildWorld(t, 'Do');
    routes = listRoutes(t.app);
    doc = (await t.http().get('/docs/openapi.json').expect(200)).body as typeof doc;
  }, 180_000);
  afterAll(async () => {
    await t.close();
  });

  const operationOf = (r: AppRoute) => doc.paths[r.path.replace(/:([A-Za-z0-9_]+)/g, '{$1}')]?.get;
  const updatedSinceOf = (r: AppRoute) => operationOf(r)?.parameters?.find((p) => p.name === 'updatedSince' && p.in === 'query');
  /** GET routes whose 200 answers a collection (an array, or a collection or its changes). */
  const collections = () =>
    routes.filter((r) => {
      if (r.method !== 'GET' || r.key in NOT_RECORD_LISTS) return false;
      const schema = operationOf(r)?.responses?.['200']?.content?.['application/json']?.schema;
      return schema?.type === 'array' || Array.isArray(schema?.anyOf);
    });
  const paramsOf = (r: AppRoute, site: World): Params => ROUTE_CASES[r.key].params?.(site) ?? {};
  const get = (path: string, token = w.admin.token) => t.http().get(path).set('Authorization', bearer(token));

  /** Pages through `url` (with `updatedSince`) by Link: rel="next"; every item, and the last cursor. */
  async function pages<T>(first: string, from: string): Promise<{ items: T[]; cursor: string }> {
    const items: T[] = [];
    let url: string | null = first;
    let cursor = from;
    while (url) {
      const res = await get(url);
      if (res.status !== 200) throw new Error(`${url}: ${res.status} ${res.text}`);
      items.push(...(res.body as T[]));
      cursor = res.headers['x-sync-cursor'] as string;
      const link = res.headers.link as string | undefined;
      url = link ? /<([^>]+)>/.exec(link)![1] : null;
    }
    return { items, cursor };
  }
  const since = (path: string, from: string, limit: number) =>
    `${path}${path.includes('?') ? '&' : '?'}updatedSince=${encodeURIComponent(from)}&limit=${limit}`;
  /** The list's records changed since `from` (plain records of the list's type), page after page. */
  const changed = (path: string, from = 'seq-0', limit = 5000) => pages<Json>(since(path, from, limit), from);
  /** The sync route's entries (tombstones too) since `from`, of a collection or, with `parent`, of one sub-list. */
  const synced = (kind: string, parent: string | null, from = 'seq-0', limit = 5000) =>
    pages<SyncEntry>(since(`/v4/sync/${kind}${parent ? `?parent=${encodeURIComponent(parent)}` : ''}`, from, limit), from);
  /** The sync route a list names for its tombstones, read out of its `updatedSince` description: kind and parent filled from the route's params. */
  function syncOf(r: AppRoute, site: World): { kind: string; parent: string | null } {
    const m = /`GET \/v4\/sync\/([a-z]+)(?:\?parent=([^`]+))?`/.exec(updatedSinceOf(r)!.description!);
    if (!m) throw new Error(`${r.key}: its updatedSince names no sync route`);
    const p = paramsOf(r, site);
    return { kind: m[1], parent: m[2] ? m[2].replace(/\{([A-Za-z0-9_]+)\}/g, (_, n: string) => String(p[n])) : null };
  }
  const refuses = (r: AppRoute) => updatedSinceOf(r)!.description!.startsWith('Not answered');

  it('declares updatedSince in the OpenAPI document of every list of records, with the 200 typed as the list’s resource alone, and answers it so (or the 400 it declares)', async () => {
    const lists = collections();
    expect(lists.length).toBeGreaterThan(50);
    // Besides the lists of NOT_RECORD_LISTS, only the List-of-one reads of a record (`…/{id}`) have none.
    const undeclared = lists.filter((r) => !updatedSinceOf(r) && !/\/:[^/]+$/.test(r.path));
    expect(undeclared.map((r) => r.key)).toEqual([]);
    const wrong: string[] = [];
    for (const r of lists) {
      const schema = operationOf(r)!.responses!['200'].content!['application/json'].schema!;
      const ref = (schema.items as { $ref?: string } | undefined)?.$ref;
      if (schema.type !== 'array' || 'anyOf' in schema || !ref || /SyncEntry/.test(ref)) wrong.push(`${r.key}: 200 is ${JSON.stringify(schema)}`);
    }
    for (const r of lists.filter((x) => updatedSinceOf(x))) {
      // A route for global administrators (every site's records) is asked as one.
      const res = await get(`${fillPath(r.path, paramsOf(r, w))}?updatedSince=seq-0`, r.rule === 'global-admin' ? t.adminToken : undefined);
      if (refuses(r)) {
        if (res.status !== 400 || !/updatedSince/.test(res.text)) wrong.push(`${r.key}: ${res.status} ${res.text.slice(0, 200)}`);
        continue;
      }
      const items = res.body as Json[];
      // Records of the list's type: an ID, none of them a SyncEntry (Seq and Record beside ID).
      const plain = Array.isArray(items) && items.every((e) => e.ID !== undefined && !('Seq' in e && 'Record' in e));
      if (res.status !== 200 || !plain || !/^seq-\d+$/.test(String(res.headers['x-sync-cursor'])))
        wrong.push(`${r.key}: ${res.status} ${res.text.slice(0, 200)}`);
    }
    expect(wrong).toEqual([]);
  });

  it('answers, from the start of the trail, exactly the records the list itself answers, and so does the sync route it names (each list, its own parent)', async () => {
    const wrong: string[] = [];
    let compared = 0;
    for (const r of collections().filter((x) => updatedSinceOf(x) && !refuses(x))) {
      const path = fillPath(r.path, paramsOf(r, w));
      const list = await get(path);
      if (list.status !== 200) {
        wrong.push(`${r.key}: the list answers ${list.status}`);
        continue;
      }
      // Built-in colors have negative ids: no records.
      const listed = (list.body as Json[]).map((x) => String(x.ID)).filter((id) => !id.startsWith('-'));
      const byId = new Map((list.body as Json[]).map((x) => [String(x.ID), x]));
      const { items } = await changed(path);
      compared++;
      const ids = items.map((e) => String(e.ID));
      const missing = listed.filter((id) => !ids.includes(id));
      const extra = ids.filter((id) => !listed.includes(id));
      if (missing.length || extra.length) wrong.push(`${r.key}: missing ${missing.join(', ')}; not in the list ${extra.join(', ')}`);
      // Each as the list answers it.
      for (const item of items)
        if (byId.has(String(item.ID)) && JSON.stringify(item) !== JSON.stringify(byId.get(String(item.ID)))) wrong.push(`${r.key}: ${String(item.ID)} differs`);
      // The sync route the list names answers the same records (and tombstones of none of them).
      if (r.rule === 'global-admin' || r.path.startsWith('/v4/sites/')) continue;
      const { kind, parent } = syncOf(r, w);
      const entries = (await synced(kind, parent)).items;
      const live = entries.filter((e) => !e.Deleted).map((e) => e.ID);
      if (live.sort().join() !== [...ids].sort().join())
        wrong.push(`${r.key}: /v4/sync/${kind}?parent=${parent} answers ${live.join(', ')}, the list ${ids.join(', ')}`);
    }
    expect(compared).toBeGreaterThan(40);
    expect(wrong).toEqual([]);
  });

  it('answers 404 (403 under /sites/{siteid}) for another site’s parent, as the list does, and so does the sync route’s parent=', async () => {
    const wrong: string[] = [];
    for (const r of collections().filter((x) => updatedSinceOf(x) && x.params.length > 0)) {
      if (refuses(r)) continue;
      const p = paramsOf(r, other);
      const expected = r.params.some((n) => /^siteid$/i.test(n)) ? 403 : 404;
      const res = await get(`${fillPath(r.path, p)}?updatedSince=seq-0`);
      if (res.status !== expected) wrong.push(`${r.key}: ${res.status}, expected ${expected}`);
      if (other.tag && res.text.includes(other.tag)) wrong.push(`${r.key}: shows the other site’s records`);
      if (expected === 404) {
        const { kind, parent } = syncOf(r, other);
        const sync = await get(`/v4/sync/${kind}?updatedSince=seq-0&parent=${encodeURIComponent(parent!)}`);
        if (sync.status !== 404) wrong.push(`/v4/sync/${kind}?parent=${parent}: ${sync.status}, expected 404`);
      }
    }
    expect(wrong).toEqual([]);
  });

  it('follows a record into and out of a sub-list: the list answers it where it is, the sync route’s parent= a tombstone where it was', async () => {
    const worker = `/v4/individuals/${w.worker.individualId}/projects`;
    const peer = `/v4/individuals/${w.peer.individualId}/projects`;
    const workerSync = `individuals/${w.worker.individualId}`;
    const peerSync = `individuals/${w.peer.individualId}`;
    const start = (await synced('projects', workerSync)).cursor;
    const peerStart = (await synced('projects', peerSync)).cursor;
    const created = await t
      .http()
      .post('/v4/projects')
      .set('Authorization', bearer(w.admin.token))
      .send({ Name: 'Dl moving', OwnerID: w.worker.individualId, OrganizationID: w.orgId, StartDate: '2026-01-01T00:00:00Z', DueDate: '2026-12-31T00:00:00Z' })
      .expect(200);
    const id = created.body.ID as string;
    const first = await synced('projects', workerSync, start);
    expect(first.items.map((e) => [e.ID, e.Deleted])).toEqual([[id, false]]);
    expect(first.items[0].Record).toMatchObject({ ID: id, OwnerID: w.worker.individualId, Name: 'Dl moving' });
    const listed = await changed(worker, start);
    expect(listed.items).toEqual([created.body]);
    expect(listed.cursor).toBe(first.cursor);
    // Nothing of it in the peer's list yet.
    expect((await synced('projects', peerSync, peerStart)).items.map((e) => e.ID)).not.toContain(id);
    expect((await changed(peer, peerStart)).items.map((e) => e.ID)).not.toContain(id);

    await t.http().patch(`/v4/projects/${id}`).set('Authorization', bearer(w.admin.token)).send({ OwnerID: w.peer.individualId }).expect(200);
    const moved = await synced('projects', workerSync, first.cursor);
    expect(moved.items.map((e) => [e.ID, e.Deleted, e.Record])).toEqual([[id, true, null]]);
    expect((await changed(worker, first.cursor)).items).toEqual([]);
    const arrived = await synced('projects', peerSync, peerStart);
    expect(arrived.items.filter((e) => e.ID === id).map((e) => [e.Deleted, (e.Record as Json).OwnerID])).toEqual([[false, w.peer.individualId]]);
    expect((await changed(peer, peerStart)).items.filter((e) => e.ID === id).map((e) => e.OwnerID)).toEqual([w.peer.individualId]);

    // A change elsewhere in the site moves the cursor on without an entry; a delete is a tombstone where it was, and leaves the list.
    await t.http().patch(`/v4/projects/${w.ids.project}`).set('Authorization', bearer(w.admin.token)).send({ Description: 'elsewhere' }).expect(200);
    const quiet = await synced('projects', peerSync, arrived.cursor);
    expect(quiet.items).toEqual([]);
    expect(Number(quiet.cursor.slice(4))).toBeGreaterThan(Number(arrived.cursor.slice(4)));
    await t.http().delete(`/v4/projects/${id}`).set('Authorization', bearer(w.admin.token)).expect(200);
    expect((await synced('projects', peerSync, quiet.cursor)).items.map((e) => [e.ID, e.Deleted])).toEqual([[id, true]]);
    expect((await changed(peer, quiet.cursor)).items).toEqual([]);
    // The worker's list saw the change of the worker's own project, nothing more of the one that left.
    expect((await synced('projects', workerSync, moved.cursor)).items.map((e) => e.ID)).toEqual([w.ids.project]);
    expect((await changed(worker, moved.cursor)).items.map((e) => e.ID)).toEqual([w.ids.project]);
  });

  it('answers the caller’s own records under /me (and parent=me on the sync route), and a list of the caller’s site under /sites/{siteid}', async () => {
    expect((await changed('/v4/me/goals')).items).toEqual([]);
    expect((await synced('goals', 'me')).items).toEqual([]);
    const theirs = await t.http().get('/v4/me/goals?updatedSince=seq-0').set('Authorization', bearer(w.worker.token)).expect(200);
    expect((theirs.body as Json[]).map((e) => String(e.ID))).toContain(String(w.ids.goal));
    const theirSync = await t.http().get('/v4/sync/goals?updatedSince=seq-0&parent=me').set('Authorization', bearer(w.worker.token)).expect(200);
    expect((theirSync.body as SyncEntry[]).map((e) => e.ID)).toContain(String(w.ids.goal));
    const site = await changed(`/v4/sites/${w.siteId}/individuals`);
    expect(site.items.map((e) => e.ID)).toEqual(expect.arrayContaining([w.worker.individualId, w.admin.individualId]));
    // A global administrator reads another site's through its path.
    const global = await t.http().get(`/v4/sites/${other.siteId}/individuals?updatedSince=seq-0`).set('Authorization', bearer(t.adminToken)).expect(200);
    expect((global.body as Json[]).map((e) => e.ID)).toContain(other.worker.individualId);
  });

  it('answers in XML as the list’s own root, pages with Link and X-Sync-Cursor, and says nothing of X-Total-Count', async () => {
    const res = await get('/v4/individuals?updatedSince=seq-0&limit=2').set('Accept', 'application/xml').expect(200);
    expect(res.text).toContain('<ArrayOfIndividual');
    expect(res.text).not.toContain('SyncEntry');
    const items = (await codec.decodeXml(res.text)) as Json[];
    expect(items.length).toBeGreaterThan(0);
    expect(res.headers.link).toMatch(/^<\/v4\/individuals\?updatedSince=seq-\d+&limit=2>; rel="next"$/);
    expect(res.headers['x-total-count']).toBeUndefined();
    // Without updatedSince the same list answers as it always has.
    const plain = await get('/v4/individuals?limit=2').set('Accept', 'application/xml').expect(200);
    expect(plain.text).toContain('<ArrayOfIndividual');
    expect(plain.headers['x-total-count']).toBeDefined();
    expect(plain.headers['x-sync-cursor']).toBeUndefined();
  });

  it('answers 400 for filters beside updatedSince, a bad cursor, a bad limit or a malformed parent id, and 403 as the list does', async () => {
    const problem = async (path: string, field: string) => {
      const res = await get(path).expect(400);
      expect(res.body.errors.map((e: { field: string }) => e.field)).toContain(field);
      return res.body as { errors: { field: string; message: string }[] };
    };
    const withOffset = await problem('/v4/individuals?updatedSince=seq-0&offset=5', 'offset');
    expect(withOffset.errors[0].message).toMatch(/cannot be combined with offset/);
    await problem('/v4/individuals?updatedSince=seq-0&deleted=2', 'deleted');
    await problem('/v4/individuals?updatedSince=yesterday', 'updatedSince');
    await problem('/v4/individuals?updatedSince=', 'updatedSince');
    await problem('/v4/individuals?updatedSince=seq-0&updatedSince=seq-1', 'updatedSince');
    await problem('/v4/individuals?updatedSince=seq-999999999', 'updatedSince');
    await problem('/v4/individuals?updatedSince=seq-0&limit=0', 'limit');
    await problem('/v4/individuals?updatedSince=seq-0&limit=5001', 'limit');
    await problem('/v4/individuals/not-a-guid/projects?updatedSince=seq-0', 'id');
    // The sync route's parent=: one of the collection's sub-lists, its ID well formed.
    const parents = await problem('/v4/sync/goals?updatedSince=seq-0&parent=projects/1', 'parent');
    expect(parents.errors[0].message).toMatch(/individuals\/\{id\}, me/);
    await problem('/v4/sync/goals?updatedSince=seq-0&parent=individuals/not-a-guid', 'parent');
    await problem('/v4/sync/goals?updatedSince=seq-0&parent=individuals', 'parent');
    await problem('/v4/sync/goals?updatedSince=seq-0&parent=me/1', 'parent');
    await problem('/v4/sync/periods?updatedSince=seq-0&parent=me', 'parent');
    const refused = await problem(`/v4/individuals/${w.worker.individualId}/departments?updatedSince=seq-0`, 'updatedSince');
    expect(refused.errors[0].message).toMatch(/departmentmembers\?updatedSince/);
    // The list's own access rule first (the guard), then the kind's: a plain user reads no security groups, no webhooks.
    await get('/v4/securitygroups?updatedSince=seq-0', w.worker.token).expect(403);
    await get('/v4/webhooks?updatedSince=seq-0', w.worker.token).expect(403);
    await get('/v4/individuals?updatedSince=seq-0').set('Authorization', '').expect(401);
  });

  it('holds the sync and history routes to the access rule of the kind’s GET', async () => {
    await get('/v4/sync/securitygroups?updatedSince=seq-0', w.worker.token).expect(403);
    await get(`/v4/securitygroups/${w.ids.securitygroup}/history`, w.worker.token).expect(403);
    // Credentials and their configuration are not served through sync, to anyone (docs/security.md).
    for (const kind of ['apitokens', 'identityproviders', 'webhooks']) {
      await get(`/v4/sync/${kind}?updatedSince=seq-0`, w.worker.token).expect(404);
      await get(`/v4/sync/${kind}?updatedSince=seq-0`).expect(404);
    }
    await get(`/v4/webhooks/${w.ids.webhook}/history`, w.worker.token).expect(403);
    const hook = await get(`/v4/webhooks/${w.ids.webhook}/history`).expect(200);
    expect((hook.body as { Action: string }[]).map((e) => e.Action)).toContain('create');
    // The kinds added to history: a comment's and a membership's trail.
    const comment = await get(`/v4/comments/${w.ids.comment}/history`).expect(200);
    expect((comment.body as { Action: string }[]).map((e) => e.Action)).toContain('create');
    const membership = await get(`/v4/departmentmembers/${w.ids.membership}/history`).expect(200);
    expect((membership.body as { Action: string }[]).map((e) => e.Action)).toContain('create');
  });
});
