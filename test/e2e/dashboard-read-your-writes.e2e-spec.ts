import { parseStringPromise } from 'xml2js';
import type { PeriodEntity } from '../../src/database/entities/period.entity.js';
import type { OrganizationEntity } from '../../src/database/entities/organization.entity.js';
import { example } from '../../src/testing/cases.js';
import { SummaryBuilder } from '../../src/modules/dashboards/summary-builder.js';
import { createPeriod, createUnit, DAY } from '../factories/goals.js';
import { createPerson, createSite, type TestPerson, type TestSite } from '../factories/index.js';
import { bearer, startApp, type TestApp } from './harness.js';
import { setTimeout as sleep } from 'node:timers/promises';

type Row = Record<string, unknown>;

/**
 * A writer reads their own writes (docs/dashboards.md, "How fresh"): a dashboard asked by the
 * caller who made a committed change the summaries do not reflect yet is computed from the
 * records, so it shows that change — in JSON and in XML alike — while another caller may still be
 * answered from the summaries as they stood, by at most 1 s (Dashboard-As-Of says so).
 *
 * The summary builder is stopped once the summaries are built, so they stay behind every write
 * that follows for as long as the test needs.
 */
describe('dashboards: a writer reads their own writes', () => {
  let t: TestApp;
  let site: TestSite;
  let period: PeriodEntity;
  let unit: OrganizationEntity;
  let ann: TestPerson;
  let integration: string;

  const read = (token: string, path: string, accept = 'application/json') =>
    t.http().get(`/v4/${path}`).set('Authorization', bearer(token)).set('Accept', accept).expect(200);
  const addGoal = (token: string, individualId: string) =>
    t
      .http()
      .post('/v4/goals')
      .set('Authorization', bearer(token))
      .send(example('CreateGoalDto', { INDIVIDUAL_ID: individualId, PERIOD_ID: period.id }))
      .expect(200);
  const headers = (res: { headers: Record<string, string> }) => ({ source: res.headers['dashboard-source'], asOf: new Date(res.headers['dashboard-as-of']) });

  /** The individual's goal count as the records have it (the explain view computes from them). */
  async function recordsTotal(token: string): Promise<number> {
    const res = await read(token, `individuals/${ann.individualId}/dashboards/explain?period=${period.id}`);
    return (res.body.Figures as { Name: string; Value: number }[]).find((f) => f.Name === 'PersonalGoalsTotal')!.Value;
  }

  /** Waits until the summaries answer a caller with no change of their own pending, caught up to now. */
  async function caughtUp(token: string, path: string): Promise<Row> {
    const since = Date.now();
    for (;;) {
      const res = await read(token, path);
      const h = headers(res);
      if (h.source === 'summaries' && h.asOf.getTime() >= since) return res.body as Row;
      if (Date.now() - since > 15_000) throw new Error(`${path}: still ${h.source} as of ${h.asOf.toISOString()}`);
      await sleep(50);
    }
  }

  beforeAll(async () => {
    t = await startApp({ DASHBOARD_SUMMARIES: 'on', WEBHOOKS: 'off' });
    site = await createSite(t, { name: 'Own Writes Co' });
    period = await createPeriod(t, site.siteId, { name: 'Now', start: new Date(Date.now() - 30 * DAY), end: new Date(Date.now() + 30 * DAY) });
    unit = await createUnit(t, site.siteId, { name: 'Unit', department: true, parentId: site.orgId });
    ann = await createPerson(t, { siteId: site.siteId, orgId: unit.id }, { firstName: 'Ann' });
    integration = (await t.http().post('/v4/apitokens').set('Authorization', bearer(site.admin.token)).send({ Name: 'feed', Scopes: '*:write' }).expect(200))
      .body.Secret as string;
    await addGoal(site.admin.token, ann.individualId);
    // Built and caught up, for every caller; then the builder stops and the summaries stay as they are.
    expect((await caughtUp(ann.token, `individuals/${ann.individualId}/dashboards?period=${period.id}`)).PersonalGoalsTotal).toBe(1);
    await t.app.get(SummaryBuilder).onApplicationShutdown();
  }, 120_000);

  afterAll(() => t?.close());

  it.each([
    ['a site administrator', () => site.admin.token],
    ['an integration token', () => integration],
  ])('%s sees their own new goal on every dashboard that counts it, at once, in JSON and XML', async (_who, tokenOf) => {
    const token = tokenOf();
    const before = await recordsTotal(token);
    await addGoal(token, ann.individualId);
    const answered = Date.now();

    for (const path of [`individuals/${ann.individualId}`, `departments/${unit.id}`, `organizations/${site.orgId}`]) {
      const json = await read(token, `${path}/dashboards?period=${period.id}`);
      expect({ path, total: json.body.PersonalGoalsTotal }).toEqual({ path, total: before + 1 });
      const h = headers(json);
      expect(h.source).toBe('records');
      expect(h.asOf.getTime()).toBeGreaterThanOrEqual(answered);
      // The XML answer one request later has the very same figures.
      const xml = await read(token, `${path}/dashboards?period=${period.id}`, 'application/xml');
      const parsed = (await parseStringPromise(xml.text, { explicitArray: false })) as { Dashboard: Row };
      expect({ path, total: Number(parsed.Dashboard.PersonalGoalsTotal) }).toEqual({ path, total: before + 1 });
    }
    // The list of dashboards too: Ann's department's counts her new goal.
    const list = await read(token, `dashboards?period=${period.id}`);
    const department = (list.body as Row[]).find((d) => d.ID === unit.id);
    expect(department?.PersonalGoalsTotal).toBe(before + 1);
    expect(list.headers['dashboard-source']).toBe('records');
  });

  it('another caller is answered as the headers say: from the summaries as they stood (less than 1 s behind), or from the records', async () => {
    const before = await recordsTotal(site.admin.token);
    await addGoal(site.admin.token, ann.individualId);
    const answered = Date.now();
    const res = await read(ann.token, `individuals/${ann.individualId}/dashboards?period=${period.id}`);
    const h = headers(res);
    if (h.source === 'summaries') {
      // Ann wrote nothing: her answer may lag the administrator's write, and says by how much: less
      // than 1 s before the instant the service answered, which is no earlier than the request was
      // sent (after \`answered\`). Measured from when the answer arrived, a slow machine would count
      // the request's own time as lag.
      expect(h.asOf.getTime()).toBeLessThan(answered);
      expect(answered - h.asOf.getTime()).toBeLessThan(1000);
      expect(res.body.PersonalGoalsTotal).toBeLessThan(before + 1);
    } else {
      expect(h.asOf.getTime()).toBeGreaterThanOrEqual(answered);
      expect(res.body.PersonalGoalsTotal).toBe(before + 1);
    }
    // The writer, asking the same, always sees it.
    expect((await read(site.admin.token, `individuals/${ann.individualId}/dashboards?period=${period.id}`)).body.PersonalGoalsTotal).toBe(before + 1);
  });

  it('a caller whose own writes are all reflected is answered from the summaries', async () => {
    // Ann has written nothing; once everything waiting is more than 1 s old the summaries no longer
    // answer anyone (the builder is stopped), so this is checked on a site of its own with its builder running.
    const fresh = await startApp({ DASHBOARD_SUMMARIES: 'on', WEBHOOKS: 'off' });
    try {
      const s = await createSite(fresh, { name: 'Caught Up Co' });
      const p = await createPeriod(fresh, s.siteId, { name: 'Now', start: new Date(Date.now() - 30 * DAY), end: new Date(Date.now() + 30 * DAY) });
      await fresh
        .http()
        .post('/v4/goals')
        .set('Authorization', bearer(s.admin.token))
        .send(example('CreateGoalDto', { INDIVIDUAL_ID: s.admin.individualId, PERIOD_ID: p.id }))
        .expect(200);
      const since = Date.now();
      for (;;) {
        const res = await fresh
          .http()
          .get(`/v4/individuals/${s.admin.individualId}/dashboards?period=${p.id}`)
          .set('Authorization', bearer(s.admin.token))
          .expect(200);
        if (res.headers['dashboard-source'] === 'summaries') {
          expect(res.body.PersonalGoalsTotal).toBe(1);
          break;
        }
        if (Date.now() - since > 15_000) throw new Error('the writer was never answered from the summaries once they caught up');
        await sleep(50);
      }
    } finally {
      await fresh.close();
    }
  });
});
