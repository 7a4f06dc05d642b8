import { randomUUID } from 'node:crypto';
import { MetricValueEntity } from '../../src/database/entities/metric-value.entity.js';
import { commentRow, createComment } from '../factories/comments.js';
import { createPeriod, DAY } from '../factories/goals.js';
import { createPerson, createSite, TestSite } from '../factories/index.js';
import { createMetric, metricRow, MetricJson, putValue, valueRows } from '../factories/metrics.js';
import { createProject, createTeamSite, TeamSite } from '../factories/performance.js';
import { bearer, startApp, TestApp, WireCodec } from './harness.js';
import { setTimeout as sleep } from 'node:timers/promises';

const codec = new WireCodec('urn:pms:v4');
const NS = 'xmlns="urn:pms:v4" xmlns:i="http://www.w3.org/2001/XMLSchema-instance"';
const UTC_DATE = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}\+00:00$/;
/** Hooks and tests that create people (scrypt hashing, a login each) on a shared, busy machine. */
const SLOW = 60_000;

/** The Metric members in declaration (JSON) order. */
const JSON_ORDER = [
  'ID',
  'Kind',
  'AncestorID',
  'Name',
  'Is8020',
  'Target',
  'HigherIsBetter',
  'Values',
  'SiteID',
  'Deleted',
  'DeletedByRef',
  'Created',
  'CreatedBy',
  'Updated',
  'UpdatedBy',
];

type Row = Record<string, unknown>;

describe('/v4/metrics', () => {
  let t: TestApp;
  let team: TeamSite;
  let globex: TestSite;
  let off: TestSite;
  /** FY 2025 (earlier) and FY 2026, so Values order by StartDate (ids are created in the other order). */
  let fy2025: number;
  let fy2026: number;
  let closed: number;
  let globexPeriod: number;
  let projectId: string;

  const http = () => t.http();
  const as = (p: { token: string }) => bearer(p.token);
  const fields = (res: { body: { errors?: { field: string }[] } }) => (res.body.errors ?? []).map((e) => e.field).sort();
  const post = (who: { token: string }, body: object) => http().post('/v4/metrics').set('Authorization', as(who)).send(body);

  beforeAll(async () => {
    t = await startApp();
    team = await createTeamSite(t, { name: 'Metrics Co' });
    globex = await createSite(t, { name: 'Globex' });
    off = await createSite(t, { name: 'No PM', pm: false });
    const start = Date.UTC(2026, 0, 1);
    fy2026 = (await createPeriod(t, team.siteId, { name: 'FY 2026', start: new Date(start), end: new Date(start + 364 * DAY) })).id;
    fy2025 = (await createPeriod(t, team.siteId, { name: 'FY 2025', start: new Date(start - 365 * DAY), end: new Date(start - DAY) })).id;
    closed = (await createPeriod(t, team.siteId, { name: 'FY 2024', start: new Date(start - 730 * DAY), end: new Date(start - 366 * DAY), closed: true })).id;
    globexPeriod = (await createPeriod(t, globex.siteId, { name: 'Globex FY', start: new Date(start), end: new Date(start + 364 * DAY) })).id;
    projectId = (await createProject(t, team.admin.token, { OwnerID: team.worker.individualId, Name: 'Apollo' })).ID;
  }, SLOW);
  afterAll(async () => {
    await t.close();
  }, SLOW);

  describe('POST /v4/metrics', () => {
    it('creates an individual’s metric from JSON with defaults, ignoring read-only input (Values included)', async () => {
      const res = await post(team.worker, {
        Kind: 'individual',
        AncestorID: team.worker.individualId,
        Name: '  Tickets closed ',
        Target: 120.5,
        SiteID: globex.siteId,
        Deleted: true,
        Values: [{ PeriodID: fy2026, Actual: 5 }],
        Created: '2001-01-01T00:00:00Z',
      }).expect(200);
      expect(Object.keys(res.body)).toEqual(JSON_ORDER);
      expect(res.body).toEqual({
        ID: expect.stringMatching(/^[0-9a-f-]{36}$/),
        Kind: 'individual',
        AncestorID: team.worker.individualId,
        Name: 'Tickets closed',
        Is8020: false,
        Target: 120.5,
        HigherIsBetter: true,
        Values: [],
        SiteID: team.siteId,
        Deleted: false,
        DeletedByRef: false,
        Created: expect.stringMatching(UTC_DATE),
        CreatedBy: team.worker.individualId,
        Updated: expect.stringMatching(UTC_DATE),
        UpdatedBy: team.worker.individualId,
      });
      expect(res.body.Created.startsWith('2001')).toBe(false);
      expect(res.headers.etag).toMatch(/^"1-/);
      expect(await valueRows(t, res.body.ID)).toEqual([]);
    });

    it('creates a project’s metric from XML (any element order, i:nil) and answers a Metric root in ordinal order', async () => {
      const res = await http()
        .post('/v4/metrics')
        .set('Authorization', as(team.worker))
        .set('Content-Type', 'application/xml')
        .set('Accept', 'application/xml')
        .send(
          `<Metric ${NS}><Target>12.3456</Target><Name>Defects per release</Name><HigherIsBetter>false</HigherIsBetter><Kind>project</Kind><Is8020>true</Is8020><AncestorID>${projectId}</AncestorID><ID>00000000-0000-0000-0000-000000000000</ID><Values i:nil="true"/></Metric>`,
        )
        .expect(200);
      expect(res.text).toMatch(/^<\?xml[^>]+\?><Metric xmlns="urn:pms:v4"/);
      const order = [...res.text.matchAll(/<(\w+)[ />]/g)].map((m) => m[1]).filter((n) => n !== 'Metric');
      expect(order).toEqual([...JSON_ORDER].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)));
      expect(res.text).toContain('<Target>12.3456</Target>');
      expect(res.text).toContain('<Values/>');
      expect(await codec.decodeXml(res.text)).toMatchObject({
        Kind: 'project',
        AncestorID: projectId,
        Name: 'Defects per release',
        Is8020: 'true',
        HigherIsBetter: 'false',
        Target: '12.3456',
        Deleted: 'false',
      });
    });

    it('keeps 4 fraction digits of Target on every database (more are rounded)', async () => {
      const res = await post(team.admin, { Kind: 'individual', AncestorID: team.worker.individualId, Name: 'Rounded', Target: 1.23456 }).expect(200);
      expect(res.body.Target).toBe(1.2346);
      expect((await http().get(`/v4/metrics/${res.body.ID}`).set('Authorization', as(team.admin)).expect(200)).body.Target).toBe(1.2346);
      const neg = await post(team.admin, { Kind: 'individual', AncestorID: team.worker.individualId, Name: 'Negative', Target: '-0.5' }).expect(200);
      expect(neg.body.Target).toBe(-0.5);
    });

    it('uses a supplied ID, and answers 409 id-taken when it is used', async () => {
      const id = randomUUID();
      expect((await post(team.admin, { ID: id, Kind: 'individual', AncestorID: team.worker.individualId, Name: 'Fixed' }).expect(200)).body.ID).toBe(id);
      const again = await post(team.admin, { ID: id, Kind: 'individual', AncestorID: team.worker.individualId, Name: 'Fixed' }).expect(409);
      expect(again.body.type).toBe('urn:pms:problem:id-taken');
    });

    it('answers 400 naming each missing required field, limits exceeded by one and wrong types', async () => {
      expect(fields(await post(team.admin, {}).expect(400))).toEqual(['AncestorID', 'Kind', 'Name']);
      const bad = await post(team.admin, {
        ID: 'nope',
        Kind: 'Individual',
        AncestorID: 'abc',
        Name: 'n'.repeat(256),
        Is8020: 'maybe',
        Target: 'ten',
        HigherIsBetter: 2,
      }).expect(400);
      expect(fields(bad)).toEqual(['AncestorID', 'HigherIsBetter', 'ID', 'Is8020', 'Kind', 'Name', 'Target']);
      expect(fields(await post(team.admin, { Kind: 'project', AncestorID: projectId, Name: '   ' }).expect(400))).toEqual(['Name']);
      const huge = await post(team.admin, { Kind: 'project', AncestorID: projectId, Name: 'Huge', Target: 1e15 }).expect(400);
      expect(huge.body.errors).toEqual([{ field: 'Target', message: expect.stringContaining('99999999999999') }]);
      await post(team.admin, { Kind: 'project', AncestorID: projectId, Name: 'n'.repeat(255), Target: 99999999999999 }).expect(200);
      const nil = await http()
        .post('/v4/metrics')
        .set('Authorization', as(team.admin))
        .set('Content-Type', 'text/xml')
        .send(`<Metric ${NS}><Kind>project</Kind><AncestorID>${projectId}</AncestorID><Name i:nil="true"/></Metric>`)
        .expect(400);
      expect(fields(nil)).toEqual(['Name']);
    });

    it(
      'answers 400 naming AncestorID unless it is a live record of the site matching Kind',
      async () => {
        const gone = await createPerson(t, team, { firstName: 'Gone' });
        await http().delete(`/v4/individuals/${gone.individualId}`).set('Authorization', as(team.admin)).expect(200);
        const foreignProject = await createProject(t, globex.admin.token, { OwnerID: globex.admin.individualId });
        const cases: [string, string][] = [
          ['individual', randomUUID()],
          ['individual', globex.admin.individualId],
          ['individual', projectId],
          ['project', team.worker.individualId],
          ['project', foreignProject.ID],
          ['individual', gone.individualId],
        ];
        for (const [Kind, AncestorID] of cases) {
          const res = await post(team.admin, { Kind, AncestorID, Name: 'X' }).expect(400);
          expect(res.body.errors).toEqual([{ field: 'AncestorID', message: expect.stringContaining(AncestorID) }]);
        }
      },
      SLOW,
    );

    it('lets the individual, their managers and administrators create their metrics; others 403', async () => {
      for (const who of [team.worker, team.manager, team.boss, team.admin]) {
        await post(who, { Kind: 'individual', AncestorID: team.worker.individualId, Name: 'Allowed' }).expect(200);
      }
      const res = await post(team.peer, { Kind: 'individual', AncestorID: team.worker.individualId, Name: 'Denied' }).expect(403);
      expect(res.body.type).toBe('urn:pms:problem:forbidden');
      await post(team.worker, { Kind: 'individual', AncestorID: team.manager.individualId, Name: 'Upwards' }).expect(403);
      // A project's metrics: whoever may change the project (owner, owner's managers, administrators).
      await post(team.manager, { Kind: 'project', AncestorID: projectId, Name: 'Project allowed' }).expect(200);
      await post(team.peer, { Kind: 'project', AncestorID: projectId, Name: 'Project denied' }).expect(403);
    });

    it('refuses a site without performance management (403 pm-disabled)', async () => {
      const res = await post(off.admin, { Kind: 'individual', AncestorID: off.admin.individualId, Name: 'X' }).expect(403);
      expect(res.body.type).toBe('urn:pms:problem:pm-disabled');
    });

    it('is the Metric resource at /v4/metrics; the API port serves no Prometheus scrape (it has a port of its own)', async () => {
      const res = await http().delete('/v4/metrics').set('Authorization', as(team.admin)).expect(405);
      expect(res.headers.allow).toBe('GET, POST');
      const scrape = await http().get('/metrics').expect(404);
      expect(scrape.body.type).toBe('urn:pms:problem:not-found');
    });
  });

  describe('GET /v4/metrics/{id}', () => {
    let metric: MetricJson;
    beforeAll(async () => {
      metric = await createMetric(t, team.worker.token, { Kind: 'individual', AncestorID: team.worker.individualId, Name: 'Read me' });
      await putValue(t, team.worker.token, metric.ID, fy2026, 10.25);
      await putValue(t, team.worker.token, metric.ID, fy2025, 7);
    });

    it('reads a metric with its values ordered by the periods’ StartDate, in JSON and XML', async () => {
      const res = await http().get(`/v4/metrics/${metric.ID}`).set('Authorization', as(team.manager)).expect(200);
      expect(res.body.Values).toEqual([
        { PeriodID: fy2025, Actual: 7 },
        { PeriodID: fy2026, Actual: 10.25 },
      ]);
      expect(res.headers.etag).toBeDefined();
      const xml = await http().get(`/v4/metrics/${metric.ID}`).set('Authorization', as(team.manager)).set('Accept', 'text/xml').expect(200);
      expect(xml.text).toContain(
        `<Values><MetricValue><Actual>7</Actual><PeriodID>${fy2025}</PeriodID></MetricValue><MetricValue><Actual>10.25</Actual><PeriodID>${fy2026}</PeriodID></MetricValue></Values>`,
      );
      const decoded = (await codec.decodeXml(xml.text)) as Row;
      expect((decoded.Values as Row).MetricValue).toEqual([
        { Actual: '7', PeriodID: String(fy2025) },
        { Actual: '10.25', PeriodID: String(fy2026) },
      ]);
    });

    it('answers 403 to someone outside the individual’s reporting chain, but a project’s metrics to everyone', async () => {
      const res = await http().get(`/v4/metrics/${metric.ID}`).set('Authorization', as(team.peer)).expect(403);
      expect(res.body.type).toBe('urn:pms:problem:forbidden');
      const p = await createMetric(t, team.worker.token, { Kind: 'project', AncestorID: projectId, Name: 'Public' });
      await http().get(`/v4/metrics/${p.ID}`).set('Authorization', as(team.peer)).expect(200);
    });

    it('answers 404 for an unknown id and another site’s metric, 400 for a malformed id', async () => {
      await http().get(`/v4/metrics/${randomUUID()}`).set('Authorization', as(team.admin)).expect(404);
      const foreign = await createMetric(t, globex.admin.token, { Kind: 'individual', AncestorID: globex.admin.individualId });
      const res = await http().get(`/v4/metrics/${foreign.ID}`).set('Authorization', as(team.admin)).expect(404);
      expect(res.body.type).toBe('urn:pms:problem:not-found');
      expect(fields(await http().get('/v4/metrics/nope').set('Authorization', as(team.admin)).expect(400))).toEqual(['id']);
    });
  });

  describe('PUT /v4/metrics/{id}', () => {
    it('updates; absent optional fields keep their value, null clears Target and resets the booleans; Kind and AncestorID are ignored', async () => {
      const m = await createMetric(t, team.worker.token, {
        Kind: 'individual',
        AncestorID: team.worker.individualId,
        Name: 'Old',
        Target: 50,
        Is8020: true,
        HigherIsBetter: false,
      });
      const put = (body: object) =>
        http()
          .put(`/v4/metrics/${m.ID}`)
          .set('Authorization', as(team.worker))
          .send({ ID: m.ID, ...body });
      const kept = await put({ Name: 'New', Kind: 'project', AncestorID: projectId }).expect(200);
      expect(kept.body).toMatchObject({
        Name: 'New',
        Target: 50,
        Is8020: true,
        HigherIsBetter: false,
        Kind: 'individual',
        AncestorID: team.worker.individualId,
      });
      const cleared = await put({ Name: 'New', Target: null, Is8020: null, HigherIsBetter: null }).expect(200);
      expect(cleared.body).toMatchObject({ Target: null, Is8020: false, HigherIsBetter: true });
      expect(fields(await put({ Name: '' }).expect(400))).toEqual(['Name']);
      expect(fields(await put({ ID: randomUUID(), Name: 'x' }).expect(400))).toEqual(['ID']);
      expect(fields(await http().put(`/v4/metrics/${m.ID}`).set('Authorization', as(team.worker)).send({ Name: 'x' }).expect(400))).toEqual(['ID']);
    });

    it('accepts exactly the XML a client read back (Values and read-only fields included)', async () => {
      const m = await createMetric(t, team.worker.token, { Kind: 'individual', AncestorID: team.worker.individualId, Name: 'Round trip', Target: 3.5 });
      await putValue(t, team.worker.token, m.ID, fy2026, 4);
      const read = await http().get(`/v4/metrics/${m.ID}`).set('Authorization', as(team.worker)).set('Accept', 'application/xml').expect(200);
      const back = await http()
        .put(`/v4/metrics/${m.ID}`)
        .set('Authorization', as(team.worker))
        .set('Content-Type', 'application/xml')
        .set('Accept', 'application/xml')
        .send(read.text.replace('<Name>Round trip</Name>', '<Name>Round trip 2</Name>'))
        .expect(200);
      expect(await codec.decodeXml(back.text)).toMatchObject({ Name: 'Round trip 2', Target: '3.5', Kind: 'individual' });
      expect(await valueRows(t, m.ID)).toHaveLength(1);
    });

    it('honours If-Match (412 when stale), refuses others (403), a deleted metric (409) and unknown ids (404)', async () => {
      const m = await createMetric(t, team.worker.token, { Kind: 'individual', AncestorID: team.worker.individualId, Name: 'Versioned' });
      const first = await http().get(`/v4/metrics/${m.ID}`).set('Authorization', as(team.worker)).expect(200);
      const put = (who: { token: string }, name: string, etag?: string) => {
        const req = http().put(`/v4/metrics/${m.ID}`).set('Authorization', as(who));
        if (etag) req.set('If-Match', etag);
        return req.send({ ID: m.ID, Name: name });
      };
      await put(team.worker, 'v2', first.headers.etag).expect(200);
      const stale = await put(team.worker, 'v3', first.headers.etag).expect(412);
      expect(stale.body.type).toBe('urn:pms:problem:precondition-failed');
      expect((await put(team.peer, 'peer').expect(403)).body.type).toBe('urn:pms:problem:forbidden');
      expect((await metricRow(t, m.ID))?.name).toBe('v2');
      await http().delete(`/v4/metrics/${m.ID}`).set('Authorization', as(team.worker)).expect(200);
      expect((await put(team.worker, 'dead').expect(409)).body.type).toBe('urn:pms:problem:deleted');
      await http().put(`/v4/metrics/${randomUUID()}`).set('Authorization', as(team.admin)).send({ ID: randomUUID(), Name: 'x' }).expect(400);
      const id = randomUUID();
      await http().put(`/v4/metrics/${id}`).set('Authorization', as(team.admin)).send({ ID: id, Name: 'x' }).expect(404);
      const foreign = await createMetric(t, globex.admin.token, { Kind: 'individual', AncestorID: globex.admin.individualId, Name: 'Theirs' });
      await http().put(`/v4/metrics/${foreign.ID}`).set('Authorization', as(team.admin)).send({ ID: foreign.ID, Name: 'Mine now' }).expect(404);
      expect((await metricRow(t, foreign.ID))?.name).toBe('Theirs');
    });
  });

  describe('DELETE and undelete', () => {
    it('soft-deletes (idempotent), takes the metric’s comments down by reference and brings exactly those back', async () => {
      const m = await createMetric(t, team.worker.token, { Kind: 'individual', AncestorID: team.worker.individualId, Name: 'Doomed' });
      await putValue(t, team.worker.token, m.ID, fy2026, 1);
      const live = await createComment(t, team.manager.token, 'metrics', m.ID, 'live');
      const own = await createComment(t, team.manager.token, 'metrics', m.ID, 'deleted on its own');
      await http().delete(`/v4/comments/${own.ID}`).set('Authorization', as(team.manager)).expect(200);

      const del = await http().delete(`/v4/metrics/${m.ID}`).set('Authorization', as(team.manager)).expect(200);
      expect(del.body).toEqual({});
      await http().delete(`/v4/metrics/${m.ID}`).set('Authorization', as(team.manager)).expect(200);
      expect(await commentRow(t, live.ID)).toMatchObject({ deleted: true, deletedByRef: true });
      expect(await commentRow(t, own.ID)).toMatchObject({ deleted: true, deletedByRef: false });
      const read = await http().get(`/v4/metrics/${m.ID}`).set('Authorization', as(team.worker)).expect(200);
      expect(read.body).toMatchObject({ Deleted: true, DeletedByRef: false, Values: [{ PeriodID: fy2026, Actual: 1 }] });

      const restored = await http().put(`/v4/metrics/${m.ID}/undelete`).set('Authorization', as(team.worker)).expect(200);
      expect(restored.body).toMatchObject({ ID: m.ID, Deleted: false, Values: [{ PeriodID: fy2026, Actual: 1 }] });
      await http().put(`/v4/metrics/${m.ID}/undelete`).set('Authorization', as(team.worker)).expect(200);
      expect(await commentRow(t, live.ID)).toMatchObject({ deleted: false, deletedByRef: false });
      expect(await commentRow(t, own.ID)).toMatchObject({ deleted: true, deletedByRef: false });
    });

    it('refuses others (403) and answers 404 for unknown and foreign metrics', async () => {
      const m = await createMetric(t, team.worker.token, { Kind: 'individual', AncestorID: team.worker.individualId, Name: 'Guarded' });
      expect((await http().delete(`/v4/metrics/${m.ID}`).set('Authorization', as(team.peer)).expect(403)).body.type).toBe('urn:pms:problem:forbidden');
      expect((await metricRow(t, m.ID))?.deleted).toBe(false);
      await http().delete(`/v4/metrics/${randomUUID()}`).set('Authorization', as(team.admin)).expect(404);
      await http().put(`/v4/metrics/${randomUUID()}/undelete`).set('Authorization', as(team.admin)).expect(404);
      const foreign = await createMetric(t, globex.admin.token, { Kind: 'individual', AncestorID: globex.admin.individualId });
      await http().delete(`/v4/metrics/${foreign.ID}`).set('Authorization', as(team.admin)).expect(404);
      expect((await metricRow(t, foreign.ID))?.deleted).toBe(false);
    });

    it(
      'goes down with its individual or project (with its comments) and comes back only with it',
      async () => {
        const leaver = await createPerson(t, team, { firstName: 'Lee', lastName: 'Leaver' });
        const mine = await createMetric(t, team.admin.token, { Kind: 'individual', AncestorID: leaver.individualId, Name: 'Leaver KPI' });
        const ownDeleted = await createMetric(t, team.admin.token, { Kind: 'individual', AncestorID: leaver.individualId, Name: 'Deleted before' });
        await http().delete(`/v4/metrics/${ownDeleted.ID}`).set('Authorization', as(team.admin)).expect(200);
        const note = await createComment(t, team.admin.token, 'metrics', mine.ID, 'about the KPI');

        await http().delete(`/v4/individuals/${leaver.individualId}`).set('Authorization', as(team.admin)).expect(200);
        expect(await metricRow(t, mine.ID)).toMatchObject({ deleted: true, deletedByRef: true });
        expect(await commentRow(t, note.ID)).toMatchObject({ deleted: true, deletedByRef: true });
        const refused = await http().put(`/v4/metrics/${mine.ID}/undelete`).set('Authorization', as(team.admin)).expect(409);
        expect(refused.body.type).toBe('urn:pms:problem:deleted');

        await http().put(`/v4/individuals/${leaver.individualId}/undelete`).set('Authorization', as(team.admin)).expect(200);
        expect(await metricRow(t, mine.ID)).toMatchObject({ deleted: false, deletedByRef: false });
        expect(await commentRow(t, note.ID)).toMatchObject({ deleted: false, deletedByRef: false });
        expect(await metricRow(t, ownDeleted.ID)).toMatchObject({ deleted: true, deletedByRef: false });

        const project = await createProject(t, team.admin.token, { OwnerID: team.worker.individualId, Name: 'Short-lived' });
        const pm = await createMetric(t, team.admin.token, { Kind: 'project', AncestorID: project.ID, Name: 'Burn rate' });
        await http().delete(`/v4/projects/${project.ID}`).set('Authorization', as(team.admin)).expect(200);
        expect(await metricRow(t, pm.ID)).toMatchObject({ deleted: true, deletedByRef: true });
        await http().put(`/v4/projects/${project.ID}/undelete`).set('Authorization', as(team.admin)).expect(200);
        expect(await metricRow(t, pm.ID)).toMatchObject({ deleted: false, deletedByRef: false });
      },
      SLOW,
    );
  });

  describe('PUT and DELETE /v4/metrics/{id}/values/{periodid}', () => {
    let m: MetricJson;
    beforeAll(async () => {
      m = await createMetric(t, team.worker.token, { Kind: 'individual', AncestorID: team.worker.individualId, Name: 'Valued', Target: 100 });
    });
    const putJson = (who: { token: string }, periodId: number | string, body: object, metricId = m.ID) =>
      http().put(`/v4/metrics/${metricId}/values/${periodId}`).set('Authorization', as(who)).send(body);

    it('creates the value of a period, then replaces it (one row), and answers the metric with all its values', async () => {
      const first = await putJson(team.worker, fy2026, { Actual: 42.125 }).expect(200);
      expect(first.body).toMatchObject({ ID: m.ID, Values: [{ PeriodID: fy2026, Actual: 42.125 }] });
      const second = await putJson(team.manager, fy2026, { Actual: 43, PeriodID: fy2025 }).expect(200);
      expect(second.body.Values).toEqual([{ PeriodID: fy2026, Actual: 43 }]);
      expect((await valueRows(t, m.ID)).map((v) => [v.periodId, v.actual])).toEqual([[fy2026, 43]]);
    });

    it('takes an XML body and answers XML with the decimal fraction kept', async () => {
      const res = await http()
        .put(`/v4/metrics/${m.ID}/values/${fy2025}`)
        .set('Authorization', as(team.worker))
        .set('Content-Type', 'application/xml')
        .set('Accept', 'application/xml')
        .send(`<MetricValue ${NS}><Actual>0.0625</Actual></MetricValue>`)
        .expect(200);
      expect(res.text).toContain(`<MetricValue><Actual>0.0625</Actual><PeriodID>${fy2025}</PeriodID></MetricValue>`);
      const json = await http().get(`/v4/metrics/${m.ID}`).set('Authorization', as(team.worker)).expect(200);
      expect(json.body.Values).toEqual([
        { PeriodID: fy2025, Actual: 0.0625 },
        { PeriodID: fy2026, Actual: 43 },
      ]);
    });

    it('answers 400 for a missing or malformed Actual and a malformed period, 404 for an unknown or foreign period', async () => {
      expect(fields(await putJson(team.worker, fy2026, {}).expect(400))).toEqual(['Actual']);
      expect(fields(await putJson(team.worker, fy2026, { Actual: 'lots' }).expect(400))).toEqual(['Actual']);
      expect(fields(await putJson(team.worker, fy2026, { Actual: -1e15 }).expect(400))).toEqual(['Actual']);
      expect(fields(await putJson(team.worker, 'abc', { Actual: 1 }).expect(400))).toEqual(['periodid']);
      expect((await putJson(team.worker, 999999, { Actual: 1 }).expect(404)).body.detail).toContain('Period');
      await putJson(team.worker, globexPeriod, { Actual: 1 }).expect(404);
      await putJson(team.admin, fy2026, { Actual: 1 }, randomUUID()).expect(404);
      // Nothing changed: FY 2026 (created first, so the lower id) holds 43, FY 2025 0.0625.
      expect((await valueRows(t, m.ID)).map((v) => v.actual)).toEqual([43, 0.0625]);
    });

    it('refuses a closed period (409 closed), a deleted metric (409 deleted), others (403) and PM-less sites', async () => {
      expect((await putJson(team.worker, closed, { Actual: 1 }).expect(409)).body.type).toBe('urn:pms:problem:closed');
      expect((await putJson(team.peer, fy2026, { Actual: 1 }).expect(403)).body.type).toBe('urn:pms:problem:forbidden');
      const gone = await createMetric(t, team.worker.token, { Kind: 'individual', AncestorID: team.worker.individualId, Name: 'Gone' });
      await http().delete(`/v4/metrics/${gone.ID}`).set('Authorization', as(team.worker)).expect(200);
      expect((await putJson(team.worker, fy2026, { Actual: 1 }, gone.ID).expect(409)).body.type).toBe('urn:pms:problem:deleted');
      expect(await valueRows(t, gone.ID)).toEqual([]);
      const pm = await http().put(`/v4/metrics/${m.ID}/values/${fy2026}`).set('Authorization', as(off.admin)).send({ Actual: 1 }).expect(403);
      expect(pm.body.type).toBe('urn:pms:problem:pm-disabled');
    });

    it('removes a period’s value (idempotent), but not in a closed period', async () => {
      const v = await createMetric(t, team.worker.token, { Kind: 'individual', AncestorID: team.worker.individualId, Name: 'Removable' });
      await putValue(t, team.worker.token, v.ID, fy2026, 5);
      await putValue(t, team.worker.token, v.ID, fy2025, 6);
      const res = await http().delete(`/v4/metrics/${v.ID}/values/${fy2026}`).set('Authorization', as(team.worker)).expect(200);
      expect(res.body).toEqual({});
      await http().delete(`/v4/metrics/${v.ID}/values/${fy2026}`).set('Authorization', as(team.worker)).expect(200);
      expect((await valueRows(t, v.ID)).map((r) => r.periodId)).toEqual([fy2025]);
      await http().delete(`/v4/metrics/${v.ID}/values/${fy2025}`).set('Authorization', as(team.peer)).expect(403);
      expect((await http().delete(`/v4/metrics/${v.ID}/values/${closed}`).set('Authorization', as(team.worker)).expect(409)).body.type).toBe(
        'urn:pms:problem:closed',
      );
      await http().delete(`/v4/metrics/${v.ID}/values/999999`).set('Authorization', as(team.worker)).expect(404);
    });

    it('marks the metric changed when a value is set, replaced or removed: Updated, UpdatedBy, version and ETag', async () => {
      const tracked = await createMetric(t, team.worker.token, { Kind: 'individual', AncestorID: team.worker.individualId, Name: 'Tracked' });
      const read = async () => {
        const res = await http().get(`/v4/metrics/${tracked.ID}`).set('Authorization', as(team.worker)).expect(200);
        return { body: res.body as Row, etag: res.headers.etag as string };
      };
      // Updated has milliseconds: let the clock move between writes.
      const tick = () => sleep(20);
      const created = await read();
      expect(created.etag).toMatch(/^"1-/);
      await tick();
      const set = await putJson(team.manager, fy2026, { Actual: 7 }, tracked.ID).expect(200);
      expect(set.headers.etag).toMatch(/^"2-/);
      expect(set.body.UpdatedBy).toBe(team.manager.individualId);
      expect(Date.parse(set.body.Updated)).toBeGreaterThan(Date.parse(created.body.Updated as string));
      expect(await read()).toEqual({ body: set.body, etag: set.headers.etag });
      // An If-Match from before the value is stale.
      const rename = (etag: string) =>
        http().put(`/v4/metrics/${tracked.ID}`).set('Authorization', as(team.worker)).set('If-Match', etag).send({ ID: tracked.ID, Name: 'Tracked' });
      await rename(created.etag).expect(412);
      await tick();
      const replaced = await putJson(team.worker, fy2026, { Actual: 8 }, tracked.ID).expect(200);
      expect(replaced.headers.etag).toMatch(/^"3-/);
      expect(replaced.body.UpdatedBy).toBe(team.worker.individualId);
      expect(Date.parse(replaced.body.Updated)).toBeGreaterThan(Date.parse(set.body.Updated));
      await tick();
      await http().delete(`/v4/metrics/${tracked.ID}/values/${fy2026}`).set('Authorization', as(team.manager)).expect(200);
      const removed = await read();
      expect(removed.etag).toMatch(/^"4-/);
      expect(removed.body.UpdatedBy).toBe(team.manager.individualId);
      expect(Date.parse(removed.body.Updated as string)).toBeGreaterThan(Date.parse(replaced.body.Updated));
      // Removing a value that is not there, or a refused write, changes nothing.
      await http().delete(`/v4/metrics/${tracked.ID}/values/${fy2026}`).set('Authorization', as(team.manager)).expect(200);
      await putJson(team.worker, closed, { Actual: 1 }, tracked.ID).expect(409);
      expect(await read()).toEqual(removed);
      await rename(removed.etag).expect(200);
    });

    it('leaves exactly one row when many PUTs of the same value race', async () => {
      const race = await createMetric(t, team.worker.token, { Kind: 'individual', AncestorID: team.worker.individualId, Name: 'Raced' });
      for (let round = 0; round < 5; round++) {
        const results = await Promise.all(Array.from({ length: 8 }, (_, k) => putJson(team.worker, fy2026, { Actual: round * 10 + k }, race.ID)));
        expect(results.map((r) => r.status)).toEqual(Array(8).fill(200));
        const rows = await t.ds.getRepository(MetricValueEntity).find({ where: { metricId: race.ID } });
        expect(rows).toHaveLength(1);
        expect(rows[0].actual).toBeGreaterThanOrEqual(round * 10);
      }
    });
  });

  describe('lists', () => {
    let lister: Awaited<ReturnType<typeof createPerson>>;
    beforeAll(async () => {
      lister = await createPerson(t, team, { firstName: 'Lis', lastName: 'Ter', reportsTo: team.manager.individualId });
      for (const name of ['Charlie', 'Alpha', 'Bravo']) {
        const x = await createMetric(t, team.admin.token, { Kind: 'individual', AncestorID: lister.individualId, Name: name });
        await putValue(t, team.admin.token, x.ID, fy2026, name.length);
      }
      const gone = await createMetric(t, team.admin.token, { Kind: 'individual', AncestorID: lister.individualId, Name: 'Deleted' });
      await http().delete(`/v4/metrics/${gone.ID}`).set('Authorization', as(team.admin)).expect(200);
    }, SLOW);

    it('lists an individual’s metrics by Name with their values, in JSON and XML, with deleted=0|1|2', async () => {
      const res = await http().get(`/v4/individuals/${lister.individualId}/metrics`).set('Authorization', as(team.manager)).expect(200);
      expect(res.body.map((x: MetricJson) => x.Name)).toEqual(['Alpha', 'Bravo', 'Charlie']);
      expect(res.body.map((x: MetricJson) => x.Values)).toEqual([
        [{ PeriodID: fy2026, Actual: 5 }],
        [{ PeriodID: fy2026, Actual: 5 }],
        [{ PeriodID: fy2026, Actual: 7 }],
      ]);
      expect(res.headers['x-total-count']).toBe('3');
      const deleted = await http().get(`/v4/individuals/${lister.individualId}/metrics?deleted=1`).set('Authorization', as(team.manager)).expect(200);
      expect(deleted.body.map((x: MetricJson) => x.Name)).toEqual(['Deleted']);
      const all = await http().get(`/v4/individuals/${lister.individualId}/metrics?deleted=2&limit=2`).set('Authorization', as(team.manager)).expect(200);
      expect(all.body).toHaveLength(2);
      expect(all.headers['x-total-count']).toBe('4');
      expect(all.headers.link).toContain('offset=2');
      const xml = await http()
        .get(`/v4/individuals/${lister.individualId}/metrics`)
        .set('Authorization', as(team.manager))
        .set('Accept', 'application/xml')
        .expect(200);
      expect(xml.text).toMatch(/^<\?xml[^>]+\?><ArrayOfMetric xmlns="urn:pms:v4"/);
      const items = (await codec.decodeXml(xml.text)) as Row[];
      expect(items).toHaveLength(3);
      expect(items[2]).toMatchObject({ Name: 'Charlie', Values: { MetricValue: { PeriodID: String(fy2026), Actual: '7' } } });
    });

    it('answers 403 for someone outside the reporting chain, 404 for unknown or foreign individuals, 400 for a bad deleted', async () => {
      expect((await http().get(`/v4/individuals/${lister.individualId}/metrics`).set('Authorization', as(team.peer)).expect(403)).body.type).toBe(
        'urn:pms:problem:forbidden',
      );
      await http().get(`/v4/individuals/${randomUUID()}/metrics`).set('Authorization', as(team.admin)).expect(404);
      await http().get(`/v4/individuals/${globex.admin.individualId}/metrics`).set('Authorization', as(team.admin)).expect(404);
      await http().get(`/v4/individuals/${lister.individualId}/metrics?deleted=3`).set('Authorization', as(team.admin)).expect(400);
    });

    it('lists the caller’s own metrics at /v4/me/metrics', async () => {
      const res = await http().get('/v4/me/metrics').set('Authorization', as(lister)).expect(200);
      expect(res.body.map((x: MetricJson) => x.Name)).toEqual(['Alpha', 'Bravo', 'Charlie']);
      const peer = await http().get('/v4/me/metrics').set('Authorization', as(team.peer)).expect(200);
      expect(peer.body).toEqual([]);
      const ga = await http().get('/v4/me/metrics').set('Authorization', bearer(t.adminToken)).expect(200);
      expect(ga.body).toEqual([]);
    });

    it('lists a project’s metrics for every member of the site (404 for unknown and foreign projects)', async () => {
      const p = await createProject(t, team.admin.token, { OwnerID: team.boss.individualId, Name: 'Listed' });
      await createMetric(t, team.admin.token, { Kind: 'project', AncestorID: p.ID, Name: 'Velocity' });
      const res = await http().get(`/v4/projects/${p.ID}/metrics`).set('Authorization', as(team.peer)).expect(200);
      expect(res.body.map((x: MetricJson) => [x.Name, x.Kind, x.AncestorID])).toEqual([['Velocity', 'project', p.ID]]);
      await http().get(`/v4/projects/${randomUUID()}/metrics`).set('Authorization', as(team.peer)).expect(404);
      await http().get(`/v4/projects/${lister.individualId}/metrics`).set('Authorization', as(team.peer)).expect(404);
    });

    it('lists every metric of the site for administrators at /v4/sites/{siteid}/metrics', async () => {
      const res = await http().get(`/v4/sites/${team.siteId}/metrics?limit=5000`).set('Authorization', as(team.admin)).expect(200);
      expect(res.body.length).toBeGreaterThan(10);
      expect(res.body.every((x: MetricJson) => x.SiteID === team.siteId && !x.Deleted)).toBe(true);
      const names = res.body.map((x: MetricJson) => x.Name);
      expect(names).toContain('Velocity');
      expect(names).toContain('Charlie');
      const plain = await http().get(`/v4/sites/${team.siteId}/metrics`).set('Authorization', as(team.manager)).expect(403);
      expect(plain.body.type).toBe('urn:pms:problem:admin-required');
      const other = await http().get(`/v4/sites/${globex.siteId}/metrics`).set('Authorization', as(team.admin)).expect(403);
      expect(other.body.type).toBe('urn:pms:problem:forbidden');
      const ga = await http().get(`/v4/sites/${globex.siteId}/metrics`).set('Authorization', bearer(t.adminToken)).expect(200);
      expect(ga.body.length).toBeGreaterThan(0);
      expect(ga.body.every((x: MetricJson) => x.SiteID === globex.siteId)).toBe(true);
      const noPm = await http().get(`/v4/sites/${off.siteId}/metrics`).set('Authorization', bearer(t.adminToken)).expect(403);
      expect(noPm.body.type).toBe('urn:pms:problem:pm-disabled');
    });
  });

  describe('GET /v4/metrics (the site-wide list)', () => {
    it('lists every metric of the caller’s site for administrators, as /v4/sites/{siteid}/metrics does, in JSON and XML', async () => {
      const res = await http().get('/v4/metrics?limit=5000').set('Authorization', as(team.admin)).expect(200);
      const bySite = await http().get(`/v4/sites/${team.siteId}/metrics?limit=5000`).set('Authorization', as(team.admin)).expect(200);
      expect(res.body.length).toBeGreaterThan(10);
      expect(res.body).toEqual(bySite.body);
      expect(res.headers['x-total-count']).toBe(String(res.body.length));
      expect(res.body.every((x: MetricJson) => x.SiteID === team.siteId && !x.Deleted)).toBe(true);
      const names = res.body.map((x: MetricJson) => x.Name);
      expect([...names].sort((a: string, b: string) => a.localeCompare(b))).toEqual(names.slice().sort((a: string, b: string) => a.localeCompare(b)));
      const page = await http().get('/v4/metrics?limit=2&offset=1').set('Authorization', as(team.admin)).expect(200);
      expect(page.body.map((x: MetricJson) => x.ID)).toEqual(res.body.slice(1, 3).map((x: MetricJson) => x.ID));
      expect(page.headers.link).toContain('offset=3');
      const deleted = await http().get('/v4/metrics?deleted=1&limit=5000').set('Authorization', as(team.admin)).expect(200);
      expect(deleted.body.length).toBeGreaterThan(0);
      expect(deleted.body.every((x: MetricJson) => x.Deleted)).toBe(true);
      const xml = await http().get('/v4/metrics?limit=2').set('Authorization', as(team.admin)).set('Accept', 'application/xml').expect(200);
      expect(xml.text).toMatch(/^<\?xml[^>]+\?><ArrayOfMetric xmlns="urn:pms:v4"/);
      expect(((await codec.decodeXml(xml.text)) as Row[]).map((x) => x.ID)).toEqual(res.body.slice(0, 2).map((x: MetricJson) => x.ID));
    });

    it('never shows another site’s metrics, refuses non-administrators (403) and PM-less sites, and checks its query (400)', async () => {
      const globexList = await http().get('/v4/metrics?limit=5000').set('Authorization', as(globex.admin)).expect(200);
      expect(globexList.body.length).toBeGreaterThan(0);
      expect(globexList.body.every((x: MetricJson) => x.SiteID === globex.siteId)).toBe(true);
      const plain = await http().get('/v4/metrics').set('Authorization', as(team.manager)).expect(403);
      expect(plain.body.type).toBe('urn:pms:problem:admin-required');
      const noPm = await http().get('/v4/metrics').set('Authorization', as(off.admin)).expect(403);
      expect(noPm.body.type).toBe('urn:pms:problem:pm-disabled');
      await http().get('/v4/metrics?deleted=3').set('Authorization', as(team.admin)).expect(400);
      await http().get('/v4/metrics').expect(401);
    });
  });

  describe('OpenAPI', () => {
    it('documents Values as a list of MetricValue and the value body as { Actual }', async () => {
      const doc = (await http().get('/docs/openapi.json').expect(200)).body;
      const schemas = doc.components.schemas;
      expect(schemas.Metric.properties.Values).toMatchObject({ type: 'array', readOnly: true, items: { $ref: '#/components/schemas/MetricValue' } });
      expect(Object.keys(schemas.MetricValue.properties)).toEqual(['PeriodID', 'Actual']);
      expect(Object.keys(schemas.PutMetricValueDto.properties)).toEqual(['Actual']);
      expect(Object.keys(schemas.CreateMetricDto.properties)).not.toContain('Values');
      const put = doc.paths['/v4/metrics/{id}/values/{periodid}'].put;
      expect(put.requestBody.content['application/xml'].schema).toEqual({ $ref: '#/components/schemas/PutMetricValueDto' });
    });
  });

  describe('comments on metrics', () => {
    it('checks that the metric exists in the caller’s site (400 in a body, 404 in a path) and refuses a deleted one (409)', async () => {
      const foreign = await createMetric(t, globex.admin.token, { Kind: 'individual', AncestorID: globex.admin.individualId });
      for (const id of [randomUUID(), foreign.ID, team.worker.individualId]) {
        const res = await http()
          .post('/v4/comments')
          .set('Authorization', as(team.worker))
          .send({ AncestorType: 'metrics', AncestorID: id, Body: 'x' })
          .expect(400);
        expect(res.body.errors).toEqual([{ field: 'AncestorID', message: expect.stringContaining(id) }]);
        await http().get(`/v4/metrics/${id}/comments`).set('Authorization', as(team.worker)).expect(404);
      }
      const m = await createMetric(t, team.worker.token, { Kind: 'individual', AncestorID: team.worker.individualId, Name: 'Commented' });
      // An individual's metric is theirs and their managers': a peer may neither read nor comment on it.
      await http().post('/v4/comments').set('Authorization', as(team.peer)).send({ AncestorType: 'metrics', AncestorID: m.ID, Body: 'nosy' }).expect(403);
      await http().get(`/v4/metrics/${m.ID}/comments`).set('Authorization', as(team.peer)).expect(403);
      const c = await createComment(t, team.manager.token, 'metrics', m.ID, 'nice');
      const list = await http().get(`/v4/metrics/${m.ID}/comments`).set('Authorization', as(team.worker)).expect(200);
      expect(list.body.map((x: { ID: string }) => x.ID)).toEqual([c.ID]);
      await http().delete(`/v4/metrics/${m.ID}`).set('Authorization', as(team.worker)).expect(200);
      const res = await http()
        .post('/v4/comments')
        .set('Authorization', as(team.worker))
        .send({ AncestorType: 'metrics', AncestorID: m.ID, Body: 'late' })
        .expect(409);
      expect(res.body.type).toBe('urn:pms:problem:deleted');
    });
  });
});
