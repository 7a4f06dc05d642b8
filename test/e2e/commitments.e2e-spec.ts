import { randomUUID } from 'node:crypto';
import { RequestContext } from '../../src/common/context/request-context.js';
import { TenantDb } from '../../src/database/tenant-db.js';
import { OrganizationEntity } from '../../src/database/entities/organization.entity.js';
import { bearer, startApp, TestApp, WireCodec } from './harness.js';
import { expectPeriodCheckedOnlyWhenMoved } from './period-checks.js';
import { createPerson, createSite, TestPerson, TestSite } from '../factories/index.js';
import { createPeriods, createUnit } from '../factories/goals.js';

const codec = new WireCodec('urn:pms:v4');
const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}\+00:00$/;

describe('/v4/commitments', () => {
  let t: TestApp;
  let acme: TestSite;
  let globex: TestSite;
  let off: TestSite;
  let manager: TestPerson;
  let report: TestPerson;
  let peer: TestPerson;
  let deptManager: TestPerson;
  let member: TestPerson;
  let subMember: TestPerson;
  let dept: string;
  let subDept: string;
  let deletedDept: string;
  let current: number;
  let past: number;
  let globexPeriod: number;
  let globexCommitment: Record<string, unknown>;

  beforeAll(async () => {
    t = await startApp();
    acme = await createSite(t, { name: 'Acme' });
    globex = await createSite(t, { name: 'Globex' });
    off = await createSite(t, { name: 'Off', pm: false });
    manager = await createPerson(t, acme, { firstName: 'Mia', lastName: 'Manager' });
    report = await createPerson(t, acme, { reportsTo: manager.individualId });
    peer = await createPerson(t, acme);
    deptManager = await createPerson(t, acme);
    dept = (await createUnit(t, acme.siteId, { name: 'Sales', department: true, parentId: acme.orgId, managerId: deptManager.individualId })).id;
    subDept = (await createUnit(t, acme.siteId, { name: 'Inside sales', department: true, parentId: dept })).id;
    deletedDept = (await createUnit(t, acme.siteId, { name: 'Gone', department: true, parentId: dept, deleted: true })).id;
    member = await createPerson(t, { siteId: acme.siteId, orgId: dept });
    subMember = await createPerson(t, { siteId: acme.siteId, orgId: subDept });
    ({
      current: { id: current },
      past: { id: past },
    } = await createPeriods(t, acme.siteId));
    globexPeriod = (await createPeriods(t, globex.siteId)).current.id;
    await createPeriods(t, off.siteId);
    const g = await t
      .http()
      .post('/v4/commitments')
      .set('Authorization', bearer(globex.admin.token))
      .send({ Type: 'organization', AncestorID: globex.orgId, PeriodID: globexPeriod, Name: 'Globex commitment' })
      .expect(200);
    globexCommitment = g.body;
  });
  afterAll(async () => {
    await t.close();
  });

  const as = (p: TestPerson) => bearer(p.token);
  const post = (p: TestPerson, body: object) => t.http().post('/v4/commitments').set('Authorization', as(p)).send(body);
  const body = (type: string, ancestorId: string, extra: object = {}) => ({
    Type: type,
    AncestorID: ancestorId,
    PeriodID: current,
    Name: `${type} commitment`,
    ...extra,
  });
  const ids = (res: { body: { ID: number }[] }) => res.body.map((c) => c.ID);

  describe('POST /v4/commitments', () => {
    it('creates a commitment from JSON with the common read-only fields, ignoring read-only input', async () => {
      const res = await post(
        acme.admin,
        body('organization', acme.orgId, {
          ID: 4242,
          Description: 'Grow',
          DueDate: '2026-12-31T00:00:00Z',
          Rank: 2,
          SiteID: globex.siteId,
          CreatedBy: peer.individualId,
        }),
      ).expect(200);
      expect(res.body).toEqual({
        ID: expect.any(Number),
        Type: 'organization',
        AncestorID: acme.orgId,
        PeriodID: current,
        Name: 'organization commitment',
        Description: 'Grow',
        DueDate: '2026-12-31T00:00:00.000+00:00',
        Completed: false,
        CompletedDate: null,
        Rank: 2,
        SiteID: acme.siteId,
        Created: expect.stringMatching(ISO),
        CreatedBy: acme.admin.individualId,
        Updated: expect.stringMatching(ISO),
        UpdatedBy: acme.admin.individualId,
      });
      expect(res.body.ID).not.toBe(4242);
    });

    it('creates a commitment from XML (any element order, i:nil) and answers a Commitment root', async () => {
      const res = await t
        .http()
        .post('/v4/commitments')
        .set('Authorization', as(report))
        .set('Content-Type', 'application/xml')
        .set('Accept', 'application/xml')
        .send(
          `<Commitment xmlns="urn:pms:v4" xmlns:i="http://www.w3.org/2001/XMLSchema-instance"><Rank>1</Rank><Name>Ship it</Name><PeriodID>${current}</PeriodID><DueDate i:nil="true"/><Completed>true</Completed><ID>0</ID><AncestorID>${report.individualId}</AncestorID><Type>individual</Type></Commitment>`,
        )
        .expect(200);
      expect(res.text).toMatch(/^<\?xml[^>]+\?><Commitment xmlns="urn:pms:v4"/);
      const c = (await codec.decodeXml(res.text)) as Record<string, string | null>;
      expect(c).toMatchObject({
        Type: 'individual',
        AncestorID: report.individualId,
        Name: 'Ship it',
        Completed: 'true',
        DueDate: null,
        Rank: '1',
        PeriodID: String(current),
      });
      expect(c.CompletedDate).toMatch(ISO);
    });

    it.each(['Type', 'AncestorID', 'PeriodID', 'Name'])('answers 400 naming %s when it is missing', async (field) => {
      const b: Record<string, unknown> = body('individual', report.individualId);
      delete b[field];
      const res = await post(report, b).expect(400);
      expect(res.body.errors).toEqual([{ field, message: `${field} is required` }]);
    });

    it('answers 400 for limits exceeded by one and wrong types, and accepts the limits', async () => {
      const res = await post(
        report,
        body('team', 'x', { PeriodID: 'one', Name: 'n'.repeat(256), Description: 'd'.repeat(4001), Completed: 'maybe', DueDate: 'soon', Rank: 1.5 }),
      ).expect(400);
      expect(res.body.errors.map((e: { field: string }) => e.field).sort()).toEqual([
        'AncestorID',
        'Completed',
        'Description',
        'DueDate',
        'Name',
        'PeriodID',
        'Rank',
        'Type',
      ]);
      expect(res.body.errors).toContainEqual({ field: 'Type', message: 'Type must be one of organization, department, individual' });
      await post(report, body('individual', report.individualId, { Name: 'n'.repeat(255), Description: 'd'.repeat(4000) })).expect(200);
      await post(report, body('individual', report.individualId, { Name: ' ' })).expect(400);
    });

    it('answers 400 naming AncestorID when it does not match Type, is deleted, unknown or of another site; PeriodID likewise', async () => {
      for (const [type, ancestor] of [
        ['organization', dept],
        ['department', acme.orgId],
        ['individual', dept],
        ['department', deletedDept],
        ['individual', randomUUID()],
        ['organization', globex.orgId],
      ]) {
        const res = await post(acme.admin, body(type, ancestor)).expect(400);
        expect(res.body.errors).toEqual([{ field: 'AncestorID', message: expect.stringContaining(`not a live ${type}`) }]);
      }
      const p = await post(acme.admin, body('organization', acme.orgId, { PeriodID: globexPeriod })).expect(400);
      expect(p.body.errors).toEqual([{ field: 'PeriodID', message: expect.any(String) }]);
    });

    it('lets an individual’s commitments be written by them, their manager and administrators only', async () => {
      await post(report, body('individual', report.individualId)).expect(200);
      await post(manager, body('individual', report.individualId)).expect(200);
      await post(acme.admin, body('individual', report.individualId)).expect(200);
      const res = await post(peer, body('individual', report.individualId)).expect(403);
      expect(res.body.type).toBe('urn:pms:problem:forbidden');
    });

    it('lets a unit’s commitments be written by administrators and the managers of the unit or of a unit above it; organizations by administrators', async () => {
      await post(deptManager, body('department', dept)).expect(200);
      await post(acme.admin, body('department', subDept)).expect(200);
      // The manager of the department above manages its sub-department too (docs/authorization.md).
      await post(deptManager, body('department', subDept)).expect(200);
      await post(peer, body('department', dept)).expect(403);
      const res = await post(deptManager, body('organization', acme.orgId)).expect(403);
      expect(res.body.type).toBe('urn:pms:problem:forbidden');
    });

    it('stamps CompletedDate when created completed, keeps a given one, and ignores it when not completed', async () => {
      const stamped = await post(report, body('individual', report.individualId, { Completed: true })).expect(200);
      expect(Date.now() - Date.parse(stamped.body.CompletedDate)).toBeLessThan(60_000);
      const given = await post(report, body('individual', report.individualId, { Completed: true, CompletedDate: '2026-02-03T04:05:06.007Z' })).expect(200);
      expect(given.body.CompletedDate).toBe('2026-02-03T04:05:06.007+00:00');
      const open = await post(report, body('individual', report.individualId, { Completed: false, CompletedDate: '2026-02-03T04:05:06Z' })).expect(200);
      expect(open.body.CompletedDate).toBeNull();
    });

    it('refuses a site without PM with 403 pm-disabled', async () => {
      const res = await post(off.admin, body('organization', off.orgId)).expect(403);
      expect(res.body.type).toBe('urn:pms:problem:pm-disabled');
    });
  });

  describe('lists', () => {
    let own: number[];
    let orgC: number;
    let deptC: number;
    let subC: number;
    let subMemberC: number;
    let pastC: number;
    let site: TestSite;
    let ctxIds: { d1: string; d2: string; m1: string; m2: string; pastPeriod: number };

    beforeAll(async () => {
      // A site of its own, so the dashboard scopes count exactly what this block creates.
      site = await createSite(t);
      const d1 = (await createUnit(t, site.siteId, { name: 'D1', department: true, parentId: site.orgId })).id;
      const d2 = (await createUnit(t, site.siteId, { name: 'D2', department: true, parentId: d1 })).id;
      const gone = (await createUnit(t, site.siteId, { name: 'Gone', department: true, parentId: d1 })).id;
      const m1 = await createPerson(t, { siteId: site.siteId, orgId: d1 });
      const m2 = await createPerson(t, { siteId: site.siteId, orgId: d2 });
      const periods = await createPeriods(t, site.siteId);
      const mk = async (type: string, ancestor: string, name: string, extra: object = {}) =>
        (await post(site.admin, { Type: type, AncestorID: ancestor, PeriodID: periods.current.id, Name: name, ...extra }).expect(200)).body.ID as number;
      orgC = await mk('organization', site.orgId, 'Org');
      deptC = await mk('department', d1, 'D1');
      subC = await mk('department', d2, 'D2');
      await mk('department', gone, 'Gone dept');
      const b = await mk('individual', m1.individualId, 'B', { Rank: 1 });
      const a = await mk('individual', m1.individualId, 'A', { Rank: 1 });
      const z = await mk('individual', m1.individualId, 'Z', { Rank: 0 });
      own = [z, a, b];
      subMemberC = await mk('individual', m2.individualId, 'Sub');
      pastC = (await post(site.admin, { Type: 'individual', AncestorID: m1.individualId, PeriodID: periods.past.id, Name: 'Old' }).expect(200)).body.ID;
      // delete the "Gone" department through the data layer: its commitments leave the dashboard scopes
      await t.app.get(TenantDb).repo(RequestContext.system(site.siteId), OrganizationEntity).updateWhere({ id: gone }, { deleted: true });
      ctxIds = { d1, d2, m1: m1.individualId, m2: m2.individualId, pastPeriod: periods.past.id };
    });
    const get = (path: string) => t.http().get(path).set('Authorization', as(site.admin));

    it('lists an individual’s commitments of the current period by Rank, then Name (JSON and XML)', async () => {
      const res = await get(`/v4/individuals/${ctxIds.m1}/commitments`).expect(200);
      expect(ids(res)).toEqual(own);
      expect(res.headers['x-total-count']).toBe('3');
      const xml = await get(`/v4/individuals/${ctxIds.m1}/commitments`).set('Accept', 'application/xml').expect(200);
      expect(xml.text).toContain('<ArrayOfCommitment xmlns="urn:pms:v4"');
      expect(((await codec.decodeXml(xml.text)) as { ID: string }[]).map((c) => Number(c.ID))).toEqual(own);
    });

    it('filters by period: a given one, 404 for an unknown one', async () => {
      const res = await get(`/v4/individuals/${ctxIds.m1}/commitments?period=${ctxIds.pastPeriod}`).expect(200);
      expect(ids(res)).toEqual([pastC]);
      await get(`/v4/individuals/${ctxIds.m1}/commitments?period=999999`).expect(404);
    });

    it('lists organization and department commitments; the wrong row type, unknown or foreign ids are 404', async () => {
      expect(ids(await get(`/v4/organizations/${site.orgId}/commitments`).expect(200))).toEqual([orgC]);
      expect(ids(await get(`/v4/departments/${ctxIds.d1}/commitments`).expect(200))).toEqual([deptC]);
      await get(`/v4/organizations/${ctxIds.d1}/commitments`).expect(404);
      await get(`/v4/departments/${site.orgId}/commitments`).expect(404);
      await get(`/v4/individuals/${randomUUID()}/commitments`).expect(404);
      await get(`/v4/organizations/${globex.orgId}/commitments`).expect(404);
      await get('/v4/departments/bad/commitments').expect(400);
    });

    it('lets every member of the site read commitments', async () => {
      const someone = await createPerson(t, site);
      await t.http().get(`/v4/individuals/${ctxIds.m1}/commitments`).set('Authorization', as(someone)).expect(200);
    });

    it('answers the dashboard levels of an individual: own, primary department, organization above it', async () => {
      expect(ids(await get(`/v4/dashboards/${ctxIds.m1}/commitments/individual`).expect(200))).toEqual(own);
      expect(ids(await get(`/v4/dashboards/${ctxIds.m2}/commitments/department`).expect(200))).toEqual([subC]);
      expect(ids(await get(`/v4/dashboards/${ctxIds.m2}/commitments/organization`).expect(200))).toEqual([orgC]);
      // the site administrator's primary unit is the root organization: no department level
      expect(ids(await get(`/v4/dashboards/${site.admin.individualId}/commitments/department`).expect(200))).toEqual([]);
    });

    it('answers the dashboard levels of a department: its live sub-units, their members, the organization above', async () => {
      expect(ids(await get(`/v4/dashboards/${ctxIds.d1}/commitments/department`).expect(200)).sort()).toEqual([deptC, subC].sort());
      expect(ids(await get(`/v4/dashboards/${ctxIds.d1}/commitments/individual`).expect(200)).sort()).toEqual([...own, subMemberC].sort());
      expect(ids(await get(`/v4/dashboards/${ctxIds.d2}/commitments/individual`).expect(200))).toEqual([subMemberC]);
      expect(ids(await get(`/v4/dashboards/${ctxIds.d2}/commitments/organization`).expect(200))).toEqual([orgC]);
    });

    it('answers the dashboard levels of an organization, in XML too', async () => {
      expect(ids(await get(`/v4/dashboards/${site.orgId}/commitments/organization`).expect(200))).toEqual([orgC]);
      expect(ids(await get(`/v4/dashboards/${site.orgId}/commitments/department`).expect(200)).sort()).toEqual([deptC, subC].sort());
      const xml = await get(`/v4/dashboards/${site.orgId}/commitments/individual`).set('Accept', 'application/xml').expect(200);
      expect(xml.text).toContain('<ArrayOfCommitment');
      expect(((await codec.decodeXml(xml.text)) as { ID: string }[]).map((c) => Number(c.ID)).sort()).toEqual([...own, subMemberC].sort());
    });

    it('answers 400 for an unknown type, 404 for an unknown or foreign ancestor, and honours period', async () => {
      const res = await get(`/v4/dashboards/${site.orgId}/commitments/team`).expect(400);
      expect(res.body.errors).toEqual([{ field: 'type', message: 'type must be one of organization, department, individual' }]);
      await get(`/v4/dashboards/${randomUUID()}/commitments/individual`).expect(404);
      await get(`/v4/dashboards/${globex.orgId}/commitments/organization`).expect(404);
      await get('/v4/dashboards/nope/commitments/individual').expect(400);
      expect(ids(await get(`/v4/dashboards/${ctxIds.m1}/commitments/individual?period=${ctxIds.pastPeriod}`).expect(200))).toEqual([pastC]);
      await get(`/v4/dashboards/${ctxIds.m1}/commitments/individual?period=999999`).expect(404);
    });
  });

  describe('PUT /v4/commitments/{id}', () => {
    it('updates; Type and AncestorID are ignored; absent optional fields keep their value; reopening clears CompletedDate', async () => {
      const c = await post(report, body('individual', report.individualId, { Description: 'keep', DueDate: '2026-06-01T00:00:00Z', Rank: 3 })).expect(200);
      const done = await t
        .http()
        .put(`/v4/commitments/${c.body.ID}`)
        .set('Authorization', as(report))
        .send({ ID: c.body.ID, Type: 'organization', AncestorID: acme.orgId, PeriodID: past, Name: 'Renamed', Completed: true })
        .expect(200);
      expect(done.body).toMatchObject({
        Type: 'individual',
        AncestorID: report.individualId,
        PeriodID: past,
        Name: 'Renamed',
        Description: 'keep',
        Rank: 3,
        Completed: true,
      });
      expect(done.body.DueDate).toBe('2026-06-01T00:00:00.000+00:00');
      expect(done.body.CompletedDate).toMatch(ISO);
      const again = await t
        .http()
        .put(`/v4/commitments/${c.body.ID}`)
        .set('Authorization', as(report))
        .send({ ID: c.body.ID, PeriodID: past, Name: 'Renamed' })
        .expect(200);
      expect(again.body.CompletedDate).toBe(done.body.CompletedDate);
      const reopened = await t
        .http()
        .put(`/v4/commitments/${c.body.ID}`)
        .set('Authorization', as(report))
        .send({ ID: c.body.ID, PeriodID: past, Name: 'Renamed', Completed: false, Description: null })
        .expect(200);
      expect(reopened.body).toMatchObject({ Completed: false, CompletedDate: null, Description: null });
    });

    it('accepts exactly the XML a client read back', async () => {
      const c = await post(deptManager, body('department', dept, { Description: 'Quota' })).expect(200);
      const list = await t.http().get(`/v4/departments/${dept}/commitments`).set('Authorization', as(deptManager)).set('Accept', 'application/xml').expect(200);
      const one = list.text.match(new RegExp(`<Commitment>(?:(?!</Commitment>).)*<ID>${c.body.ID}</ID>.*?</Commitment>`))![0];
      const xml = one
        .replace('<Commitment>', '<Commitment xmlns="urn:pms:v4" xmlns:i="http://www.w3.org/2001/XMLSchema-instance">')
        .replace('<Name>department commitment</Name>', '<Name>Beat quota</Name>');
      const res = await t
        .http()
        .put(`/v4/commitments/${c.body.ID}`)
        .set('Authorization', as(deptManager))
        .set('Content-Type', 'application/xml')
        .send(xml)
        .expect(200);
      expect(res.body).toEqual({ ...c.body, Name: 'Beat quota', Updated: expect.stringMatching(ISO) });
    });

    it('checks PeriodID only when the update moves the commitment to another period', async () => {
      const c = await post(report, body('individual', report.individualId)).expect(200);
      await expectPeriodCheckedOnlyWhenMoved(
        t,
        (periodId, name) =>
          t.http().put(`/v4/commitments/${c.body.ID}`).set('Authorization', as(report)).send({ ID: c.body.ID, PeriodID: periodId, Name: name }),
        { current, past, foreign: globexPeriod },
      );
    });

    it('answers 400 for missing Req fields, a mismatching ID and a foreign period; 404 unknown; 403 others; 412 stale', async () => {
      const c = await post(report, body('individual', report.individualId)).expect(200);
      const put = (who: TestPerson, b: object) => t.http().put(`/v4/commitments/${c.body.ID}`).set('Authorization', as(who)).send(b);
      const missing = await put(report, {}).expect(400);
      expect(missing.body.errors.map((e: { field: string }) => e.field).sort()).toEqual(['ID', 'Name', 'PeriodID']);
      await put(report, { ID: c.body.ID + 1, PeriodID: current, Name: 'X' }).expect(400);
      const p = await put(report, { ID: c.body.ID, PeriodID: globexPeriod, Name: 'X' }).expect(400);
      expect(p.body.errors).toEqual([expect.objectContaining({ field: 'PeriodID' })]);
      const f = await put(peer, { ID: c.body.ID, PeriodID: current, Name: 'X' }).expect(403);
      expect(f.body.type).toBe('urn:pms:problem:forbidden');
      await put(report, { ID: c.body.ID, PeriodID: current, Name: 'X' }).set('If-Match', '"stale"').expect(412);
      await t.http().put('/v4/commitments/999999').set('Authorization', as(acme.admin)).send({ ID: 999999, PeriodID: current, Name: 'X' }).expect(404);
      await t.http().put('/v4/commitments/abc').set('Authorization', as(acme.admin)).send({ ID: 1, PeriodID: current, Name: 'X' }).expect(400);
      const dc = await post(acme.admin, body('organization', acme.orgId)).expect(200);
      await t
        .http()
        .put(`/v4/commitments/${dc.body.ID}`)
        .set('Authorization', as(deptManager))
        .send({ ID: dc.body.ID, PeriodID: current, Name: 'X' })
        .expect(403);
    });
  });

  describe('DELETE /v4/commitments/{id}', () => {
    it('removes the commitment ({} in JSON, <Object/> in XML)', async () => {
      const a = await post(manager, body('individual', report.individualId)).expect(200);
      expect((await t.http().delete(`/v4/commitments/${a.body.ID}`).set('Authorization', as(manager)).expect(200)).body).toEqual({});
      await t.http().delete(`/v4/commitments/${a.body.ID}`).set('Authorization', as(manager)).expect(404);
      const listed = await t.http().get(`/v4/individuals/${report.individualId}/commitments`).set('Authorization', as(report)).expect(200);
      expect(ids(listed)).not.toContain(a.body.ID);
      const b = await post(deptManager, body('department', dept)).expect(200);
      const xml = await t.http().delete(`/v4/commitments/${b.body.ID}`).set('Authorization', as(deptManager)).set('Accept', 'application/xml').expect(200);
      expect(xml.text).toMatch(/<Object xmlns="urn:pms:v4"[^>]*\/>$/);
    });

    it('refuses others (403), a stale If-Match (412), malformed ids (400)', async () => {
      const c = await post(report, body('individual', report.individualId)).expect(200);
      await t.http().delete(`/v4/commitments/${c.body.ID}`).set('Authorization', as(peer)).expect(403);
      await t.http().delete(`/v4/commitments/${c.body.ID}`).set('Authorization', as(report)).set('If-Match', '"x"').expect(412);
      await t.http().delete('/v4/commitments/1.5').set('Authorization', as(report)).expect(400);
    });
  });

  it('refuses every path on a site without PM with 403 pm-disabled', async () => {
    const paths: [string, string][] = [
      ['get', `/v4/dashboards/${off.orgId}/commitments/organization`],
      ['get', `/v4/individuals/${off.admin.individualId}/commitments`],
      ['get', `/v4/organizations/${off.orgId}/commitments`],
      ['get', `/v4/departments/${off.orgId}/commitments`],
      ['put', '/v4/commitments/1'],
      ['delete', '/v4/commitments/1'],
    ];
    for (const [method, path] of paths) {
      const req = method === 'get' ? t.http().get(path) : method === 'put' ? t.http().put(path).send({ ID: 1, PeriodID: 1, Name: 'x' }) : t.http().delete(path);
      const res = await req.set('Authorization', as(off.admin)).expect(403);
      expect(res.body.type).toBe('urn:pms:problem:pm-disabled');
    }
  });

  it('answers 404 for another site’s commitment on every path, leaving it unchanged', async () => {
    const id = globexCommitment.ID as number;
    await t.http().put(`/v4/commitments/${id}`).set('Authorization', as(acme.admin)).send({ ID: id, PeriodID: current, Name: 'Hijacked' }).expect(404);
    await t.http().delete(`/v4/commitments/${id}`).set('Authorization', as(acme.admin)).expect(404);
    const res = await t.http().get(`/v4/organizations/${globex.orgId}/commitments`).set('Authorization', as(globex.admin)).expect(200);
    expect(res.body).toEqual([globexCommitment]);
  });

  it('shows a department member the commitments of their primary department on the department level', async () => {
    const c = await post(deptManager, body('department', dept, { Name: 'Team goal' })).expect(200);
    const res = await t.http().get(`/v4/dashboards/${member.individualId}/commitments/department`).set('Authorization', as(subMember)).expect(200);
    expect(ids(res)).toContain(c.body.ID);
    expect(res.body.every((x: { AncestorID: string }) => x.AncestorID === dept)).toBe(true);
    const sub = await t.http().get(`/v4/dashboards/${subMember.individualId}/commitments/department`).set('Authorization', as(subMember)).expect(200);
    expect(ids(sub)).not.toContain(c.body.ID);
  });
});
