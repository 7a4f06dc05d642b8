import { RequestContext } from '../../src/common/context/request-context.js';
import { lastCommentsFor } from '../../src/database/queries/last-comment.js';
import { TenantDb } from '../../src/database/tenant-db.js';
import { createComment, setCommentCreated } from '../factories/comments.js';
import { createPerson, createSite, TestPerson, TestSite } from '../factories/index.js';
import { individualRow } from '../factories/individuals.js';
import { createMetric } from '../factories/metrics.js';
import { bearer, DB_KIND, startApp, statementsOf, TestApp } from './harness.js';

/**
 * Each individual keeps the id of its newest live comment (`last_comment_id`, docs/comments.md),
 * which every read joins instead of searching the comments. These tests hold every write that
 * creates, deletes or restores a comment on an individual to keeping it right, in the same
 * transaction, also when the writes run at the same moment (on MariaDB each request holds its own
 * connection), and compare it each time with the newest comment worked out from the comments.
 */
describe(`the kept newest comment of an individual (${DB_KIND})`, () => {
  let t: TestApp;
  let acme: TestSite;
  let globex: TestSite;
  let subject: TestPerson;
  let writer: TestPerson;

  beforeAll(async () => {
    t = await startApp();
    acme = await createSite(t);
    globex = await createSite(t);
    subject = await createPerson(t, acme, { firstName: 'Sam', lastName: 'Subject' });
    writer = await createPerson(t, acme, { firstName: 'Wanda', lastName: 'Writer' });
  });
  afterAll(() => t?.close());

  const as = (p: TestPerson) => bearer(p.token);
  const read = async (id = subject.individualId) =>
    (await t.http().get(`/v4/individuals/${id}`).set('Authorization', as(acme.admin)).expect(200)).body as Record<string, unknown>;
  const kept = async (id = subject.individualId) => (await individualRow(t, id))!.lastCommentId;
  /** The newest live comment worked out from the comments themselves. */
  const truth = async (id = subject.individualId, siteId = acme.siteId) =>
    (await lastCommentsFor(t.app.get(TenantDb), RequestContext.system(siteId), [id])).get(id)?.body ?? null;
  const bodyOf = async (commentId: string | null) =>
    commentId === null ? null : ((await t.ds.query('SELECT body FROM comments WHERE id = ?', [commentId])) as { body: string }[])[0].body;

  /** The kept id, the newest worked out from the comments and the API's answer all name `body`. */
  async function expectNewest(body: string | null, id = subject.individualId): Promise<void> {
    expect({ kept: await bodyOf(await kept(id)), truth: await truth(id), answer: (await read(id)).LastComment }).toEqual({
      kept: body,
      truth: body,
      answer: body,
    });
  }

  it('follows every write through the API: create, delete, undelete, and the individual’s own delete and undelete', async () => {
    await expectNewest(null);
    const first = await createComment(t, writer.token, 'individuals', subject.individualId, 'first');
    await setCommentCreated(t, first.ID, new Date(Date.now() - 60_000));
    await expectNewest('first');
    const second = await createComment(t, acme.admin.token, 'individuals', subject.individualId, 'second');
    await expectNewest('second');

    // Deleting the newest shows the one before; deleting an older one changes nothing.
    await t.http().delete(`/v4/comments/${second.ID}`).set('Authorization', as(acme.admin)).expect(200);
    await expectNewest('first');
    await t.http().delete(`/v4/comments/${second.ID}`).set('Authorization', as(acme.admin)).expect(200); // idempotent
    await expectNewest('first');
    await t.http().put(`/v4/comments/${second.ID}/undelete`).set('Authorization', as(acme.admin)).expect(200);
    await expectNewest('second');

    // Editing a comment's body keeps it the newest, with its new text.
    await t.http().put(`/v4/comments/${second.ID}`).set('Authorization', as(acme.admin)).send({ ID: second.ID, Body: 'second, edited' }).expect(200);
    await expectNewest('second, edited');

    // The individual's delete takes its comments down by reference, and its undelete brings them back.
    await t.http().delete(`/v4/individuals/${subject.individualId}`).set('Authorization', as(acme.admin)).expect(200);
    await expectNewest(null);
    await t.http().put(`/v4/individuals/${subject.individualId}/undelete`).set('Authorization', as(acme.admin)).expect(200);
    await expectNewest('second, edited');

    // A comment deleted on its own before the individual's delete stays deleted after its undelete.
    await t.http().delete(`/v4/comments/${second.ID}`).set('Authorization', as(acme.admin)).expect(200);
    await t.http().delete(`/v4/individuals/${subject.individualId}`).set('Authorization', as(acme.admin)).expect(200);
    await t.http().put(`/v4/individuals/${subject.individualId}/undelete`).set('Authorization', as(acme.admin)).expect(200);
    await expectNewest('first');
  });

  it('is not moved by comments on other kinds of record with the same id, nor by refused writes', async () => {
    const before = await kept();
    await createMetric(t, acme.admin.token, { ID: subject.individualId, Kind: 'individual', AncestorID: writer.individualId, Name: 'Same id' });
    await createComment(t, acme.admin.token, 'metrics', subject.individualId, 'on the metric');
    expect(await kept()).toBe(before);
    // Another site's administrator cannot comment on this individual (400: not one of theirs), nor delete its comments (404).
    const res = await t
      .http()
      .post('/v4/comments')
      .set('Authorization', as(globex.admin))
      .send({ AncestorType: 'individuals', AncestorID: subject.individualId, Body: 'foreign' });
    expect(res.status).toBe(400);
    await t.http().delete(`/v4/comments/${before}`).set('Authorization', as(globex.admin)).expect(404);
    // Someone who is not the author may not delete it (403), and the kept comment stays.
    const mine = await createComment(t, writer.token, 'individuals', subject.individualId, 'by the writer');
    const other = await createPerson(t, acme, { lastName: 'Other' });
    await t.http().delete(`/v4/comments/${mine.ID}`).set('Authorization', as(other)).expect(403);
    await expectNewest('by the writer');
  });

  it('leaves the individual’s version, Updated and UpdatedBy as they were: a comment is not a change of the record', async () => {
    const before = await individualRow(t, subject.individualId);
    const c = await createComment(t, writer.token, 'individuals', subject.individualId, 'no version bump');
    await t.http().delete(`/v4/comments/${c.ID}`).set('Authorization', as(writer)).expect(200);
    const after = await individualRow(t, subject.individualId);
    expect({ version: after!.version, updated: after!.updated, updatedBy: after!.updatedBy }).toEqual({
      version: before!.version,
      updated: before!.updated,
      updatedBy: before!.updatedBy,
    });
  });

  it('stays right when comments are created and deleted on one individual at the same moment, beside a change of the record', async () => {
    const target = await createPerson(t, acme, { firstName: 'Busy', lastName: 'Target' });
    const existing = [];
    for (let k = 0; k < 6; k++) existing.push(await createComment(t, writer.token, 'individuals', target.individualId, `existing ${k}`));
    const writes = [
      ...Array.from({ length: 12 }, (_, k) =>
        t
          .http()
          .post('/v4/comments')
          .set('Authorization', as(k % 2 ? writer : acme.admin))
          .send({ AncestorType: 'individuals', AncestorID: target.individualId, Body: `concurrent ${k}` }),
      ),
      ...existing.slice(2).map((c) => t.http().delete(`/v4/comments/${c.ID}`).set('Authorization', as(writer))),
      t
        .http()
        .put(`/v4/individuals/${target.individualId}`)
        .set('Authorization', as(acme.admin))
        .send({ ID: target.individualId, FirstName: 'Renamed', LastName: 'Target', UserName: target.userName }),
    ];
    const answers = await Promise.all(writes.map((w) => w.then((r) => r.status)));
    expect(answers).toEqual(writes.map(() => 200));
    const newest = await truth(target.individualId);
    expect(newest).toMatch(/^concurrent \d+$/);
    expect(await bodyOf(await kept(target.individualId))).toBe(newest);
    expect(await read(target.individualId)).toMatchObject({ FirstName: 'Renamed', LastComment: newest });

    // Then all of them deleted at once, the newest last: the two never deleted are what remains.
    const live = (await t.http().get(`/v4/individuals/${target.individualId}/comments`).set('Authorization', as(acme.admin)).expect(200)).body as {
      ID: string;
      Body: string;
    }[];
    const concurrent = live.filter((c) => c.Body.startsWith('concurrent'));
    expect(concurrent).toHaveLength(12);
    const deletes = await Promise.all(concurrent.map((c) => t.http().delete(`/v4/comments/${c.ID}`).set('Authorization', as(acme.admin))));
    expect(deletes.map((r) => r.status)).toEqual(concurrent.map(() => 200));
    expect(await truth(target.individualId)).toBe('existing 1');
    expect(await bodyOf(await kept(target.individualId))).toBe('existing 1');
  });

  it('is written when the write commits, after the new comment: on MySQL/MariaDB both in the COMMIT’s own round trip', async () => {
    const target = await createPerson(t, acme, { lastName: 'Batched' });
    const { statements, result } = await statementsOf(t, () =>
      t
        .http()
        .post('/v4/comments')
        .set('Authorization', as(writer))
        .send({ AncestorType: 'individuals', AncestorID: target.individualId, Body: 'sent with the commit' })
        .expect(200),
    );
    const keeps = statements.filter((s) => /UPDATE individuals SET last_comment_id/i.test(s));
    expect(keeps).toHaveLength(1);
    const inserts = statements.filter((s) => /INSERT INTO [`"]?comments/i.test(s));
    expect(inserts).toHaveLength(1);
    if (DB_KIND === 'mysql') {
      // The new comment's INSERT, then the newest-comment update, then the COMMIT: one round trip.
      expect(keeps[0]).toMatch(/^INSERT INTO [`"]?comments[`"]?[\s\S]*;\s*UPDATE individuals SET last_comment_id[\s\S]*;\s*COMMIT\s*$/);
      expect(inserts[0]).toBe(keeps[0]);
    } else expect(statements.indexOf(keeps[0])).toBeGreaterThan(statements.indexOf(inserts[0]));
    expect(await bodyOf(await kept(target.individualId))).toBe('sent with the commit');
    expect(result.body).toMatchObject({ Body: 'sent with the commit', AuthorName: expect.stringContaining('Writer') });
  });

  it('never shows another site’s comment, even if the kept id named one', async () => {
    const foreign = await createComment(t, globex.admin.token, 'individuals', globex.admin.individualId, 'globex only');
    const lonely = await createPerson(t, acme, { lastName: 'Lonely' });
    await t.ds.query('UPDATE individuals SET last_comment_id = ? WHERE id = ?', [foreign.ID, lonely.individualId]);
    expect(await read(lonely.individualId)).toMatchObject({ LastComment: null, LastCommentByID: null });
    const page = (await t.http().get('/v4/individuals?limit=500').set('Authorization', as(acme.admin)).expect(200)).body as Record<string, unknown>[];
    expect(page.find((r) => r.ID === lonely.individualId)).toMatchObject({ LastComment: null });
    expect(JSON.stringify(page)).not.toContain('globex only');
    expect(await bodyOf(foreign.ID)).toBe('globex only');
  });
});
