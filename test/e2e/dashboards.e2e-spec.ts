import { randomUUID } from 'node:crypto';
import { ArchiveEntity } from '../../src/database/entities/archive.entity.js';
import { OrganizationEntity } from '../../src/database/entities/organization.entity.js';
import type { PeriodEntity } from '../../src/database/entities/period.entity.js';
import { DashboardData } from '../factories/dashboards.js';
import { createPeriod, createUnit, DAY } from '../factories/goals.js';
import { createPerson, createSite, TestPerson, TestSite } from '../factories/index.js';
import { addMember } from '../factories/organizations.js';
import { deleteIndividual } from '../factories/performance.js';
import { bearer, startApp, TestApp, WireCodec } from './harness.js';

const codec = new WireCodec('urn:pms:v4');
/** Hooks that create people (scrypt hashing, a login each) on a shared, busy machine. */
const SLOW = 120_000;
type Row = Record<string, unknown>;

const RED = 0xff0000;
const YELLOW = 0xffff00;
const GREEN = 0x00ff00;
const d = (iso: string) => new Date(iso);

/** The Dashboard's fields in the spec's table order (70), with SelfAssessmentPercent (beyond the spec) after TeamAssessmentPercent. */
const FIELDS = [
  'ID',
  'SiteID',
  'RowType',
  'Name',
  'FromDate',
  'ToDate',
  'OrganizationCommitmentsCompleted',
  'OrganizationCommitmentsTotal',
  'OrganizationCommitmentsColorValue',
  'DepartmentCommitmentsCompleted',
  'DepartmentCommitmentsTotal',
  'DepartmentCommitmentsColorValue',
  'IndividualCommitmentsCompleted',
  'IndividualCommitmentsTotal',
  'IndividualCommitmentsColorValue',
  'MetricsExceedsPercent',
  'MetricsMeetsPercent',
  'MetricsMinimumPercent',
  'MetricsBelowPercent',
  'Metrics8020Percent',
  'Metrics8020CompositePercent',
  'ProjectsActive',
  'ProjectsOnTime',
  'ProjectsCompleted',
  'ProjectsDateChanges',
  'DeptProjectsActive',
  'DeptProjectsOnTime',
  'DeptProjectsCompleted',
  'DeptProjectsDateChanges',
  'EvaluationCriteriaPercent',
  'LeaderAssessmentPercent',
  'TeamAssessmentPercent',
  'SelfAssessmentPercent',
  'DialogsCompletedPercent',
  'FollowUpsCompletedPercent',
  'IndividualPerformancePercent',
  'IndividualCoreValuesPercent',
  'IndividualBasicRolePercent',
  'PersonalGoalsCompleted',
  'PersonalGoalsTotal',
  'OrgDialogsExpected',
  'OrgDialogsOccurred',
  'DeptDialogsExpected',
  'DeptDialogsOccurred',
  'ProjDialogsExpected',
  'ProjDialogsOccurred',
  'IndDialogsExpected',
  'IndDialogsOccurred',
  'OrgFollowUpsCreated',
  'OrgFollowUpsCompleted',
  'DeptFollowUpsCreated',
  'DeptFollowUpsCompleted',
  'ProjFollowUpsCreated',
  'ProjFollowUpsCompleted',
  'IndFollowUpsCreated',
  'IndFollowUpsCompleted',
  'Threshold1',
  'Threshold2',
  'Threshold3',
  'ShowMetrics',
  'ShowDialogs',
  'ShowFollowUps',
  'ShowProjectLoad',
  'ShowEvaluationCriteria',
  'ShowLeaderAssessment',
  'ShowTeamAssessment',
  'ShowGoals',
  'ShowOrgCommitments',
  'ShowDeptCommitments',
  'ShowIndCommitments',
  'Show8020Metrics',
];
const SETTINGS_DEFAULT = {
  Threshold1: 70,
  Threshold2: 90,
  Threshold3: 110,
  ShowMetrics: true,
  ShowDialogs: true,
  ShowFollowUps: true,
  ShowProjectLoad: true,
  ShowEvaluationCriteria: true,
  ShowLeaderAssessment: true,
  ShowTeamAssessment: true,
  ShowGoals: true,
  ShowOrgCommitments: true,
  ShowDeptCommitments: true,
  ShowIndCommitments: true,
  Show8020Metrics: true,
};

/** An empty dashboard: counts 0, percentages and colors null. */
const EMPTY = Object.fromEntries(FIELDS.slice(6, 56).map((f) => [f, /Percent$|ColorValue$/.test(f) ? null : 0]));

/** What the XML decoder gives back for a JSON value: text, or null for i:nil. */
const asXml = (v: unknown) => (v === null ? null : String(v));

/**
 * The hand-computed data set (FY 2025, 2025-01-01 – 2025-12-31). Units: Root Org O ← Alpha (A) ←
 * Alpha One (A1); O ← Beta (B); A ← Gone (C, deleted). People: the administrator (primary O); Ann
 * (primary A, manages A1); Bob (primary A1, reports to Ann); Cid (primary B, also a member of A);
 * Eve (primary A1, reports to Bob); Dee (primary A, deleted). Every figure below is worked out in
 * the comments next to the records.
 */
describe('/v4/…/dashboards', () => {
  let t: TestApp;
  let site: TestSite;
  let other: TestSite;
  let off: TestSite;
  let fy: PeriodEntity;
  let nextYear: PeriodEntity;
  let current: PeriodEntity;
  let A: OrganizationEntity;
  let A1: OrganizationEntity;
  let B: OrganizationEntity;
  let ann: TestPerson;
  let bob: TestPerson;
  let cid: TestPerson;
  let eve: TestPerson;
  let lonely: TestPerson;
  let otherPerson: TestPerson;
  /** Ids the explain view must list. */
  const ids = { bobRoleRatings: [] as string[], bobIndDialogs: [] as string[], bobMetrics: [] as string[], orgDialog: '', cidGoals: 0 };

  const http = () => t.http();
  const as = (p: { token: string }) => bearer(p.token);
  const get = (path: string, who: { token: string }, accept = 'application/json') =>
    http().get(`/v4/${path}`).set('Authorization', as(who)).set('Accept', accept);

  beforeAll(async () => {
    t = await startApp();
    site = await createSite(t, { name: 'Dash Co' });
    other = await createSite(t, { name: 'Other Co' });
    off = await createSite(t, { name: 'No PM', pm: false });
    otherPerson = await createPerson(t, other);
    const sid = site.siteId;
    const O = site.orgId;
    fy = await createPeriod(t, sid, { name: 'FY 2025', start: d('2025-01-01T00:00:00Z'), end: d('2025-12-31T23:59:59.999Z') });
    nextYear = await createPeriod(t, sid, { name: 'FY 2024', start: d('2024-01-01T00:00:00Z'), end: d('2024-12-31T23:59:59.999Z') });
    current = await createPeriod(t, sid, { name: 'Now', start: new Date(Date.now() - 10 * DAY), end: new Date(Date.now() + 10 * DAY) });
    A = await createUnit(t, sid, { name: 'Alpha', department: true, parentId: O });
    A1 = await createUnit(t, sid, { name: 'Alpha One', department: true, parentId: A.id });
    B = await createUnit(t, sid, { name: 'Beta', department: true, parentId: O });
    const C = await createUnit(t, sid, { name: 'Gone', department: true, parentId: A.id, deleted: true });
    ann = await createPerson(t, { siteId: sid, orgId: A.id }, { firstName: 'Ann', lastName: 'Able' });
    bob = await createPerson(t, { siteId: sid, orgId: A1.id }, { firstName: 'Bob', lastName: 'Baker', reportsTo: ann.individualId });
    cid = await createPerson(t, { siteId: sid, orgId: B.id }, { firstName: 'Cid', lastName: 'Cole' });
    eve = await createPerson(t, { siteId: sid, orgId: A1.id }, { firstName: 'Eve', lastName: 'Evans', reportsTo: bob.individualId });
    const dee = await createPerson(t, { siteId: sid, orgId: A.id }, { firstName: 'Dee', lastName: 'Dunn' });
    lonely = await createPerson(t, site, { firstName: 'Lou', lastName: 'Lonely' });
    await addMember(t, sid, cid.individualId, A.id);
    await t.ds.getRepository(OrganizationEntity).update({ id: A1.id }, { managerId: ann.individualId });
    await deleteIndividual(t, sid, dee.individualId);
    const data = new DashboardData(t, sid);
    const [bobId, annId, cidId, eveId, deeId] = [bob.individualId, ann.individualId, cid.individualId, eve.individualId, dee.individualId];
    const P = fy.id;

    // Commitments. Bob: individual 2 of 3 (+1 of FY 2024, not counted); A1 1 of 2; A 1 of 1; B 0 of 1; C (deleted) 1 of 1; O 3 of 4.
    for (const done of [true, true, false]) await data.commitment('individual', bobId, P, done);
    await data.commitment('individual', bobId, nextYear.id, true);
    await data.commitment('individual', annId, P, false);
    await data.commitment('individual', cidId, P, true);
    await data.commitment('individual', deeId, P, true);
    for (const done of [true, false]) await data.commitment('department', A1.id, P, done);
    await data.commitment('department', A.id, P, true);
    await data.commitment('department', B.id, P, false);
    await data.commitment('department', C.id, P, true);
    for (const done of [true, true, true, false]) await data.commitment('organization', O, P, done);

    // Projects. Bob owns J1–J8; Cid owns J9 (in A1); Ann owns J10 (in B).
    const J1 = await data.project(bobId, { start: d('2024-06-01Z'), due: d('2025-06-30Z'), completed: d('2025-06-15Z') }); // active, on time, completed
    await data.project(bobId, { start: d('2025-03-01Z'), due: d('2025-05-01Z'), completed: d('2025-07-01Z') }); // J2: active, late, completed
    const J3 = await data.project(bobId, { start: d('2025-02-01Z'), due: d('2030-01-01Z') }); // active, on time (not due yet)
    await data.project(bobId, { start: d('2025-02-01Z'), due: d('2025-06-01Z') }); // J4: active, late
    await data.project(bobId, { start: d('2026-02-01Z'), due: d('2026-06-01Z') }); // J5: starts after the period
    await data.project(bobId, { start: d('2023-01-01Z'), completed: d('2024-12-01Z') }); // J6: completed before it
    await data.project(bobId, { start: null }); // J7: no start, created today (after the period)
    const J8 = await data.project(bobId, { start: d('2025-01-05Z'), deleted: true }); // deleted
    await data.project(cidId, { organizationId: A1.id, start: d('2025-01-10Z') }); // J9: active, on time (no due date)
    await data.project(annId, { organizationId: B.id, start: d('2025-01-01Z'), due: d('2025-12-31T12:00:00Z'), completed: d('2025-12-31T12:00:00Z') }); // J10
    await data.dueDateChange(J1.id, d('2025-03-01Z')); // in the period
    await data.dueDateChange(J1.id, d('2024-12-31T23:00:00Z')); // before it
    await data.dueDateChange(J3.id, d('2025-12-31T23:00:00Z')); // in the period
    // Bob: active J1–J4 (4), on time J1, J3 (2), completed J1, J2 (2), moves 2.
    // A1 (and Bob's Dept…): + J9 → 5, 3, 2, 2. A and O: + J10 → 6, 4, 3, 2. B: J9, J10 → 2, 2, 1, 0.

    // Metrics with values in FY 2025. Attainments: m1 120 (80/20), m2 95, m3 80 (lower is better, 80/20), m4 50 (80/20),
    // m8 90 (80/20), project J1 70; excluded: no target, value of another period, deleted.
    ids.bobMetrics.push((await data.metric('individual', bobId, { target: 100, is8020: true, values: [[P, 120]] })).id);
    ids.bobMetrics.push((await data.metric('individual', bobId, { target: 100, values: [[P, 95]] })).id);
    ids.bobMetrics.push((await data.metric('individual', bobId, { target: 50, higherIsBetter: false, is8020: true, values: [[P, 62.5]] })).id);
    ids.bobMetrics.push((await data.metric('individual', bobId, { target: 200, is8020: true, values: [[P, 100]] })).id);
    await data.metric('individual', bobId, { target: null, values: [[P, 100]] });
    await data.metric('individual', bobId, { target: 100, values: [[nextYear.id, 100]] });
    await data.metric('individual', bobId, { target: 100, deleted: true, values: [[P, 100]] });
    ids.bobMetrics.push((await data.metric('individual', bobId, { target: 10, is8020: true, values: [[P, 9]] })).id);
    ids.bobMetrics.push((await data.metric('project', J1.id, { target: 100, values: [[P, 70]] })).id);
    await data.metric('project', J8.id, { target: 100, values: [[P, 100]] });
    await data.metric('individual', annId, { target: 100, values: [[P, 100]] }); // meets
    // Bob: 6 measured: ≥110 1, [90,110) 2, [70,90) 2, <70 1. 80/20: 4, ≥90: 2 → 50 %; composite (100+80+50+90)/4 = 80.
    // A, O: + Ann's → 7: 1, 3, 2, 1.

    // Assessments of Bob in FY 2025: leader ratings 4, 5, 3, 2 (criteria 4 and 2, core value 5); team 4, 5 (core value 4).
    await data.assessment('leader', bobId, annId, P, [
      ['evaluationcriteria', 4],
      ['corevalue', 5],
      ['general', 3],
    ]);
    await data.assessment('leader', bobId, annId, P, [['evaluationcriteria', 2]]);
    await data.assessment('team', bobId, eveId, P, [
      ['corevalue', 4],
      ['general', 5],
    ]);
    await data.assessment('self', bobId, bobId, P, [
      ['evaluationcriteria', 5],
      ['corevalue', 5],
      ['general', 3],
    ]);
    await data.assessment('leader', bobId, annId, nextYear.id, [['evaluationcriteria', 1]]);
    // Criteria 6/10 = 60; leader 14/20 = 70; team 9/10 = 90; core values 9/10 = 90; self 13/15 = 86.67 (in no other figure).

    // Dialogs. Bob: 3 of his (2 held; a deleted one not counted); A1 2 (1 held); A 1 held; B 1 not held; O 1 held; J1 1 not held; J8 (deleted project) 1.
    const D1 = await data.dialog('individual', bobId, annId, P, { held: true });
    const D2 = await data.dialog('individual', bobId, annId, P, { held: true });
    const D3 = await data.dialog('individual', bobId, annId, P);
    const D4 = await data.dialog('individual', bobId, annId, P, { held: true, deleted: true });
    const Dx = await data.dialog('individual', bobId, annId, nextYear.id, { held: true });
    ids.bobIndDialogs.push(D1.id, D2.id, D3.id);
    await data.dialog('department', A1.id, annId, P, { held: true });
    await data.dialog('department', A1.id, annId, P);
    await data.dialog('department', A.id, annId, P, { held: true });
    await data.dialog('department', B.id, annId, P);
    ids.orgDialog = (await data.dialog('organization', O, site.admin.individualId, P, { held: true })).id;
    await data.dialog('project', J1.id, bobId, P);
    await data.dialog('project', J8.id, bobId, P, { held: true });
    // The rates count the levels a row answers for: Bob his own 3, 2 held → 66.67; A (not O above it) 7, 4 → 57.14; O all 9, 5 → 55.56.

    // Basic-role ratings of Bob: 4 and 3 count (7/10 = 70); a missing rating, a deleted dialog and another period do not.
    const R1 = await data.basicRole(bobId);
    const R2 = await data.basicRole(bobId);
    ids.bobRoleRatings.push((await data.roleRating(R1.id, D1.id, 4)).id, (await data.roleRating(R2.id, D1.id, 3)).id);
    await data.roleRating(R1.id, D2.id, null);
    await data.roleRating(R1.id, D4.id, 5);
    await data.roleRating(R1.id, Dx.id, 1);
    void D3;

    // Follow-ups: Bob's 3 created in the period (1 completed in it) → 33.33; A1 1 of 1; J1 1 of 1 → A, O: 5 created, 3 completed = 60.
    await data.task('individual', bobId, bobId, d('2025-02-01Z'), { completed: d('2025-03-01Z') });
    await data.task('individual', bobId, bobId, d('2025-05-01Z'), { completed: d('2026-01-15Z') }); // completed after the period
    await data.task('individual', bobId, bobId, d('2024-12-01Z'), { completed: d('2025-01-15Z') }); // created before it
    await data.task('individual', bobId, bobId, d('2025-06-01Z'));
    await data.task('individual', bobId, bobId, d('2025-06-01Z'), { deleted: true, completed: d('2025-06-02Z') });
    await data.task('department', A1.id, annId, d('2025-04-01Z'), { completed: d('2025-04-10Z') });
    await data.task('project', J1.id, bobId, d('2025-08-01Z'), { completed: d('2025-08-02Z') });

    // Goals: Bob 1 of 3 (+1 of FY 2024); Ann 2 of 2; Cid 105 open ones (for the explain view's cap).
    for (const done of [true, false, false]) await data.goal(bobId, P, done);
    await data.goal(bobId, nextYear.id, true);
    for (const done of [true, true]) await data.goal(annId, P, done);
    for (let k = 0; k < 105; k++) await data.goal(cidId, P, false);
    ids.cidGoals = 105;
  }, SLOW);

  afterAll(async () => {
    await t?.close();
  });

  /** Bob's hand-computed dashboard of FY 2025 with the default settings. */
  const bobExpected = () => ({
    ID: bob.individualId,
    SiteID: site.siteId,
    RowType: 39,
    Name: 'Bob Baker',
    FromDate: '2025-01-01T00:00:00.000+00:00',
    ToDate: '2025-12-31T23:59:59.999+00:00',
    OrganizationCommitmentsCompleted: 3,
    OrganizationCommitmentsTotal: 4,
    OrganizationCommitmentsColorValue: YELLOW, // 75 %
    DepartmentCommitmentsCompleted: 1,
    DepartmentCommitmentsTotal: 2,
    DepartmentCommitmentsColorValue: RED, // 50 %
    IndividualCommitmentsCompleted: 2,
    IndividualCommitmentsTotal: 3,
    IndividualCommitmentsColorValue: RED, // 66.67 %
    MetricsExceedsPercent: 16.67,
    MetricsMeetsPercent: 33.33,
    MetricsMinimumPercent: 33.33,
    MetricsBelowPercent: 16.67,
    Metrics8020Percent: 50,
    Metrics8020CompositePercent: 80,
    ProjectsActive: 4,
    ProjectsOnTime: 2,
    ProjectsCompleted: 2,
    ProjectsDateChanges: 2,
    DeptProjectsActive: 5,
    DeptProjectsOnTime: 3,
    DeptProjectsCompleted: 2,
    DeptProjectsDateChanges: 2,
    EvaluationCriteriaPercent: 60,
    LeaderAssessmentPercent: 70,
    TeamAssessmentPercent: 90,
    SelfAssessmentPercent: 86.67, // beside the leader's and the team's; in no score
    DialogsCompletedPercent: 66.67, // his own dialogs only: 2 of 3 (not the organization's, department's or project's)
    FollowUpsCompletedPercent: 33.33, // his own follow-ups only: 1 of 3
    IndividualPerformancePercent: 68.57, // (60 + 70 + 90 + 66.666667 + 33.333333 + 90 + 70) / 7
    IndividualCoreValuesPercent: 90,
    IndividualBasicRolePercent: 70,
    PersonalGoalsCompleted: 1,
    PersonalGoalsTotal: 3,
    OrgDialogsExpected: 1,
    OrgDialogsOccurred: 1,
    DeptDialogsExpected: 2,
    DeptDialogsOccurred: 1,
    ProjDialogsExpected: 1,
    ProjDialogsOccurred: 0,
    IndDialogsExpected: 3,
    IndDialogsOccurred: 2,
    OrgFollowUpsCreated: 0,
    OrgFollowUpsCompleted: 0,
    DeptFollowUpsCreated: 1,
    DeptFollowUpsCompleted: 1,
    ProjFollowUpsCreated: 1,
    ProjFollowUpsCompleted: 1,
    IndFollowUpsCreated: 3,
    IndFollowUpsCompleted: 1,
    ...SETTINGS_DEFAULT,
  });

  /** Alpha (A ⊃ A1; people Ann, Bob, Cid, Eve). */
  const alphaExpected = () => ({
    ...bobExpected(),
    ID: A.id,
    RowType: 56,
    Name: 'Alpha',
    OrganizationCommitmentsColorValue: YELLOW, // O 3 of 4
    DepartmentCommitmentsCompleted: 2, // A 1 of 1 + A1 1 of 2 (Gone is deleted)
    DepartmentCommitmentsTotal: 3,
    DepartmentCommitmentsColorValue: RED,
    IndividualCommitmentsCompleted: 3, // Ann 0/1, Bob 2/3, Cid 1/1 (Dee is deleted)
    IndividualCommitmentsTotal: 5,
    IndividualCommitmentsColorValue: RED,
    MetricsExceedsPercent: 14.29,
    MetricsMeetsPercent: 42.86,
    MetricsMinimumPercent: 28.57,
    MetricsBelowPercent: 14.29,
    ProjectsActive: 6,
    ProjectsOnTime: 4,
    ProjectsCompleted: 3,
    ProjectsDateChanges: 2,
    DeptProjectsActive: 6,
    DeptProjectsOnTime: 4,
    DeptProjectsCompleted: 3,
    DeptProjectsDateChanges: 2,
    DialogsCompletedPercent: 57.14, // department A1 1/2, A 1/1, project J1 0/1, Bob 2/3: not Root Org's above it
    FollowUpsCompletedPercent: 60, // A1 1/1, J1 1/1, Bob 1/3
    IndividualPerformancePercent: 71.02, // (60 + 70 + 90 + 57.142857 + 60 + 90 + 70) / 7
    PersonalGoalsCompleted: 3, // Bob 1/3, Ann 2/2, Cid 0/105
    PersonalGoalsTotal: 110,
    DeptDialogsExpected: 3,
    DeptDialogsOccurred: 2,
  });

  /** Root Org (everything live). */
  const rootExpected = () => ({
    ...alphaExpected(),
    ID: site.orgId,
    RowType: 4,
    Name: 'Root Org',
    DepartmentCommitmentsCompleted: 2, // A 1/1, A1 1/2, B 0/1
    DepartmentCommitmentsTotal: 4,
    DepartmentCommitmentsColorValue: RED,
    DialogsCompletedPercent: 55.56, // every level lies within it: + Root Org 1/1, B 0/1
    IndividualPerformancePercent: 70.79, // (60 + 70 + 90 + 55.555556 + 60 + 90 + 70) / 7
    DeptDialogsExpected: 4,
    DeptDialogsOccurred: 2,
  });

  describe('one dashboard', () => {
    it('computes every figure of an individual (JSON, in the spec’s order)', async () => {
      const res = await get(`individuals/${bob.individualId}/dashboards?period=${fy.id}`, ann).expect(200);
      expect(Object.keys(res.body)).toEqual(FIELDS);
      expect(res.body).toEqual(bobExpected());
    });

    it('answers the same figures in XML: root Dashboard, ordinal order, decimals with fractions', async () => {
      const res = await get(`individuals/${bob.individualId}/dashboards?period=${fy.id}`, ann, 'application/xml').expect(200);
      expect(res.text).toMatch(/^<\?xml[^>]+\?><Dashboard xmlns="urn:pms:v4"/);
      const order = [...res.text.matchAll(/<([A-Za-z0-9]+)[ >/]/g)].map((m) => m[1]).slice(1);
      expect(order).toEqual([...FIELDS].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)));
      expect(res.text).toContain('<DialogsCompletedPercent>66.67</DialogsCompletedPercent>');
      expect(res.text).toContain('<IndividualPerformancePercent>68.57</IndividualPerformancePercent>');
      const decoded = (await codec.decodeXml(res.text)) as Row;
      expect(decoded).toEqual(Object.fromEntries(Object.entries(bobExpected()).map(([k, v]) => [k, asXml(v)])));
    });

    it('computes a department over its live sub-units and members (JSON and XML)', async () => {
      const res = await get(`departments/${A.id}/dashboards?period=${fy.id}`, bob).expect(200);
      expect(res.body).toEqual(alphaExpected());
      const xml = await get(`departments/${A.id}/dashboards?period=${fy.id}`, bob, 'application/xml').expect(200);
      expect(await codec.decodeXml(xml.text)).toEqual(Object.fromEntries(Object.entries(alphaExpected()).map(([k, v]) => [k, asXml(v)])));
    });

    it('computes an organization over the whole tree (JSON and XML)', async () => {
      const res = await get(`organizations/${site.orgId}/dashboards?period=${fy.id}`, cid).expect(200);
      expect(res.body).toEqual(rootExpected());
      const xml = await get(`organizations/${site.orgId}/dashboards?period=${fy.id}`, cid, 'application/xml').expect(200);
      expect(await codec.decodeXml(xml.text)).toEqual(Object.fromEntries(Object.entries(rootExpected()).map(([k, v]) => [k, asXml(v)])));
    });

    it('gives a department of a single member its own scope (Beta: Cid; J9, J10)', async () => {
      const res = await get(`departments/${B.id}/dashboards?period=${fy.id}`, cid).expect(200);
      expect(res.body).toMatchObject({
        DepartmentCommitmentsCompleted: 0,
        DepartmentCommitmentsTotal: 1,
        DepartmentCommitmentsColorValue: RED,
        IndividualCommitmentsCompleted: 1,
        IndividualCommitmentsTotal: 1,
        IndividualCommitmentsColorValue: GREEN, // 100 %: the top band includes its maximum
        ProjectsActive: 2,
        ProjectsOnTime: 2,
        ProjectsCompleted: 1,
        ProjectsDateChanges: 0,
        DeptDialogsExpected: 1,
        DeptDialogsOccurred: 0,
        DialogsCompletedPercent: 0, // B 0 of 1 (Root Org's 1 of 1 is above Beta)
      });
    });

    it('answers null percentages and colors, and zero counts, where there is nothing to count', async () => {
      const res = await get(`individuals/${lonely.individualId}/dashboards?period=${fy.id}`, lonely).expect(200);
      expect(res.body).toEqual({
        ...EMPTY,
        ID: lonely.individualId,
        SiteID: site.siteId,
        RowType: 39,
        Name: 'Lou Lonely',
        FromDate: '2025-01-01T00:00:00.000+00:00',
        ToDate: '2025-12-31T23:59:59.999+00:00',
        // Lou's primary unit is Root Org: the organization level is Root Org's. Its dialog is
        // counted, but it is not Lou's: his DialogsCompletedPercent (and so every score) is null.
        OrganizationCommitmentsCompleted: 3,
        OrganizationCommitmentsTotal: 4,
        OrganizationCommitmentsColorValue: YELLOW,
        OrgDialogsExpected: 1,
        OrgDialogsOccurred: 1,
        ...SETTINGS_DEFAULT,
      });
      const xml = await get(`individuals/${lonely.individualId}/dashboards?period=${fy.id}`, lonely, 'application/xml').expect(200);
      expect(xml.text).toContain('<EvaluationCriteriaPercent i:nil="true"/>');
      expect(xml.text).toContain('<IndividualCommitmentsColorValue i:nil="true"/>');
      const empty = await get(`individuals/${bob.individualId}/dashboards?period=${current.id}`, bob).expect(200);
      // Projects are not period records: J3, J4 (begun, open), J5 (begun since) and J7 (created today) are
      // active now; on time J3 (due 2030) and J7 (no due date); the Dept… figures add Cid's J9.
      expect(empty.body).toMatchObject({ ...EMPTY, ProjectsActive: 4, ProjectsOnTime: 2, DeptProjectsActive: 5, DeptProjectsOnTime: 3 });
    });

    it('uses the period containing today by default', async () => {
      const res = await get(`individuals/${bob.individualId}/dashboards`, bob).expect(200);
      expect(new Date(res.body.FromDate as string).getTime()).toBe(current.startDate.getTime());
      expect(res.body.IndDialogsExpected).toBe(0);
    });

    it('answers the very next dashboard from a period created or deleted just before (the basis kept per site is read again)', async () => {
      const path = `individuals/${bob.individualId}/dashboards`;
      // Read once: on MySQL/MariaDB the site's periods, settings and colors are now kept.
      expect(new Date((await get(path, bob).expect(200)).body.FromDate as string).getTime()).toBe(current.startDate.getTime());
      const start = new Date(Date.now() - 60_000);
      const created = await http()
        .post('/v4/periods')
        .set('Authorization', as(site.admin))
        .send({ Name: 'This hour', StartDate: start.toISOString(), EndDate: new Date(Date.now() + 3_600_000).toISOString() })
        .expect(200);
      try {
        // Contains now and started last: the new default.
        expect(new Date((await get(path, bob).expect(200)).body.FromDate as string).getTime()).toBe(start.getTime());
        await get(`${path}?period=${created.body.ID}`, bob).expect(200);
      } finally {
        await http().delete(`/v4/periods/${created.body.ID}`).set('Authorization', as(site.admin)).expect(200);
      }
      expect(new Date((await get(path, bob).expect(200)).body.FromDate as string).getTime()).toBe(current.startDate.getTime());
      await get(`${path}?period=${created.body.ID}`, bob).expect(404);
    });
  });

  describe('explain', () => {
    const figure = (body: { Figures: Row[] }, name: string) => body.Figures.find((f) => f.Name === name)!;

    it('lists every computed figure with its value, formula, calculation and records (JSON)', async () => {
      const res = await get(`individuals/${bob.individualId}/dashboards/explain?period=${fy.id}`, ann).expect(200);
      const body = res.body as { Figures: Row[] } & Row;
      expect(body).toMatchObject({ ID: bob.individualId, RowType: 39, Name: 'Bob Baker', PeriodID: fy.id, SiteID: site.siteId });
      const expected = bobExpected() as Row;
      expect(body.Figures.map((f) => f.Name)).toEqual(FIELDS.slice(6, 56));
      for (const f of body.Figures) {
        expect(f.Value).toBe(expected[f.Name as string]);
        expect(typeof f.Formula).toBe('string');
        expect((f.Formula as string).length).toBeGreaterThan(20);
      }
      // A count lists exactly the records it counts.
      expect(figure(body, 'OrgDialogsExpected')).toMatchObject({ RecordType: 'dialog', RecordCount: 1, Records: [{ ID: ids.orgDialog, Value: null }] });
      const ind = figure(body, 'IndDialogsExpected');
      expect(ind.RecordCount).toBe(3);
      expect((ind.Records as Row[]).map((r) => r.ID)).toEqual([...ids.bobIndDialogs].sort());
      // A mean lists the ratings with their values; a share its population with what each contributes.
      const roles = figure(body, 'IndividualBasicRolePercent');
      expect(roles).toMatchObject({ RecordType: 'basicroledialog', RecordCount: 2, Numerator: 7, Denominator: 10, Value: 70 });
      expect((roles.Records as Row[]).map((r) => [r.ID, r.Value]).sort()).toEqual(
        [
          [ids.bobRoleRatings[0], 4],
          [ids.bobRoleRatings[1], 3],
        ].sort(),
      );
      const exceeds = figure(body, 'MetricsExceedsPercent');
      expect(exceeds).toMatchObject({ RecordType: 'metric', RecordCount: 6, Numerator: 1, Denominator: 6 });
      expect((exceeds.Records as Row[]).map((r) => r.ID)).toEqual([...ids.bobMetrics].sort());
      expect((exceeds.Records as Row[]).map((r) => r.Value).sort((a, b) => Number(a) - Number(b))).toEqual([50, 70, 80, 90, 95, 120]);
      // The rate lists Bob's own dialogs only, each with 1 (held) or 0.
      const rate = figure(body, 'DialogsCompletedPercent');
      expect(rate).toMatchObject({ RecordCount: 3, Numerator: 2, Denominator: 3, Calculation: '2 of 3 dialogs held = 66.67 % (individual level)' });
      expect((rate.Records as Row[]).map((r) => r.ID)).toEqual([...ids.bobIndDialogs].sort());
      const ipp = figure(body, 'IndividualPerformancePercent');
      expect(ipp).toMatchObject({ RecordType: null, RecordCount: 0, Records: [], Denominator: 7 });
      expect(ipp.Calculation).toContain('DialogsCompletedPercent 66.67');
      expect(figure(body, 'ProjectsDateChanges')).toMatchObject({ RecordType: 'projectduedatechange', RecordCount: 2 });
      expect(figure(body, 'IndividualCommitmentsColorValue')).toMatchObject({ Numerator: 2, Denominator: 3, RecordCount: 3 });
    });

    it('caps the records at 100 per figure and gives the total (department; XML)', async () => {
      const res = await get(`departments/${A.id}/dashboards/explain?period=${fy.id}`, bob).expect(200);
      const goals = figure(res.body as { Figures: Row[] }, 'PersonalGoalsTotal');
      expect(goals.RecordCount).toBe(110);
      expect(goals.Records).toHaveLength(100);
      expect(goals.Value).toBe(110);
      const xml = await get(`departments/${A.id}/dashboards/explain?period=${fy.id}`, bob, 'application/xml').expect(200);
      expect(xml.text).toMatch(/^<\?xml[^>]+\?><DashboardExplanation xmlns="urn:pms:v4"/);
      expect(xml.text).toContain('<Figures><DashboardFigure>');
      const decoded = (await codec.decodeXml(xml.text)) as Row;
      const figures = (decoded.Figures as { DashboardFigure: Row[] }).DashboardFigure;
      expect(figures).toHaveLength(50);
      const xmlGoals = figures.find((f) => f.Name === 'PersonalGoalsTotal')!;
      expect(xmlGoals.RecordCount).toBe('110');
      expect((xmlGoals.Records as { DashboardRecord: Row[] }).DashboardRecord).toHaveLength(100);
    });

    it('explains an organization', async () => {
      const res = await get(`organizations/${site.orgId}/dashboards/explain?period=${fy.id}`, bob).expect(200);
      const dept = figure(res.body as { Figures: Row[] }, 'DepartmentCommitmentsTotal');
      expect(dept).toMatchObject({ Value: 4, RecordCount: 4, RecordType: 'commitment' });
    });
  });

  describe('list, sample and settings', () => {
    it('lists the caller’s own, their reports’ and their units’ dashboards (JSON and XML root Dashboards)', async () => {
      const res = await get(`dashboards?period=${fy.id}`, ann).expect(200);
      // Ann: herself, Bob (reports to her), Alpha (member) and Alpha One (she manages it), units by name.
      expect((res.body as Row[]).map((x) => [x.RowType, x.Name])).toEqual([
        [39, 'Ann Able'],
        [39, 'Bob Baker'],
        [56, 'Alpha'],
        [56, 'Alpha One'],
      ]);
      expect(res.headers['x-total-count']).toBe('4');
      expect((res.body as Row[])[1]).toEqual(bobExpected());
      expect((res.body as Row[])[2]).toEqual(alphaExpected());
      const xml = await get(`dashboards?period=${fy.id}&limit=2&offset=1`, ann, 'application/xml').expect(200);
      expect(xml.text).toMatch(/^<\?xml[^>]+\?><Dashboards xmlns="urn:pms:v4"/);
      const items = (await codec.decodeXml(xml.text)) as Row[];
      expect(items.map((x) => x.Name)).toEqual(['Bob Baker', 'Alpha']);
      expect(items[0]).toEqual(Object.fromEntries(Object.entries(bobExpected()).map(([k, v]) => [k, asXml(v)])));
    });

    it('gives an administrator every organization and department', async () => {
      const res = await get(`dashboards?period=${fy.id}`, site.admin).expect(200);
      expect((res.body as Row[]).map((x) => [x.RowType, x.Name])).toEqual([
        [39, (res.body as Row[])[0].Name],
        [4, 'Root Org'],
        [56, 'Alpha'],
        [56, 'Alpha One'],
        [56, 'Beta'],
      ]);
      expect((res.body as Row[])[1]).toEqual(rootExpected());
    });

    it('answers the fixed sample with the site’s settings', async () => {
      const id = randomUUID();
      const res = await get(`dashboards/sample?period=${fy.id}&id=${id}`, bob).expect(200);
      expect(Object.keys(res.body)).toEqual(FIELDS);
      expect(res.body).toMatchObject({
        ID: id,
        RowType: 39,
        Name: 'Sample Individual',
        FromDate: '2025-01-01T00:00:00.000+00:00',
        OrganizationCommitmentsColorValue: YELLOW, // 3 of 4
        IndividualCommitmentsColorValue: GREEN, // 2 of 2
        MetricsExceedsPercent: 20, // 135, 112 of 10
        MetricsMeetsPercent: 30, // 104, 97, 92
        MetricsMinimumPercent: 30, // 88, 75, 71
        MetricsBelowPercent: 20, // 64, 40
        Metrics8020Percent: 50, // 112, 97 of 112, 97, 88, 64
        Metrics8020CompositePercent: 87.25, // (100 + 97 + 88 + 64) / 4
        DialogsCompletedPercent: 83.33, // the individual's own: 5 of 6
        SelfAssessmentPercent: 84, // 21 of 25
        FollowUpsCompletedPercent: 80, // the individual's own: 4 of 5 completed or overdue (1 open, not yet due)
        ...SETTINGS_DEFAULT,
      });
      const none = await get('dashboards/sample', bob).expect(200);
      expect(none.body.ID).toBe('00000000-0000-0000-0000-000000000000');
      await get('dashboards/sample?id=nope', bob).expect(400);
      await get('dashboards/sample?period=99999', bob).expect(404);
    });

    it('reads the defaults, lets an administrator change them, and every dashboard carries them', async () => {
      const read = await get('dashboards/settings', bob).expect(200);
      expect(read.body).toEqual({ SiteID: site.siteId, ...SETTINGS_DEFAULT });
      const body = { ...SETTINGS_DEFAULT, Threshold1: 50, Threshold2: 100, Threshold3: 120, ShowTeamAssessment: false, ShowDialogs: false, ShowGoals: false };
      await http().put('/v4/dashboards/settings').set('Authorization', as(bob)).send(body).expect(403);
      const put = await http().put('/v4/dashboards/settings').set('Authorization', as(site.admin)).send(body).expect(200);
      expect(put.body).toEqual({ SiteID: site.siteId, ...body });
      try {
        const dash = await get(`individuals/${bob.individualId}/dashboards?period=${fy.id}`, bob).expect(200);
        expect(dash.body).toEqual({
          ...bobExpected(),
          ...body,
          // Attainments 120, 95, 80, 50, 90, 70 against 50/100/120; 80/20 at ≥ 100: only 120.
          MetricsExceedsPercent: 16.67,
          MetricsMeetsPercent: 0,
          MetricsMinimumPercent: 83.33,
          MetricsBelowPercent: 0,
          Metrics8020Percent: 25,
          IndividualPerformancePercent: 64.67, // (60 + 70 + 33.333333 + 90 + 70) / 5: team and dialogs switched off
        });
        const again = await http().put('/v4/dashboards/settings').set('Authorization', as(site.admin)).set('If-Match', put.headers.etag).send(body).expect(200);
        await http().put('/v4/dashboards/settings').set('Authorization', as(site.admin)).set('If-Match', put.headers.etag).send(body).expect(412);
        const xml = await http()
          .put('/v4/dashboards/settings')
          .set('Authorization', as(site.admin))
          .set('Content-Type', 'application/xml')
          .set('Accept', 'application/xml')
          .send(
            `<DashboardSettings xmlns="urn:pms:v4">${Object.entries({ ...body, Threshold3: 130 })
              .map(([k, v]) => `<${k}>${String(v)}</${k}>`)
              .join('')}</DashboardSettings>`,
          )
          .expect(200);
        expect(xml.text).toContain('<Threshold3>130</Threshold3>');
        void again;
      } finally {
        await http().put('/v4/dashboards/settings').set('Authorization', as(site.admin)).send(SETTINGS_DEFAULT).expect(200);
      }
    });

    it('validates the settings: every field, integers 0–1000, Threshold1 ≤ Threshold2 ≤ Threshold3', async () => {
      const put = (body: object) => http().put('/v4/dashboards/settings').set('Authorization', as(site.admin)).send(body);
      const fields = (res: { body: { errors?: { field: string }[] } }) => (res.body.errors ?? []).map((e) => e.field).sort();
      expect(fields(await put({ ...SETTINGS_DEFAULT, Threshold1: 95 }).expect(400))).toEqual(['Threshold2']);
      expect(fields(await put({ ...SETTINGS_DEFAULT, Threshold3: 80 }).expect(400))).toEqual(['Threshold3']);
      expect(fields(await put({ ...SETTINGS_DEFAULT, Threshold3: 1001 }).expect(400))).toEqual(['Threshold3']);
      expect(fields(await put({ ...SETTINGS_DEFAULT, Threshold1: -1 }).expect(400))).toEqual(['Threshold1']);
      expect(fields(await put({ ...SETTINGS_DEFAULT, Threshold2: 90.5 }).expect(400))).toEqual(['Threshold2']);
      expect(fields(await put({ ...SETTINGS_DEFAULT, Threshold2: 'ninety' }).expect(400))).toEqual(['Threshold2']);
      const { ShowGoals: _g, Threshold1: _t, ...partial } = SETTINGS_DEFAULT;
      expect(fields(await put(partial).expect(400))).toEqual(['ShowGoals', 'Threshold1']);
      await http()
        .put('/v4/dashboards/settings')
        .set('Authorization', as(site.admin))
        .set('Content-Type', 'application/json')
        .send('{"Threshold1": ')
        .expect(400);
      // SiteID is read-only: ignored.
      const ok = await put({ ...SETTINGS_DEFAULT, SiteID: other.siteId }).expect(200);
      expect(ok.body.SiteID).toBe(site.siteId);
    });
  });

  describe('access', () => {
    it('answers 404 for another site’s row, an unknown id or the wrong kind, 400 for a malformed id', async () => {
      await get(`individuals/${otherPerson.individualId}/dashboards?period=${fy.id}`, bob).expect(404);
      await get(`organizations/${other.orgId}/dashboards`, bob).expect(404);
      await get(`organizations/${A.id}/dashboards`, bob).expect(404); // a department is not an organization
      await get(`departments/${site.orgId}/dashboards`, bob).expect(404);
      await get(`departments/${randomUUID()}/dashboards/explain`, bob).expect(404);
      await get(`individuals/${otherPerson.individualId}/dashboards/explain`, bob).expect(404);
      await get('individuals/nope/dashboards', bob).expect(400);
      await get(`individuals/${bob.individualId}/dashboards?period=abc`, bob).expect(400);
      await get(`individuals/${bob.individualId}/dashboards?period=99999`, bob).expect(404);
      // Another site's period is not one of this site's.
      const foreign = await createPeriod(t, other.siteId, { start: d('2025-01-01Z'), end: d('2025-12-31Z') });
      await get(`individuals/${bob.individualId}/dashboards?period=${foreign.id}`, bob).expect(404);
    });

    it('answers 404 with a clear detail when the site has no period', async () => {
      const empty = await createSite(t, { name: 'No periods' });
      const none = await get(`organizations/${empty.orgId}/dashboards`, empty.admin).expect(404);
      expect(none.body.detail).toContain('no period');
      await get('dashboards', empty.admin).expect(404);
      const sample = await get('dashboards/sample', empty.admin).expect(200);
      expect(new Date(sample.body.FromDate as string).getUTCMonth()).toBe(0);
    });

    it('answers 403 pm-disabled on a site without performance management, on every route', async () => {
      const person = off.admin;
      for (const path of [
        `individuals/${person.individualId}/dashboards`,
        `organizations/${off.orgId}/dashboards`,
        `departments/${off.orgId}/dashboards`,
        `individuals/${person.individualId}/dashboards/explain`,
        'dashboards',
        'dashboards/sample',
        'dashboards/settings',
      ]) {
        const res = await get(path, person).expect(403);
        expect(res.body.type).toBe('urn:pms:problem:pm-disabled');
      }
      const put = await http().put('/v4/dashboards/settings').set('Authorization', as(person)).send(SETTINGS_DEFAULT).expect(403);
      expect(put.body.type).toBe('urn:pms:problem:pm-disabled');
    });

    it('answers 401 without a token', async () => {
      await http().get(`/v4/individuals/${bob.individualId}/dashboards`).expect(401);
    });
  });

  /**
   * The decisions of docs/dashboards.md on the figures an HR user questions, each on a small data
   * set of its own site: Root Org ← Dept D; Pat (primary D) owns project Pj (in D).
   */
  describe('what the completion rates and assessment scores count', () => {
    let hr: TestSite;
    let D: OrganizationEntity;
    let pat: TestPerson;
    let fy25: PeriodEntity;
    let running: PeriodEntity;
    let hrData: DashboardData;
    const dash = async (kind: string, id: string, period: PeriodEntity) =>
      (await get(`${kind}/${id}/dashboards?period=${period.id}`, hr.admin).expect(200)).body as Row;
    const explain = async (kind: string, id: string, period: PeriodEntity) =>
      ((await get(`${kind}/${id}/dashboards/explain?period=${period.id}`, hr.admin).expect(200)).body as { Figures: Row[] }).Figures;

    beforeAll(async () => {
      hr = await createSite(t, { name: 'HR Co' });
      fy25 = await createPeriod(t, hr.siteId, { name: 'FY 2025', start: d('2025-01-01T00:00:00Z'), end: d('2025-12-31T23:59:59.999Z') });
      running = await createPeriod(t, hr.siteId, { name: 'Now', start: new Date(Date.now() - 10 * DAY), end: new Date(Date.now() + 10 * DAY) });
      D = await createUnit(t, hr.siteId, { name: 'Delivery', department: true, parentId: hr.orgId });
      pat = await createPerson(t, { siteId: hr.siteId, orgId: D.id }, { firstName: 'Pat', lastName: 'Price' });
      hrData = new DashboardData(t, hr.siteId);
      const Pj = await hrData.project(pat.individualId, { organizationId: D.id, start: d('2025-01-01Z') });
      // Dialogs held / expected: Root Org 1/2, D 3/4, Pat 3/4 (the 7 of 10 of the issue), Pj 0/1.
      const dialogs = async (kind: 'organization' | 'department' | 'individual' | 'project', id: string, held: number, expected: number) => {
        for (let k = 0; k < expected; k++) await hrData.dialog(kind, id, hr.admin.individualId, fy25.id, { held: k < held });
      };
      await dialogs('organization', hr.orgId, 1, 2);
      await dialogs('department', D.id, 3, 4);
      await dialogs('individual', pat.individualId, 3, 4);
      await dialogs('project', Pj.id, 0, 1);
    }, SLOW);

    it('counts an individual’s own dialogs only, a department’s without the organization above it, an organization’s at every level', async () => {
      const own = await dash('individuals', pat.individualId, fy25);
      expect(own).toMatchObject({
        OrgDialogsExpected: 2,
        OrgDialogsOccurred: 1,
        DeptDialogsExpected: 4,
        DeptDialogsOccurred: 3,
        ProjDialogsExpected: 1,
        ProjDialogsOccurred: 0,
        IndDialogsExpected: 4,
        IndDialogsOccurred: 3,
        DialogsCompletedPercent: 75, // 3 of 4, not 7 of 10 (nor 7 of 11 with the project's)
      });
      expect((await dash('departments', D.id, fy25)).DialogsCompletedPercent).toBe(66.67); // D 3/4 + Pj 0/1 + Pat 3/4 = 6 of 9
      expect((await dash('organizations', hr.orgId, fy25)).DialogsCompletedPercent).toBe(63.64); // + Root Org 1/2 = 7 of 11
      const rate = (await explain('individuals', pat.individualId, fy25)).find((f) => f.Name === 'DialogsCompletedPercent')!;
      expect(rate).toMatchObject({ RecordCount: 4, Numerator: 3, Denominator: 4, Calculation: '3 of 4 dialogs held = 75 % (individual level)' });
    });

    it('leaves an open follow-up not yet due out of the completion rate, in a running period', async () => {
      const ago = (days: number) => new Date(Date.now() - days * DAY);
      const me = pat.individualId;
      const done = await hrData.task('individual', me, me, ago(5), { due: ago(2), completed: ago(3) });
      const overdue = await hrData.task('individual', me, me, ago(5), { due: ago(1) });
      // Another level's follow-ups are not Pat's: an overdue one of D does not move his rate.
      await hrData.task('department', D.id, me, ago(5), { due: ago(1) });
      const before = await dash('individuals', me, running);
      expect(before).toMatchObject({ IndFollowUpsCreated: 2, IndFollowUpsCompleted: 1, DeptFollowUpsCreated: 1, FollowUpsCompletedPercent: 50 });
      // Open and not yet due: one due next week, one without a due date while the period runs.
      await hrData.task('individual', me, me, ago(1), { due: ago(-7) });
      await hrData.task('individual', me, me, ago(1));
      const after = await dash('individuals', me, running);
      expect(after).toMatchObject({ IndFollowUpsCreated: 4, IndFollowUpsCompleted: 1, FollowUpsCompletedPercent: 50 }); // not 1 of 4 = 25
      expect(after.IndividualPerformancePercent).toBe(before.IndividualPerformancePercent);
      const rate = (await explain('individuals', me, running)).find((f) => f.Name === 'FollowUpsCompletedPercent')!;
      expect(rate).toMatchObject({
        Numerator: 1,
        Denominator: 2,
        RecordCount: 2,
        Calculation: '1 completed of 2 follow-ups completed or overdue = 50 % (individual level); left out: 2 open follow-ups not yet due',
      });
      expect((rate.Records as Row[]).map((r) => [r.ID, r.Value]).sort()).toEqual(
        [
          [done.id, 1],
          [overdue.id, 0],
        ].sort(),
      );
      // The department's rate counts its own and its people's: 1 of 3 (D's overdue one, Pat's two that count).
      expect((await dash('departments', D.id, running)).FollowUpsCompletedPercent).toBe(33.33);
    });

    it('judges a past period’s follow-ups at its end: done by then, or due by then (the end when there is no due date)', async () => {
      const me = pat.individualId;
      await hrData.task('individual', me, me, d('2025-02-01Z'), { due: d('2025-03-01Z'), completed: d('2025-02-20Z') }); // done
      await hrData.task('individual', me, me, d('2025-03-01Z'), { due: d('2025-04-01Z') }); // overdue
      await hrData.task('individual', me, me, d('2025-05-01Z')); // no due date: due at the period's end, open → overdue
      await hrData.task('individual', me, me, d('2025-06-01Z'), { due: d('2025-07-01Z'), completed: d('2026-01-05Z') }); // done after the end, due in it → overdue
      await hrData.task('individual', me, me, d('2025-11-01Z'), { due: d('2026-02-01Z') }); // due after the end → left out
      await hrData.task('individual', me, me, d('2025-10-01Z'), { due: d('2026-01-31Z'), completed: d('2026-01-10Z') }); // left out too
      const fy = await dash('individuals', me, fy25);
      expect(fy).toMatchObject({ IndFollowUpsCreated: 6, IndFollowUpsCompleted: 1, FollowUpsCompletedPercent: 25 }); // 1 of 4
    });

    it('shows a self-assessment beside the leader’s and the team’s, and counts it in no other figure', async () => {
      const me = pat.individualId;
      await hrData.assessment('leader', me, hr.admin.individualId, fy25.id, [['evaluationcriteria', 3]]);
      const before = await dash('individuals', me, fy25);
      expect(before).toMatchObject({ LeaderAssessmentPercent: 60, EvaluationCriteriaPercent: 60, SelfAssessmentPercent: null });
      await hrData.assessment('self', me, me, fy25.id, [
        ['evaluationcriteria', 5],
        ['corevalue', 4],
      ]);
      const after = await dash('individuals', me, fy25);
      expect(after).toEqual({ ...before, SelfAssessmentPercent: 90 }); // 9 of 10; criteria, core values and the mean unmoved
      expect((await dash('departments', D.id, fy25)).SelfAssessmentPercent).toBe(90); // the people in scope
      const figures = await explain('individuals', me, fy25);
      expect(figures.map((f) => f.Name).indexOf('SelfAssessmentPercent')).toBe(figures.map((f) => f.Name).indexOf('TeamAssessmentPercent') + 1);
      expect(figures.find((f) => f.Name === 'SelfAssessmentPercent')).toMatchObject({
        Value: 90,
        RecordType: 'assessmentrating',
        RecordCount: 2,
        Calculation: '2 ratings summing to 9 of at most 10 = 90 %',
      });
      expect(figures.find((f) => f.Name === 'LeaderAssessmentPercent')!.Calculation).toBe('1 rating summing to 3 of at most 5 = 60 %');
      const xml = await get(`individuals/${me}/dashboards?period=${fy25.id}`, hr.admin, 'application/xml').expect(200);
      expect(xml.text).toContain('<SelfAssessmentPercent>90</SelfAssessmentPercent>');
    });

    it('writes the explain texts in the singular for one record and in the plural for two', async () => {
      const calc = async (name: string) => (await explain('individuals', pat.individualId, fy25)).find((f) => f.Name === name)!.Calculation;
      await hrData.goal(pat.individualId, fy25.id, true);
      expect(await calc('PersonalGoalsTotal')).toBe('1 goal');
      expect(await calc('PersonalGoalsCompleted')).toBe('1 goal completed');
      await hrData.goal(pat.individualId, fy25.id, false);
      expect(await calc('PersonalGoalsTotal')).toBe('2 goals');
      await hrData.commitment('individual', pat.individualId, fy25.id, true);
      expect(await calc('IndividualCommitmentsTotal')).toBe('1 commitment');
      const figures = await explain('individuals', pat.individualId, fy25);
      const of = (name: string) => figures.find((f) => f.Name === name)!.Calculation;
      expect([of('ProjDialogsExpected'), of('ProjDialogsOccurred'), of('OrgDialogsOccurred'), of('OrgDialogsExpected')]).toEqual([
        '1 dialog',
        '0 dialogs held',
        '1 dialog held',
        '2 dialogs',
      ]);
    });
  });

  describe('closing the period', () => {
    it('archives one dashboard per individual, department and organization, once', async () => {
      const before = await get(`individuals/${bob.individualId}/dashboards?period=${fy.id}`, bob).expect(200);
      await http().put(`/v4/periods/${fy.id}/close`).set('Authorization', as(site.admin)).expect(200);
      const rows = await t.ds.getRepository(ArchiveEntity).find({ where: { periodId: fy.id, itemType: 'dashboard' } });
      // Live individuals: the administrator, Ann, Bob, Cid, Eve, Lou (Dee is deleted); Alpha, Alpha One, Beta (Gone is deleted); Root Org.
      expect(rows.map((r) => [r.ancestorType, r.name]).sort()).toEqual(
        [
          ['individual', rows.find((r) => r.ancestorId === site.admin.individualId)!.name],
          ['individual', 'Ann Able'],
          ['individual', 'Bob Baker'],
          ['individual', 'Cid Cole'],
          ['individual', 'Eve Evans'],
          ['individual', 'Lou Lonely'],
          ['department', 'Alpha'],
          ['department', 'Alpha One'],
          ['department', 'Beta'],
          ['organization', 'Root Org'],
        ].sort(),
      );
      for (const r of rows) expect(r.itemId).toBe(r.ancestorId);
      const list = await get(`individuals/${bob.individualId}/archives?period=${fy.id}`, bob).expect(200);
      const archive = (list.body as Row[]).find((a) => a.ItemID === bob.individualId)!;
      expect(archive).toMatchObject({ AncestorID: bob.individualId, AncestorType: 'individual', Name: 'Bob Baker', PeriodID: fy.id });
      expect(JSON.parse(archive.Snapshot as string)).toEqual(before.body);
      const org = await get(`organizations/${site.orgId}/archives?period=${fy.id}`, bob).expect(200);
      const orgArchive = (org.body as Row[]).find((a) => a.ItemID === site.orgId)!;
      expect(JSON.parse(orgArchive.Snapshot as string)).toEqual(rootExpected());
      const dept = await get(`organizations/${A.id}/archives?period=${fy.id}`, bob).expect(200);
      expect(JSON.parse((dept.body as Row[]).find((a) => a.ItemID === A.id)!.Snapshot as string)).toEqual(alphaExpected());
      // A second close writes nothing.
      await http().put(`/v4/periods/${fy.id}/close`).set('Authorization', as(site.admin)).expect(200);
      expect(await t.ds.getRepository(ArchiveEntity).count({ where: { periodId: fy.id, itemType: 'dashboard' } })).toBe(rows.length);
    });
  });
});
