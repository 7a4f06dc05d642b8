import { randomUUID } from 'node:crypto';
import { AssessmentRatingEntity } from '../../src/database/entities/assessment-rating.entity.js';
import { AssessmentEntity } from '../../src/database/entities/assessment.entity.js';
import { bearer, startApp, TestApp, WireCodec } from './harness.js';
import { createAssessment, createBasicRole, Json } from '../factories/dialogs.js';
import { createPeriods } from '../factories/goals.js';
import { createPerson, createSite, TestPerson } from '../factories/index.js';
import { createItem, createTeamSite, TeamSite } from '../factories/performance.js';

const codec = new WireCodec('urn:pms:v4');
const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}\+00:00$/;
const JSON_ORDER = ['ID', 'Kind', 'SubjectID', 'AssessorID', 'PeriodID', 'Ratings', 'SiteID', 'Created', 'CreatedBy', 'Updated', 'UpdatedBy'];
const XML_ORDER = [...JSON_ORDER].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));

type Rating = { ItemKind: string; ItemID: string | null; Rating: number };

describe('/v4/assessments', () => {
  let t: TestApp;
  let acme: TeamSite;
  let globex: TeamSite;
  let current: number;
  let past: number;
  let globexPeriod: number;
  let criterion: string;
  let peerCriterion: string;
  let value: string;
  let deletedValue: string;
  let globexValue: string;
  let role: string;
  let globexAssessment: Json;
  const as = (p: { token: string }) => bearer(p.token);
  const post = (who: TestPerson, body: object) => t.http().post('/v4/assessments').set('Authorization', as(who)).send(body);
  const put = (who: TestPerson, id: string, body: object) => t.http().put(`/v4/assessments/${id}`).set('Authorization', as(who)).send(body);
  const leaderOfWorker = (extra: object = {}) => ({ Kind: 'leader', SubjectID: acme.worker.individualId, PeriodID: current, ...extra });
  const fullRatings = (): Rating[] => [
    { ItemKind: 'evaluationcriteria', ItemID: criterion, Rating: 4 },
    { ItemKind: 'corevalue', ItemID: value, Rating: 5 },
    { ItemKind: 'basicrole', ItemID: role, Rating: 3 },
    { ItemKind: 'general', ItemID: null, Rating: 4 },
  ];
  const coreValue = async (token: string, name: string) =>
    (await t.http().post('/v4/corevalues').set('Authorization', bearer(token)).send({ Name: name }).expect(200)).body.ID as string;

  beforeAll(async () => {
    t = await startApp();
    acme = await createTeamSite(t, { name: 'Acme' });
    globex = await createTeamSite(t, { name: 'Globex' });
    ({
      current: { id: current },
      past: { id: past },
    } = await createPeriods(t, acme.siteId));
    globexPeriod = (await createPeriods(t, globex.siteId)).current.id;
    criterion = (await createItem(t, 'evaluationcriteria', acme.admin.token, { AncestorID: acme.worker.individualId, Name: 'Quality' })).ID;
    peerCriterion = (await createItem(t, 'evaluationcriteria', acme.admin.token, { AncestorID: acme.peer.individualId, Name: 'Quality' })).ID;
    value = await coreValue(acme.admin.token, 'Integrity');
    deletedValue = await coreValue(acme.admin.token, 'Retired');
    await t.http().delete(`/v4/corevalues/${deletedValue}`).set('Authorization', as(acme.admin)).expect(200);
    globexValue = await coreValue(globex.admin.token, 'Globex value');
    role = (await createBasicRole(t, acme.admin.token, acme.worker.individualId, 'Coach')).ID;
    globexAssessment = await createAssessment(t, globex.admin.token, { Kind: 'self', SubjectID: globex.worker.individualId, PeriodID: globexPeriod });
  });
  afterAll(async () => {
    await t.close();
  });

  describe('POST /v4/assessments', () => {
    it('records an assessment from JSON with its Ratings in the order sent; AssessorID defaults to the caller', async () => {
      const res = await post(acme.manager, leaderOfWorker({ Ratings: fullRatings(), SiteID: globex.siteId, CreatedBy: acme.peer.individualId })).expect(200);
      expect(Object.keys(res.body)).toEqual(JSON_ORDER);
      expect(res.body).toEqual({
        ID: expect.any(String),
        Kind: 'leader',
        SubjectID: acme.worker.individualId,
        AssessorID: acme.manager.individualId,
        PeriodID: current,
        Ratings: fullRatings(),
        SiteID: acme.siteId,
        Created: expect.stringMatching(ISO),
        CreatedBy: acme.manager.individualId,
        Updated: expect.stringMatching(ISO),
        UpdatedBy: acme.manager.individualId,
      });
      const read = await t.http().get(`/v4/assessments/${res.body.ID}`).set('Authorization', as(acme.manager)).expect(200);
      expect(read.body).toEqual(res.body);
      expect(read.headers.etag).toMatch(/^"1-/);
    });

    it('reads nested Ratings from XML and writes them back as AssessmentRating elements in ordinal order', async () => {
      const res = await t
        .http()
        .post('/v4/assessments')
        .set('Authorization', as(acme.worker))
        .set('Content-Type', 'application/xml')
        .set('Accept', 'application/xml')
        .send(
          `<Assessment xmlns="urn:pms:v4" xmlns:i="http://www.w3.org/2001/XMLSchema-instance"><Kind>self</Kind><PeriodID>${current}</PeriodID>` +
            `<Ratings><AssessmentRating><Rating>2</Rating><ItemKind>corevalue</ItemKind><ItemID>${value}</ItemID></AssessmentRating>` +
            `<AssessmentRating><ItemID i:nil="true"/><ItemKind>general</ItemKind><Rating>5</Rating></AssessmentRating></Ratings>` +
            `<SubjectID>${acme.worker.individualId}</SubjectID></Assessment>`,
        )
        .expect(200);
      expect(res.text).toMatch(/^<\?xml[^>]+\?><Assessment xmlns="urn:pms:v4"/);
      const top = res.text.replace(/<Ratings>.*<\/Ratings>/, '<Ratings/>');
      const order = [...top.matchAll(/<(\w+)(?: i:nil="true")?\/?>/g)].map((m) => m[1]).filter((n) => n !== 'Assessment');
      expect(order).toEqual(XML_ORDER);
      expect(res.text).toContain(
        `<Ratings><AssessmentRating><ItemID>${value}</ItemID><ItemKind>corevalue</ItemKind><Rating>2</Rating></AssessmentRating><AssessmentRating><ItemID i:nil="true"/><ItemKind>general</ItemKind><Rating>5</Rating></AssessmentRating></Ratings>`,
      );
      const json = (
        await t
          .http()
          .get(`/v4/assessments/${((await codec.decodeXml(res.text)) as { ID: string }).ID}`)
          .set('Authorization', as(acme.worker))
      ).body;
      expect(json).toMatchObject({
        Kind: 'self',
        AssessorID: acme.worker.individualId,
        Ratings: [
          { ItemKind: 'corevalue', ItemID: value, Rating: 2 },
          { ItemKind: 'general', ItemID: null, Rating: 5 },
        ],
      });
    });

    it('reads one rating and no ratings from XML too', async () => {
      const send = (ratings: string) =>
        t
          .http()
          .post('/v4/assessments')
          .set('Authorization', as(acme.worker))
          .set('Content-Type', 'text/xml')
          .send(
            `<Assessment xmlns="urn:pms:v4"><Kind>self</Kind><SubjectID>${acme.worker.individualId}</SubjectID><PeriodID>${current}</PeriodID>${ratings}</Assessment>`,
          )
          .expect(200);
      expect((await send('<Ratings><AssessmentRating><ItemKind>general</ItemKind><Rating>1</Rating></AssessmentRating></Ratings>')).body.Ratings).toEqual([
        { ItemKind: 'general', ItemID: null, Rating: 1 },
      ]);
      expect((await send('<Ratings/>')).body.Ratings).toEqual([]);
      expect((await send('')).body.Ratings).toEqual([]);
    });

    it.each(['Kind', 'SubjectID', 'PeriodID'])('answers 400 naming %s when it is missing', async (field) => {
      const b: Record<string, unknown> = leaderOfWorker();
      delete b[field];
      const res = await post(acme.admin, { ...b, AssessorID: acme.manager.individualId }).expect(400);
      expect(res.body.errors).toEqual([{ field, message: `${field} is required` }]);
    });

    it('answers 400 naming each failing member of a rating, in JSON and in XML alike', async () => {
      const res = await post(
        acme.manager,
        leaderOfWorker({ Kind: 'peer', Ratings: [{ ItemKind: 'general', Rating: 6 }, { ItemKind: 'goal', ItemID: 'x', Rating: 3 }, { ItemKind: 'general' }] }),
      ).expect(400);
      expect(res.body.errors).toEqual([
        { field: 'Kind', message: 'Kind must be one of leader, team, self' },
        { field: 'Ratings[0].Rating', message: 'Rating must be between 1 and 5' },
        { field: 'Ratings[1].ItemKind', message: 'ItemKind must be one of evaluationcriteria, corevalue, basicrole, general' },
        { field: 'Ratings[1].ItemID', message: expect.stringContaining('UUID') },
        { field: 'Ratings[2].Rating', message: 'Rating is required' },
      ]);
      const xml = await t
        .http()
        .post('/v4/assessments')
        .set('Authorization', as(acme.manager))
        .set('Content-Type', 'application/xml')
        .send(
          `<Assessment xmlns="urn:pms:v4"><Kind>leader</Kind><SubjectID>${acme.worker.individualId}</SubjectID><PeriodID>${current}</PeriodID><Ratings><AssessmentRating><ItemKind>general</ItemKind><Rating>0</Rating></AssessmentRating></Ratings></Assessment>`,
        )
        .expect(400);
      expect(xml.body.errors).toEqual([{ field: 'Ratings[0].Rating', message: 'Rating must be between 1 and 5' }]);
      expect((await post(acme.manager, leaderOfWorker({ Ratings: { ItemKind: 'general', Rating: 3 } })).expect(400)).body.errors).toEqual([
        { field: 'Ratings', message: 'Ratings must be a list' },
      ]);
    });

    it('answers 400 for rated items that are not the subject’s or the site’s, deleted, missing, repeated or too many', async () => {
      const res = await post(
        acme.manager,
        leaderOfWorker({
          Ratings: [
            { ItemKind: 'evaluationcriteria', ItemID: peerCriterion, Rating: 3 },
            { ItemKind: 'corevalue', ItemID: deletedValue, Rating: 3 },
            { ItemKind: 'corevalue', ItemID: globexValue, Rating: 3 },
            { ItemKind: 'basicrole', ItemID: criterion, Rating: 3 },
            { ItemKind: 'general', ItemID: value, Rating: 3 },
            { ItemKind: 'corevalue', Rating: 3 },
            { ItemKind: 'corevalue', ItemID: value, Rating: 3 },
            { ItemKind: 'corevalue', ItemID: value, Rating: 4 },
          ],
        }),
      ).expect(400);
      expect(res.body.errors.map((e: { field: string }) => e.field)).toEqual([
        'Ratings[4].ItemID',
        'Ratings[5].ItemID',
        'Ratings[7]',
        'Ratings[0].ItemID',
        'Ratings[1].ItemID',
        'Ratings[2].ItemID',
        'Ratings[3].ItemID',
      ]);
      expect(res.body.errors[1].message).toBe('Ratings[5].ItemID is required for a corevalue rating');
      expect(res.body.errors[4].message).toContain('is a deleted core value');
      const many = Array.from({ length: 201 }, () => ({ ItemKind: 'general', Rating: 3 }));
      expect((await post(acme.manager, leaderOfWorker({ Ratings: many })).expect(400)).body.errors).toEqual([
        { field: 'Ratings', message: 'Ratings must hold at most 200 ratings' },
      ]);
      expect(
        await t.ds.getRepository(AssessmentEntity).countBy({ subjectId: acme.worker.individualId, assessorId: acme.manager.individualId, kind: 'leader' }),
      ).toBe(1);
    });

    it('answers 400 naming SubjectID, AssessorID and PeriodID for records not of the site, and for a self assessment by someone else', async () => {
      const res = await post(acme.admin, { Kind: 'leader', SubjectID: globex.worker.individualId, AssessorID: randomUUID(), PeriodID: globexPeriod }).expect(
        400,
      );
      expect(res.body.errors.map((e: { field: string }) => e.field)).toEqual(['SubjectID', 'AssessorID', 'PeriodID']);
      const self = await post(acme.admin, {
        Kind: 'self',
        SubjectID: acme.worker.individualId,
        AssessorID: acme.manager.individualId,
        PeriodID: current,
      }).expect(400);
      expect(self.body.errors).toEqual([{ field: 'AssessorID', message: 'AssessorID must equal SubjectID for a self assessment' }]);
      const leader = await post(acme.worker, leaderOfWorker()).expect(400);
      expect(leader.body.errors).toEqual([{ field: 'AssessorID', message: 'AssessorID must not be the subject for a leader assessment' }]);
    });

    it('lets a non-administrator record only as the assessor: self, leader of their reports, team of their leaders', async () => {
      await post(acme.boss, leaderOfWorker()).expect(200); // above the worker, two levels up
      await post(acme.worker, { Kind: 'team', SubjectID: acme.manager.individualId, PeriodID: current }).expect(200);
      await post(acme.worker, { Kind: 'team', SubjectID: acme.boss.individualId, PeriodID: current }).expect(200);
      for (const [who, b] of [
        [acme.worker, { Kind: 'leader', SubjectID: acme.manager.individualId, PeriodID: current }],
        [acme.peer, leaderOfWorker()],
        [acme.manager, { Kind: 'team', SubjectID: acme.worker.individualId, PeriodID: current }],
        [acme.peer, { Kind: 'team', SubjectID: acme.manager.individualId, PeriodID: current }],
        [acme.manager, leaderOfWorker({ AssessorID: acme.boss.individualId })],
        [acme.manager, { Kind: 'self', SubjectID: acme.worker.individualId, PeriodID: current }],
      ] as const) {
        const res = await post(who, b).expect(403);
        expect(res.body.type).toBe('urn:pms:problem:forbidden');
      }
      // Administrators record any assessment (imports), for any assessor.
      await post(acme.admin, { Kind: 'team', SubjectID: acme.worker.individualId, AssessorID: acme.peer.individualId, PeriodID: current }).expect(200);
    });

    it('replays a retried POST (Idempotency-Key) with its nested ratings, in XML as a read writes it, and writes once', async () => {
      const key = randomUUID();
      const send = (accept: string) =>
        t
          .http()
          .post('/v4/assessments')
          .set('Authorization', as(acme.manager))
          .set('Idempotency-Key', key)
          .set('Accept', accept)
          .send(leaderOfWorker({ Ratings: fullRatings() }))
          .expect(200);
      const first = await send('application/json');
      const again = await send('application/xml');
      expect(again.headers['idempotency-replayed']).toBe('true');
      const read = await t.http().get(`/v4/assessments/${first.body.ID}`).set('Authorization', as(acme.manager)).set('Accept', 'application/xml').expect(200);
      expect(again.text).toBe(read.text);
      expect(await t.ds.getRepository(AssessmentRatingEntity).countBy({ assessmentId: first.body.ID })).toBe(fullRatings().length);
    });

    it('answers 403 pm-disabled on a site with performance management off', async () => {
      const off = await createSite(t, { pm: false });
      const res = await t
        .http()
        .post('/v4/assessments')
        .set('Authorization', as(off.admin))
        .send({ Kind: 'self', SubjectID: off.admin.individualId, PeriodID: 1 })
        .expect(403);
      expect(res.body.type).toBe('urn:pms:problem:pm-disabled');
    });
  });

  describe('reading', () => {
    let subject: TestPerson;
    let lead: Json;
    let team: Json;
    let self: Json;
    let older: Json;
    let report: TestPerson;
    beforeAll(async () => {
      subject = await createPerson(t, acme, { firstName: 'Sue', lastName: 'Subject', reportsTo: acme.manager.individualId });
      report = await createPerson(t, acme, { firstName: 'Rey', lastName: 'Report', reportsTo: subject.individualId });
      lead = await createAssessment(t, acme.manager.token, {
        Kind: 'leader',
        SubjectID: subject.individualId,
        PeriodID: current,
        Ratings: [{ ItemKind: 'general', Rating: 4 }],
      });
      team = await createAssessment(t, report.token, {
        Kind: 'team',
        SubjectID: subject.individualId,
        PeriodID: current,
        Ratings: [{ ItemKind: 'general', Rating: 2 }],
      });
      self = await createAssessment(t, subject.token, { Kind: 'self', SubjectID: subject.individualId, PeriodID: current });
      older = await createAssessment(t, acme.admin.token, { Kind: 'self', SubjectID: subject.individualId, PeriodID: past });
    });

    it('lists a subject’s assessments of the current period with their ratings for their managers', async () => {
      const res = await t.http().get(`/v4/individuals/${subject.individualId}/assessments`).set('Authorization', as(acme.manager)).expect(200);
      expect(res.body.map((a: Json) => a.ID)).toEqual([lead.ID, team.ID, self.ID]);
      expect(res.body[1].Ratings).toEqual([{ ItemKind: 'general', ItemID: null, Rating: 2 }]);
      expect(res.headers['x-total-count']).toBe('3');
      const past_ = await t.http().get(`/v4/individuals/${subject.individualId}/assessments?period=${past}`).set('Authorization', as(acme.boss)).expect(200);
      expect(past_.body.map((a: Json) => a.ID)).toEqual([older.ID]);
      const xml = await t
        .http()
        .get(`/v4/individuals/${subject.individualId}/assessments`)
        .set('Authorization', as(acme.admin))
        .set('Accept', 'application/xml')
        .expect(200);
      expect(xml.text).toMatch(/<ArrayOfAssessment xmlns="urn:pms:v4"[^>]*><Assessment><AssessorID>/);
      expect(xml.text).toContain(
        '<Ratings><AssessmentRating><ItemID i:nil="true"/><ItemKind>general</ItemKind><Rating>4</Rating></AssessmentRating></Ratings>',
      );
    });

    it('shows the subject their self and leader assessments but not the team’s', async () => {
      const res = await t.http().get(`/v4/individuals/${subject.individualId}/assessments`).set('Authorization', as(subject)).expect(200);
      expect(res.body.map((a: Json) => a.ID)).toEqual([lead.ID, self.ID]);
      await t.http().get(`/v4/assessments/${lead.ID}`).set('Authorization', as(subject)).expect(200);
      await t.http().get(`/v4/assessments/${team.ID}`).set('Authorization', as(subject)).expect(403);
    });

    it('reads one assessment for its assessor, the subject’s managers and administrators; 403 for others; 404 across sites', async () => {
      await t.http().get(`/v4/assessments/${team.ID}`).set('Authorization', as(report)).expect(200);
      for (const who of [acme.manager, acme.boss, acme.admin]) await t.http().get(`/v4/assessments/${team.ID}`).set('Authorization', as(who)).expect(200);
      await t.http().get(`/v4/assessments/${lead.ID}`).set('Authorization', as(report)).expect(403);
      await t.http().get(`/v4/assessments/${lead.ID}`).set('Authorization', as(acme.peer)).expect(403);
      await t.http().get(`/v4/individuals/${subject.individualId}/assessments`).set('Authorization', as(acme.peer)).expect(403);
      await t.http().get(`/v4/assessments/${globexAssessment.ID}`).set('Authorization', as(acme.admin)).expect(404);
      await t.http().get(`/v4/assessments/${randomUUID()}`).set('Authorization', as(acme.admin)).expect(404);
      await t.http().get(`/v4/individuals/${globex.worker.individualId}/assessments`).set('Authorization', as(acme.admin)).expect(404);
      const xml = await t.http().get(`/v4/assessments/${lead.ID}`).set('Authorization', as(acme.manager)).set('Accept', 'application/xml').expect(200);
      expect(xml.text).toMatch(/<Assessment xmlns="urn:pms:v4"/);
    });

    it('lists every assessment of the site (of the period) for administrators only', async () => {
      const res = await t.http().get('/v4/assessments').set('Authorization', as(acme.admin)).expect(200);
      const ids = res.body.map((a: Json) => a.ID);
      expect(ids).toEqual(expect.arrayContaining([lead.ID, team.ID, self.ID]));
      expect(ids).not.toContain(older.ID);
      expect(ids).not.toContain(globexAssessment.ID);
      expect((await t.http().get('/v4/assessments').set('Authorization', as(acme.manager)).expect(403)).body.type).toBe('urn:pms:problem:admin-required');
    });
  });

  describe('PUT and DELETE', () => {
    it('keeps ratings when absent, replaces them when sent, clears them with [] or null; ignores who and what; If-Match', async () => {
      const a = await createAssessment(t, acme.manager.token, {
        Kind: 'leader',
        SubjectID: acme.worker.individualId,
        PeriodID: current,
        Ratings: fullRatings(),
      });
      const kept = await put(acme.manager, a.ID, {
        ID: a.ID,
        PeriodID: past,
        Kind: 'self',
        SubjectID: acme.peer.individualId,
        AssessorID: acme.peer.individualId,
      }).expect(200);
      expect(kept.body).toMatchObject({
        Kind: 'leader',
        SubjectID: acme.worker.individualId,
        AssessorID: acme.manager.individualId,
        PeriodID: past,
        Ratings: fullRatings(),
      });
      const etag = kept.headers.etag;
      const replaced = await put(acme.manager, a.ID, { ID: a.ID, Ratings: [{ ItemKind: 'corevalue', ItemID: value, Rating: 1 }] })
        .set('If-Match', etag)
        .expect(200);
      expect(replaced.body.Ratings).toEqual([{ ItemKind: 'corevalue', ItemID: value, Rating: 1 }]);
      expect(replaced.headers.etag).not.toBe(etag);
      await put(acme.manager, a.ID, { ID: a.ID, Ratings: [] }).set('If-Match', etag).expect(412);
      expect((await put(acme.manager, a.ID, { ID: a.ID, Ratings: [] }).expect(200)).body.Ratings).toEqual([]);
      await put(acme.manager, a.ID, { ID: a.ID, Ratings: fullRatings() }).expect(200);
      expect((await put(acme.manager, a.ID, { ID: a.ID, Ratings: null }).expect(200)).body.Ratings).toEqual([]);
      expect(await t.ds.getRepository(AssessmentRatingEntity).countBy({ assessmentId: a.ID })).toBe(0);
    });

    it('takes back the XML it wrote, nested ratings included, after a rated item was deleted', async () => {
      const retiring = await coreValue(acme.admin.token, 'Retiring');
      const a = await createAssessment(t, acme.manager.token, {
        Kind: 'leader',
        SubjectID: acme.worker.individualId,
        PeriodID: current,
        Ratings: [
          { ItemKind: 'corevalue', ItemID: retiring, Rating: 2 },
          { ItemKind: 'general', Rating: 3 },
        ],
      });
      await t.http().delete(`/v4/corevalues/${retiring}`).set('Authorization', as(acme.admin)).expect(200);
      const xml = (await t.http().get(`/v4/assessments/${a.ID}`).set('Authorization', as(acme.manager)).set('Accept', 'application/xml')).text;
      const res = await t
        .http()
        .put(`/v4/assessments/${a.ID}`)
        .set('Authorization', as(acme.manager))
        .set('Content-Type', 'application/xml')
        .send(xml.replace('<Rating>3</Rating>', '<Rating>5</Rating>'))
        .expect(200);
      expect(res.body.Ratings).toEqual([
        { ItemKind: 'corevalue', ItemID: retiring, Rating: 2 },
        { ItemKind: 'general', ItemID: null, Rating: 5 },
      ]);
      // A deleted item that was not rated before is refused.
      await put(acme.manager, a.ID, { ID: a.ID, Ratings: [{ ItemKind: 'corevalue', ItemID: deletedValue, Rating: 2 }] }).expect(400);
    });

    it('lets only the assessor and administrators change or delete; 404 across sites; removes the ratings with it', async () => {
      const a = await createAssessment(t, acme.manager.token, {
        Kind: 'leader',
        SubjectID: acme.worker.individualId,
        PeriodID: current,
        Ratings: fullRatings(),
      });
      await put(acme.boss, a.ID, { ID: a.ID, Ratings: [] }).expect(403);
      await put(acme.worker, a.ID, { ID: a.ID, Ratings: [] }).expect(403);
      await t.http().delete(`/v4/assessments/${a.ID}`).set('Authorization', as(acme.worker)).expect(403);
      expect((await put(acme.manager, a.ID, {}).expect(400)).body.errors).toEqual([{ field: 'ID', message: 'ID is required' }]);
      await put(acme.manager, a.ID, { ID: a.ID, PeriodID: null }).expect(400);
      await put(acme.admin, globexAssessment.ID, { ID: globexAssessment.ID, Ratings: [] }).expect(404);
      await t.http().delete(`/v4/assessments/${globexAssessment.ID}`).set('Authorization', as(acme.admin)).expect(404);
      expect(await t.ds.getRepository(AssessmentEntity).countBy({ id: globexAssessment.ID })).toBe(1);

      const del = await t.http().delete(`/v4/assessments/${a.ID}`).set('Authorization', as(acme.manager)).set('Accept', 'application/xml').expect(200);
      expect(del.text).toMatch(/<Object xmlns="urn:pms:v4"[^>]*\/>$/);
      await t.http().get(`/v4/assessments/${a.ID}`).set('Authorization', as(acme.manager)).expect(404);
      await t.http().delete(`/v4/assessments/${a.ID}`).set('Authorization', as(acme.manager)).expect(404);
      expect(await t.ds.getRepository(AssessmentRatingEntity).countBy({ assessmentId: a.ID })).toBe(0);
      const other = await createAssessment(t, acme.manager.token, { Kind: 'leader', SubjectID: acme.worker.individualId, PeriodID: current });
      await t.http().delete(`/v4/assessments/${other.ID}`).set('Authorization', as(acme.admin)).expect(200);
    });
  });
});
