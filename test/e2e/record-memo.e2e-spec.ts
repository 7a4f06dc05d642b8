import { TenantDb } from '../../src/database/tenant-db.js';
import { INDIVIDUAL_MEMO } from '../../src/modules/individuals/individual-read.js';
import type { RecordMemo } from '../../src/database/record-memo.js';
import { bearer, startApp, TestApp } from './harness.js';
import { createPerson, createSite, TestPerson, TestSite } from '../factories/index.js';
import { insertIndividualComment, refreshNewestComments } from '../factories/individuals.js';

/**
 * The record memo (docs/performance.md, "Record memo"): an individual read again with the very
 * same row and rights is answered from the answer built the first time, and its rendered texts.
 * These tests hold it to two promises: the answers are byte for byte those built without it, and
 * any change of what an answer shows — made through the API or straight in the database, as
 * another instance would — is seen by the very next read, with nothing to invalidate.
 */
describe('record memo of individuals', () => {
  let t: TestApp;
  let acme: TestSite;
  let boss: TestPerson;
  let worker: TestPerson;
  let peer: TestPerson;
  let memo: RecordMemo<object>;

  beforeAll(async () => {
    t = await startApp();
    memo = t.app.get(TenantDb).memo(INDIVIDUAL_MEMO);
    acme = await createSite(t);
    boss = await createPerson(t, acme, { lastName: 'Boss' });
    worker = await createPerson(t, acme, { lastName: 'Worker', reportsTo: boss.individualId });
    peer = await createPerson(t, acme, { lastName: 'Peer' });
    await insertIndividualComment(t, acme.siteId, worker.individualId, {
      body: 'First note',
      created: new Date('2026-03-01T10:00:00Z'),
      authorId: peer.individualId,
    });
  });
  afterAll(() => t?.close());
  afterEach(() => {
    t.config.recordMemo = 5000;
  });

  const byId = (p: TestPerson) => `/v4/individuals/${p.individualId}`;

  async function get(path: string, as: TestPerson, accept = 'application/json') {
    const res = await t.http().get(path).set('Authorization', bearer(as.token)).set('Accept', accept).set('X-Request-Id', 'memo-probe');
    expect(res.status).toBe(200);
    return { text: res.text, etag: res.headers.etag as string | undefined, total: res.headers['x-total-count'] as string | undefined };
  }

  const probes: { path: string; as: () => TestPerson; accept?: string }[] = [
    { path: '', as: () => acme.admin },
    { path: '', as: () => acme.admin, accept: 'application/xml' },
    { path: '?tz=Europe/Berlin', as: () => acme.admin },
    { path: '?tz=-05:00', as: () => acme.admin, accept: 'application/xml' },
    { path: '', as: () => boss },
    { path: '', as: () => peer, accept: 'application/xml' },
  ];

  it('answers byte for byte as without it, by id and in pages, and serves the second read from it', async () => {
    for (const p of probes) {
      for (const path of [byId(worker) + p.path, '/v4/individuals' + (p.path || '?') + '&limit=50']) {
        t.config.recordMemo = 0;
        memo.clear();
        const without = await get(path, p.as(), p.accept);
        t.config.recordMemo = 5000;
        const first = await get(path, p.as(), p.accept);
        const hits = memo.hits;
        const second = await get(path, p.as(), p.accept);
        expect({ path, ...first }).toEqual({ path, ...without });
        expect({ path, ...second }).toEqual({ path, ...without });
        expect(memo.hits).toBeGreaterThan(hits);
      }
    }
  });

  /** Reads the worker by id and in the list, JSON and XML (warming the memo), then after `change`. */
  async function seenAtOnce(as: TestPerson, change: () => Promise<unknown>, expected: Record<string, unknown>, xml: RegExp) {
    const list = async () =>
      (JSON.parse((await get('/v4/individuals?limit=50', as)).text) as Record<string, unknown>[]).find((i) => i.ID === worker.individualId);
    await get(byId(worker), as);
    await get(byId(worker), as, 'application/xml');
    await list();
    await change();
    expect(JSON.parse((await get(byId(worker), as)).text)).toMatchObject(expected);
    expect((await get(byId(worker), as, 'application/xml')).text).toMatch(xml);
    expect(await list()).toMatchObject(expected);
  }

  it('shows a renamed organization, changed account and new or deleted comments at once, even when written around the API (comments then refreshed as importers must)', async () => {
    const admin = acme.admin;
    let newer = '';
    const steps: { change: () => Promise<unknown>; expected: Record<string, unknown>; xml: RegExp }[] = [
      {
        change: () => t.ds.query('UPDATE organizations SET name = ? WHERE id = ?', ['Renamed Org', acme.orgId]),
        expected: { PrimaryOrganizationName: 'Renamed Org' },
        xml: /<PrimaryOrganizationName>Renamed Org</,
      },
      {
        change: () => t.ds.query('UPDATE users SET email = ? WHERE id = ?', ['new@example.test', worker.userId]),
        expected: { UserEmail: 'new@example.test' },
        xml: /<UserEmail>new@example.test</,
      },
      {
        change: async () => {
          const at = new Date('2026-03-02T10:00:00Z');
          newer = (await insertIndividualComment(t, acme.siteId, worker.individualId, { body: 'Second note', created: at, authorId: boss.individualId })).id;
        },
        expected: { LastComment: 'Second note', LastCommentByID: boss.individualId },
        xml: /<LastComment>Second note</,
      },
      {
        change: () => t.ds.query('UPDATE individuals SET first_name = ? WHERE id = ?', ['Bossy', boss.individualId]),
        expected: { LastCommentBy: 'Bossy Boss' },
        xml: /<LastCommentBy>Bossy Boss</,
      },
      {
        // Deleted around the API and not yet refreshed: the kept id is stale, and still no deleted
        // comment is shown.
        change: () => t.ds.query('UPDATE comments SET deleted = 1 WHERE id = ?', [newer]),
        expected: { LastComment: null, LastCommentByID: null },
        xml: /<LastComment i:nil="true"\/>/,
      },
      {
        change: () => refreshNewestComments(t, acme.siteId, [worker.individualId]),
        expected: { LastComment: 'First note', LastCommentByID: peer.individualId },
        xml: /<LastComment>First note</,
      },
    ];
    for (const step of steps) await seenAtOnce(admin, step.change, step.expected, step.xml);
    // Same instant, another zone: the kept text of one zone is not served for another.
    const utc = JSON.parse((await get(byId(worker), admin)).text) as { Created: string };
    const kolkata = JSON.parse((await get(byId(worker) + '?tz=Asia/Kolkata', admin)).text) as { Created: string };
    expect(kolkata.Created).toMatch(/\+05:30$/);
    expect(new Date(kolkata.Created).getTime()).toBe(new Date(utc.Created).getTime());
  });

  it('shows changed rights at once: a new manager may update, the old one no longer', async () => {
    await seenAtOnce(boss, async () => undefined, { CanUpdate: true }, /<CanUpdate>true</);
    await seenAtOnce(peer, async () => undefined, { CanUpdate: false }, /<CanUpdate>false</);
    await t
      .http()
      .put(byId(worker))
      .set('Authorization', bearer(acme.admin.token))
      .send({ ID: worker.individualId, FirstName: 'Test', LastName: 'Worker', UserName: worker.userName, PrimaryReportsTo: peer.individualId })
      .expect(200);
    expect(JSON.parse((await get(byId(worker), boss)).text)).toMatchObject({ CanUpdate: false, PrimaryReportsTo: peer.individualId });
    expect(JSON.parse((await get(byId(worker), peer)).text)).toMatchObject({ CanUpdate: true });
  });

  it('gives every caller an answer of their own: a kept answer is never changed by a later read', async () => {
    const asAdmin = await get(byId(worker), acme.admin);
    await get(byId(worker), peer);
    await get(byId(worker) + '?tz=Asia/Tokyo', acme.admin, 'application/xml');
    expect(await get(byId(worker), acme.admin)).toEqual(asAdmin);
  });
});
