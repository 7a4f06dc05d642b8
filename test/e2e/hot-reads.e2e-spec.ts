import { jest } from '@jest/globals';
import { HotRoutes } from '../../src/common/http/hot-route.js';
import { bearer, startApp, TestApp } from './harness.js';
import { denyRead } from '../factories/permissions.js';
import { createPerson, createSite, TestPerson, TestSite } from '../factories/index.js';

/**
 * The hot reads (GET /v4/individuals/{id}, GET /v4/individuals) are served below Nest's route
 * pipeline (docs/performance.md, "Hot reads"). Each request below is sent twice, with the hot
 * path on and off (HOT_READS), and the two answers must be the same byte for byte: status, body
 * and every header but Date. Failures must be left to the Nest route, and
 * successes served by the hot path.
 */
describe('hot reads answer exactly as the Nest route', () => {
  let t: TestApp;
  let acme: TestSite;
  let other: TestSite;
  let boss: TestPerson;
  let worker: TestPerson;
  let peer: TestPerson;
  let hidden: TestPerson;
  let gone: TestPerson;
  let hot: HotRoutes;

  beforeAll(async () => {
    t = await startApp({ LOG_LEVEL: 'info' });
    hot = t.app.get(HotRoutes);
    acme = await createSite(t);
    other = await createSite(t);
    boss = await createPerson(t, acme, { lastName: 'Boss' });
    worker = await createPerson(t, acme, { lastName: 'Worker', reportsTo: boss.individualId });
    peer = await createPerson(t, acme, { lastName: 'Peer' });
    hidden = await createPerson(t, acme, { lastName: 'Hidden' });
    gone = await createPerson(t, acme, { lastName: 'Gone' });
    const admin = bearer(acme.admin.token);
    await t
      .http()
      .put(`/v4/individuals/${gone.individualId}`)
      .set('Authorization', admin)
      .send({ ID: gone.individualId, FirstName: 'Ex', LastName: 'Gone', UserName: gone.userName })
      .expect(200);
    await t.http().delete(`/v4/individuals/${gone.individualId}`).set('Authorization', admin).expect(200);
    await t
      .http()
      .post('/v4/comments')
      .set('Authorization', bearer(peer.token))
      .send({ AncestorID: worker.individualId, AncestorType: 'individuals', Body: 'Well done' })
      .expect(200);
    // A Deny on Read hides `hidden` from `peer` (404 by id, left out of lists).
    await denyRead(t, acme.admin.token, hidden.individualId, peer.userId);
  });
  afterAll(() => t?.close());

  interface Probe {
    path: string;
    as?: TestPerson | 'none' | 'garbage';
    headers?: Record<string, string>;
  }

  async function send(p: Probe, hotReads: boolean) {
    t.config.hotReads = hotReads;
    const before = hot.served;
    // One request id for both, so problem bodies (which carry it) compare.
    let req = t.http().get(p.path).set('X-Request-Id', 'hot-reads-probe');
    const who = p.as ?? acme.admin;
    if (who === 'garbage') req = req.set('Authorization', 'Bearer not.a.token');
    else if (who !== 'none') req = req.set('Authorization', bearer(who.token));
    for (const [k, v] of Object.entries(p.headers ?? {})) req = req.set(k, v);
    const res = await req;
    const headers = { ...res.headers };
    delete headers.date;
    return { status: res.status, text: res.text, headers, servedHot: hot.served - before };
  }

  async function compare(p: Probe) {
    const viaHot = await send(p, true);
    const viaNest = await send(p, false);
    expect(viaNest.servedHot).toBe(0);
    expect({ status: viaHot.status, text: viaHot.text, headers: viaHot.headers }).toEqual({
      status: viaNest.status,
      text: viaNest.text,
      headers: viaNest.headers,
    });
    return viaHot;
  }

  const id = (p: TestPerson) => `/v4/individuals/${p.individualId}`;

  it('serves a successful read by id in JSON and XML, in any time zone, for administrators and members alike', async () => {
    const probes: Probe[] = [
      { path: id(worker) },
      { path: id(worker), headers: { Accept: 'application/xml' } },
      { path: id(worker), headers: { Accept: 'text/xml;q=0.9, application/json;q=0.5' } },
      { path: `${id(worker)}?tz=Europe/Berlin` },
      { path: `${id(worker)}?tz=+02:00`, headers: { Accept: 'application/xml' } },
      { path: `${id(worker)}?tz=W.%20Europe%20Standard%20Time&unknown=1` },
      { path: id(worker), as: boss },
      { path: id(worker), as: peer, headers: { Accept: 'application/xml' } },
      { path: id(worker), as: worker },
      { path: id(gone) },
      { path: id(worker).toUpperCase().replace('/V4/INDIVIDUALS/', '/v4/individuals/') },
    ];
    for (const p of probes) {
      const r = await compare(p);
      expect([p.path, r.status, r.servedHot]).toEqual([p.path, 200, 1]);
    }
    const read = await send({ path: id(worker), as: boss }, true);
    expect(JSON.parse(read.text)).toMatchObject({
      ID: worker.individualId,
      CanUpdate: true,
      CanDelete: false,
      LastComment: 'Well done',
      LastCommentByID: peer.individualId,
    });
    expect(JSON.parse((await send({ path: id(worker), as: peer }, true)).text)).toMatchObject({ CanUpdate: false });
  });

  it('answers a conditional read 304 with the same ETag', async () => {
    const first = await send({ path: id(worker) }, true);
    const etag = first.headers.etag as string;
    expect(etag).toBeTruthy();
    const r = await compare({ path: id(worker), headers: { 'If-None-Match': etag } });
    expect([r.status, r.text]).toEqual([304, '']);
  });

  it('leaves every failure to the Nest route: token, time zone, id, record not found, hidden or of another site', async () => {
    const probes: Probe[] = [
      { path: id(worker), as: 'none' },
      { path: id(worker), as: 'garbage' },
      { path: `${id(worker)}?tz=Mars/Olympus` },
      { path: `${id(worker)}?tz=UTC&tz=UTC` },
      { path: '/v4/individuals/not-a-guid' },
      { path: '/v4/individuals/00000000-0000-4000-8000-000000000001' },
      { path: id(hidden), as: peer },
      { path: id(other.admin) },
      { path: id(worker), headers: { Accept: 'application/xml' }, as: 'none' },
      { path: '/v4/individuals?deleted=7' },
      { path: '/v4/individuals?limit=abc' },
      { path: '/v4/individuals?limit=0' },
    ];
    for (const p of probes) {
      const r = await compare(p);
      expect([p.path, r.status >= 400, r.servedHot]).toEqual([p.path, true, 0]);
    }
  });

  it('serves pages with the same total, Link, filters and Deny as the route', async () => {
    const probes: Probe[] = [
      { path: '/v4/individuals' },
      { path: '/v4/individuals', headers: { Accept: 'application/xml' } },
      { path: '/v4/individuals?limit=2' },
      { path: '/v4/individuals?limit=2&offset=2&tz=Asia/Kolkata', headers: { Accept: 'application/xml' } },
      { path: '/v4/individuals?deleted=1' },
      { path: '/v4/individuals?deleted=2&limit=3' },
      { path: '/v4/individuals', as: peer },
      { path: '/v4/individuals?limit=1', as: boss },
    ];
    for (const p of probes) {
      const r = await compare(p);
      expect([p.path, r.status, r.servedHot]).toEqual([p.path, 200, 1]);
    }
    const seenByPeer = JSON.parse((await send({ path: '/v4/individuals', as: peer }, true)).text) as { ID: string }[];
    expect(seenByPeer.map((i) => i.ID)).not.toContain(hidden.individualId);
    expect(seenByPeer.map((i) => i.ID)).toContain(worker.individualId);
  });

  it('writes the same access-log line and metrics route as the Nest route', async () => {
    t.logs.length = 0;
    await send({ path: id(worker) }, true);
    await send({ path: id(worker) }, false);
    const lines = t.logs.map((l) => JSON.parse(l) as Record<string, unknown>).filter((l) => l.context === 'http');
    expect(lines).toHaveLength(2);
    for (const l of lines) expect(l).toMatchObject({ method: 'GET', route: '/v4/individuals/:id', status: 200, path: id(worker) });
    const metrics = await t.http().get('/metrics');
    expect(metrics.text).toMatch(/route="\/v4\/individuals\/:id"/);
  });

  it('hands a read whose hot path throws before it starts to the route, which answers it', async () => {
    const spy = jest.spyOn(hot, 'tryServe').mockImplementation(() => {
      throw new Error('hot path broken');
    });
    try {
      const r = await send({ path: id(worker) }, true);
      expect([r.status, r.servedHot, (JSON.parse(r.text) as { ID: string }).ID]).toEqual([200, 0, worker.individualId]);
      expect(spy).toHaveBeenCalled();
    } finally {
      spy.mockRestore();
    }
  });

  it('is switched off by HOT_READS=off', async () => {
    const r = await send({ path: id(worker) }, false);
    expect([r.status, r.servedHot]).toEqual([200, 0]);
  });
});
