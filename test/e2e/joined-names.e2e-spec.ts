import { bearer, startApp, statementsOf, TestApp, NO_BACKGROUND_ROUNDS } from './harness.js';
import { createPerson, createSite, TestPerson, TestSite } from '../factories/index.js';
import { createPeriods } from '../factories/goals.js';

/**
 * A goal's FullName is read with the record, in the same statement (docs/performance.md, "Kept
 * statements"), and a comment keeps its AuthorName (docs/comments.md): the name as the individual
 * has it now, and nothing from another site.
 */
describe('names read with their records', () => {
  let t: TestApp;
  let site: TestSite;
  let ana: TestPerson;
  let periodId: number;

  beforeAll(async () => {
    t = await startApp({ ...NO_BACKGROUND_ROUNDS });
    site = await createSite(t, { name: 'Acme' });
    ana = await createPerson(t, site, { firstName: 'Ana', lastName: 'Ortiz' });
    periodId = (await createPeriods(t, site.siteId)).current.id;
  });
  afterAll(() => t.close());

  const admin = () => bearer(site.admin.token);

  /** The statements a request runs. */
  const statementsOfRequest = async (run: () => Promise<unknown>) => (await statementsOf(t, run)).statements;

  async function rename(firstName: string): Promise<void> {
    const current = await t.http().get(`/v4/individuals/${ana.individualId}`).set('Authorization', admin()).expect(200);
    await t
      .http()
      .patch(`/v4/individuals/${ana.individualId}`)
      .set('Authorization', admin())
      .set('If-Match', current.headers.etag)
      .set('Content-Type', 'application/merge-patch+json')
      .send(JSON.stringify({ FirstName: firstName }))
      .expect(200);
  }

  it('a goal by id: one statement, FullName as the individual is named now', async () => {
    const d = '2026-06-01T00:00:00.000+00:00';
    const goal = await t
      .http()
      .post('/v4/goals')
      .set('Authorization', admin())
      .send({
        IndividualID: ana.individualId,
        Name: 'G',
        Completed: false,
        Comment: '',
        Why: '',
        DueDate: d,
        PeriodID: periodId,
        ...Object.fromEntries(
          [1, 2, 3, 4, 5].flatMap((n) => [
            [`Measure${n}`, ''],
            [`Measure${n}Completed`, false],
            [`Measure${n}StartDate`, d],
            [`Measure${n}EndDate`, d],
          ]),
        ),
      })
      .expect(200);
    expect(goal.body.FullName).toBe('Ana Ortiz');
    let res: { body: { FullName: string } } | undefined;
    const statements = await statementsOfRequest(async () => (res = await t.http().get(`/v4/goals/${goal.body.ID}`).set('Authorization', admin()).expect(200)));
    expect(statements).toHaveLength(1);
    expect(res!.body.FullName).toBe('Ana Ortiz');
    await rename('Anna');
    const again = await t.http().get(`/v4/goals/${goal.body.ID}`).set('Authorization', admin()).expect(200);
    expect(again.body.FullName).toBe('Anna Ortiz');
  });

  it('a list of comments: one statement, no author looked up, each AuthorName current', async () => {
    for (const body of ['one', 'two']) {
      await t
        .http()
        .post('/v4/comments')
        .set('Authorization', bearer(ana.token))
        .send({ AncestorType: 'individuals', AncestorID: ana.individualId, Body: body })
        .expect(200);
    }
    await rename('Ann');
    // The rename emptied the caller cache: the administrator is read again on this request, not the next.
    await t.http().get('/v4/me').set('Authorization', admin()).expect(200);
    let res: { body: { Body: string; AuthorName: string }[] } | undefined;
    const statements = await statementsOfRequest(
      async () => (res = await t.http().get(`/v4/individuals/${ana.individualId}/comments`).set('Authorization', admin()).expect(200)),
    );
    expect(res!.body.map((c) => [c.Body, c.AuthorName])).toEqual([
      ['two', 'Ann Ortiz'],
      ['one', 'Ann Ortiz'],
    ]);
    // The individual the comments are on (it must exist) and the page, with the names the comments
    // keep: one statement, and no individual joined per comment.
    expect(statements).toHaveLength(1);
    expect(statements[0]).toMatch(
      /\(SELECT a\.[`"]id[`"] AS [`"]__anchor_id[`"] FROM [`"]individuals[`"] a WHERE .*\) AS [`"]__anchor_id[`"] FROM [`"]comments[`"] t (FORCE INDEX \(`ix_comments_site_ancestor_last`\) )?WHERE /,
    );
    expect(statements[0]).toMatch(/t\.[`"]author_first_name[`"], t\.[`"]author_last_name[`"]/);
    const mine = await t.http().get('/v4/me/comments').set('Authorization', bearer(ana.token)).expect(200);
    expect(mine.body.map((c: { AuthorName: string }) => c.AuthorName)).toEqual(['Ann Ortiz', 'Ann Ortiz']);
  });
});
