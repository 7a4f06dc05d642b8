import { TenantDb } from '../../src/database/tenant-db.js';
import { INDIVIDUAL_MEMO } from '../../src/modules/individuals/individual-read.js';
import type { RecordMemo } from '../../src/http/wire/record-memo.js';
import { bearer, startApp, TestApp } from './harness.js';
import { createPerson, createSite, TestPerson, TestSite } from '../factories/index.js';
import { insertIndividualComment, refreshNewestComments } from '../factories/individuals.js';
import { copyAuthorNames, createComment } from '../factories/comments.js';
import { createPeriods } from '../factories/goals.js';
import { GoalEntity } from '../../src/database/entities/goal.entity.js';
import { CommentEntity } from '../../src/database/entities/comment.entity.js';
import { Goal } from '../../src/modules/goals/dto/goal.dto.js';
import { Comment } from '../../src/modules/comments/dto/comment.dto.js';

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

  it('shows a renamed organization, changed account and new or deleted comments at once, even when written around the API (comments then refreshed, and authors’ names copied, as importers must)', async () => {
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
        change: async () => {
          await t.ds.query('UPDATE individuals SET first_name = ? WHERE id = ?', ['Bossy', boss.individualId]);
          await copyAuthorNames(t);
        },
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

  it('is left alone by a streamed export: its records are built, neither read from the memo nor kept, and the list read after it is still served from it', async () => {
    t.config.recordMemo = 5000;
    memo.clear();
    const page = await get('/v4/individuals', acme.admin);
    const kept = memo.size;
    expect(kept).toBeGreaterThanOrEqual(4);
    const { hits, misses } = memo;
    for (const accept of ['text/csv', 'application/x-ndjson']) {
      const res = await t.http().get('/v4/individuals').set('Authorization', bearer(acme.admin.token)).set('Accept', accept).expect(200);
      expect(res.text).toContain('Worker');
    }
    expect({ size: memo.size, hits: memo.hits, misses: memo.misses }).toEqual({ size: kept, hits, misses });
    expect(await get('/v4/individuals', acme.admin)).toEqual(page);
    expect(memo.hits - hits).toBe(kept);
  });
});

/**
 * The answers of list items kept per row (ScopedRepository.answers, docs/performance.md "Record
 * memo"): a goal or a comment read again unchanged, with the same joined name, is answered from the
 * answer built the first time. Byte for byte as without the memo, and every change of what an item
 * shows, its own columns or the name joined to it, is seen by the next read.
 */
describe('record memo of list items', () => {
  let t: TestApp;
  let acme: TestSite;
  let owner: TestPerson;
  let peer: TestPerson;
  let goalIds: number[];
  let commentIds: string[];

  beforeAll(async () => {
    t = await startApp();
    acme = await createSite(t);
    owner = await createPerson(t, acme, { firstName: 'Olive', lastName: 'Owner' });
    peer = await createPerson(t, acme, { firstName: 'Pat', lastName: 'Peer' });
    const { current } = await createPeriods(t, acme.siteId);
    goalIds = [];
    for (const name of ['First goal', 'Second goal']) {
      const res = await t
        .http()
        .post('/v4/goals')
        .set('Authorization', bearer(acme.admin.token))
        .send(goalBody(owner.individualId, current.id, name))
        .expect(200);
      goalIds.push((res.body as { ID: number }).ID);
    }
    commentIds = [
      (await createComment(t, peer.token, 'individuals', owner.individualId, 'From the peer')).ID,
      (await createComment(t, acme.admin.token, 'individuals', owner.individualId, 'From the administrator')).ID,
    ];
  });
  afterAll(() => t?.close());
  afterEach(() => {
    t.config.recordMemo = 5000;
  });

  const goals = () => `/v4/individuals/${owner.individualId}/goals`;
  const comments = () => `/v4/individuals/${owner.individualId}/comments`;
  const memoOf = (path: string) =>
    path.endsWith('/goals') ? t.app.get(TenantDb).answerMemo(GoalEntity, Goal) : t.app.get(TenantDb).answerMemo(CommentEntity, Comment);

  async function get(path: string, accept = 'application/json') {
    const res = await t.http().get(path).set('Authorization', bearer(acme.admin.token)).set('Accept', accept).set('X-Request-Id', 'memo-probe');
    expect(res.status).toBe(200);
    return { text: res.text, etag: res.headers.etag as string | undefined, total: res.headers['x-total-count'] as string | undefined };
  }

  it('answers byte for byte as without it, in JSON and XML and any zone, and serves the second read from it', async () => {
    for (const list of [goals(), comments()]) {
      for (const [query, accept] of [
        ['', 'application/json'],
        ['', 'application/xml'],
        ['?tz=Europe/Berlin', 'application/json'],
        ['?tz=-05:00', 'application/xml'],
      ]) {
        const memo = memoOf(list);
        t.config.recordMemo = 0;
        memo.clear();
        const without = await get(list + query, accept);
        t.config.recordMemo = 5000;
        const first = await get(list + query, accept);
        const hits = memo.hits;
        const second = await get(list + query, accept);
        expect({ list, query, ...first }).toEqual({ list, query, ...without });
        expect({ list, query, ...second }).toEqual({ list, query, ...without });
        expect(memo.hits - hits).toBe(2);
      }
    }
  });

  it('shows a change of the item’s own columns, or of the name joined to it or kept with it, at once, even when written around the API', async () => {
    const item = async (path: string, id: string | number) =>
      (JSON.parse((await get(path)).text) as Record<string, unknown>[]).find((x) => x.ID === id) as Record<string, unknown>;
    const xml = async (path: string) => (await get(path, 'application/xml')).text;
    await get(goals());
    await get(comments());

    await t.ds.query('UPDATE goals SET name = ?, measure4_completed = ? WHERE id = ?', ['Renamed goal', true, goalIds[0]]);
    expect(await item(goals(), goalIds[0])).toMatchObject({ Name: 'Renamed goal', MeasuresCompleted: 3 });
    expect(await xml(goals())).toContain('<Name>Renamed goal</Name>');

    await t.ds.query('UPDATE individuals SET first_name = ? WHERE id = ?', ['Olivia', owner.individualId]);
    expect(await item(goals(), goalIds[1])).toMatchObject({ Name: 'Second goal', FullName: 'Olivia Owner' });
    expect(await xml(goals())).toContain('<FullName>Olivia Owner</FullName>');

    // A comment keeps its author's name: renamed around the API, then copied as importers must.
    await t.ds.query('UPDATE individuals SET last_name = ? WHERE id = ?', ['Peers', peer.individualId]);
    await copyAuthorNames(t);
    expect(await item(comments(), commentIds[0])).toMatchObject({ Body: 'From the peer', AuthorName: 'Pat Peers' });
    expect(await item(comments(), commentIds[1])).toMatchObject({ AuthorName: expect.not.stringContaining('Peers') });

    await t.ds.query('UPDATE comments SET body = ? WHERE id = ?', ['Edited in SQL', commentIds[1]]);
    expect(await item(comments(), commentIds[1])).toMatchObject({ Body: 'Edited in SQL' });
    expect(await xml(comments())).toContain('<Body>Edited in SQL</Body>');
  });

  it('is left alone by a streamed export of the list: nothing read from the memo, nothing kept', async () => {
    const memo = memoOf(goals());
    memo.clear();
    const res = await t.http().get(goals()).set('Authorization', bearer(acme.admin.token)).set('Accept', 'text/csv').expect(200);
    expect(res.text.trim().split('\r\n')).toHaveLength(goalIds.length + 1);
    expect({ size: memo.size, hits: memo.hits }).toEqual({ size: 0, hits: memo.hits });
    const misses = memo.misses;
    await t.http().get(goals()).set('Authorization', bearer(acme.admin.token)).set('Accept', 'text/csv').expect(200);
    expect({ size: memo.size, misses: memo.misses }).toEqual({ size: 0, misses });
  });
});

function goalBody(individualId: string, periodId: number, name: string): Record<string, unknown> {
  const day = '2026-12-31T00:00:00.000+00:00';
  return {
    IndividualID: individualId,
    Name: name,
    Completed: false,
    Comment: 'On track',
    Why: 'Because',
    DueDate: day,
    PeriodID: periodId,
    Measure1: 'One',
    Measure2: 'Two',
    Measure3: 'Three',
    Measure4: 'Four',
    Measure5: '',
    Measure1Completed: true,
    Measure2Completed: true,
    Measure3Completed: false,
    Measure4Completed: false,
    Measure5Completed: false,
    Measure1StartDate: day,
    Measure1EndDate: day,
    Measure2StartDate: day,
    Measure2EndDate: day,
    Measure3StartDate: day,
    Measure3EndDate: null,
    Measure4StartDate: day,
    Measure4EndDate: day,
    Measure5StartDate: day,
    Measure5EndDate: day,
  };
}
