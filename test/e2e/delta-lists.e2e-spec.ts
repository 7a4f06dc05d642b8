import { buildWorld, World } from '../factories/world.js';
import type { SyncEntry } from './history-wire.js';
import { bearer, DB_KIND, startApp, TestApp, WireCodec } from './harness.js';
import { Params, ROUTE_CASES } from './route-cases.js';
import { AppRoute, fillPath, listRoutes } from './routes.js';

/**
 * Every list takes `updatedSince` (docs/delta-sync.md, "Every list"): asked with it, a list answers
 * its records changed since then as the sync route does (SyncEntry items, tombstones, the cursor),
 * through one interceptor; a sub-list answers only its parent's records (a record that leaves the
 * parent is a tombstone there), or 400 naming what to use when no field of its records ties them
 * to it. The OpenAPI document declares the parameter on every list of records.
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

  /** Every entry of the changes since `from`, page after page. */
  async function changes(path: string, from = 'seq-0', limit = 5000): Promise<{ entries: SyncEntry[]; cursor: string }> {
    const entries: SyncEntry[] = [];
    let url: string | null = `${path}${path.includes('?') ? '&' : '?'}updatedSince=${encodeURIComponent(from)}&limit=${limit}`;
    let cursor = from;
    while (url) {
      const res = await get(url);
      if (res.status !== 200) throw new Error(`${url}: ${res.status} ${res.text}`);
      entries.push(...(res.body as SyncEntry[]));
      cursor = res.headers['x-sync-cursor'] as string;
      const link = res.headers.link as string | undefined;
      url = link ? /<([^>]+)>/.exec(link)![1] : null;
    }
    return { entries, cursor };
  }

  it('declares updatedSince in the OpenAPI document of every list of records, and answers it as SyncEntry items (or the 400 it declares)', async () => {
    const lists = collections();
    expect(lists.length).toBeGreaterThan(50);
    // Besides the lists of NOT_RECORD_LISTS, only the List-of-one reads of a record (`…/{id}`) have none.
    const undeclared = lists.filter((r) => !updatedSinceOf(r) && !/\/:[^/]+$/.test(r.path));
    expect(undeclared.map((r) => r.key)).toEqual([]);
    const wrong: string[] = [];
    for (const r of lists.filter((x) => updatedSinceOf(x))) {
      const refused = updatedSinceOf(r)!.description!.startsWith('Not answered');
      const res = await get(`${fillPath(r.path, paramsOf(r, w))}?updatedSince=seq-0`);
      if (refused) {
        if (res.status !== 400 || !/updatedSince/.test(res.text)) wrong.push(`${r.key}: ${res.status} ${res.text.slice(0, 200)}`);
        continue;
      }
      const items = res.body as SyncEntry[];
      const shaped = Array.isArray(items) && items.every((e) => typeof e.ID === 'string' && typeof e.Deleted === 'boolean' && typeof e.Seq === 'number');
      if (res.status !== 200 || !shaped || !/^seq-\d+$/.test(String(res.headers['x-sync-cursor'])))
        wrong.push(`${r.key}: ${res.status} ${res.text.slice(0, 200)}`);
    }
    expect(wrong).toEqual([]);
  });

  it('answers, from the start of the trail, exactly the records the list itself answers (each list, its own parent)', async () => {
    const wrong: string[] = [];
    let compared = 0;
    for (const r of collections().filter((x) => updatedSinceOf(x) && !updatedSinceOf(x)!.description!.startsWith('Not answered'))) {
      const path = fillPath(r.path, paramsOf(r, w));
      const list = await get(path);
      if (list.status !== 200) {
        wrong.push(`${r.key}: the list answers ${list.status}`);
        continue;
      }
      // Built-in colors have negative ids: no records.
      const listed = (list.body as Json[]).map((x) => String(x.ID)).filter((id) => !id.startsWith('-'));
      const { entries } = await changes(path);
      const live = entries.filter((e) => !e.Deleted).map((e) => e.ID);
      compared++;
      const missing = listed.filter((id) => !live.includes(id));
      const extra = live.filter((id) => !listed.includes(id));
      if (missing.length || extra.length) wrong.push(`${r.key}: missing ${missing.join(', ')}; not in the list ${extra.join(', ')}`);
    }
    expect(compared).toBeGreaterThan(40);
    expect(wrong).toEqual([]);
  });

  it('answers 404 (403 under /sites/{siteid}) for another site’s parent, as the list does', async () => {
    const wrong: string[] = [];
    for (const r of collections().filter((x) => updatedSinceOf(x) && x.params.length > 0)) {
      if (updatedSinceOf(r)!.description!.startsWith('Not answered')) continue;
      const p = paramsOf(r, other);
      const expected = r.params.some((n) => /^siteid$/i.test(n)) ? 403 : 404;
      const res = await get(`${fillPath(r.path, p)}?updatedSince=seq-0`);
      if (res.status !== expected) wrong.push(`${r.key}: ${res.status}, expected ${expected}`);
      if (other.tag && res.text.includes(other.tag)) wrong.push(`${r.key}: shows the other site’s records`);
    }
    expect(wrong).toEqual([]);
  });

  it('follows a record into and out of a sub-list: a project moved to another owner is a tombstone in the old owner’s list', async () => {
    const worker = `/v4/individuals/${w.worker.individualId}/projects`;
    const peer = `/v4/individuals/${w.peer.individualId}/projects`;
    const start = (await changes(worker)).cursor;
    const peerStart = (await changes(peer)).cursor;
    const created = await t
      .http()
      .post('/v4/projects')
      .set('Authorization', bearer(w.admin.token))
      .send({ Name: 'Dl moving', OwnerID: w.worker.individualId, OrganizationID: w.orgId, StartDate: '2026-01-01T00:00:00Z', DueDate: '2026-12-31T00:00:00Z' })
      .expect(200);
    const id = created.body.ID as string;
    const first = await changes(worker, start);
    expect(first.entries.map((e) => [e.ID, e.Deleted])).toEqual([[id, false]]);
    expect(first.entries[0].Record).toMatchObject({ ID: id, OwnerID: w.worker.individualId, Name: 'Dl moving' });
    // Nothing of it in the peer's list yet.
    expect((await changes(peer, peerStart)).entries.map((e) => e.ID)).not.toContain(id);

    await t.http().patch(`/v4/projects/${id}`).set('Authorization', bearer(w.admin.token)).send({ OwnerID: w.peer.individualId }).expect(200);
    const moved = await changes(worker, first.cursor);
    expect(moved.entries.map((e) => [e.ID, e.Deleted, e.Record])).toEqual([[id, true, null]]);
    const arrived = await changes(peer, peerStart);
    expect(arrived.entries.filter((e) => e.ID === id).map((e) => [e.Deleted, (e.Record as Json).OwnerID])).toEqual([[false, w.peer.individualId]]);

    // A change elsewhere in the site moves the cursor on without an entry; a delete is a tombstone where it was.
    await t.http().patch(`/v4/projects/${w.ids.project}`).set('Authorization', bearer(w.admin.token)).send({ Description: 'elsewhere' }).expect(200);
    const quiet = await changes(peer, arrived.cursor);
    expect(quiet.entries).toEqual([]);
    expect(Number(quiet.cursor.slice(4))).toBeGreaterThan(Number(arrived.cursor.slice(4)));
    await t.http().delete(`/v4/projects/${id}`).set('Authorization', bearer(w.admin.token)).expect(200);
    expect((await changes(peer, quiet.cursor)).entries.map((e) => [e.ID, e.Deleted])).toEqual([[id, true]]);
    // The worker's list saw the change of the worker's own project, nothing more of the one that left.
    expect((await changes(worker, moved.cursor)).entries.map((e) => e.ID)).toEqual([w.ids.project]);
  });

  it('answers the caller’s own records under /me, and a list of the caller’s site under /sites/{siteid}', async () => {
    const mine = await changes('/v4/me/goals');
    expect(mine.entries.length).toBe(0);
    const theirs = await t.http().get('/v4/me/goals?updatedSince=seq-0').set('Authorization', bearer(w.worker.token)).expect(200);
    expect((theirs.body as SyncEntry[]).map((e) => e.ID)).toContain(String(w.ids.goal));
    const site = await changes(`/v4/sites/${w.siteId}/individuals`);
    expect(site.entries.map((e) => e.ID)).toEqual(expect.arrayContaining([w.worker.individualId, w.admin.individualId]));
    // A global administrator reads another site's through its path.
    const global = await t.http().get(`/v4/sites/${other.siteId}/individuals?updatedSince=seq-0`).set('Authorization', bearer(t.adminToken)).expect(200);
    expect((global.body as SyncEntry[]).map((e) => e.ID)).toContain(other.worker.individualId);
  });

  it('answers in XML as ArrayOfSyncEntry, pages with Link and X-Sync-Cursor, and says nothing of X-Total-Count', async () => {
    const res = await get('/v4/individuals?updatedSince=seq-0&limit=2').set('Accept', 'application/xml').expect(200);
    expect(res.text).toContain('<ArrayOfSyncEntry');
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
    await get('/v4/sync/apitokens?updatedSince=seq-0', w.worker.token).expect(403);
    await get('/v4/sync/webhooks?updatedSince=seq-0', w.worker.token).expect(403);
    const hooks = await changes('/v4/sync/webhooks');
    expect(hooks.entries.map((e) => e.ID)).toContain(w.ids.webhook);
    // The kinds added to history: a comment's and a membership's trail.
    const comment = await get(`/v4/comments/${w.ids.comment}/history`).expect(200);
    expect((comment.body as { Action: string }[]).map((e) => e.Action)).toContain('create');
    const membership = await get(`/v4/departmentmembers/${w.ids.membership}/history`).expect(200);
    expect((membership.body as { Action: string }[]).map((e) => e.Action)).toContain('create');
  });
});
