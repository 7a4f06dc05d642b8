import { randomUUID } from 'node:crypto';
import { RequestContext } from '../../src/common/context/request-context.js';
import { ColorEntity } from '../../src/database/entities/color.entity.js';
import { decodeChanges } from '../../src/database/journal.js';
import { TenantDb } from '../../src/database/tenant-db.js';
import { rng, type AuditEntry as Entry } from './history-wire.js';
import { bearer, startApp, TestApp, WireCodec } from './harness.js';
import { createPerson, createSite, TestPerson, TestSite } from '../factories/index.js';

const codec = new WireCodec('urn:pms:v4');

describe('audit trail (/v4/audit, /v4/{kind}/{id}/history)', () => {
  let t: TestApp;
  let acme: TestSite;
  let globex: TestSite;
  let plain: TestPerson;
  const as = (p: TestPerson) => bearer(p.token);

  beforeAll(async () => {
    t = await startApp();
    acme = await createSite(t, { name: 'Acme' });
    globex = await createSite(t, { name: 'Globex' });
    plain = await createPerson(t, acme);
  });
  afterAll(async () => {
    await t.close();
  });

  async function trail(site: TestSite, query = ''): Promise<Entry[]> {
    const out: Entry[] = [];
    let url: string | null = `/v4/audit?${query.includes('limit=') ? '' : 'limit=200'}${query}`;
    while (url) {
      const res = await t.http().get(url).set('Authorization', as(site.admin));
      if (res.status !== 200) throw new Error(`${url}: ${res.status} ${res.text}`);
      out.push(...(res.body as Entry[]));
      const link = res.headers.link as string | undefined;
      url = link ? /<([^>]+)>/.exec(link)![1] : null;
    }
    return out;
  }

  /** A color of Acme created by its administrator (with `requestId` on the create), then changed by `change` with PUT: its ID. */
  async function colorChanged(color: Record<string, unknown>, change: Record<string, unknown>, requestId = randomUUID()): Promise<string> {
    const created = await t.http().post('/v4/colors').set('Authorization', as(acme.admin)).set('X-Request-Id', requestId).send(color).expect(200);
    const id = String(created.body.ID);
    await t
      .http()
      .put(`/v4/colors/${id}`)
      .set('Authorization', as(acme.admin))
      .send({ ...color, ...change, ID: created.body.ID })
      .expect(200);
    return id;
  }

  it('records a create, an update and a delete with fields before and after, the actor and the request id', async () => {
    const requestId = randomUUID();
    const id = await colorChanged({ Name: 'Amber', ColorValue: 1, MinPercent: 0, MaxPercent: 50 }, { Name: 'Ochre', MaxPercent: 60 }, requestId);
    await t.http().delete(`/v4/colors/${id}`).set('Authorization', as(acme.admin)).expect(200);

    const entries = (await trail(acme, `&kind=color&rowid=${id}`)).reverse();
    expect(entries.map((e) => e.Action)).toEqual(['create', 'update', 'delete']);
    expect(entries[0]).toMatchObject({
      Kind: 'color',
      RowID: id,
      ActorID: acme.admin.individualId,
      ActorKind: 'user',
      ActorName: acme.admin.userName,
      RequestID: requestId,
    });
    expect(entries[0].Changes).toEqual(
      expect.arrayContaining([
        { Field: 'Name', Before: null, After: 'Amber', Secret: false },
        { Field: 'MaxPercent', Before: null, After: '50', Secret: false },
      ]),
    );
    expect(entries[1].Changes).toEqual([
      { Field: 'Name', Before: 'Amber', After: 'Ochre', Secret: false },
      { Field: 'MaxPercent', Before: '50', After: '60', Secret: false },
    ]);
    expect(entries[2].Changes).toEqual(expect.arrayContaining([{ Field: 'Name', Before: 'Ochre', After: null, Secret: false }]));
    expect(entries[0].Seq).toBeLessThan(entries[1].Seq);
    expect(entries[1].Seq).toBeLessThan(entries[2].Seq);
  });

  it('answers the trail in XML as ArrayOfAuditEntry, each change an AuditFieldChange', async () => {
    const res = await t.http().get('/v4/audit?kind=color&limit=5').set('Authorization', as(acme.admin)).set('Accept', 'application/xml').expect(200);
    expect(res.text).toContain('<ArrayOfAuditEntry xmlns="urn:pms:v4"');
    expect(res.text).toContain('<AuditFieldChange>');
    const items = (await codec.decodeXml(res.text)) as Record<string, unknown>[];
    expect(items.length).toBeGreaterThan(0);
  });

  it('answers entries stored in the earlier form (a list of {Field, Before, After}) as it answers the compact one, in JSON and XML', async () => {
    const id = await colorChanged({ Name: 'Teal', ColorValue: 7, MinPercent: 0, MaxPercent: 40 }, { Name: 'Cyan' });
    const read = async () => ({
      json: (await t.http().get(`/v4/colors/${id}/history`).set('Authorization', as(acme.admin)).expect(200)).body as Entry[],
      xml: (await t.http().get(`/v4/colors/${id}/history`).set('Authorization', as(acme.admin)).set('Accept', 'application/xml').expect(200)).text,
    });
    const compact = await read();
    expect(compact.json.map((e) => e.Changes.find((c) => c.Field === 'Name'))).toEqual([
      { Field: 'Name', Before: 'Teal', After: 'Cyan', Secret: false },
      { Field: 'Name', Before: null, After: 'Teal', Secret: false },
    ]);
    const stored = (await t.ds.query('SELECT seq, changes FROM audit_log WHERE site_id = ? AND row_id = ?', [acme.siteId, id])) as {
      seq: number;
      changes: string;
    }[];
    expect(stored).toHaveLength(2);
    for (const r of stored) {
      const legacy = JSON.stringify(decodeChanges(r.changes));
      expect(r.changes.length).toBeLessThan(legacy.length);
      await t.ds.query('UPDATE audit_log SET changes = ? WHERE site_id = ? AND seq = ?', [legacy, acme.siteId, r.seq]);
    }
    expect(await read()).toEqual(compact);
  });

  it('records soft delete and undelete by name, and what a delete took down by reference', async () => {
    const p = await t
      .http()
      .post('/v4/projects')
      .set('Authorization', as(acme.admin))
      .send({
        Name: 'Audit me',
        OwnerID: acme.admin.individualId,
        OrganizationID: acme.orgId,
        StartDate: '2026-01-01T00:00:00Z',
        DueDate: '2026-06-30T00:00:00Z',
      })
      .expect(200);
    await t.http().delete(`/v4/projects/${p.body.ID}`).set('Authorization', as(acme.admin)).expect(200);
    await t.http().put(`/v4/projects/${p.body.ID}/undelete`).set('Authorization', as(acme.admin)).expect(200);
    const history = await t.http().get(`/v4/projects/${p.body.ID}/history`).set('Authorization', as(acme.admin)).expect(200);
    expect((history.body as Entry[]).map((e) => e.Action)).toEqual(['undelete', 'delete', 'create']);
  });

  it('replays, for a random sequence of writes, to exactly the rows the site has', async () => {
    const random = rng(27);
    const live = new Set<number>();
    const start = (await trail(acme, '&kind=color&limit=1'))[0]?.Seq ?? 0;
    for (let i = 0; i < 40; i++) {
      const pick = random();
      const ids = [...live];
      if (pick < 0.4 || ids.length === 0) {
        const min = Math.floor(random() * 50);
        const res = await t
          .http()
          .post('/v4/colors')
          .set('Authorization', as(acme.admin))
          .send({ Name: `C${i}`, ColorValue: Math.floor(random() * 0xffffff), MinPercent: min, MaxPercent: min + 1 + Math.floor(random() * 50), Rank: i % 3 })
          .expect(200);
        live.add(res.body.ID);
      } else if (pick < 0.8) {
        const id = ids[Math.floor(random() * ids.length)];
        const patch = random() < 0.5 ? { Name: `P${i}` } : { Rank: Math.floor(random() * 9), ColorValue: Math.floor(random() * 100) };
        await t.http().patch(`/v4/colors/${id}`).set('Authorization', as(acme.admin)).send(patch).expect(200);
      } else {
        const id = ids[Math.floor(random() * ids.length)];
        await t.http().delete(`/v4/colors/${id}`).set('Authorization', as(acme.admin)).expect(200);
        live.delete(id);
      }
    }
    // Replay every color change ever recorded for the site (the rows before `start` included).
    const replayed = new Map<string, Record<string, string | null>>();
    for (const e of (await trail(acme, '&kind=color')).reverse()) {
      if (e.Action === 'delete') {
        replayed.delete(e.RowID);
        continue;
      }
      const row = replayed.get(e.RowID) ?? {};
      for (const c of e.Changes) row[c.Field] = c.After;
      replayed.set(e.RowID, row);
    }
    expect(start).toBeGreaterThan(0);
    const current = (await t.http().get('/v4/colors?limit=5000').set('Authorization', as(acme.admin)).expect(200)).body as Record<string, unknown>[];
    const own = current.filter((c) => (c.ID as number) > 0);
    expect([...replayed.keys()].sort()).toEqual(own.map((c) => String(c.ID)).sort());
    for (const c of own) {
      const row = replayed.get(String(c.ID))!;
      for (const f of ['ID', 'Name', 'ColorValue', 'MinPercent', 'MaxPercent', 'Rank'])
        expect({ id: c.ID, f, v: row[f] }).toEqual({ id: c.ID, f, v: String(c[f]) });
    }
  });

  it('records nothing for a write that rolled back', async () => {
    const db = t.app.get(TenantDb);
    const ctx = RequestContext.system(acme.siteId);
    const before = await trail(acme, '&limit=1');
    await expect(
      db.transaction(ctx, async (tx) => {
        await tx.repo(ColorEntity).insert({ name: 'Doomed', colorValue: 1, minPercent: 0, maxPercent: 1, rank: 0 });
        throw new Error('rolled back');
      }),
    ).rejects.toThrow('rolled back');
    const after = await trail(acme, '&limit=1');
    expect(after[0].Seq).toBe(before[0].Seq);
    expect(await t.ds.getRepository(ColorEntity).countBy({ name: 'Doomed' })).toBe(0);
  });

  it('numbers a large transaction’s changes consecutively after the ones before it, and two writers’ changes in commit order', async () => {
    const db = t.app.get(TenantDb);
    const ctx = RequestContext.system(globex.siteId);
    const seqs = async (): Promise<{ seq: number; at: Date | string; row_id: string }[]> =>
      t.ds.query('SELECT seq, at, row_id FROM audit_log WHERE site_id = ? ORDER BY seq', [globex.siteId]);
    const start = (await seqs()).length;
    // 450 rows: more than one INSERT of the trail holds (400).
    const ids: string[] = [];
    await db.transaction(ctx, async (tx) => {
      for (let i = 0; i < 450; i++) {
        const color = { name: `Bulk ${i}`, colorValue: i, minPercent: 0, maxPercent: 1, rank: i };
        const r = await tx.repo(ColorEntity).insert(color);
        ids.push(String(r.id));
      }
    });
    // Then two writers at once, a handful of transactions each.
    await Promise.all(
      [0, 1].map(async (w) => {
        for (let i = 0; i < 5; i++)
          await db.transaction(ctx, (tx) => tx.repo(ColorEntity).insert({ name: `W${w}-${i}`, colorValue: 1, minPercent: 0, maxPercent: 1, rank: 0 }));
      }),
    );
    const rows = await seqs();
    expect(rows.map((r) => Number(r.seq))).toEqual(rows.map((_, i) => i + 1));
    expect(rows.slice(start, start + 450).map((r) => r.row_id)).toEqual(ids);
    const [{ seq: counter }] = await t.ds.query('SELECT seq FROM change_seqs WHERE site_id = ?', [globex.siteId]);
    expect(Number(counter)).toBe(rows.length);
    // Stamps never go back along the sequence (Dashboard-As-Of relies on it: docs/dashboards.md).
    const at = rows.map((r) => new Date(r.at instanceof Date ? r.at : `${String(r.at).replace(' ', 'T')}Z`).getTime());
    for (let i = 1; i < at.length; i++) expect({ seq: i + 1, at: at[i] >= at[i - 1] }).toEqual({ seq: i + 1, at: true });
  });

  it('never shows another site’s entries, and another site’s record is 404 for history', async () => {
    const g = await t
      .http()
      .post('/v4/colors')
      .set('Authorization', as(globex.admin))
      .send({ Name: 'Globex', ColorValue: 1, MinPercent: 0, MaxPercent: 10 })
      .expect(200);
    const mine = await trail(acme);
    expect(mine.some((e) => e.RowID === String(g.body.ID))).toBe(false);
    const theirs = await trail(globex);
    expect(theirs.some((e) => e.RowID === acme.admin.individualId)).toBe(false);
    expect(theirs.length).toBeGreaterThan(0);
    await t.http().get(`/v4/colors/${g.body.ID}/history`).set('Authorization', as(acme.admin)).expect(404);
    await t.http().get(`/v4/individuals/${acme.admin.individualId}/history`).set('Authorization', as(globex.admin)).expect(404);
    // Filtering by the other site's row id finds nothing either.
    expect(await trail(acme, `&rowid=${g.body.ID}&kind=color`)).toEqual([]);
  });

  it('lets whoever may read a record read its history, and only administrators read the whole trail', async () => {
    await t.http().get('/v4/audit').set('Authorization', as(plain)).expect(403);
    await t.http().get('/v4/audit').expect(401);
    const h = await t.http().get(`/v4/individuals/${plain.individualId}/history`).set('Authorization', as(plain)).expect(200);
    expect((h.body as Entry[]).map((e) => e.Action)).toEqual(['create']);
    const xml = await t
      .http()
      .get(`/v4/individuals/${plain.individualId}/history`)
      .set('Authorization', as(plain))
      .set('Accept', 'application/xml')
      .expect(200);
    expect(xml.text).toContain('<ArrayOfAuditEntry');
  });

  it('answers 400 for bad filters and ids, and 404 for an unknown collection or record', async () => {
    await t.http().get('/v4/audit?since=yesterday').set('Authorization', as(acme.admin)).expect(400);
    await t.http().get('/v4/audit?before=0').set('Authorization', as(acme.admin)).expect(400);
    await t
      .http()
      .get(`/v4/audit?since=${encodeURIComponent('2030-01-02T00:00:00.000+00:00')}&until=${encodeURIComponent('2030-01-01T00:00:00.000+00:00')}`)
      .set('Authorization', as(acme.admin))
      .expect(400);
    await t.http().get('/v4/goals/abc/history').set('Authorization', as(acme.admin)).expect(400);
    await t.http().get('/v4/individuals/not-a-guid/history').set('Authorization', as(acme.admin)).expect(400);
    await t.http().get(`/v4/nothings/${randomUUID()}/history`).set('Authorization', as(acme.admin)).expect(404);
    await t.http().get(`/v4/individuals/${randomUUID()}/history`).set('Authorization', as(acme.admin)).expect(404);
  });

  it('pages newest first with a Link to the next page and filters by time and actor', async () => {
    const page = await t.http().get('/v4/audit?limit=2').set('Authorization', as(acme.admin)).expect(200);
    expect(page.body).toHaveLength(2);
    expect(page.body[0].Seq).toBeGreaterThan(page.body[1].Seq);
    expect(page.headers.link).toContain(`before=${page.body[1].Seq}`);
    const byActor = await trail(acme, `&actor=${acme.admin.individualId}`);
    expect(byActor.length).toBeGreaterThan(0);
    expect(byActor.every((e) => e.ActorID === acme.admin.individualId)).toBe(true);
    expect(await trail(acme, `&since=${encodeURIComponent('2099-01-01T00:00:00.000+00:00')}`)).toEqual([]);
  });
});
