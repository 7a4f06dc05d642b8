import { randomUUID } from 'node:crypto';
import { RequestContext } from '../../src/common/context/request-context.js';
import { TenantDb } from '../../src/database/tenant-db.js';
import { GoalEntity } from '../../src/database/entities/goal.entity.js';
import { IndividualEntity } from '../../src/database/entities/individual.entity.js';
import { bearer, startApp, TestApp, WireCodec } from './harness.js';
import { expectPeriodCheckedOnlyWhenMoved } from './period-checks.js';
import { createPerson, createSite, TestPerson, TestSite } from '../factories/index.js';
import { createPeriod, createPeriods, DAY } from '../factories/goals.js';

const codec = new WireCodec('urn:pms:v4');

/** Every Req field of the spec's Goal table (IndividualID is ReqCre, ID ReqUpd). */
const REQ_FIELDS = [
  'Name',
  'Completed',
  'Comment',
  'Why',
  'DueDate',
  'PeriodID',
  'Measure1',
  'Measure2',
  'Measure3',
  'Measure4',
  'Measure5',
  'Measure1Completed',
  'Measure3Completed',
  'Measure4Completed',
  'Measure5Completed',
  'Measure1StartDate',
  'Measure1EndDate',
  'Measure2StartDate',
  'Measure2EndDate',
  'Measure3StartDate',
  'Measure4StartDate',
  'Measure4EndDate',
  'Measure5StartDate',
  'Measure5EndDate',
];

const d = (iso: string) => `${iso}T00:00:00.000+00:00`;
/** Members that change with every write, whatever it writes. */
const AUDIT = ['Updated', 'UpdatedBy'];
const without = (record: Record<string, unknown>, fields: string[]) => Object.fromEntries(Object.entries(record).filter(([k]) => !fields.includes(k)));

function goalBody(individualId: string, periodId: number, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    IndividualID: individualId,
    Name: 'Grow revenue',
    Completed: false,
    Comment: 'On track',
    Why: 'Because we must',
    DueDate: d('2026-12-31'),
    PeriodID: periodId,
    Measure1: 'Sign 3 customers',
    Measure2: '',
    Measure3: 'Hire a rep',
    Measure4: 'Open an office',
    Measure5: '   ',
    Measure1Completed: true,
    Measure2Completed: true,
    Measure3Completed: true,
    Measure4Completed: false,
    Measure5Completed: true,
    Measure1StartDate: d('2026-01-01'),
    Measure1EndDate: d('2026-03-31'),
    Measure2StartDate: d('2026-01-01'),
    Measure2EndDate: d('2026-01-01'),
    Measure3StartDate: d('2026-02-01'),
    Measure3EndDate: null,
    Measure4StartDate: d('2026-04-01'),
    Measure4EndDate: d('2026-06-30'),
    Measure5StartDate: d('2026-07-01'),
    Measure5EndDate: d('2026-09-30'),
    ...extra,
  };
}

describe('/v4/goals', () => {
  let t: TestApp;
  let acme: TestSite;
  let globex: TestSite;
  let manager: TestPerson;
  let report: TestPerson;
  let peer: TestPerson;
  let current: number;
  let past: number;
  let globexPeriod: number;
  let globexGoal: Record<string, unknown>;

  beforeAll(async () => {
    t = await startApp();
    acme = await createSite(t, { name: 'Acme', pm: false });
    globex = await createSite(t, { name: 'Globex' });
    manager = await createPerson(t, acme, { firstName: 'Mia', lastName: 'Manager' });
    report = await createPerson(t, acme, { firstName: 'Rob', lastName: 'Report', reportsTo: manager.individualId });
    peer = await createPerson(t, acme, { firstName: 'Pia', lastName: 'Peer' });
    const periods = await createPeriods(t, acme.siteId);
    current = periods.current.id;
    past = periods.past.id;
    const gp = await createPeriods(t, globex.siteId);
    globexPeriod = gp.current.id;
    const g = await t
      .http()
      .post('/v4/goals')
      .set('Authorization', bearer(globex.admin.token))
      .send(goalBody(globex.admin.individualId, globexPeriod, { Name: 'Globex goal' }))
      .expect(200);
    globexGoal = g.body;
  });
  afterAll(async () => {
    await t.close();
  });

  const as = (p: TestPerson) => bearer(p.token);
  const post = (p: TestPerson, body: object) => t.http().post('/v4/goals').set('Authorization', as(p)).send(body);

  describe('POST /v4/goals', () => {
    it('creates a goal from JSON with derived fields, ignoring read-only input', async () => {
      const res = await post(
        report,
        goalBody(report.individualId, current, { ID: 777, SiteID: globex.siteId, FullName: 'Nobody', MeasuresTotal: 99, MeasuresCompleted: 99 }),
      ).expect(200);
      const { IndividualID: _i, ...rest } = goalBody(report.individualId, current);
      expect(res.body).toEqual({
        ...rest,
        ID: expect.any(Number),
        IndividualID: report.individualId,
        SiteID: acme.siteId,
        FullName: 'Rob Report',
        MeasuresTotal: 3,
        MeasuresCompleted: 2,
      });
      expect(res.body.ID).not.toBe(777);
      expect(res.headers.etag).toBeDefined();
      const read = await t.http().get(`/v4/goals/${res.body.ID}`).set('Authorization', as(report)).expect(200);
      expect(read.body).toEqual(res.body);
    });

    it('creates a goal from XML (any element order, i:nil, optional fields absent) and answers a Goal root', async () => {
      const b = goalBody(report.individualId, current);
      delete b.Measure2Completed;
      delete b.Measure3EndDate;
      const fields = Object.entries(b).reverse();
      const xml =
        '<Goal xmlns="urn:pms:v4" xmlns:i="http://www.w3.org/2001/XMLSchema-instance"><Measure3EndDate i:nil="true"/><SiteID>' +
        globex.siteId +
        '</SiteID>' +
        fields.map(([k, v]) => `<${k}>${String(v)}</${k}>`).join('') +
        '</Goal>';
      const res = await t
        .http()
        .post('/v4/goals')
        .set('Authorization', as(report))
        .set('Content-Type', 'application/xml')
        .set('Accept', 'application/xml')
        .send(xml)
        .expect(200);
      expect(res.text).toMatch(/^<\?xml[^>]+\?><Goal xmlns="urn:pms:v4"/);
      const names = [...res.text.matchAll(/<([A-Za-z0-9]+)[ />]/g)].map((m) => m[1]).slice(1);
      expect(names).toEqual([...names].sort());
      const goal = (await codec.decodeXml(res.text)) as Record<string, unknown>;
      expect(goal).toMatchObject({
        Name: 'Grow revenue',
        Completed: 'false',
        Comment: 'On track',
        Measure2: '',
        Measure2Completed: 'false',
        Measure3EndDate: null,
        Measure4EndDate: d('2026-06-30'),
        PeriodID: String(current),
        IndividualID: report.individualId,
        SiteID: acme.siteId,
        FullName: 'Rob Report',
        MeasuresTotal: '3',
        MeasuresCompleted: '2',
      });
    });

    it.each(['IndividualID', ...REQ_FIELDS])('answers 400 naming %s when it is missing', async (field) => {
      const body = goalBody(report.individualId, current);
      delete body[field];
      const res = await post(report, body).expect(400);
      expect(res.body.errors).toEqual([{ field, message: `${field} is required` }]);
    });

    it('accepts the optional Measure2Completed and Measure3EndDate being absent, and empty Req strings other than Name', async () => {
      const body = goalBody(report.individualId, current, { Comment: '', Why: '', Measure1: '', Measure3: '', Measure4: '' });
      delete body.Measure2Completed;
      delete body.Measure3EndDate;
      const res = await post(report, body).expect(200);
      expect(res.body).toMatchObject({ Measure2Completed: false, Measure3EndDate: null, Comment: '', MeasuresTotal: 0, MeasuresCompleted: 0 });
      const blank = await post(report, goalBody(report.individualId, current, { Name: '  ' })).expect(400);
      expect(blank.body.errors).toEqual([{ field: 'Name', message: 'Name must not be empty' }]);
    });

    it('answers 400 for each limit exceeded by one, and accepts the limits', async () => {
      const res = await post(
        report,
        goalBody(report.individualId, current, {
          Name: 'n'.repeat(256),
          Comment: 'c'.repeat(4001),
          Why: 'w'.repeat(4001),
          Measure1: 'm'.repeat(1001),
          Measure5: 'm'.repeat(1001),
        }),
      ).expect(400);
      expect(res.body.errors.map((e: { field: string }) => e.field).sort()).toEqual(['Comment', 'Measure1', 'Measure5', 'Name', 'Why']);
      await post(
        report,
        goalBody(report.individualId, current, { Name: 'n'.repeat(255), Comment: 'c'.repeat(4000), Why: 'w'.repeat(4000), Measure1: 'm'.repeat(1000) }),
      ).expect(200);
    });

    it('answers 400 for wrong types, naming each field', async () => {
      const res = await post(
        report,
        goalBody('not-a-guid', current, { Completed: 'yes', DueDate: 'tomorrow', PeriodID: 'one', Measure1: 5, Measure4Completed: 2, Measure1StartDate: 12 }),
      ).expect(400);
      expect(res.body.errors.map((e: { field: string }) => e.field).sort()).toEqual(
        ['Completed', 'DueDate', 'IndividualID', 'Measure1', 'Measure1StartDate', 'Measure4Completed', 'PeriodID'].sort(),
      );
    });

    it('answers 400 naming the end date when a measure starts after it ends (equal dates are fine)', async () => {
      const res = await post(
        report,
        goalBody(report.individualId, current, { Measure4StartDate: d('2026-07-01'), Measure1EndDate: d('2025-12-31'), Measure3EndDate: d('2026-01-31') }),
      ).expect(400);
      expect(res.body.errors).toEqual([
        { field: 'Measure1EndDate', message: 'Measure1EndDate must not be before Measure1StartDate' },
        { field: 'Measure3EndDate', message: 'Measure3EndDate must not be before Measure3StartDate' },
        { field: 'Measure4EndDate', message: 'Measure4EndDate must not be before Measure4StartDate' },
      ]);
    });

    it('answers 400 for an individual or period that is unknown, of another site, or an individual that is deleted', async () => {
      const gone = await createPerson(t, acme);
      await t.app.get(TenantDb).repo(RequestContext.system(acme.siteId), IndividualEntity).updateWhere({ id: gone.individualId }, { deleted: true });
      for (const [individualId, periodId] of [
        [randomUUID(), 999999],
        [globex.admin.individualId, globexPeriod],
        [gone.individualId, current],
      ] as const) {
        const res = await post(acme.admin, goalBody(individualId, periodId)).expect(400);
        const fields = res.body.errors.map((e: { field: string }) => e.field);
        expect(fields).toContain('IndividualID');
        if (periodId !== current) expect(fields).toContain('PeriodID');
      }
    });

    it('lets the individual, their manager and an administrator create goals; others get 403', async () => {
      await post(manager, goalBody(report.individualId, current)).expect(200);
      await post(acme.admin, goalBody(report.individualId, current)).expect(200);
      const res = await post(peer, goalBody(report.individualId, current)).expect(403);
      expect(res.body.type).toBe('urn:pms:problem:forbidden');
      await post(report, goalBody(manager.individualId, current)).expect(403);
    });
  });

  describe('GET lists', () => {
    let person: TestPerson;
    let inCurrent: number[];
    let inPast: number;

    beforeAll(async () => {
      person = await createPerson(t, acme, { firstName: 'Lia', lastName: 'List', reportsTo: manager.individualId });
      const a = await post(person, goalBody(person.individualId, current, { Name: 'Later', DueDate: d('2026-11-01') })).expect(200);
      const b = await post(person, goalBody(person.individualId, current, { Name: 'Sooner', DueDate: d('2026-10-01') })).expect(200);
      const c = await post(person, goalBody(person.individualId, past, { Name: 'Old' })).expect(200);
      inCurrent = [b.body.ID, a.body.ID];
      inPast = c.body.ID;
    });

    it('lists an individual’s goals of the current period by default, ordered by DueDate (JSON)', async () => {
      const res = await t.http().get(`/v4/individuals/${person.individualId}/goals`).set('Authorization', as(manager)).expect(200);
      expect(res.body.map((g: { ID: number }) => g.ID)).toEqual(inCurrent);
      expect(res.body[0]).toMatchObject({ FullName: 'Lia List', PeriodID: current });
      expect(res.headers['x-total-count']).toBe('2');
    });

    it('filters by the period parameter, and answers 404 for an unknown period and 400 for a malformed one', async () => {
      const res = await t.http().get(`/v4/individuals/${person.individualId}/goals?period=${past}`).set('Authorization', as(person)).expect(200);
      expect(res.body.map((g: { ID: number }) => g.ID)).toEqual([inPast]);
      await t.http().get(`/v4/individuals/${person.individualId}/goals?period=999999`).set('Authorization', as(person)).expect(404);
      await t.http().get(`/v4/individuals/${person.individualId}/goals?period=${globexPeriod}`).set('Authorization', as(person)).expect(404);
      await t.http().get(`/v4/individuals/${person.individualId}/goals?period=abc`).set('Authorization', as(person)).expect(400);
    });

    it('answers XML as ArrayOfGoal', async () => {
      const res = await t.http().get(`/v4/individuals/${person.individualId}/goals`).set('Authorization', as(person)).set('Accept', 'text/xml').expect(200);
      expect(res.text).toContain('<ArrayOfGoal xmlns="urn:pms:v4"');
      const goals = (await codec.decodeXml(res.text)) as Record<string, string>[];
      expect(goals.map((g) => [g.ID, g.Name, g.FullName])).toEqual([
        [String(inCurrent[0]), 'Sooner', 'Lia List'],
        [String(inCurrent[1]), 'Later', 'Lia List'],
      ]);
    });

    it('lists the caller’s own goals on /me/goals, with the period filter', async () => {
      const res = await t.http().get('/v4/me/goals').set('Authorization', as(person)).expect(200);
      expect(res.body.map((g: { ID: number }) => g.ID)).toEqual(inCurrent);
      const old = await t.http().get(`/v4/me/goals?period=${past}`).set('Authorization', as(person)).expect(200);
      expect(old.body.map((g: { ID: number }) => g.ID)).toEqual([inPast]);
      await t.http().get('/v4/me/goals?period=999999').set('Authorization', as(person)).expect(404);
    });

    it('uses the latest period when none contains today', async () => {
      const site = await createSite(t);
      const now = Date.now();
      const older = await createPeriod(t, site.siteId, { start: new Date(now - 300 * DAY), end: new Date(now - 200 * DAY) });
      const latest = await createPeriod(t, site.siteId, { start: new Date(now - 100 * DAY), end: new Date(now - 10 * DAY) });
      const a = await post(site.admin, goalBody(site.admin.individualId, older.id)).expect(200);
      const b = await post(site.admin, goalBody(site.admin.individualId, latest.id)).expect(200);
      const res = await t.http().get('/v4/me/goals').set('Authorization', as(site.admin)).expect(200);
      expect(res.body.map((g: { ID: number }) => g.ID)).toEqual([b.body.ID]);
      const old = await t.http().get(`/v4/me/goals?period=${older.id}`).set('Authorization', as(site.admin)).expect(200);
      expect(old.body.map((g: { ID: number }) => g.ID)).toEqual([a.body.ID]);
    });

    it('answers an empty list on a site without periods', async () => {
      const site = await createSite(t);
      const res = await t.http().get('/v4/me/goals').set('Authorization', as(site.admin)).expect(200);
      expect(res.body).toEqual([]);
    });

    it('refuses peers with 403, and answers 404 for an unknown or another site’s individual, 400 for a malformed id', async () => {
      const res = await t.http().get(`/v4/individuals/${person.individualId}/goals`).set('Authorization', as(peer)).expect(403);
      expect(res.body.type).toBe('urn:pms:problem:forbidden');
      await t.http().get(`/v4/individuals/${randomUUID()}/goals`).set('Authorization', as(acme.admin)).expect(404);
      await t.http().get(`/v4/individuals/${globex.admin.individualId}/goals`).set('Authorization', as(acme.admin)).expect(404);
      await t.http().get('/v4/individuals/xyz/goals').set('Authorization', as(acme.admin)).expect(400);
    });
  });

  describe('GET /v4/goals/{id}', () => {
    it('answers the goal to its individual, their manager and an administrator; 403 to peers', async () => {
      const g = await post(report, goalBody(report.individualId, current)).expect(200);
      for (const p of [report, manager, acme.admin]) await t.http().get(`/v4/goals/${g.body.ID}`).set('Authorization', as(p)).expect(200);
      const res = await t.http().get(`/v4/goals/${g.body.ID}`).set('Authorization', as(peer)).expect(403);
      expect(res.body.type).toBe('urn:pms:problem:forbidden');
    });

    it('answers 400 for a non-integer id, 404 for an unknown one and for another site’s goal', async () => {
      const bad = await t.http().get('/v4/goals/abc').set('Authorization', as(acme.admin)).expect(400);
      expect(bad.body.errors).toEqual([{ field: 'id', message: 'id must be a whole number (int32)' }]);
      await t.http().get('/v4/goals/1.5').set('Authorization', as(acme.admin)).expect(400);
      await t.http().get('/v4/goals/99999999999').set('Authorization', as(acme.admin)).expect(400);
      await t.http().get('/v4/goals/999999').set('Authorization', as(acme.admin)).expect(404);
      await t.http().get(`/v4/goals/${globexGoal.ID}`).set('Authorization', as(acme.admin)).expect(404);
    });
  });

  describe('PUT /v4/goals/{id}', () => {
    it('updates every field; IndividualID is ignored; absent optional fields keep their value', async () => {
      const g = await post(report, goalBody(report.individualId, current, { Measure3EndDate: d('2026-05-01') })).expect(200);
      const body = goalBody(manager.individualId, past, { ID: g.body.ID, Name: 'Renamed', Completed: true, Measure2: 'Now used', Measure4Completed: true });
      delete body.Measure2Completed;
      delete body.Measure3EndDate;
      const res = await t.http().put(`/v4/goals/${g.body.ID}`).set('Authorization', as(report)).send(body).expect(200);
      expect(res.body).toMatchObject({
        ID: g.body.ID,
        IndividualID: report.individualId,
        Name: 'Renamed',
        Completed: true,
        PeriodID: past,
        Measure2: 'Now used',
        Measure2Completed: true,
        Measure3EndDate: d('2026-05-01'),
        MeasuresTotal: 4,
        MeasuresCompleted: 4,
      });
      const cleared = await t
        .http()
        .put(`/v4/goals/${g.body.ID}`)
        .set('Authorization', as(report))
        .send({ ...body, Measure3EndDate: null, Measure2Completed: false })
        .expect(200);
      expect(cleared.body).toMatchObject({ Measure3EndDate: null, Measure2Completed: false, MeasuresCompleted: 3 });
    });

    it('takes an explicit null Measure2Completed as not sent: false on create, the stored flag kept on update', async () => {
      const g = await post(report, goalBody(report.individualId, current, { Measure2: 'Used', Measure2Completed: null })).expect(200);
      expect(g.body).toMatchObject({ Measure2Completed: false, MeasuresTotal: 4, MeasuresCompleted: 2 });
      const body = goalBody(report.individualId, current, { ID: g.body.ID, Measure2: 'Used', Measure2Completed: true });
      await t.http().put(`/v4/goals/${g.body.ID}`).set('Authorization', as(report)).send(body).expect(200);
      const kept = await t
        .http()
        .put(`/v4/goals/${g.body.ID}`)
        .set('Authorization', as(report))
        .send({ ...body, Measure2Completed: null, Name: 'Again' })
        .expect(200);
      expect(kept.body).toMatchObject({ Name: 'Again', Measure2Completed: true, MeasuresCompleted: 3 });
    });

    it('accepts exactly the XML a client read back', async () => {
      const g = await post(report, goalBody(report.individualId, current)).expect(200);
      const read = await t.http().get(`/v4/goals/${g.body.ID}`).set('Authorization', as(report)).set('Accept', 'application/xml').expect(200);
      const res = await t
        .http()
        .put(`/v4/goals/${g.body.ID}`)
        .set('Authorization', as(report))
        .set('Content-Type', 'application/xml')
        .set('Accept', 'application/xml')
        .send(read.text.replace('<Name>Grow revenue</Name>', '<Name>Grow profit</Name>'))
        .expect(200);
      const goal = (await codec.decodeXml(res.text)) as Record<string, unknown>;
      const before = (await codec.decodeXml(read.text)) as Record<string, unknown>;
      expect(goal).toEqual({ ...before, Name: 'Grow profit' });
    });

    it.each(['ID', ...REQ_FIELDS])('answers 400 naming %s when it is missing on update', async (field) => {
      const g = await post(report, goalBody(report.individualId, current)).expect(200);
      const body = goalBody(report.individualId, current, { ID: g.body.ID });
      delete body[field];
      const res = await t.http().put(`/v4/goals/${g.body.ID}`).set('Authorization', as(report)).send(body).expect(400);
      expect(res.body.errors.map((e: { field: string }) => e.field)).toEqual([field]);
    });

    it('checks measure dates against the stored Measure3EndDate when it is absent', async () => {
      const g = await post(report, goalBody(report.individualId, current, { Measure3EndDate: d('2026-03-01') })).expect(200);
      const body = goalBody(report.individualId, current, { ID: g.body.ID, Measure3StartDate: d('2026-04-01') });
      delete body.Measure3EndDate;
      const res = await t.http().put(`/v4/goals/${g.body.ID}`).set('Authorization', as(report)).send(body).expect(400);
      expect(res.body.errors).toEqual([{ field: 'Measure3EndDate', message: 'Measure3EndDate must not be before Measure3StartDate' }]);
    });

    it('checks PeriodID only when the update moves the goal to another period', async () => {
      const g = await post(report, goalBody(report.individualId, current)).expect(200);
      await expectPeriodCheckedOnlyWhenMoved(
        t,
        (periodId, name) =>
          t
            .http()
            .put(`/v4/goals/${g.body.ID}`)
            .set('Authorization', as(report))
            .send(goalBody(report.individualId, periodId, { ID: g.body.ID, Name: name })),
        { current, past, foreign: globexPeriod },
      );
    });

    it('answers 400 for a mismatching ID or a foreign period; 404 unknown; 403 peers; 412 stale If-Match', async () => {
      const g = await post(report, goalBody(report.individualId, current)).expect(200);
      await t
        .http()
        .put(`/v4/goals/${g.body.ID}`)
        .set('Authorization', as(report))
        .send(goalBody(report.individualId, current, { ID: g.body.ID + 1 }))
        .expect(400);
      const p = await t
        .http()
        .put(`/v4/goals/${g.body.ID}`)
        .set('Authorization', as(report))
        .send(goalBody(report.individualId, globexPeriod, { ID: g.body.ID }))
        .expect(400);
      expect(p.body.errors).toEqual([expect.objectContaining({ field: 'PeriodID' })]);
      await t
        .http()
        .put('/v4/goals/999999')
        .set('Authorization', as(acme.admin))
        .send(goalBody(report.individualId, current, { ID: 999999 }))
        .expect(404);
      await t
        .http()
        .put('/v4/goals/abc')
        .set('Authorization', as(acme.admin))
        .send(goalBody(report.individualId, current, { ID: 1 }))
        .expect(400);
      const f = await t
        .http()
        .put(`/v4/goals/${g.body.ID}`)
        .set('Authorization', as(peer))
        .send(goalBody(report.individualId, current, { ID: g.body.ID }))
        .expect(403);
      expect(f.body.type).toBe('urn:pms:problem:forbidden');
      await t
        .http()
        .put(`/v4/goals/${g.body.ID}`)
        .set('Authorization', as(report))
        .set('If-Match', '"stale"')
        .send(goalBody(report.individualId, current, { ID: g.body.ID }))
        .expect(412);
      const read = await t.http().get(`/v4/goals/${g.body.ID}`).set('Authorization', as(report)).expect(200);
      await t
        .http()
        .put(`/v4/goals/${g.body.ID}`)
        .set('Authorization', as(report))
        .set('If-Match', read.headers.etag)
        .send(goalBody(report.individualId, current, { ID: g.body.ID }))
        .expect(200);
    });
  });

  describe('DELETE /v4/goals/{id}', () => {
    it('removes the goal for good ({} in JSON, <Object/> in XML)', async () => {
      const a = await post(report, goalBody(report.individualId, current)).expect(200);
      const res = await t.http().delete(`/v4/goals/${a.body.ID}`).set('Authorization', as(manager)).expect(200);
      expect(res.body).toEqual({});
      await t.http().get(`/v4/goals/${a.body.ID}`).set('Authorization', as(report)).expect(404);
      await t.http().delete(`/v4/goals/${a.body.ID}`).set('Authorization', as(report)).expect(404);
      expect(await t.app.get(TenantDb).repo(RequestContext.system(acme.siteId), GoalEntity).count({ id: a.body.ID })).toBe(0);
      const b = await post(report, goalBody(report.individualId, current)).expect(200);
      const xml = await t.http().delete(`/v4/goals/${b.body.ID}`).set('Authorization', as(report)).set('Accept', 'application/xml').expect(200);
      expect(xml.text).toMatch(/<Object xmlns="urn:pms:v4"[^>]*\/>$/);
    });

    it('refuses peers (403), a stale If-Match (412), and malformed ids (400)', async () => {
      const g = await post(report, goalBody(report.individualId, current)).expect(200);
      await t.http().delete(`/v4/goals/${g.body.ID}`).set('Authorization', as(peer)).expect(403);
      await t.http().delete(`/v4/goals/${g.body.ID}`).set('Authorization', as(report)).set('If-Match', '"stale"').expect(412);
      await t.http().delete('/v4/goals/x1').set('Authorization', as(report)).expect(400);
      await t.http().get(`/v4/goals/${g.body.ID}`).set('Authorization', as(report)).expect(200);
    });
  });

  it('answers 404 for another site’s goal on every path, leaving it unchanged', async () => {
    const id = globexGoal.ID as number;
    await t
      .http()
      .put(`/v4/goals/${id}`)
      .set('Authorization', as(acme.admin))
      .send(goalBody(acme.admin.individualId, current, { ID: id, Name: 'Hijacked' }))
      .expect(404);
    await t.http().delete(`/v4/goals/${id}`).set('Authorization', as(acme.admin)).expect(404);
    await t.http().get(`/v4/goals/${id}`).set('Authorization', bearer(t.adminToken)).expect(404);
    const still = await t.http().get(`/v4/goals/${id}`).set('Authorization', as(globex.admin)).expect(200);
    expect(still.body).toEqual(globexGoal);
  });

  describe('PATCH /v4/goals/{id} on the wire: the merge-patch rules of every PATCH (docs/http-and-xml.md, "PATCH")', () => {
    let id: number;
    beforeAll(async () => {
      id = (await post(acme.admin, goalBody(report.individualId, current)).expect(200)).body.ID as number;
    });
    const goal = () => `/v4/goals/${id}`;
    const send = (method: 'patch' | 'put', path: string, contentType: string, body: string) =>
      t.http()[method](path).set('Authorization', bearer(acme.admin.token)).set('Content-Type', contentType).send(body);

    it('reads a merge patch as application/merge-patch+json, application/json, text/json, application/merge-patch+xml, application/xml or text/xml', async () => {
      const json = JSON.stringify({ Why: 'Any of the six' });
      const xml = '<Goal xmlns="urn:pms:v4"><Why>Any of the six</Why></Goal>';
      for (const [type, body] of [
        ['application/merge-patch+json', json],
        ['application/json; charset=utf-8', json],
        ['text/json', json],
        ['application/merge-patch+xml', xml],
        ['application/xml', xml],
        ['text/xml; charset=utf-8', xml],
      ]) {
        const res = await send('patch', goal(), type, body);
        expect({ type, status: res.status, Why: res.body.Why }).toEqual({ type, status: 200, Why: 'Any of the six' });
      }
    });

    it('answers 415 to a JSON Patch (RFC 6902) and to the merge-patch types on PUT, whose body is a whole record', async () => {
      const jsonPatch = await send('patch', goal(), 'application/json-patch+json', '[{"op":"replace","path":"/Why","value":"x"}]');
      const onPut = await send('put', goal(), 'application/merge-patch+json', '{"Why":"x"}');
      for (const res of [jsonPatch, onPut]) {
        expect({ status: res.status, type: res.body.type }).toEqual({ status: 415, type: 'urn:pms:problem:unsupported-media-type' });
      }
      expect(jsonPatch.body.detail).toContain('application/merge-patch+json');
    });

    it('answers 400 to a patch that is not an object (a list, a value, an XML list), writing nothing', async () => {
      const before = (await t.http().get(goal()).set('Authorization', bearer(acme.admin.token))).body;
      for (const [type, body] of [
        ['application/merge-patch+json', '[{"Why":"x"}]'],
        ['application/merge-patch+json', '"Why"'],
        ['application/merge-patch+xml', '<ArrayOfGoal xmlns="urn:pms:v4"><Goal><Why>x</Why></Goal></ArrayOfGoal>'],
      ]) {
        const res = await send('patch', goal(), type, body);
        expect({ body, status: res.status }).toEqual({ body, status: 400 });
      }
      expect((await t.http().get(goal()).set('Authorization', bearer(acme.admin.token))).body).toEqual(before);
    });

    it('ignores read-only and unknown fields, and a field the PUT ignores, as the PUT does', async () => {
      const before = (await t.http().get(goal()).set('Authorization', bearer(acme.admin.token))).body;
      const res = await send(
        'patch',
        goal(),
        'application/merge-patch+json',
        JSON.stringify({
          SiteID: globex.siteId,
          FullName: 'Someone Else',
          MeasuresTotal: 99,
          IndividualID: manager.individualId,
          Nonsense: 1,
          Why: 'Only this',
        }),
      );
      expect(res.status).toBe(200);
      expect(without(res.body, [...AUDIT, 'Why'])).toEqual(without(before, [...AUDIT, 'Why']));
      expect(res.body.Why).toBe('Only this');
    });

    it('answers an empty patch with the record as it was (an empty body too), and 400 for an ID other than the path’s', async () => {
      const before = (await t.http().get(goal()).set('Authorization', bearer(acme.admin.token))).body;
      const empty = await send('patch', goal(), 'application/merge-patch+json', '{}');
      const none = await t.http().patch(goal()).set('Authorization', bearer(acme.admin.token));
      for (const res of [empty, none]) expect(without(res.body, AUDIT)).toEqual(without(before, AUDIT));
      const otherId = await send('patch', goal(), 'application/merge-patch+json', JSON.stringify({ ID: id + 1 }));
      expect(otherId.status).toBe(400);
      expect(otherId.body.errors).toEqual([expect.objectContaining({ field: 'ID' })]);
    });
  });
});
