import { bearer, DB_KIND, startApp, statementsOf, TestApp, NO_BACKGROUND_ROUNDS } from './harness.js';
import { createPerson, createSite, TestSite } from '../factories/index.js';
import { createPeriods } from '../factories/goals.js';

/**
 * An update answers the record as stored (docs/performance.md, "Writes: fewer round trips"): built
 * from the locked row and the values written when the database stores them exactly, read back
 * otherwise. Either way the answer is byte for byte what a GET reads next, with the same ETag.
 */
describe('update answers', () => {
  let t: TestApp;
  let site: TestSite;
  let individualId: string;
  let periodId: number;

  beforeAll(async () => {
    t = await startApp({ ...NO_BACKGROUND_ROUNDS });
    site = await createSite(t, { name: 'Acme' });
    individualId = (await createPerson(t, site, { firstName: 'Ana', lastName: 'Ortiz' })).individualId;
    periodId = (await createPeriods(t, site.siteId)).current.id;
  });
  afterAll(() => t.close());

  const admin = () => bearer(site.admin.token);
  const at = (iso: string) => iso;

  function goal(extra: Record<string, unknown> = {}): Record<string, unknown> {
    return {
      IndividualID: individualId,
      Name: 'Grow  revenue ',
      Completed: false,
      Comment: 'Émile’s 🎯',
      Why: '',
      DueDate: at('2026-12-31T23:59:58.123+05:30'),
      PeriodID: periodId,
      Measure1: 'a',
      Measure2: '',
      Measure3: 'c',
      Measure4: '',
      Measure5: '',
      Measure1Completed: true,
      Measure2Completed: false,
      Measure3Completed: true,
      Measure4Completed: false,
      Measure5Completed: false,
      Measure1StartDate: at('2026-01-01T00:00:00.001+00:00'),
      Measure1EndDate: at('2026-02-01T00:00:00.000-08:00'),
      Measure2StartDate: at('2026-02-02T00:00:00.000+00:00'),
      Measure2EndDate: at('2026-02-03T00:00:00.000+00:00'),
      Measure3StartDate: at('2026-03-01T12:00:00.000+00:00'),
      Measure3EndDate: null,
      Measure4StartDate: at('2026-04-01T00:00:00.000+00:00'),
      Measure4EndDate: at('2026-04-02T00:00:00.000+00:00'),
      Measure5StartDate: at('2026-05-01T00:00:00.000+00:00'),
      Measure5EndDate: at('2026-05-02T00:00:00.000+00:00'),
      ...extra,
    };
  }

  /** The PUT's (or PATCH's) answer and the GET that follows, in both formats. */
  async function expectAnswerIsStored(
    path: string,
    write: (accept: string, etag: string) => Promise<{ status: number; text: string; headers: Record<string, string> }>,
  ) {
    for (const accept of ['application/json', 'application/xml']) {
      const current = await t.http().get(path).set('Authorization', admin()).set('Accept', accept).expect(200);
      const answer = await write(accept, current.headers.etag);
      expect(answer.status).toBe(200);
      const read = await t.http().get(path).set('Authorization', admin()).set('Accept', accept).expect(200);
      expect(answer.text).toBe(read.text);
      expect(answer.headers.etag).toBe(read.headers.etag);
      expect(answer.headers.etag).not.toBe(current.headers.etag);
    }
  }

  it('a goal: dates with milliseconds and offsets, spaces, emoji, nulls, booleans', async () => {
    const created = await t.http().post('/v4/goals').set('Authorization', admin()).send(goal()).expect(200);
    const id = created.body.ID as number;
    let n = 0;
    await expectAnswerIsStored(`/v4/goals/${id}`, (accept, etag) =>
      t
        .http()
        .put(`/v4/goals/${id}`)
        .set('Authorization', admin())
        .set('Accept', accept)
        .set('If-Match', etag)
        .send(
          goal({
            ID: id,
            Name: `Renamed ${++n}  `,
            Completed: n % 2 === 0,
            DueDate: at(`2027-0${n}-15T08:30:00.${n}07+02:00`),
            Measure2StartDate: at('2026-01-05T05:05:05.555Z'),
          }),
        ),
    );
  });

  it('a color: a percent the column holds exactly, and one it rounds (read back)', async () => {
    const created = await t
      .http()
      .post('/v4/colors')
      .set('Authorization', admin())
      .send({ Name: 'Amber', ColorValue: 1, MinPercent: 10, MaxPercent: 20 })
      .expect(200);
    const id = created.body.ID as number;
    for (const min of [12.5, 12.3456789]) {
      await expectAnswerIsStored(`/v4/colors/${id}`, (accept, etag) =>
        t
          .http()
          .put(`/v4/colors/${id}`)
          .set('Authorization', admin())
          .set('Accept', accept)
          .set('If-Match', etag)
          .send({ ID: id, Name: ' Amber ', ColorValue: 7, MinPercent: min, MaxPercent: 99.25 }),
      );
    }
    const read = await t.http().get(`/v4/colors/${id}`).set('Authorization', admin()).expect(200);
    // MariaDB's DECIMAL(18,4) rounds it (the update read it back); SQLite keeps it.
    expect(read.body.MinPercent).toBe(DB_KIND === 'mysql' ? 12.3457 : 12.3456789);
  });

  it('an individual, by PATCH', async () => {
    let n = 0;
    await expectAnswerIsStored(`/v4/individuals/${individualId}`, (accept, etag) =>
      t
        .http()
        .patch(`/v4/individuals/${individualId}`)
        .set('Authorization', admin())
        .set('Accept', accept)
        .set('If-Match', etag)
        .set('Content-Type', 'application/merge-patch+json')
        .send(JSON.stringify({ FirstName: `Zoë ${++n}`, Title: n === 1 ? null : 'Lead' })),
    );
  });

  it('a goal update does not read the goal back', async () => {
    const created = await t.http().post('/v4/goals').set('Authorization', admin()).send(goal()).expect(200);
    const id = created.body.ID as number;
    const { statements } = await statementsOf(t, () =>
      t
        .http()
        .put(`/v4/goals/${id}`)
        .set('Authorization', admin())
        .set('If-Match', created.headers.etag)
        .send(goal({ ID: id, Name: 'Once' }))
        .expect(200),
    );
    const goalReads = statements.filter((s) => /^SELECT\b[\s\S]*\bFROM [`"]?goals[`"]?/i.test(s));
    expect(goalReads).toHaveLength(1); // the lock, before the UPDATE
    expect(statements.findIndex((s) => /^UPDATE [`"]?goals/i.test(s))).toBeGreaterThan(statements.indexOf(goalReads[0]));
  });

  it('an update sets only the fields whose value changes (and its stamps); the others stay as stored', async () => {
    const created = await t.http().post('/v4/goals').set('Authorization', admin()).send(goal()).expect(200);
    const id = created.body.ID as number;
    // The same body but a new name, its dates written in other offsets (the same instants).
    const body = goal({ ID: id, Name: 'Only the name', DueDate: '2026-12-31T18:29:58.123Z', Measure1EndDate: '2026-02-01T08:00:00.000Z' });
    const { statements, result } = await statementsOf(t, () =>
      t.http().put(`/v4/goals/${id}`).set('Authorization', admin()).set('If-Match', created.headers.etag).send(body).expect(200),
    );
    const update = statements.find((s) => /^UPDATE [`"]?goals[`"]? SET/i.test(s));
    const columns = [...(/ SET (.*) WHERE /.exec(update ?? '')?.[1] ?? '').matchAll(/[`"](\w+)[`"] = /g)].map((m) => m[1]);
    expect(columns).toEqual(['name', 'updated', 'updated_by', 'version']);
    const read = await t.http().get(`/v4/goals/${id}`).set('Authorization', admin()).expect(200);
    expect(read.body).toEqual(result.body);
    expect(read.body).toEqual({ ...created.body, Name: 'Only the name', Updated: read.body.Updated, UpdatedBy: read.body.UpdatedBy });
  });
});
