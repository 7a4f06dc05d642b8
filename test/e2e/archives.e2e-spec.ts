import { randomUUID } from 'node:crypto';
import { ArchiveEntity } from '../../src/database/entities/archive.entity.js';
import { MetricValueEntity } from '../../src/database/entities/metric-value.entity.js';
import { PeriodEntity } from '../../src/database/entities/period.entity.js';
import { createPeriod, createUnit, DAY } from '../factories/goals.js';
import { createSite, TestSite } from '../factories/index.js';
import { archiveRows, createMetric, MetricJson, putValue } from '../factories/metrics.js';
import { createProject, createTeamSite, TeamSite } from '../factories/performance.js';
import { bearer, startApp, TestApp, WireCodec } from './harness.js';

const codec = new WireCodec('urn:pms:v4');
const UTC_DATE = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}\+00:00$/;
const SLOW = 60_000;

/** The Archive members in declaration (JSON) order. */
const JSON_ORDER = ['ID', 'AncestorID', 'AncestorType', 'ItemID', 'PeriodID', 'Name', 'Snapshot', 'SiteID', 'Created', 'CreatedBy', 'Updated', 'UpdatedBy'];

interface ArchiveJson {
  ID: string;
  AncestorID: string;
  AncestorType: string;
  ItemID: string;
  PeriodID: number;
  Name: string;
  Snapshot: string;
}

describe('/v4 archives and closing a period', () => {
  let t: TestApp;
  let team: TeamSite;
  let globex: TestSite;
  let fy2025: PeriodEntity;
  let fy2026: PeriodEntity;
  let projectId: string;
  let alpha: MetricJson;
  let beta: MetricJson;
  let gamma: MetricJson;
  let delta: MetricJson;
  let bossKpi: MetricJson;
  /** Archives of FY 2025 by metric name, once it is closed. */
  const archived: Record<string, ArchiveJson> = {};

  const http = () => t.http();
  const as = (p: { token: string }) => bearer(p.token);
  const close = (periodId: number, etag?: string) => {
    const req = http().put(`/v4/periods/${periodId}/close`).set('Authorization', as(team.admin));
    if (etag) req.set('If-Match', etag);
    return req;
  };
  const newPeriod = (name: string, offsetDays: number) =>
    createPeriod(t, team.siteId, {
      name,
      start: new Date(Date.UTC(2030, 0, 1) + offsetDays * DAY),
      end: new Date(Date.UTC(2030, 0, 1) + (offsetDays + 30) * DAY),
    });

  beforeAll(async () => {
    t = await startApp();
    team = await createTeamSite(t, { name: 'Archive Co' });
    globex = await createSite(t, { name: 'Globex' });
    const start = Date.UTC(2026, 0, 1);
    fy2025 = await createPeriod(t, team.siteId, { name: 'FY 2025', start: new Date(start - 365 * DAY), end: new Date(start - DAY) });
    fy2026 = await createPeriod(t, team.siteId, { name: 'FY 2026', start: new Date(start), end: new Date(start + 364 * DAY) });
    projectId = (await createProject(t, team.admin.token, { OwnerID: team.worker.individualId, Name: 'Apollo' })).ID;
    const w = team.worker.token;
    alpha = await createMetric(t, w, { Kind: 'individual', AncestorID: team.worker.individualId, Name: 'Alpha', Target: 12.5 });
    await putValue(t, w, alpha.ID, fy2025.id, 10);
    await putValue(t, w, alpha.ID, fy2026.id, 20.75);
    beta = await createMetric(t, w, { Kind: 'project', AncestorID: projectId, Name: 'Beta', HigherIsBetter: false });
    await putValue(t, w, beta.ID, fy2025.id, 3.5);
    gamma = await createMetric(t, w, { Kind: 'individual', AncestorID: team.worker.individualId, Name: 'Gamma' });
    await putValue(t, w, gamma.ID, fy2026.id, 1);
    delta = await createMetric(t, w, { Kind: 'individual', AncestorID: team.worker.individualId, Name: 'Delta' });
    await putValue(t, w, delta.ID, fy2025.id, 4);
    await http().delete(`/v4/metrics/${delta.ID}`).set('Authorization', as(team.worker)).expect(200);
    bossKpi = await createMetric(t, team.boss.token, { Kind: 'individual', AncestorID: team.boss.individualId, Name: 'Boss KPI' });
    await putValue(t, team.boss.token, bossKpi.ID, fy2025.id, 99);
  }, SLOW);
  afterAll(async () => {
    await t.close();
  }, SLOW);

  describe('PUT /v4/periods/{id}/close', () => {
    it('archives each live metric with a value in the period, its Snapshot the Metric as the API answered it', async () => {
      const alphaBefore = (await http().get(`/v4/metrics/${alpha.ID}`).set('Authorization', as(team.worker)).expect(200)).body;
      const res = await close(fy2025.id).expect(200);
      expect(res.body).toMatchObject({ ID: fy2025.id, Closed: true });

      const rows = await archiveRows(t, fy2025.id);
      expect(rows.map((r) => [r.name, r.itemType, r.itemId, r.ancestorType, r.ancestorId])).toEqual([
        ['Alpha', 'metric', alpha.ID, 'individual', team.worker.individualId],
        ['Beta', 'metric', beta.ID, 'project', projectId],
        ['Boss KPI', 'metric', bossKpi.ID, 'individual', team.boss.individualId],
      ]);
      for (const r of rows) {
        archived[r.name] = (await http().get(`/v4/archives/${r.id}`).set('Authorization', as(team.admin)).expect(200)).body;
      }
      const a = archived.Alpha;
      expect(Object.keys(a)).toEqual(JSON_ORDER);
      expect(a).toEqual({
        ID: rows[0].id,
        AncestorID: team.worker.individualId,
        AncestorType: 'individual',
        ItemID: alpha.ID,
        PeriodID: fy2025.id,
        Name: 'Alpha',
        Snapshot: expect.any(String),
        SiteID: team.siteId,
        Created: expect.stringMatching(UTC_DATE),
        CreatedBy: team.admin.individualId,
        Updated: expect.stringMatching(UTC_DATE),
        UpdatedBy: team.admin.individualId,
      });
      expect(JSON.parse(a.Snapshot)).toEqual(alphaBefore);
      expect(JSON.parse(a.Snapshot).Values).toEqual([
        { PeriodID: fy2025.id, Actual: 10 },
        { PeriodID: fy2026.id, Actual: 20.75 },
      ]);
      expect(JSON.parse(archived.Beta.Snapshot)).toMatchObject({ ID: beta.ID, HigherIsBetter: false, Values: [{ PeriodID: fy2025.id, Actual: 3.5 }] });
    });

    it('is idempotent: closing again answers the period and writes nothing new', async () => {
      const before = await archiveRows(t, fy2025.id);
      const again = await close(fy2025.id).expect(200);
      expect(again.body).toMatchObject({ ID: fy2025.id, Closed: true });
      expect(await archiveRows(t, fy2025.id)).toEqual(before);
    });

    it('freezes the closed period’s values (409 closed), while other periods stay writable', async () => {
      const res = await http().put(`/v4/metrics/${alpha.ID}/values/${fy2025.id}`).set('Authorization', as(team.worker)).send({ Actual: 11 }).expect(409);
      expect(res.body.type).toBe('urn:pms:problem:closed');
      await putValue(t, team.worker.token, alpha.ID, fy2026.id, 21);
      expect(JSON.parse(archived.Alpha.Snapshot).Values[1].Actual).toBe(20.75);
    });

    it('writes nothing and leaves the period open when the close is refused (stale If-Match: 412)', async () => {
      const p = await newPeriod('Stale', 0);
      await putValue(t, team.worker.token, gamma.ID, p.id, 5);
      const read = await http().get(`/v4/periods/${p.id}`).set('Authorization', as(team.admin)).expect(200);
      await http()
        .put(`/v4/periods/${p.id}`)
        .set('Authorization', as(team.admin))
        .send({ ID: p.id, Name: 'Renamed', StartDate: p.startDate.toISOString(), EndDate: p.endDate.toISOString() })
        .expect(200);
      const stale = await close(p.id, read.headers.etag).expect(412);
      expect(stale.body.type).toBe('urn:pms:problem:precondition-failed');
      expect(await archiveRows(t, p.id)).toEqual([]);
      expect((await http().get(`/v4/periods/${p.id}`).set('Authorization', as(team.admin)).expect(200)).body.Closed).toBe(false);
      await close(p.id).expect(200);
      expect((await archiveRows(t, p.id)).map((r) => r.itemId)).toEqual([gamma.ID]);
    });

    it('closes a period without values and archives nothing; only administrators close', async () => {
      const p = await newPeriod('Empty', 40);
      expect((await http().put(`/v4/periods/${p.id}/close`).set('Authorization', as(team.manager)).expect(403)).body.type).toBe(
        'urn:pms:problem:admin-required',
      );
      await close(p.id).expect(200);
      expect(await archiveRows(t, p.id)).toEqual([]);
    });

    it('keeps a period with metric values from being deleted (409 in-use)', async () => {
      const p = await newPeriod('Used', 80);
      await putValue(t, team.worker.token, gamma.ID, p.id, 2);
      const res = await http().delete(`/v4/periods/${p.id}`).set('Authorization', as(team.admin)).expect(409);
      expect(res.body.type).toBe('urn:pms:problem:in-use');
      expect(res.body.detail).toContain('metric_values');
    });

    it(
      'archives every value that made it into the period when writes race the close',
      async () => {
        const p = await newPeriod('Raced', 120);
        const metrics: MetricJson[] = [];
        for (let i = 0; i < 8; i++)
          metrics.push(await createMetric(t, team.worker.token, { Kind: 'individual', AncestorID: team.worker.individualId, Name: `Race ${i}` }));
        await putValue(t, team.worker.token, metrics[0].ID, p.id, 1000);
        const writes = metrics.map((m, i) =>
          http()
            .put(`/v4/metrics/${m.ID}/values/${p.id}`)
            .set('Authorization', as(team.worker))
            .send({ Actual: i + 1 }),
        );
        const [closing, ...results] = await Promise.all([close(p.id), ...writes]);
        expect(closing.status).toBe(200);
        expect(results.every((r) => r.status === 200 || (r.status === 409 && r.body.type === 'urn:pms:problem:closed'))).toBe(true);
        const values = await t.ds.getRepository(MetricValueEntity).find({ where: { periodId: p.id } });
        const archives = await archiveRows(t, p.id);
        // Every value in the period is in exactly one archive, with the value it has now.
        expect(archives.map((a) => a.itemId).sort()).toEqual(values.map((v) => v.metricId).sort());
        for (const v of values) {
          const snap = JSON.parse(archives.find((a) => a.itemId === v.metricId)!.snapshot) as MetricJson;
          expect(snap.Values.find((x) => x.PeriodID === p.id)?.Actual).toBe(v.actual);
        }
      },
      SLOW,
    );
  });

  describe('reading archives', () => {
    it('lists an individual’s archives in JSON and XML (ArrayOfArchive), narrowed by period', async () => {
      const res = await http()
        .get(`/v4/individuals/${team.worker.individualId}/archives?period=${fy2025.id}`)
        .set('Authorization', as(team.manager))
        .expect(200);
      // The metric's archive and the worker's dashboard of FY 2025 (by Name within the period).
      expect(res.body).toEqual([archived.Alpha, expect.objectContaining({ ItemID: team.worker.individualId, AncestorType: 'individual', Name: 'Wil Worker' })]);
      expect(res.headers['x-total-count']).toBe('2');
      const all = await http().get(`/v4/individuals/${team.worker.individualId}/archives`).set('Authorization', as(team.worker)).expect(200);
      // Newest period first: the later test periods (higher ids) before FY 2025.
      expect(all.body.map((a: ArchiveJson) => a.PeriodID)).toEqual([...all.body.map((a: ArchiveJson) => a.PeriodID)].sort((x, y) => y - x));
      expect(all.body.map((a: ArchiveJson) => a.ID)).toContain(archived.Alpha.ID);
      const xml = await http()
        .get(`/v4/individuals/${team.worker.individualId}/archives?period=${fy2025.id}`)
        .set('Authorization', as(team.worker))
        .set('Accept', 'application/xml')
        .expect(200);
      expect(xml.text).toMatch(/^<\?xml[^>]+\?><ArrayOfArchive xmlns="urn:pms:v4"[^>]*><Archive><AncestorID>/);
      const first = xml.text.slice(0, xml.text.indexOf('</Archive>'));
      const order = [...first.matchAll(/<(\w+)[ />]/g)].map((m) => m[1]).filter((n) => n !== 'ArrayOfArchive' && n !== 'Archive');
      expect(order).toEqual([...JSON_ORDER].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)));
      const [one] = (await codec.decodeXml(xml.text)) as Record<string, string>[];
      expect(one).toMatchObject({ ID: archived.Alpha.ID, AncestorType: 'individual', PeriodID: String(fy2025.id) });
      expect(JSON.parse(one.Snapshot)).toEqual(JSON.parse(archived.Alpha.Snapshot));
      expect(
        (await http().get(`/v4/individuals/${team.worker.individualId}/archives?period=${fy2026.id}`).set('Authorization', as(team.worker)).expect(200)).body,
      ).toEqual([]);
      await http().get(`/v4/individuals/${team.worker.individualId}/archives?period=999999`).set('Authorization', as(team.worker)).expect(404);
      await http().get(`/v4/individuals/${team.worker.individualId}/archives?period=x`).set('Authorization', as(team.worker)).expect(400);
    });

    it('guards an individual’s archives like their metrics (403), and answers 404 for unknown and foreign individuals', async () => {
      const res = await http().get(`/v4/individuals/${team.worker.individualId}/archives`).set('Authorization', as(team.peer)).expect(403);
      expect(res.body.type).toBe('urn:pms:problem:forbidden');
      await http().get(`/v4/archives/${archived['Boss KPI'].ID}`).set('Authorization', as(team.worker)).expect(403);
      await http().get(`/v4/archives/${archived['Boss KPI'].ID}`).set('Authorization', as(team.boss)).expect(200);
      await http().get(`/v4/individuals/${randomUUID()}/archives`).set('Authorization', as(team.admin)).expect(404);
      await http().get(`/v4/individuals/${globex.admin.individualId}/archives`).set('Authorization', as(team.admin)).expect(404);
    });

    it('lists a project’s metric archives for every member (404 for unknown projects)', async () => {
      const res = await http().get(`/v4/projects/${projectId}/metricArchives`).set('Authorization', as(team.peer)).expect(200);
      expect(res.body).toEqual([archived.Beta]);
      await http().get(`/v4/projects/${randomUUID()}/metricArchives`).set('Authorization', as(team.peer)).expect(404);
      await http().get(`/v4/projects/${team.worker.individualId}/metricArchives`).set('Authorization', as(team.peer)).expect(404);
    });

    it('lists an organization’s or department’s archives (their dashboards of the closed periods; 404 for others)', async () => {
      const org = await http().get(`/v4/organizations/${team.orgId}/archives?period=${fy2025.id}`).set('Authorization', as(team.peer)).expect(200);
      expect(org.body).toMatchObject([{ AncestorID: team.orgId, AncestorType: 'organization', ItemID: team.orgId, PeriodID: fy2025.id }]);
      expect(JSON.parse((org.body as { Snapshot: string }[])[0].Snapshot)).toMatchObject({ ID: team.orgId, RowType: 4 });
      const dept = await createUnit(t, team.siteId, { department: true, parentId: team.orgId });
      const res = await http().get(`/v4/organizations/${dept.id}/archives`).set('Authorization', as(team.peer)).expect(200);
      expect(res.body).toEqual([]);
      expect(res.headers['x-total-count']).toBe('0');
      await http().get(`/v4/organizations/${team.worker.individualId}/archives`).set('Authorization', as(team.peer)).expect(404);
      await http().get(`/v4/organizations/${globex.orgId}/archives`).set('Authorization', as(team.peer)).expect(404);
    });

    it('reads one archive through its metric or project, 404 when it is not theirs', async () => {
      const viaMetric = await http().get(`/v4/metric/${alpha.ID}/archives/${archived.Alpha.ID}`).set('Authorization', as(team.worker)).expect(200);
      expect(viaMetric.body).toEqual(archived.Alpha);
      expect(viaMetric.headers.etag).toBeDefined();
      await http().get(`/v4/metric/${beta.ID}/archives/${archived.Alpha.ID}`).set('Authorization', as(team.worker)).expect(404);
      await http().get(`/v4/metric/${randomUUID()}/archives/${archived.Alpha.ID}`).set('Authorization', as(team.worker)).expect(404);
      await http().get(`/v4/metric/${alpha.ID}/archives/${archived.Alpha.ID}`).set('Authorization', as(team.peer)).expect(403);
      const viaProject = await http().get(`/v4/projects/${projectId}/archives/${archived.Beta.ID}`).set('Authorization', as(team.peer)).expect(200);
      expect(viaProject.body).toEqual(archived.Beta);
      await http().get(`/v4/projects/${projectId}/archives/${archived.Alpha.ID}`).set('Authorization', as(team.admin)).expect(404);
      await http().get(`/v4/projects/${randomUUID()}/archives/${archived.Beta.ID}`).set('Authorization', as(team.admin)).expect(404);
      const xml = await http().get(`/v4/archives/${archived.Beta.ID}`).set('Authorization', as(team.peer)).set('Accept', 'text/xml').expect(200);
      expect(xml.text).toMatch(/^<\?xml[^>]+\?><Archive xmlns="urn:pms:v4"/);
    });

    it('answers 404 for unknown and foreign archives, 400 for malformed ids', async () => {
      await http().get(`/v4/archives/${randomUUID()}`).set('Authorization', as(team.admin)).expect(404);
      const foreign = await http().get(`/v4/archives/${archived.Beta.ID}`).set('Authorization', as(globex.admin)).expect(404);
      expect(foreign.body.type).toBe('urn:pms:problem:not-found');
      await http().get(`/v4/archives/${archived.Beta.ID}`).set('Authorization', bearer(t.adminToken)).expect(404);
      await http().get('/v4/archives/nope').set('Authorization', as(team.admin)).expect(400);
      await http().get(`/v4/metric/nope/archives/${archived.Alpha.ID}`).set('Authorization', as(team.admin)).expect(400);
    });
  });

  describe('unsupported writes', () => {
    it('answers POST, PUT and DELETE with 200 and an empty object, and changes nothing', async () => {
      const before = await t.ds.getRepository(ArchiveEntity).find({ order: { id: 'ASC' } });
      const created = await http()
        .post('/v4/archives')
        .set('Authorization', as(team.worker))
        .send({ AncestorID: team.worker.individualId, AncestorType: 'individual', ItemID: alpha.ID, PeriodID: fy2026.id, Name: 'Forged', Snapshot: '{}' })
        .expect(200);
      expect(created.body).toEqual({});
      const updated = await http()
        .put(`/v4/archives/${archived.Alpha.ID}`)
        .set('Authorization', as(team.worker))
        .set('Content-Type', 'application/xml')
        .set('Accept', 'application/xml')
        .send('<Archive xmlns="urn:pms:v4"><Name>Changed</Name></Archive>')
        .expect(200);
      expect(updated.text).toMatch(/<Object xmlns="urn:pms:v4"[^>]*\/>$/);
      await http().put('/v4/archives/any plain string').set('Authorization', as(team.worker)).send({}).expect(200);
      const deleted = await http().delete(`/v4/archives/${archived.Alpha.ID}`).set('Authorization', as(team.peer)).expect(200);
      expect(deleted.body).toEqual({});
      await http().delete('/v4/archives/not-a-guid').set('Authorization', as(team.peer)).expect(200);
      expect(await t.ds.getRepository(ArchiveEntity).find({ order: { id: 'ASC' } })).toEqual(before);
      await http().post('/v4/archives').send({}).expect(401);
    });
  });
});
