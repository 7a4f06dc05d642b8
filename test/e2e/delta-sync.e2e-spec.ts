import { RequestContext } from '../../src/common/context/request-context.js';
import { ColorEntity } from '../../src/database/entities/color.entity.js';
import { TenantDb } from '../../src/database/tenant-db.js';
import type { SyncEntry } from './history-wire.js';
import { bearer, DB_KIND, startApp, TestApp, WireCodec } from './harness.js';
import { createPerson, createSite, TestPerson, TestSite } from '../factories/index.js';
import { setTimeout as sleep } from 'node:timers/promises';

const codec = new WireCodec('urn:pms:v4');

/**
 * A client's copy of a collection, kept by looping updatedSince from each answer's cursor, through
 * the sync route (`/v4/sync/colors`: SyncEntry items with tombstones) or the collection's own list
 * (`/v4/colors`: the records changed since then, as plain Colors; deletions are not in it).
 */
class Mirror {
  readonly rows = new Map<string, Record<string, unknown>>();
  cursor: string;
  pages = 0;
  constructor(
    private readonly t: TestApp,
    private readonly token: string,
    private readonly path: string,
    start: string,
  ) {
    this.cursor = start;
  }

  /** Pulls until a page is not full; answers how many entries came. */
  async pull(limit = 7): Promise<number> {
    let n = 0;
    for (;;) {
      const res = await this.t
        .http()
        .get(`${this.path}?updatedSince=${encodeURIComponent(this.cursor)}&limit=${limit}`)
        .set('Authorization', bearer(this.token));
      if (res.status !== 200) throw new Error(`sync: ${res.status} ${res.text}`);
      this.pages++;
      if (this.path.startsWith('/v4/sync/'))
        for (const e of res.body as SyncEntry[]) {
          if (e.Deleted) this.rows.delete(e.ID);
          else this.rows.set(e.ID, e.Record!);
        }
      else for (const r of res.body as Record<string, unknown>[]) this.rows.set(String(r.ID), r);
      n += (res.body as unknown[]).length;
      this.cursor = res.headers['x-sync-cursor'] as string;
      if (!res.headers.link) return n;
    }
  }
}

describe(`delta sync (/v4/sync/{kind}) on ${DB_KIND}`, () => {
  let t: TestApp;
  let acme: TestSite;
  let globex: TestSite;
  let plain: TestPerson;
  const as = (p: TestPerson) => bearer(p.token);
  const createColor = (site: TestSite, name: string) =>
    t.http().post('/v4/colors').set('Authorization', as(site.admin)).send({ Name: name, ColorValue: 1, MinPercent: 0, MaxPercent: 10 });

  beforeAll(async () => {
    t = await startApp();
    acme = await createSite(t, { name: 'Acme' });
    globex = await createSite(t, { name: 'Globex' });
    plain = await createPerson(t, acme);
  });
  afterAll(async () => {
    await t.close();
  });

  async function serverColors(site: TestSite): Promise<Map<string, Record<string, unknown>>> {
    const res = await t.http().get('/v4/colors?limit=5000').set('Authorization', as(site.admin)).expect(200);
    return new Map((res.body as Record<string, unknown>[]).filter((c) => (c.ID as number) > 0).map((c) => [String(c.ID), c]));
  }

  it('clients looping updatedSince under concurrent writers end with exactly the server’s rows (sync route) and every one of them as it is (the list)', async () => {
    const mirror = new Mirror(t, acme.admin.token, '/v4/sync/colors', 'seq-0');
    const listMirror = new Mirror(t, acme.admin.token, '/v4/colors', 'seq-0');
    const live: number[] = [];
    let stop = false;
    const writer = async (w: number) => {
      for (let i = 0; i < 25; i++) {
        const r = Math.random();
        if (r < 0.5 || live.length < 3) {
          const res = await createColor(acme, `W${w}-${i}`);
          if (res.status === 200) live.push(res.body.ID as number);
        } else if (r < 0.8) {
          const id = live[Math.floor(Math.random() * live.length)];
          await t
            .http()
            .patch(`/v4/colors/${id}`)
            .set('Authorization', as(acme.admin))
            .send({ Name: `W${w}-${i}-renamed` });
        } else {
          const id = live.splice(Math.floor(Math.random() * live.length), 1)[0];
          await t.http().delete(`/v4/colors/${id}`).set('Authorization', as(acme.admin));
        }
      }
    };
    const reader = async (m: Mirror) => {
      while (!stop) await m.pull();
    };
    const reading = Promise.all([reader(mirror), reader(listMirror)]);
    await Promise.all([writer(1), writer(2), writer(3), writer(4)]);
    stop = true;
    await reading;
    const server = await serverColors(acme);
    for (const m of [mirror, listMirror]) {
      await m.pull();
      for (const [id, row] of server) expect(m.rows.get(id)).toEqual(row);
      expect(m.pages).toBeGreaterThan(3);
    }
    // The sync route's tombstones took the deleted colors out; the list answered no deleted color.
    expect([...mirror.rows.keys()].sort()).toEqual([...server.keys()].sort());
    expect([...listMirror.rows.values()].filter((r) => r.Deleted === true)).toEqual([]);
  });

  it('answers a write that commits after a later one, with an earlier Updated, on the next pull', async () => {
    const db = t.app.get(TenantDb);
    const ctx = RequestContext.system(acme.siteId);
    const mirror = new Mirror(t, acme.admin.token, '/v4/colors', 'seq-0');
    await mirror.pull(500);
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    let inserted!: (id: number) => void;
    const insertedId = new Promise<number>((r) => (inserted = r));
    // The slow transaction writes first (its Updated is earlier) and commits last.
    const slow = db.transaction(ctx, async (tx) => {
      const row = await tx.repo(ColorEntity).insert({ name: 'Slow', colorValue: 1, minPercent: 0, maxPercent: 5, rank: 0 });
      inserted(row.id);
      await gate;
    });
    const slowId = await insertedId;
    // On MariaDB the fast write commits while the slow one is open; SQLite runs one write
    // transaction at a time, so there it waits for the slow one.
    const fast = createColor(acme, 'Fast').then((r) => r.body.ID as number);
    await sleep(300);
    await mirror.pull(500);
    expect(mirror.rows.has(String(slowId))).toBe(false);
    release();
    await slow;
    const fastId = await fast;
    await mirror.pull(500);
    expect(mirror.rows.has(String(slowId))).toBe(true);
    expect(mirror.rows.has(String(fastId))).toBe(true);
    const server = await serverColors(acme);
    expect([...mirror.rows.keys()].sort()).toEqual([...server.keys()].sort());
  });

  it('starts from an instant, answers tombstones for deleted records, and nothing of another site', async () => {
    const before = new Date(Date.now() - 5).toISOString();
    const a = (await createColor(acme, 'Doomed').expect(200)).body.ID as number;
    await t.http().delete(`/v4/colors/${a}`).set('Authorization', as(acme.admin)).expect(200);
    await createColor(globex, 'Theirs').expect(200);
    const res = await t
      .http()
      .get(`/v4/sync/colors?updatedSince=${encodeURIComponent(before)}`)
      .set('Authorization', as(acme.admin))
      .expect(200);
    const entries = res.body as SyncEntry[];
    expect(entries.find((e) => e.ID === String(a))).toMatchObject({ Deleted: true, Record: null });
    expect(entries.every((e) => (e.Record as { Name?: string } | null)?.Name !== 'Theirs')).toBe(true);
    expect(res.headers['x-sync-cursor']).toMatch(/^seq-\d+$/);
    // Soft-deleted records are tombstones too; undeleting answers the record again.
    const p = await t
      .http()
      .post('/v4/projects')
      .set('Authorization', as(acme.admin))
      .send({
        Name: 'Synced',
        OwnerID: acme.admin.individualId,
        OrganizationID: acme.orgId,
        StartDate: '2026-01-01T00:00:00Z',
        DueDate: '2026-06-30T00:00:00Z',
      })
      .expect(200);
    const mirror = new Mirror(t, acme.admin.token, '/v4/sync/projects', res.headers['x-sync-cursor'] as string);
    await mirror.pull();
    expect(mirror.rows.has(p.body.ID)).toBe(true);
    await t.http().delete(`/v4/projects/${p.body.ID}`).set('Authorization', as(acme.admin)).expect(200);
    await mirror.pull();
    expect(mirror.rows.has(p.body.ID)).toBe(false);
  });

  it('answers in XML as ArrayOfSyncEntry with the record inside', async () => {
    const now = await t
      .http()
      .get(`/v4/sync/colors?updatedSince=${encodeURIComponent(new Date().toISOString())}`)
      .set('Authorization', as(acme.admin))
      .expect(200);
    for (const name of ['X1', 'X2', 'X3', 'X4']) await createColor(acme, name).expect(200);
    const res = await t
      .http()
      .get(`/v4/sync/colors?updatedSince=${now.headers['x-sync-cursor']}&limit=3`)
      .set('Authorization', as(acme.admin))
      .set('Accept', 'application/xml')
      .expect(200);
    expect(res.text).toContain('<ArrayOfSyncEntry');
    const items = (await codec.decodeXml(res.text)) as Record<string, unknown>[];
    expect(items.map((i) => (i.Record as { Name: string }).Name)).toEqual(['X1', 'X2', 'X3']);
    expect(res.text).toMatch(/<Record>.*<Name>[^<]+<\/Name>.*<\/Record>/);
    expect(res.headers.link).toContain('updatedSince=seq-');
  });

  it('answers 400 for a bad cursor or instant, 404 for an unknown collection, 401 without a token, and leaves out what the caller may not read', async () => {
    await t.http().get('/v4/sync/colors?updatedSince=yesterday').set('Authorization', as(acme.admin)).expect(400);
    await t.http().get('/v4/sync/colors').set('Authorization', as(acme.admin)).expect(400);
    await t.http().get('/v4/sync/colors?updatedSince=seq-999999999').set('Authorization', as(acme.admin)).expect(400);
    await t.http().get('/v4/sync/colors?updatedSince=seq-0&limit=0').set('Authorization', as(acme.admin)).expect(400);
    await t.http().get('/v4/sync/nothings?updatedSince=seq-0').set('Authorization', as(acme.admin)).expect(404);
    await t.http().get('/v4/sync/colors?updatedSince=seq-0').expect(401);
    // A plain user syncs assessments only as their GET allows (pm+admin list; a plain user reads none of the admin's).
    const res = await t.http().get('/v4/sync/individuals?updatedSince=seq-0').set('Authorization', as(plain)).expect(200);
    expect(Array.isArray(res.body)).toBe(true);
  });
});
