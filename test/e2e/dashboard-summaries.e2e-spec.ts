import type { DeepPartial, EntityTarget, ObjectLiteral } from 'typeorm';
import type { TenantEntity } from '../../src/database/entities/base.entity.js';
import { RequestContext } from '../../src/common/context/request-context.js';
import { GoalEntity } from '../../src/database/entities/goal.entity.js';
import { IndividualEntity } from '../../src/database/entities/individual.entity.js';
import { OrganizationMemberEntity } from '../../src/database/entities/organization-member.entity.js';
import { OrganizationEntity } from '../../src/database/entities/organization.entity.js';
import { PeriodEntity } from '../../src/database/entities/period.entity.js';
import { TaskEntity } from '../../src/database/entities/task.entity.js';
import { pruneBatch } from '../../src/database/queries/audit.js';
import { TenantDb } from '../../src/database/tenant-db.js';
import { SummaryBuilder } from '../../src/modules/dashboards/summary-builder.js';
import { AssessmentRatingEntity } from '../../src/database/entities/assessment-rating.entity.js';
import { DialogEntity } from '../../src/database/entities/dialog.entity.js';
import { MetricValueEntity } from '../../src/database/entities/metric-value.entity.js';
import { MetricEntity } from '../../src/database/entities/metric.entity.js';
import { ProjectEntity } from '../../src/database/entities/project.entity.js';
import { DashboardData } from '../factories/dashboards.js';
import { createPeriod, createUnit, DAY } from '../factories/goals.js';
import { createPerson, createSite, TestPerson, TestSite } from '../factories/index.js';
import { deleteIndividual } from '../factories/performance.js';
import { bearer, DB_KIND, startApp, statementsOf, TestApp } from './harness.js';
import { setTimeout as sleep } from 'node:timers/promises';

/** Hooks that create people (scrypt hashing, a login each) on a shared, busy machine. */
const SLOW = 120_000;
type Row = Record<string, unknown>;
type Kind = 'individuals' | 'departments' | 'organizations';

/**
 * The dashboard summaries (docs/dashboards.md, "Summaries"): every write goes through the data
 * layer's journaled path (the trail the builder reads), and every answer taken from the summaries
 * is compared, figure by figure, with the explain view, which computes from the records.
 *
 * Site: Root (organization) ← D1, D2 (departments). Ann (primary D1), Bob (primary D2), Cy
 * (primary D2), the administrator (primary Root).
 */
describe('dashboard summaries', () => {
  let t: TestApp;
  let site: TestSite;
  let other: TestSite;
  let period: PeriodEntity;
  let D1: OrganizationEntity;
  let D2: OrganizationEntity;
  let ann: TestPerson;
  let bob: TestPerson;
  let cy: TestPerson;

  /** Whose dashboards the helpers read: the site's administrator and period (another site's in one case). */
  let on: { token: () => string; periodId: () => number } = { token: () => site.admin.token, periodId: () => period.id };
  const get = (path: string, accept = 'application/json') => t.http().get(`/v4/${path}`).set('Authorization', bearer(on.token())).set('Accept', accept);
  const write = <T extends TenantEntity & ObjectLiteral>(siteId: string, entity: EntityTarget<T>) =>
    t.app.get(TenantDb).repo(RequestContext.system(siteId), entity);
  const goal = (siteId: string, individualId: string, periodId: number, completed = false) =>
    write(siteId, GoalEntity).insert({ individualId, periodId, name: 'Goal', completed } as DeepPartial<GoalEntity>);

  /** The dashboard with its two headers. */
  async function dashboard(kind: Kind, id: string): Promise<{ body: Row; source: string; asOf: Date }> {
    const res = await get(`${kind}/${id}/dashboards?period=${on.periodId()}`).expect(200);
    expect(res.headers['dashboard-source']).toMatch(/^(summaries|records)$/);
    expect(res.headers['dashboard-as-of']).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    return { body: res.body as Row, source: res.headers['dashboard-source'] as string, asOf: new Date(res.headers['dashboard-as-of'] as string) };
  }

  /** Every figure of the explain view (computed from the records), by name. */
  async function explained(kind: Kind, id: string): Promise<Row> {
    const res = await get(`${kind}/${id}/dashboards/explain?period=${on.periodId()}`).expect(200);
    return Object.fromEntries((res.body.Figures as { Name: string; Value: unknown }[]).map((f) => [f.Name, f.Value]));
  }

  /**
   * Polls until the dashboard is answered from the summaries reflecting every write up to
   * `since` (its Dashboard-As-Of), then checks every figure against the explain view. Answers the
   * dashboard and how long it took.
   */
  async function fromSummaries(kind: Kind, id: string, since: Date, within = 10_000): Promise<{ body: Row; waited: number }> {
    const start = Date.now();
    for (;;) {
      const d = await dashboard(kind, id);
      if (d.source === 'summaries' && d.asOf.getTime() >= since.getTime()) {
        const figures = await explained(kind, id);
        for (const [name, value] of Object.entries(figures))
          expect({ row: `${kind}/${id}`, asOf: d.asOf, name, value: d.body[name] }).toEqual({ row: `${kind}/${id}`, asOf: d.asOf, name, value });
        return { body: d.body, waited: Date.now() - start };
      }
      if (Date.now() - start > within) throw new Error(`${kind}/${id}: still ${d.source} as of ${d.asOf.toISOString()} after ${within} ms`);
      await sleep(50);
    }
  }

  beforeAll(async () => {
    t = await startApp({ DASHBOARD_SUMMARIES: 'on', WEBHOOKS: 'off' });
    site = await createSite(t, { name: 'Summaries Co' });
    other = await createSite(t, { name: 'Elsewhere Co' });
    period = await createPeriod(t, site.siteId, { name: 'Now', start: new Date(Date.now() - 30 * DAY), end: new Date(Date.now() + 30 * DAY) });
    await createPeriod(t, other.siteId, { name: 'Now', start: new Date(Date.now() - 30 * DAY), end: new Date(Date.now() + 30 * DAY) });
    D1 = await createUnit(t, site.siteId, { name: 'D1', department: true, parentId: site.orgId });
    D2 = await createUnit(t, site.siteId, { name: 'D2', department: true, parentId: site.orgId });
    ann = await createPerson(t, { siteId: site.siteId, orgId: D1.id }, { firstName: 'Ann' });
    bob = await createPerson(t, { siteId: site.siteId, orgId: D2.id }, { firstName: 'Bob' });
    cy = await createPerson(t, { siteId: site.siteId, orgId: D2.id }, { firstName: 'Cy' });
    for (const p of [ann, bob, bob, cy]) await goal(site.siteId, p.individualId, period.id);
  }, SLOW);

  afterAll(async () => {
    await t?.close();
  });

  it('a committed write shows from the summaries, every figure equal to the records’, and no answer lags it by 1 s or more', async () => {
    const before = await fromSummaries('organizations', site.orgId, new Date());
    expect(before.body.PersonalGoalsTotal).toBe(4);
    await goal(site.siteId, ann.individualId, period.id, true);
    const written = new Date();
    // Right after the commit: whatever answers either reflects the write, or says it does not and lags it by less than 1 s.
    // (The service answers no earlier than the request is sent, so `sent` bounds the lag; the
    // instant the answer arrives would count the request's own time on a slow machine.)
    const sent = Date.now();
    const at = await dashboard('individuals', ann.individualId);
    if (at.asOf.getTime() >= written.getTime()) expect(at.body.PersonalGoalsTotal).toBe(2);
    else expect(sent - at.asOf.getTime()).toBeLessThan(1000);
    const person = await fromSummaries('individuals', ann.individualId, written);
    expect(person.body).toMatchObject({ PersonalGoalsTotal: 2, PersonalGoalsCompleted: 1 });
    expect((await fromSummaries('departments', D1.id, written)).body).toMatchObject({ PersonalGoalsTotal: 2, PersonalGoalsCompleted: 1 });
    expect((await fromSummaries('organizations', site.orgId, written)).body).toMatchObject({ PersonalGoalsTotal: 5, PersonalGoalsCompleted: 1 });
    // Untouched rows keep their figures.
    expect((await fromSummaries('departments', D2.id, written)).body).toMatchObject({ PersonalGoalsTotal: 3 });
  });

  it('an individual dashboard from the summaries reads its individual once, the site’s sequence and one summary row', async () => {
    await fromSummaries('individuals', bob.individualId, new Date());
    const { result, statements } = await statementsOf(t, () => dashboard('individuals', bob.individualId));
    expect(result.source).toBe('summaries');
    expect(result.body).toMatchObject({ PersonalGoalsTotal: 2 });
    // The individual (for the 404, the 403 and the answer's name) is read once, not checked and read again.
    expect(statements.filter((s) => /FROM [`"]?individuals[`"]? i\b/.test(s))).toHaveLength(1);
    expect(statements.filter((s) => /FROM dashboard_summaries/.test(s))).toHaveLength(1);
    // MariaDB keeps the site's periods, settings and colors while the site's sequence stands; SQLite reads them each time.
    expect(statements).toHaveLength(DB_KIND === 'mysql' ? 3 : 6);
    // Another site's individual is a 404 from the same single read.
    await get(`individuals/${other.admin.individualId}/dashboards?period=${period.id}`).expect(404);
  });

  it('every source at every level, written and changed, shows the records’ figures in every row', async () => {
    const data = new DashboardData(t, site.siteId, true);
    const [a, b, P, admin] = [ann.individualId, bob.individualId, period.id, site.admin.individualId];
    await data.commitment('individual', a, P, true);
    await data.commitment('department', D1.id, P, false);
    await data.commitment('organization', site.orgId, P, true);
    const heldHere = await data.dialog('individual', b, a, P, { held: true });
    await data.dialog('department', D2.id, a, P);
    await data.dialog('organization', site.orgId, admin, P, { held: true });
    const project = await data.project(b, { organizationId: D1.id, start: new Date(Date.now() - 5 * DAY), due: new Date(Date.now() + 20 * DAY) });
    await data.dialog('project', project.id, b, P, { held: true });
    await data.dueDateChange(project.id, new Date());
    await data.metric('project', project.id, { target: 100, is8020: true, values: [[P, 95]] });
    const metric = await data.metric('individual', a, { target: 50, values: [[P, 60]] });
    await data.metric('individual', b, { target: 10, higherIsBetter: false, is8020: true, values: [[P, 12]] });
    const [leaderRating] = await data.assessment('leader', b, a, P, [
      ['evaluationcriteria', 4],
      ['corevalue', 3],
      ['general', 5],
    ]);
    await data.assessment('team', a, b, P, [['corevalue', 2]]);
    await data.assessment('self', b, b, P, [['general', 5]]);
    const role = await data.basicRole(b);
    await data.roleRating(role.id, heldHere.id, 4);
    await data.task('department', D1.id, a, new Date(), { completed: new Date() });
    await data.task('project', project.id, b, new Date(), { due: new Date(Date.now() - DAY) });
    let written = new Date();
    const every = async (since: Date) => {
      for (const [kind, id] of [
        ['individuals', a],
        ['individuals', b],
        ['departments', D1.id],
        ['departments', D2.id],
        ['organizations', site.orgId],
      ] as const)
        await fromSummaries(kind, id, since);
    };
    await every(written);
    // Changes of what is counted: a value, a rating, a held dialog undone, a metric's target, a dialog deleted.
    const db = t.app.get(TenantDb);
    const ctx = RequestContext.system(site.siteId);
    const [value] = await db.repo(ctx, MetricValueEntity).find({ where: { metricId: metric.id } });
    await db.repo(ctx, MetricValueEntity).update(value.id, { actual: 20 });
    await db.repo(ctx, AssessmentRatingEntity).update(leaderRating.id, { rating: 1 });
    await db.repo(ctx, DialogEntity).update(heldHere.id, { occurredDate: null });
    await db.repo(ctx, MetricEntity).update(metric.id, { target: 10 });
    await db.repo(ctx, ProjectEntity).update(project.id, { organizationId: D2.id });
    written = new Date();
    await every(written);
    await db.repo(ctx, DialogEntity).update(heldHere.id, { deleted: true });
    written = new Date();
    await every(written);
    expect((await fromSummaries('individuals', b, written)).body.IndividualBasicRolePercent).toBeNull();
  });

  it('the headers come with XML answers and with GET /dashboards', async () => {
    const xml = await get(`departments/${D1.id}/dashboards?period=${period.id}`, 'application/xml').expect(200);
    expect(xml.headers['dashboard-source']).toMatch(/^(summaries|records)$/);
    expect(xml.text).toContain('<PersonalGoalsTotal>');
    const list = await get(`dashboards?period=${period.id}`).expect(200);
    expect(list.headers['dashboard-source']).toMatch(/^(summaries|records)$/);
    expect(Number.isNaN(Date.parse(list.headers['dashboard-as-of'] as string))).toBe(false);
  });

  it('a deleted individual leaves the rollups of their units and the organization, not the others', async () => {
    await deleteIndividual(t, site.siteId, cy.individualId);
    const written = new Date();
    expect((await fromSummaries('departments', D2.id, written)).body.PersonalGoalsTotal).toBe(2);
    expect((await fromSummaries('organizations', site.orgId, written)).body.PersonalGoalsTotal).toBe(4);
    expect((await fromSummaries('departments', D1.id, written)).body.PersonalGoalsTotal).toBe(2);
  });

  it('a member moved from one department to another moves their records between the two rollups', async () => {
    const members = write(site.siteId, OrganizationMemberEntity);
    const [membership] = await members.find({ where: { individualId: bob.individualId, organizationId: D2.id } });
    await members.update(membership.id, { organizationId: D1.id });
    const written = new Date();
    expect((await fromSummaries('departments', D1.id, written)).body.PersonalGoalsTotal).toBe(4);
    expect((await fromSummaries('departments', D2.id, written)).body.PersonalGoalsTotal).toBe(0);
    expect((await fromSummaries('organizations', site.orgId, written)).body.PersonalGoalsTotal).toBe(4);
  });

  it('a unit moved under another parent leaves the old parent’s rollup and joins the new one’s', async () => {
    const O2 = await createUnit(t, site.siteId, { name: 'O2', parentId: null });
    await write(site.siteId, OrganizationEntity).update(D1.id, { parentId: O2.id });
    const written = new Date();
    expect((await fromSummaries('organizations', O2.id, written)).body.PersonalGoalsTotal).toBe(4);
    expect((await fromSummaries('organizations', site.orgId, written)).body.PersonalGoalsTotal).toBe(0);
    // Ann's organization level is now O2's (the nearest organization above her primary unit).
    await write(site.siteId, TaskEntity).insert({
      kind: 'organization',
      ancestorId: O2.id,
      assignedToId: ann.individualId,
      name: 'Org follow-up',
      completed: true,
      completedDate: new Date(),
    } as DeepPartial<TaskEntity>);
    const again = new Date();
    expect((await fromSummaries('individuals', ann.individualId, again)).body).toMatchObject({ OrgFollowUpsCreated: 1, OrgFollowUpsCompleted: 1 });
    expect((await fromSummaries('organizations', O2.id, again)).body).toMatchObject({ OrgFollowUpsCreated: 1 });
    await write(site.siteId, OrganizationEntity).update(D1.id, { parentId: site.orgId });
  });

  it('a follow-up that becomes overdue by time alone changes the rate, from the moment it is due', async () => {
    const tasks = write(site.siteId, TaskEntity);
    const task = (due: Date | null, completed: boolean) =>
      tasks.insert({
        kind: 'individual',
        ancestorId: bob.individualId,
        assignedToId: bob.individualId,
        name: 'Follow up',
        dueDate: due,
        completed,
        completedDate: completed ? new Date() : null,
      } as DeepPartial<TaskEntity>);
    await task(null, true);
    const due = new Date(Date.now() + 2500);
    await task(due, false);
    const written = new Date();
    // Open and not yet due: left out, so 1 of 1.
    expect((await fromSummaries('individuals', bob.individualId, written)).body.FollowUpsCompletedPercent).toBe(100);
    await sleep(Math.max(0, due.getTime() - Date.now()) + 20);
    // Due now: every answer counts it overdue, from the summaries or the records.
    expect((await dashboard('individuals', bob.individualId)).body.FollowUpsCompletedPercent).toBe(50);
    const later = await fromSummaries('individuals', bob.individualId, due);
    expect(later.body).toMatchObject({ FollowUpsCompletedPercent: 50, IndFollowUpsCreated: 2, IndFollowUpsCompleted: 1 });
  });

  it('another site’s writes never show', async () => {
    const stranger = await createPerson(t, other, { firstName: 'Stranger' });
    const before = await fromSummaries('organizations', site.orgId, new Date());
    const [otherPeriod] = await t.ds.query('SELECT id FROM periods WHERE site_id = ?', [other.siteId]);
    for (let i = 0; i < 3; i++) await goal(other.siteId, stranger.individualId, Number((otherPeriod as { id: number }).id));
    const written = new Date();
    const after = await fromSummaries('organizations', site.orgId, written);
    expect(after.body.PersonalGoalsTotal).toBe(before.body.PersonalGoalsTotal);
    // Site B's own dashboard shows its writes once it says it reflects them (it may lag them by less than 1 s).
    const theirs = () => t.http().get(`/v4/organizations/${other.orgId}/dashboards`).set('Authorization', bearer(other.admin.token)).expect(200);
    let res = await theirs();
    for (let waited = 0; new Date(res.headers['dashboard-as-of'] as string).getTime() < written.getTime(); waited += 50) {
      expect(waited).toBeLessThan(1000);
      await sleep(50);
      res = await theirs();
    }
    expect(res.body.PersonalGoalsTotal).toBe(3);
    // Site A's id is another site's row to site B: 404, whatever is stored.
    await t.http().get(`/v4/organizations/${site.orgId}/dashboards`).set('Authorization', bearer(other.admin.token)).expect(404);
    const stored: { site_id: string; row_id: string }[] = await t.ds.query('SELECT site_id, row_id FROM dashboard_summaries WHERE row_id = ?', [
      stranger.individualId,
    ]);
    expect(stored.map((s) => s.site_id)).toEqual(stored.map(() => other.siteId));
  });

  it('people created with their records and memberships in one commit: their own rows, and every unit’s, equal the records — and no unit is computed again for a new person alone', async () => {
    // A site of its own, with nothing that falls due: the only builds are those of these writes.
    const feed = await createSite(t, { name: 'Feed Co' });
    const feedPeriod = await createPeriod(t, feed.siteId, { name: 'Now', start: new Date(Date.now() - 30 * DAY), end: new Date(Date.now() + 30 * DAY) });
    const F1 = await createUnit(t, feed.siteId, { name: 'F1', department: true, parentId: feed.orgId });
    const F2 = await createUnit(t, feed.siteId, { name: 'F2', department: true, parentId: feed.orgId });
    const main = on;
    on = { token: () => feed.admin.token, periodId: () => feedPeriod.id };
    try {
      const db = t.app.get(TenantDb);
      const ctx = RequestContext.system(feed.siteId);
      /**
       * Waits until the builder has built the site up to its change sequence, through its state row,
       * not a dashboard (a dashboard not built yet is computed from the records).
       */
      const builtUpToNow = async () => {
        const seqOf = async (q: string) => Number(((await t.ds.query(q, [feed.siteId])) as { n: number | string | null }[])[0]?.n ?? -1);
        const upTo = await seqOf('SELECT seq AS n FROM change_seqs WHERE site_id = ?');
        for (let tries = 0; (await seqOf('SELECT built_seq AS n FROM dashboard_summary_state WHERE site_id = ?')) < upTo; tries++) {
          if (tries > 200) throw new Error(`the summaries of site ${feed.siteId} are not built up to ${upTo}`);
          await sleep(50);
        }
      };
      // F1's own records and the organization's count in the row of every person whose primary unit is F1.
      const data = new DashboardData(t, feed.siteId, true);
      await data.commitment('department', F1.id, feedPeriod.id, false);
      await data.commitment('organization', feed.orgId, feedPeriod.id, true);
      /** A new person of the site whose primary unit is `unit` (in the caller's transaction). */
      const newPerson = (firstName: string, unit: string) =>
        db.repo(ctx, IndividualEntity).insert({ firstName, lastName: 'New', primaryOrganizationId: unit, primaryTitle: 'T' } as DeepPartial<IndividualEntity>);
      // The site's first build (its units are new) is whole: the writes below are built on their own.
      await builtUpToNow();
      // One transaction, so the builder reads all of it as one build: the creates, a new person's
      // goals and a second membership (F2), a new person with no record and a membership of F1.
      const [pat, quinn] = await db.transaction(ctx, async () => {
        const members = db.repo(ctx, OrganizationMemberEntity);
        const pat = await newPerson('Pat', F1.id);
        const quinn = await newPerson('Quinn', F1.id);
        await members.insert({ individualId: pat.id, organizationId: F1.id, title: 'T' });
        await members.insert({ individualId: quinn.id, organizationId: F1.id, title: 'T' });
        const goals = db.repo(ctx, GoalEntity);
        for (const completed of [false, true])
          await goals.insert({ individualId: pat.id, periodId: feedPeriod.id, name: 'Goal', completed } as DeepPartial<GoalEntity>);
        await members.insert({ individualId: pat.id, organizationId: F2.id, title: 'T' });
        return [pat.id, quinn.id];
      });
      const written = new Date();
      // Every row the commit reaches, each figure equal to the records' (the explain view).
      for (const [kind, id] of [
        ['individuals', pat],
        ['individuals', quinn],
        ['departments', F1.id],
        ['departments', F2.id],
        ['organizations', feed.orgId],
      ] as [Kind, string][])
        await fromSummaries(kind, id, written);
      expect((await fromSummaries('individuals', pat, written)).body.PersonalGoalsTotal).toBe(2);

      // New people with a membership and nothing else (rows of a bulk load): three of F1, one of
      // F2. Their rows are computed once per primary unit (they are alike), and no unit's scope
      // is walked again for them.
      const builder = t.app.get(SummaryBuilder);
      let added: string[] = [];
      const { statements, parameters } = await statementsOf(t, async () => {
        added = await db.transaction(ctx, async () => {
          const ids: string[] = [];
          for (const [name, unit] of [
            ['Ray', F1.id],
            ['Sam', F1.id],
            ['Tia', F1.id],
            ['Uma', F2.id],
          ]) {
            const p = await newPerson(name, unit);
            await db.repo(ctx, OrganizationMemberEntity).insert({ individualId: p.id, organizationId: unit, title: 'T' });
            ids.push(p.id);
          }
          return ids;
        });
        await builtUpToNow();
        await builder.idle();
      });
      // The aggregates computed for this site (another site's rows may be built meanwhile).
      const aggregates = statements.filter((q, i) => /WITH RECURSIVE/.test(q) && parameters[i].includes(feed.siteId));
      expect(aggregates.filter((q) => /WITH RECURSIVE scope/.test(q))).toEqual([]);
      // The people the individual aggregates computed (their `i.id IN (…)`): one of F1's three, and Uma.
      const computed = aggregates
        .filter((q) => /WITH RECURSIVE people/.test(q))
        .map((q) => /i\.id IN \(([?, ]*)\)/.exec(q)![1].split(',').length)
        .reduce((a, b) => a + b, 0);
      expect(computed).toBe(2);
      // Every new person's row equals the records'; F1's people count F1's commitment, Uma does not.
      // (Their figures: without the row's own ID and name.)
      const figures = ({ ID: _id, Name: _name, ...rest }: Row) => rest;
      const [ray, sam, tia, uma] = await Promise.all(added.map(async (id) => figures((await fromSummaries('individuals', id, written)).body)));
      expect(sam).toEqual(ray);
      expect(tia).toEqual(ray);
      expect(uma).not.toEqual(ray);
      await fromSummaries('departments', F1.id, written);
    } finally {
      on = main;
    }
  });

  it('a site without periods: the builder follows its writes without reading its trail and stores nothing; its first period builds it whole, and its last period deleted drops its summaries', async () => {
    const bare = await createSite(t, { name: 'No Periods Co' });
    const builder = t.app.get(SummaryBuilder);
    const seqOf = async (q: string) => Number(((await t.ds.query(q, [bare.siteId])) as { n: number | string | null }[])[0]?.n ?? -1);
    const builtUpToNow = async () => {
      const upTo = await seqOf('SELECT seq AS n FROM change_seqs WHERE site_id = ?');
      for (let tries = 0; (await seqOf('SELECT built_seq AS n FROM dashboard_summary_state WHERE site_id = ?')) < upTo; tries++) {
        if (tries > 200) throw new Error(`the summaries of site ${bare.siteId} are not built up to ${upTo}`);
        await sleep(50);
      }
    };
    const stored = () => seqOf('SELECT COUNT(*) AS n FROM dashboard_summaries WHERE site_id = ?');
    // Built once as it is (a new site is built whole, which reads no trail); then its writes.
    await builtUpToNow();
    await builder.idle();
    let unit: OrganizationEntity | undefined;
    let nia: TestPerson | undefined;
    const { statements, parameters } = await statementsOf(t, async () => {
      unit = await createUnit(t, bare.siteId, { name: 'D', department: true, parentId: bare.orgId });
      nia = await createPerson(t, { siteId: bare.siteId, orgId: unit.id }, { firstName: 'Nia' });
      await builtUpToNow();
      await builder.idle();
    });
    // Nothing read this site's trail (the builder is its only reader here) and nothing was stored.
    expect(statements.filter((q, i) => parameters[i].includes(bare.siteId) && /FROM audit_log\b/.test(q))).toEqual([]);
    expect(await stored()).toBe(0);

    // Its first period: the whole site is built, every figure equal to the records'.
    const first = await createPeriod(t, bare.siteId, { name: 'Now', start: new Date(Date.now() - 30 * DAY), end: new Date(Date.now() + 30 * DAY) });
    const main = on;
    on = { token: () => bare.admin.token, periodId: () => first.id };
    try {
      const written = new Date();
      expect((await fromSummaries('organizations', bare.orgId, written)).body).toMatchObject({ PersonalGoalsTotal: 0 });
      await fromSummaries('departments', unit!.id, written);
      await fromSummaries('individuals', nia!.individualId, written);
      // One row for the organization, the department, Nia and the administrator.
      expect(await stored()).toBe(4);
    } finally {
      on = main;
    }
    // Its last period deleted: the summaries it held go.
    await write(bare.siteId, PeriodEntity).remove(first.id);
    await builtUpToNow();
    await builder.idle();
    expect(await stored()).toBe(0);
  });

  it('answers from the records when the builder is stopped, still reflecting every committed write', async () => {
    await t.app.get(SummaryBuilder).onApplicationShutdown();
    await goal(site.siteId, ann.individualId, period.id);
    const written = new Date();
    await sleep(1100);
    const d = await dashboard('individuals', ann.individualId);
    expect(d.source).toBe('records');
    expect(d.asOf.getTime()).toBeGreaterThanOrEqual(written.getTime());
    expect(d.body.PersonalGoalsTotal).toBe(3);
    expect(d.body).toMatchObject(await explained('individuals', ann.individualId));
  });

  it('the retention sweep keeps the trail the summaries have not read yet', async () => {
    // The builder is stopped (above): the goal written there is past the site's cursor.
    const [{ built_seq: built }] = await t.ds.query('SELECT built_seq FROM dashboard_summary_state WHERE site_id = ?', [site.siteId]);
    const [{ n: unread }] = await t.ds.query('SELECT COUNT(*) AS n FROM audit_log WHERE site_id = ? AND seq > ?', [site.siteId, built]);
    expect(Number(unread)).toBeGreaterThan(0);
    const ctx = RequestContext.system(site.siteId);
    // Everything recorded before a minute from now is old enough to go.
    while ((await pruneBatch(t.app.get(TenantDb), ctx, new Date(Date.now() + 60_000), 1000)) > 0);
    const left: { seq: number }[] = await t.ds.query('SELECT seq FROM audit_log WHERE site_id = ? ORDER BY seq', [site.siteId]);
    expect(left.length).toBe(Number(unread));
    expect(Number(left[0].seq)).toBe(Number(built) + 1);
  });
});
