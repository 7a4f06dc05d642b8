import { ADMIN_PASSWORD, ADMIN_USER, bearer, DB_KIND, NO_BACKGROUND_ROUNDS, startApp, statementsOf, TestApp } from './harness.js';
import { createPerson, createSite, TestPerson, TestSite } from '../factories/index.js';
import { createComment, type CommentJson } from '../factories/comments.js';
import { RequestContext } from '../../src/common/context/request-context.js';
import { CommentEntity } from '../../src/database/entities/comment.entity.js';
import { authorNamesFor } from '../../src/database/queries/comment-authors.js';
import { TenantDb } from '../../src/database/tenant-db.js';
import { setTimeout as sleep } from 'node:timers/promises';

/**
 * A comment keeps its author's name (docs/comments.md, "The author's name"): the create writes it,
 * every rename of the author rewrites it in the rename's transaction, and reads take it from the
 * comment instead of looking the author up per row.
 */
describe(`comments keep their author's name (${DB_KIND})`, () => {
  let t: TestApp;
  let acme: TestSite;
  let ana: TestPerson;
  let ben: TestPerson;

  beforeAll(async () => {
    t = await startApp({ ...NO_BACKGROUND_ROUNDS });
    acme = await createSite(t, { name: 'Acme' });
    ana = await createPerson(t, acme, { firstName: 'Ana', lastName: 'Ortiz' });
    ben = await createPerson(t, acme, { firstName: 'Ben', lastName: 'Bauer' });
  });
  afterAll(() => t.close());

  const admin = () => bearer(acme.admin.token);

  async function rename(person: TestPerson, firstName: string, lastName: string): Promise<number> {
    const res = await t
      .http()
      .put(`/v4/individuals/${person.individualId}`)
      .set('Authorization', admin())
      .send({ ID: person.individualId, FirstName: firstName, LastName: lastName, UserName: person.userName });
    return res.status;
  }

  const commentsOn = async (individualId: string): Promise<CommentJson[]> =>
    (await t.http().get(`/v4/individuals/${individualId}/comments?limit=100`).set('Authorization', admin()).expect(200)).body as CommentJson[];

  const stored = async (authorId: string) =>
    (await t.ds.query('SELECT author_first_name AS f, author_last_name AS l FROM comments WHERE author_id = ? ORDER BY id', [authorId])) as {
      f: string | null;
      l: string | null;
    }[];

  it('writes the name with the comment and answers it without looking the author up', async () => {
    const made = await createComment(t, ana.token, 'individuals', ben.individualId, 'kept name');
    expect(made.AuthorName).toBe('Ana Ortiz');
    expect(await stored(ana.individualId)).toEqual([{ f: 'Ana', l: 'Ortiz' }]);

    let page: CommentJson[] = [];
    const { statements } = await statementsOf(t, async () => {
      page = (await t.http().get(`/v4/individuals/${ben.individualId}/comments`).set('Authorization', admin()).expect(200)).body;
    });
    expect(page.map((c) => c.AuthorName)).toEqual(['Ana Ortiz']);
    const read = statements.filter((s) => /FROM [`"]?comments[`"]? t/.test(s));
    expect(read).toHaveLength(1);
    // The individual the comments are on is read with the page; no author is joined.
    expect(read[0]).not.toMatch(/JOIN [`"]?individuals[`"]? j/);

    const person = await t.http().get(`/v4/individuals/${ben.individualId}`).set('Authorization', admin()).expect(200);
    expect(person.body).toMatchObject({ LastComment: 'kept name', LastCommentByID: ana.individualId, LastCommentBy: 'Ana Ortiz' });
  });

  it('rewrites every comment of the author when its name changes, and only then', async () => {
    await createComment(t, ana.token, 'individuals', ana.individualId, 'on herself');
    await createComment(t, ana.token, 'organizations', acme.orgId, 'on a unit');
    await createComment(t, ben.token, 'individuals', ana.individualId, 'by ben');

    expect(await rename(ana, 'Anna', 'Ortiz-Diaz')).toBe(200);
    expect((await stored(ana.individualId)).every((r) => r.f === 'Anna' && r.l === 'Ortiz-Diaz')).toBe(true);
    expect((await commentsOn(ana.individualId)).map((c) => [c.Body, c.AuthorName])).toEqual([
      ['by ben', 'Ben Bauer'],
      ['on herself', 'Anna Ortiz-Diaz'],
    ]);
    expect((await commentsOn(ben.individualId)).map((c) => c.AuthorName)).toEqual(['Anna Ortiz-Diaz']);
    const unit = await t.http().get(`/v4/organizations/${acme.orgId}/comments`).set('Authorization', admin()).expect(200);
    expect(unit.body.map((c: CommentJson) => c.AuthorName)).toEqual(['Anna Ortiz-Diaz']);
    const mine = await t.http().get('/v4/me/comments').set('Authorization', bearer(ana.token)).expect(200);
    expect(mine.body.map((c: CommentJson) => c.AuthorName)).toEqual(['Anna Ortiz-Diaz', 'Anna Ortiz-Diaz', 'Anna Ortiz-Diaz']);
    expect((await t.http().get(`/v4/individuals/${ben.individualId}`).set('Authorization', admin()).expect(200)).body.LastCommentBy).toBe('Anna Ortiz-Diaz');

    // A write that keeps the name does not touch the comments.
    const { statements } = await statementsOf(t, async () => expect(await rename(ana, 'Anna', 'Ortiz-Diaz')).toBe(200));
    expect(statements.filter((s) => /UPDATE [`"]?comments/i.test(s))).toEqual([]);
    // Ben's comment kept his own name throughout.
    expect(await stored(ben.individualId)).toEqual([{ f: 'Ben', l: 'Bauer' }]);
  });

  it('keeps no name for an author who is no individual of the site (a global administrator acting in another)', async () => {
    const token = (await t.http().post('/v4/auth/token').send({ UserName: ADMIN_USER, Password: ADMIN_PASSWORD, SiteID: acme.siteId }).expect(200)).body
      .access_token as string;
    const made = await createComment(t, token, 'individuals', ben.individualId, 'by the global administrator');
    expect(made.AuthorName).toBeNull();
    expect((await commentsOn(ben.individualId)).find((c) => c.ID === made.ID)?.AuthorName).toBeNull();
    expect((await t.http().get(`/v4/individuals/${ben.individualId}`).set('Authorization', admin()).expect(200)).body).toMatchObject({
      LastComment: 'by the global administrator',
      LastCommentBy: null,
    });
  });

  it('answers every one of many comments and renames at once, and all of them end with the last name', async () => {
    const writer = await createPerson(t, acme, { firstName: 'Wanda', lastName: 'Writer' });
    const target = await createPerson(t, acme, { firstName: 'Tom', lastName: 'Target' });
    const writes: Promise<number>[] = [];
    for (let i = 0; i < 24; i++) {
      writes.push(
        t
          .http()
          .post('/v4/comments')
          .set('Authorization', bearer(writer.token))
          .send({ AncestorType: 'individuals', AncestorID: i % 2 ? target.individualId : writer.individualId, Body: `concurrent ${i}` })
          .then((r) => r.status),
      );
      if (i % 4 === 0) writes.push(rename(writer, `Wanda${i}`, 'Writer'));
    }
    const statuses = await Promise.all(writes);
    expect(statuses.every((s) => s === 200)).toBe(true);
    const now = (await t.http().get(`/v4/individuals/${writer.individualId}`).set('Authorization', admin()).expect(200)).body as {
      FirstName: string;
      LastName: string;
    };
    const names = new Set([...(await commentsOn(writer.individualId)), ...(await commentsOn(target.individualId))].map((c) => c.AuthorName));
    expect([...names]).toEqual([`${now.FirstName} ${now.LastName}`]);
    expect((await stored(writer.individualId)).length).toBe(24);
  });

  it('a rename that commits between a new comment’s read of the name and its insert still reaches that comment', async () => {
    const author = await createPerson(t, acme, { firstName: 'Rita', lastName: 'Race' });
    const db = t.app.get(TenantDb);
    const ctx = RequestContext.system(acme.siteId);
    let nameRead!: () => void;
    const read = new Promise<void>((r) => (nameRead = r));
    let goOn!: () => void;
    const renameHadItsTime = new Promise<void>((r) => (goOn = r));
    const create = db.transaction(ctx, async (tx) => {
      // What the create does first: the author's name, as it reads it (authorNamesFor)...
      const names = await authorNamesFor(db, ctx, author.individualId);
      expect(names).toEqual({ authorFirstName: 'Rita', authorLastName: 'Race' });
      nameRead();
      // ...then, once a rename has had time to commit, the comment.
      await renameHadItsTime;
      await tx
        .repo(CommentEntity)
        .insert({ ancestorType: 'individuals', ancestorId: ben.individualId, authorId: author.individualId, ...names, body: 'raced' });
    });
    await read;
    // Sent from the test, not from inside the transaction's async flow (which a nested write would join).
    const renamed = rename(author, 'Renata', 'Race');
    await sleep(400);
    goOn();
    await create;
    expect(await renamed).toBe(200);
    expect(await stored(author.individualId)).toEqual([{ f: 'Renata', l: 'Race' }]);
  });
});
