import { randomUUID } from 'node:crypto';
import { RequestContext } from '../../src/common/context/request-context.js';
import { TenantDb } from '../../src/database/tenant-db.js';
import { CommentEntity } from '../../src/database/entities/comment.entity.js';
import { IndividualEntity } from '../../src/database/entities/individual.entity.js';
import { OrganizationMemberEntity } from '../../src/database/entities/organization-member.entity.js';
import { bearer, startApp, TestApp, WireCodec } from './harness.js';
import { createPerson, createSite, TestPerson, TestSite } from '../factories/index.js';
import { addMember, createOrg, readMember, readOrg, tenant } from '../factories/organizations.js';

const codec = new WireCodec('urn:pms:v4');
const XMLNS = 'xmlns="urn:pms:v4" xmlns:i="http://www.w3.org/2001/XMLSchema-instance"';
const UNKNOWN = '1b4e28ba-2fa1-4d3b-a3f5-ef19b5a7633b';
const DATE = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}\+00:00$/;
const ORGANIZATION_FIELDS = [
  'Created',
  'CreatedBy',
  'Deleted',
  'DeletedByRef',
  'Description',
  'ExternalID',
  'ID',
  'ManagerID',
  'Name',
  'ParentID',
  'Rank',
  'RowType',
  'SiteID',
  'Updated',
  'UpdatedBy',
];

type Org = Record<string, unknown> & { ID: string; Name: string };

describe('/v4/departments and /v4/organizations', () => {
  let t: TestApp;
  let acme: TestSite;
  let globex: TestSite;
  let member: TestPerson;
  const names = (rows: Org[]) => rows.map((r) => r.Name);

  beforeAll(async () => {
    t = await startApp();
    acme = await createSite(t, { name: 'Acme' });
    globex = await createSite(t, { name: 'Globex' });
    member = await createPerson(t, acme, { firstName: 'Mia', lastName: 'Member' });
  });
  afterAll(async () => {
    await t.close();
  });

  const as = (p: TestPerson) => bearer(p.token);

  /** A fresh site with its own administrator, so ordering and counting tests see only their rows. */
  async function freshSite(): Promise<TestSite> {
    return createSite(t);
  }

  describe('GET /v4/departments', () => {
    it('lists the departments (not organizations) of the caller’s site by Rank, then Name, in JSON', async () => {
      const s = await freshSite();
      const b = await createOrg(t, s.siteId, { name: 'Bravo', rank: 1, parentId: s.orgId });
      await createOrg(t, s.siteId, { name: 'Alpha', rank: 2 });
      await createOrg(t, s.siteId, { name: 'Charlie', rank: 1 });
      await createOrg(t, s.siteId, { name: 'Holding', rowType: 4 });
      await createOrg(t, globex.siteId, { name: 'Foreign' });
      const res = await t.http().get('/v4/departments').set('Authorization', as(s.admin)).expect(200);
      expect(names(res.body)).toEqual(['Bravo', 'Charlie', 'Alpha']);
      expect(res.headers['x-total-count']).toBe('3');
      expect(res.body[0]).toEqual({
        ID: b.id,
        SiteID: s.siteId,
        ParentID: s.orgId,
        Name: 'Bravo',
        Description: null,
        RowType: 56,
        ManagerID: null,
        Rank: 1,
        ExternalID: null,
        Deleted: false,
        DeletedByRef: false,
        Created: expect.stringMatching(DATE),
        CreatedBy: null,
        Updated: expect.stringMatching(DATE),
        UpdatedBy: null,
      });
      expect(Object.keys(res.body[0])).toEqual([
        'ID',
        'SiteID',
        'ParentID',
        'Name',
        'Description',
        'RowType',
        'ManagerID',
        'Rank',
        'ExternalID',
        'Deleted',
        'DeletedByRef',
        'Created',
        'CreatedBy',
        'Updated',
        'UpdatedBy',
      ]);
    });

    it('answers XML: ArrayOfOrganization of Organization elements in ordinal order, i:nil for nulls', async () => {
      const s = await freshSite();
      const d = await createOrg(t, s.siteId, { name: 'Only <&> One', description: 'Text', managerId: s.admin.individualId });
      const res = await t.http().get('/v4/departments').set('Authorization', as(s.admin)).set('Accept', 'application/xml').expect(200);
      expect(res.headers['content-type']).toMatch(/^application\/xml/);
      expect(res.text).toContain(`<ArrayOfOrganization ${XMLNS}><Organization><Created>`);
      const inner = /<Organization>(.*)<\/Organization>/.exec(res.text)![1];
      expect(inner.match(/<([A-Za-z]+)[ >/]/g)!.map((m) => m.slice(1, -1))).toEqual(ORGANIZATION_FIELDS);
      expect(inner).toContain('<ParentID i:nil="true"/>');
      expect(await codec.decodeXml(res.text)).toEqual([
        expect.objectContaining({
          ID: d.id,
          SiteID: s.siteId,
          Name: 'Only <&> One',
          Description: 'Text',
          ManagerID: s.admin.individualId,
          ParentID: null,
          RowType: '56',
          Rank: '0',
          Deleted: 'false',
        }),
      ]);
    });

    it('filters with deleted=0 (default), 1 and 2, and refuses other values', async () => {
      const s = await freshSite();
      await createOrg(t, s.siteId, { name: 'Live' });
      const gone = await createOrg(t, s.siteId, { name: 'Gone' });
      await t.http().delete(`/v4/departments/${gone.id}`).set('Authorization', as(s.admin)).expect(200);
      const get = (q: string) => t.http().get(`/v4/departments${q}`).set('Authorization', as(s.admin));
      expect(names((await get('').expect(200)).body)).toEqual(['Live']);
      expect(names((await get('?deleted=0').expect(200)).body)).toEqual(['Live']);
      expect(names((await get('?deleted=1').expect(200)).body)).toEqual(['Gone']);
      expect(names((await get('?deleted=2').expect(200)).body)).toEqual(['Gone', 'Live']);
      const bad = await get('?deleted=3').expect(400);
      expect(bad.body.errors).toEqual([{ field: 'deleted', message: expect.stringContaining('0, 1, 2') }]);
      await get('?deleted=yes').expect(400);
    });

    it('pages with limit/offset, X-Total-Count and Link', async () => {
      const s = await freshSite();
      for (const n of ['A', 'B', 'C']) await createOrg(t, s.siteId, { name: n });
      const res = await t.http().get('/v4/departments?limit=2').set('Authorization', as(s.admin)).expect(200);
      expect(names(res.body)).toEqual(['A', 'B']);
      expect(res.headers['x-total-count']).toBe('3');
      expect(res.headers.link).toBe('</v4/departments?limit=2&offset=2>; rel="next"');
      const last = await t.http().get('/v4/departments?limit=2&offset=2').set('Authorization', as(s.admin)).expect(200);
      expect(names(last.body)).toEqual(['C']);
      expect(last.headers.link).toBeUndefined();
    });

    it('is readable by every member of the site, and needs a token', async () => {
      await t.http().get('/v4/departments').set('Authorization', as(member)).expect(200);
      await t.http().get('/v4/departments').expect(401);
    });
  });

  describe('GET /v4/sites/{siteid}/departments', () => {
    it('lists the own site’s departments in JSON and XML', async () => {
      const s = await freshSite();
      await createOrg(t, s.siteId, { name: 'Sales' });
      const res = await t.http().get(`/v4/sites/${s.siteId}/departments`).set('Authorization', as(s.admin)).expect(200);
      expect(names(res.body)).toEqual(['Sales']);
      const xml = await t.http().get(`/v4/sites/${s.siteId}/departments?deleted=2`).set('Authorization', as(s.admin)).set('Accept', 'text/xml').expect(200);
      expect(xml.text).toContain(`<ArrayOfOrganization ${XMLNS}>`);
      expect(await codec.decodeXml(xml.text)).toEqual([expect.objectContaining({ Name: 'Sales', SiteID: s.siteId })]);
    });

    it('refuses another site with 403, lets a global administrator list it, and 404s an unknown site', async () => {
      const s = await freshSite();
      await createOrg(t, s.siteId, { name: 'Hidden' });
      const res = await t.http().get(`/v4/sites/${s.siteId}/departments`).set('Authorization', as(acme.admin)).expect(403);
      expect(res.body.type).toBe('urn:pms:problem:forbidden');
      const global = await t.http().get(`/v4/sites/${s.siteId}/departments`).set('Authorization', bearer(t.adminToken)).expect(200);
      expect(names(global.body)).toEqual(['Hidden']);
      await t.http().get(`/v4/sites/${UNKNOWN}/departments`).set('Authorization', bearer(t.adminToken)).expect(404);
      await t.http().get('/v4/sites/nope/departments').set('Authorization', bearer(t.adminToken)).expect(400);
    });
  });

  describe('POST /v4/departments', () => {
    it('creates a department from JSON with defaults, ignoring read-only fields', async () => {
      const res = await t
        .http()
        .post('/v4/departments')
        .set('Authorization', as(acme.admin))
        .send({
          Name: '  Engineering  ',
          ParentID: acme.orgId,
          ManagerID: member.individualId,
          Description: 'Builds things',
          SiteID: globex.siteId,
          Deleted: true,
          DeletedByRef: true,
          Created: '2001-01-01T00:00:00Z',
          CreatedBy: UNKNOWN,
          Unknown: 'x',
        })
        .expect(200);
      expect(res.body).toMatchObject({
        SiteID: acme.siteId,
        ParentID: acme.orgId,
        Name: 'Engineering',
        Description: 'Builds things',
        RowType: 56,
        ManagerID: member.individualId,
        Rank: 0,
        Deleted: false,
        DeletedByRef: false,
        CreatedBy: acme.admin.individualId,
        UpdatedBy: acme.admin.individualId,
      });
      expect(res.body.Created.startsWith('2001')).toBe(false);
      expect(res.headers.etag).toBeDefined();
      const read = await t.http().get(`/v4/departments/${res.body.ID}`).set('Authorization', as(member)).expect(200);
      expect(read.body).toEqual(res.body);
    });

    it('creates from XML (any element order, i:nil) and answers XML', async () => {
      const res = await t
        .http()
        .post('/v4/departments')
        .set('Authorization', as(acme.admin))
        .set('Content-Type', 'application/xml')
        .set('Accept', 'application/xml')
        .send(
          `<Organization ${XMLNS}><Rank>7</Rank><Name>Finance</Name><ManagerID i:nil="true"/><ID i:nil="true"/><ParentID>${acme.orgId}</ParentID><Description i:nil="true"/><RowType>56</RowType></Organization>`,
        )
        .expect(200);
      expect(res.text).toMatch(/^<\?xml[^>]+\?><Organization xmlns="urn:pms:v4"/);
      const org = (await codec.decodeXml(res.text)) as Record<string, string | null>;
      expect(org).toMatchObject({ Name: 'Finance', Rank: '7', ParentID: acme.orgId, ManagerID: null, Description: null, RowType: '56', SiteID: acme.siteId });
      const stored = await readOrg(t, org.ID!);
      expect(stored).toMatchObject({ name: 'Finance', rank: 7, parentId: acme.orgId, siteId: acme.siteId });
    });

    it('creates an organization with RowType 4, which /organizations lists', async () => {
      const s = await freshSite();
      const res = await t.http().post('/v4/departments').set('Authorization', as(s.admin)).send({ Name: 'Subsidiary', RowType: 4 }).expect(200);
      expect(res.body.RowType).toBe(4);
      const orgs = await t.http().get('/v4/organizations').set('Authorization', as(s.admin)).expect(200);
      expect(names(orgs.body)).toEqual(['Root Org', 'Subsidiary']);
      const depts = await t.http().get('/v4/departments').set('Authorization', as(s.admin)).expect(200);
      expect(depts.body).toEqual([]);
    });

    it('accepts a 255-character name and treats the all-zero guid as no parent', async () => {
      const res = await t
        .http()
        .post('/v4/departments')
        .set('Authorization', as(acme.admin))
        .send({ Name: 'n'.repeat(255), ParentID: '00000000-0000-0000-0000-000000000000', ID: '00000000-0000-0000-0000-000000000000' })
        .expect(200);
      expect(res.body.Name).toHaveLength(255);
      expect(res.body.ParentID).toBeNull();
      expect(res.body.ID).not.toBe('00000000-0000-0000-0000-000000000000');
    });

    it.each([
      ['Name missing', {}, 'Name', 'Name is required'],
      ['Name null', { Name: null }, 'Name', 'Name is required'],
      ['Name blank', { Name: '   ' }, 'Name', 'Name must not be empty'],
      ['Name 256 characters', { Name: 'x'.repeat(256) }, 'Name', 'Name must be at most 255 characters'],
      ['Name not a string', { Name: 12 }, 'Name', 'Name must be a string'],
      ['Description 10,001 characters', { Name: 'D', Description: 'd'.repeat(10_001) }, 'Description', 'Description must be at most 10000 characters'],
      ['RowType outside 4, 56', { Name: 'D', RowType: 5 }, 'RowType', 'RowType must be one of 4, 56'],
      ['RowType not a number', { Name: 'D', RowType: 'department' }, 'RowType', 'RowType must be a whole number (int32)'],
      ['Rank not a number', { Name: 'D', Rank: '1.5' }, 'Rank', 'Rank must be a whole number (int32)'],
      ['ParentID not a guid', { Name: 'D', ParentID: 'abc' }, 'ParentID', expect.stringContaining('UUID')],
      ['ManagerID not a guid', { Name: 'D', ManagerID: 42 }, 'ManagerID', expect.stringContaining('UUID')],
      ['ID not a guid', { Name: 'D', ID: 'x' }, 'ID', expect.stringContaining('UUID')],
    ])('answers 400 for %s', async (_label, body, field, message) => {
      const before = await t.http().get('/v4/departments?deleted=2').set('Authorization', as(acme.admin));
      const res = await t.http().post('/v4/departments').set('Authorization', as(acme.admin)).send(body).expect(400);
      expect(res.body.type).toBe('urn:pms:problem:validation-failed');
      expect(res.body.errors).toEqual([{ field, message }]);
      const after = await t.http().get('/v4/departments?deleted=2').set('Authorization', as(acme.admin));
      expect(after.headers['x-total-count']).toBe(before.headers['x-total-count']);
    });

    it('lists every failing field in one 400, also for XML bodies', async () => {
      const res = await t
        .http()
        .post('/v4/departments')
        .set('Authorization', as(acme.admin))
        .set('Content-Type', 'text/xml')
        .send(`<Organization ${XMLNS}><RowType>x</RowType><Name>${'y'.repeat(256)}</Name></Organization>`)
        .expect(400);
      expect(res.body.errors.map((e: { field: string }) => e.field).sort()).toEqual(['Name', 'RowType']);
    });

    it('answers 400 when ParentID or ManagerID name nothing live in the site', async () => {
      const foreignDept = await createOrg(t, globex.siteId);
      const deletedDept = await createOrg(t, acme.siteId, { name: 'Old' });
      await t.http().delete(`/v4/departments/${deletedDept.id}`).set('Authorization', as(acme.admin)).expect(200);
      const cases: [Record<string, unknown>, string, RegExp][] = [
        [{ ParentID: UNKNOWN }, 'ParentID', /names no organization or department of this site/],
        [{ ParentID: foreignDept.id }, 'ParentID', /names no organization or department of this site/],
        [{ ParentID: deletedDept.id }, 'ParentID', /names a deleted department/],
        [{ ManagerID: UNKNOWN }, 'ManagerID', /names no individual of this site/],
        [{ ManagerID: globex.admin.individualId }, 'ManagerID', /names no individual of this site/],
      ];
      for (const [body, field, message] of cases) {
        const res = await t
          .http()
          .post('/v4/departments')
          .set('Authorization', as(acme.admin))
          .send({ Name: 'Refused', ...body })
          .expect(400);
        expect(res.body.errors).toEqual([{ field, message: expect.stringMatching(message) }]);
      }
      const both = await t
        .http()
        .post('/v4/departments')
        .set('Authorization', as(acme.admin))
        .send({ Name: 'Refused', ParentID: UNKNOWN, ManagerID: UNKNOWN })
        .expect(400);
      expect(both.body.errors.map((e: { field: string }) => e.field)).toEqual(['ParentID', 'ManagerID']);
      const listed = await t.http().get('/v4/departments?deleted=2').set('Authorization', as(acme.admin));
      expect(names(listed.body)).not.toContain('Refused');
    });

    it('answers 400 for a deleted manager', async () => {
      const s = await freshSite();
      const gone = await createPerson(t, s);
      await tenant(t, s.siteId).individuals.updateWhere({ id: gone.individualId }, { deleted: true });
      const res = await t.http().post('/v4/departments').set('Authorization', as(s.admin)).send({ Name: 'X', ManagerID: gone.individualId }).expect(400);
      expect(res.body.errors).toEqual([{ field: 'ManagerID', message: expect.stringMatching(/names a deleted individual/) }]);
    });

    it('uses a supplied ID, and answers 409 id-taken when any site already uses it (leaving that record alone)', async () => {
      const id = randomUUID();
      const res = await t.http().post('/v4/departments').set('Authorization', as(acme.admin)).send({ ID: id, Name: 'Fixed' }).expect(200);
      expect(res.body.ID).toBe(id);
      const again = await t.http().post('/v4/departments').set('Authorization', as(acme.admin)).send({ ID: id, Name: 'Again' }).expect(409);
      expect(again.body.type).toBe('urn:pms:problem:id-taken');
      const foreign = await createOrg(t, globex.siteId, { name: 'Globex Sales' });
      const hijack = await t.http().post('/v4/departments').set('Authorization', as(acme.admin)).send({ ID: foreign.id, Name: 'Hijack' }).expect(409);
      expect(hijack.body.type).toBe('urn:pms:problem:id-taken');
      expect(await readOrg(t, foreign.id)).toMatchObject({ siteId: globex.siteId, name: 'Globex Sales' });
    });

    it('refuses a non-administrator with 403 admin-required and creates nothing', async () => {
      const res = await t.http().post('/v4/departments').set('Authorization', as(member)).send({ Name: 'Shadow IT' }).expect(403);
      expect(res.body.type).toBe('urn:pms:problem:admin-required');
      const listed = await t.http().get('/v4/departments?deleted=2').set('Authorization', as(acme.admin));
      expect(names(listed.body)).not.toContain('Shadow IT');
    });
  });

  describe('GET /v4/departments/{id}', () => {
    it('reads a department in JSON and XML with the same ETag', async () => {
      const d = await createOrg(t, acme.siteId, { name: 'Legal', description: 'Contracts', rank: 3 });
      const res = await t.http().get(`/v4/departments/${d.id}`).set('Authorization', as(member)).expect(200);
      expect(res.body).toMatchObject({ ID: d.id, Name: 'Legal', Description: 'Contracts', Rank: 3, RowType: 56 });
      const xml = await t.http().get(`/v4/departments/${d.id}`).set('Authorization', as(member)).set('Accept', 'application/xml').expect(200);
      expect(xml.text).toMatch(/^<\?xml[^>]+\?><Organization xmlns="urn:pms:v4" xmlns:i="http:\/\/www.w3.org\/2001\/XMLSchema-instance"><Created>/);
      expect(await codec.decodeXml(xml.text)).toMatchObject({ ID: d.id, Name: 'Legal', Description: 'Contracts', Rank: '3' });
      expect(xml.headers.etag).toBe(res.headers.etag);
    });

    it('reads an organization too', async () => {
      const res = await t.http().get(`/v4/departments/${acme.orgId}`).set('Authorization', as(member)).expect(200);
      expect(res.body).toMatchObject({ ID: acme.orgId, RowType: 4, Name: 'Root Org' });
    });

    it('answers 404 for an unknown id or another site’s record, 400 for a malformed id', async () => {
      const foreign = await createOrg(t, globex.siteId);
      const res = await t.http().get(`/v4/departments/${UNKNOWN}`).set('Authorization', as(member)).expect(404);
      expect(res.body.type).toBe('urn:pms:problem:not-found');
      await t.http().get(`/v4/departments/${foreign.id}`).set('Authorization', as(acme.admin)).expect(404);
      await t.http().get(`/v4/departments/${globex.orgId}`).set('Authorization', as(acme.admin)).expect(404);
      const bad = await t.http().get('/v4/departments/123').set('Authorization', as(member)).expect(400);
      expect(bad.body.errors).toEqual([{ field: 'id', message: 'id must be a UUID' }]);
    });
  });

  describe('GET /v4/organizations and /v4/organizations/{id}', () => {
    it('lists organizations only (RowType 4), in JSON and XML', async () => {
      const s = await freshSite();
      await createOrg(t, s.siteId, { name: 'Dept' });
      await createOrg(t, s.siteId, { name: 'Another Org', rowType: 4, rank: -1 });
      const res = await t.http().get('/v4/organizations').set('Authorization', as(s.admin)).expect(200);
      expect(names(res.body)).toEqual(['Another Org', 'Root Org']);
      const xml = await t.http().get('/v4/organizations').set('Authorization', as(s.admin)).set('Accept', 'application/xml').expect(200);
      expect(xml.text).toContain(`<ArrayOfOrganization ${XMLNS}><Organization>`);
      expect(((await codec.decodeXml(xml.text)) as Org[]).map((o) => o.RowType)).toEqual(['4', '4']);
    });

    it('reads an organization; a department’s id, an unknown id and another site’s organization are 404', async () => {
      const d = await createOrg(t, acme.siteId);
      const res = await t.http().get(`/v4/organizations/${acme.orgId}`).set('Authorization', as(member)).expect(200);
      expect(res.body).toMatchObject({ ID: acme.orgId, RowType: 4 });
      const xml = await t.http().get(`/v4/organizations/${acme.orgId}`).set('Authorization', as(member)).set('Accept', 'application/xml').expect(200);
      expect(xml.text).toContain('<Organization xmlns="urn:pms:v4"');
      const notOrg = await t.http().get(`/v4/organizations/${d.id}`).set('Authorization', as(member)).expect(404);
      expect(notOrg.body.detail).toBe(`Organization ${d.id} was not found`);
      await t.http().get(`/v4/organizations/${UNKNOWN}`).set('Authorization', as(member)).expect(404);
      await t.http().get(`/v4/organizations/${globex.orgId}`).set('Authorization', as(member)).expect(404);
      await t.http().get('/v4/organizations/zzz').set('Authorization', as(member)).expect(400);
    });
  });

  describe('PUT /v4/departments/{id}', () => {
    it('updates from JSON; absent optional fields keep their value, null clears them', async () => {
      const d = await createOrg(t, acme.siteId, { name: 'Ops', description: 'Keeps lights on', rank: 4, managerId: member.individualId, parentId: acme.orgId });
      const res = await t
        .http()
        .put(`/v4/departments/${d.id}`)
        .set('Authorization', as(acme.admin))
        .send({ ID: d.id, Name: 'Operations', Description: null, SiteID: globex.siteId, Deleted: true })
        .expect(200);
      expect(res.body).toMatchObject({
        ID: d.id,
        SiteID: acme.siteId,
        Name: 'Operations',
        Description: null,
        Rank: 4,
        ManagerID: member.individualId,
        ParentID: acme.orgId,
        Deleted: false,
        UpdatedBy: acme.admin.individualId,
      });
      const cleared = await t
        .http()
        .put(`/v4/departments/${d.id}`)
        .set('Authorization', as(acme.admin))
        .send({ ID: d.id, Name: 'Operations', Rank: null, ManagerID: null, ParentID: null, RowType: null })
        .expect(200);
      expect(cleared.body).toMatchObject({ Rank: 0, ManagerID: null, ParentID: null, RowType: 56 });
    });

    it('accepts the whole XML record a client read back, read-only fields included, and answers XML', async () => {
      const d = await createOrg(t, acme.siteId, { name: 'Support', rank: 2 });
      const read = await t.http().get(`/v4/departments/${d.id}`).set('Authorization', as(acme.admin)).set('Accept', 'application/xml').expect(200);
      const body = read.text.replace('<Name>Support</Name>', '<Name>Customer Support</Name>').replace('<RowType>56</RowType>', '<RowType>4</RowType>');
      const res = await t
        .http()
        .put(`/v4/departments/${d.id}`)
        .set('Authorization', as(acme.admin))
        .set('Content-Type', 'application/xml')
        .set('Accept', 'application/xml')
        .send(body)
        .expect(200);
      expect(await codec.decodeXml(res.text)).toMatchObject({ ID: d.id, Name: 'Customer Support', RowType: '4', Rank: '2' });
    });

    it('answers 400 for a missing or different body ID and for invalid fields', async () => {
      const d = await createOrg(t, acme.siteId, { name: 'Stable' });
      const put = (body: object) => t.http().put(`/v4/departments/${d.id}`).set('Authorization', as(acme.admin)).send(body);
      expect((await put({ Name: 'X' }).expect(400)).body.errors).toEqual([{ field: 'ID', message: 'ID is required' }]);
      expect((await put({ ID: UNKNOWN, Name: 'X' }).expect(400)).body.errors[0].field).toBe('ID');
      expect((await put({ ID: d.id }).expect(400)).body.errors).toEqual([{ field: 'Name', message: 'Name is required' }]);
      expect((await put({ ID: d.id, Name: 'x'.repeat(256) }).expect(400)).body.errors[0].field).toBe('Name');
      expect((await put({ ID: d.id, Name: 'X', RowType: 39 }).expect(400)).body.errors[0].field).toBe('RowType');
      expect((await put({ ID: d.id, Name: 'X', ParentID: UNKNOWN }).expect(400)).body.errors[0].field).toBe('ParentID');
      expect((await put({ ID: d.id, Name: 'X', ManagerID: UNKNOWN }).expect(400)).body.errors[0].field).toBe('ManagerID');
      expect((await readOrg(t, d.id))!.name).toBe('Stable');
    });

    it('answers 409 cycle when the new parent is the record itself or lies under it', async () => {
      const top = await createOrg(t, acme.siteId, { name: 'Top' });
      const mid = await createOrg(t, acme.siteId, { name: 'Mid', parentId: top.id });
      const low = await createOrg(t, acme.siteId, { name: 'Low', parentId: mid.id });
      const self = await t
        .http()
        .put(`/v4/departments/${top.id}`)
        .set('Authorization', as(acme.admin))
        .send({ ID: top.id, Name: 'Top', ParentID: top.id })
        .expect(409);
      expect(self.body.type).toBe('urn:pms:problem:cycle');
      const deep = await t
        .http()
        .put(`/v4/departments/${top.id}`)
        .set('Authorization', as(acme.admin))
        .send({ ID: top.id, Name: 'Top', ParentID: low.id })
        .expect(409);
      expect(deep.body.type).toBe('urn:pms:problem:cycle');
      expect((await readOrg(t, top.id))!.parentId).toBeNull();
      // Moving the low one to the top is fine.
      await t.http().put(`/v4/departments/${low.id}`).set('Authorization', as(acme.admin)).send({ ID: low.id, Name: 'Low', ParentID: top.id }).expect(200);
    });

    it('lets the manager (of the record or one above it) change name, description and rank, but not parent, manager or type', async () => {
      const boss = await createPerson(t, acme, { firstName: 'Bea', lastName: 'Boss' });
      const parent = await createOrg(t, acme.siteId, { name: 'Division', managerId: boss.individualId });
      const d = await createOrg(t, acme.siteId, { name: 'Team', parentId: parent.id, managerId: member.individualId });
      const own = await t
        .http()
        .put(`/v4/departments/${d.id}`)
        .set('Authorization', as(member))
        .send({ ID: d.id, Name: 'Team A', Rank: 5, ParentID: parent.id })
        .expect(200);
      expect(own.body).toMatchObject({ Name: 'Team A', Rank: 5, UpdatedBy: member.individualId });
      await t.http().put(`/v4/departments/${d.id}`).set('Authorization', as(boss)).send({ ID: d.id, Name: 'Team B' }).expect(200);
      for (const change of [{ ParentID: acme.orgId }, { ManagerID: boss.individualId }, { RowType: 4 }]) {
        const res = await t
          .http()
          .put(`/v4/departments/${d.id}`)
          .set('Authorization', as(member))
          .send({ ID: d.id, Name: 'Team C', ...change })
          .expect(403);
        expect(res.body.type).toBe('urn:pms:problem:admin-required');
        expect(res.body.detail).toContain(Object.keys(change)[0]);
      }
      const outsider = await createPerson(t, acme);
      const res = await t.http().put(`/v4/departments/${d.id}`).set('Authorization', as(outsider)).send({ ID: d.id, Name: 'Mine' }).expect(403);
      expect(res.body.type).toBe('urn:pms:problem:forbidden');
      // The manager may not change the division above (managed by someone else).
      await t.http().put(`/v4/departments/${parent.id}`).set('Authorization', as(member)).send({ ID: parent.id, Name: 'Mine' }).expect(403);
      expect(await readOrg(t, d.id)).toMatchObject({ name: 'Team B', parentId: parent.id, managerId: member.individualId, rowType: 56 });
    });

    it('keeps a manager who was deleted since, when the client sends the record back unchanged', async () => {
      const s = await freshSite();
      const mgr = await createPerson(t, s);
      const d = await createOrg(t, s.siteId, { name: 'Kept', managerId: mgr.individualId });
      await tenant(t, s.siteId).individuals.updateWhere({ id: mgr.individualId }, { deleted: true });
      const read = await t.http().get(`/v4/departments/${d.id}`).set('Authorization', as(s.admin)).expect(200);
      const res = await t
        .http()
        .put(`/v4/departments/${d.id}`)
        .set('Authorization', as(s.admin))
        .send({ ...read.body, Name: 'Kept 2' })
        .expect(200);
      expect(res.body).toMatchObject({ Name: 'Kept 2', ManagerID: mgr.individualId });
    });

    it('honours If-Match: 412 for a stale ETag, 200 for the current one', async () => {
      const d = await createOrg(t, acme.siteId, { name: 'Etag' });
      const read = await t.http().get(`/v4/departments/${d.id}`).set('Authorization', as(acme.admin)).expect(200);
      await t.http().put(`/v4/departments/${d.id}`).set('Authorization', as(acme.admin)).set('If-Match', '"stale"').send({ ID: d.id, Name: 'E2' }).expect(412);
      await t
        .http()
        .put(`/v4/departments/${d.id}`)
        .set('Authorization', as(acme.admin))
        .set('If-Match', read.headers.etag)
        .send({ ID: d.id, Name: 'E2' })
        .expect(200);
      await t
        .http()
        .put(`/v4/departments/${d.id}`)
        .set('Authorization', as(acme.admin))
        .set('If-Match', read.headers.etag)
        .send({ ID: d.id, Name: 'E3' })
        .expect(412);
    });

    it('answers 409 deleted for a deleted record, 404 for an unknown id or another site’s record (unchanged)', async () => {
      const d = await createOrg(t, acme.siteId, { name: 'Doomed' });
      await t.http().delete(`/v4/departments/${d.id}`).set('Authorization', as(acme.admin)).expect(200);
      const res = await t.http().put(`/v4/departments/${d.id}`).set('Authorization', as(acme.admin)).send({ ID: d.id, Name: 'Revived?' }).expect(409);
      expect(res.body.type).toBe('urn:pms:problem:deleted');
      await t.http().put(`/v4/departments/${UNKNOWN}`).set('Authorization', as(acme.admin)).send({ ID: UNKNOWN, Name: 'X' }).expect(404);
      const foreign = await createOrg(t, globex.siteId, { name: 'Theirs' });
      await t.http().put(`/v4/departments/${foreign.id}`).set('Authorization', as(acme.admin)).send({ ID: foreign.id, Name: 'Mine' }).expect(404);
      expect(await readOrg(t, foreign.id)).toMatchObject({ name: 'Theirs', siteId: globex.siteId });
    });
  });

  describe('DELETE /v4/departments/{id} and PUT /v4/departments/{id}/undelete', () => {
    it('deletes (answering {} and <Object/>), still reads the record, and is idempotent', async () => {
      const d = await createOrg(t, acme.siteId, { name: 'Temp' });
      const res = await t.http().delete(`/v4/departments/${d.id}`).set('Authorization', as(acme.admin)).expect(200);
      expect(res.body).toEqual({});
      const read = await t.http().get(`/v4/departments/${d.id}`).set('Authorization', as(member)).expect(200);
      expect(read.body).toMatchObject({ Deleted: true, DeletedByRef: false });
      const again = await t.http().delete(`/v4/departments/${d.id}`).set('Authorization', as(acme.admin)).set('Accept', 'application/xml').expect(200);
      expect(again.text).toMatch(/<Object xmlns="urn:pms:v4"[^>]*\/>$/);
      expect((await readOrg(t, d.id))!.deleted).toBe(true);
    });

    it('takes sub-departments, memberships and comments down by reference, and undelete restores exactly those', async () => {
      const s = await freshSite();
      const alice = await createPerson(t, s, { firstName: 'Alice', lastName: 'A' });
      const bob = await createPerson(t, s, { firstName: 'Bob', lastName: 'B' });
      const top = await createOrg(t, s.siteId, { name: 'Top' });
      const child = await createOrg(t, s.siteId, { name: 'Child', parentId: top.id });
      const grandchild = await createOrg(t, s.siteId, { name: 'Grandchild', parentId: child.id });
      const gone = await createOrg(t, s.siteId, { name: 'Gone before', parentId: top.id });
      const goneChild = await createOrg(t, s.siteId, { name: 'Under gone', parentId: gone.id });
      const mTop = await addMember(t, s.siteId, alice.individualId, top.id);
      const mGrand = await addMember(t, s.siteId, bob.individualId, grandchild.id);
      const mGoneChild = await addMember(t, s.siteId, alice.individualId, goneChild.id);
      const mBobTop = await addMember(t, s.siteId, bob.individualId, top.id);
      const db = t.app.get(TenantDb);
      const comment = await db
        .repo(RequestContext.system(s.siteId), CommentEntity)
        .insert({ ancestorId: child.id, ancestorType: 'departments', body: 'Nice team', authorId: alice.individualId, deleted: false, deletedByRef: false });
      await t.http().delete(`/v4/departments/${gone.id}`).set('Authorization', as(s.admin)).expect(200);
      expect(await readOrg(t, goneChild.id)).toMatchObject({ deleted: true, deletedByRef: true });
      expect(await readMember(t, mGoneChild.id)).toMatchObject({ deletedByRef: true });

      // Bob is deleted on his own (as the individual module does it): his memberships go down by reference.
      await tenant(t, s.siteId).individuals.updateWhere({ id: bob.individualId }, { deleted: true });
      await tenant(t, s.siteId).members.updateWhere({ individualId: bob.individualId }, { deletedByRef: true });

      await t.http().delete(`/v4/departments/${top.id}`).set('Authorization', as(s.admin)).expect(200);
      expect(await readOrg(t, top.id)).toMatchObject({ deleted: true, deletedByRef: false });
      expect(await readOrg(t, child.id)).toMatchObject({ deleted: true, deletedByRef: true });
      expect(await readOrg(t, grandchild.id)).toMatchObject({ deleted: true, deletedByRef: true });
      expect(await readOrg(t, gone.id)).toMatchObject({ deleted: true, deletedByRef: false });
      expect(await readMember(t, mTop.id)).toMatchObject({ deletedByRef: true });
      expect(await t.ds.getRepository(CommentEntity).findOneBy({ id: comment.id })).toMatchObject({ deleted: true, deletedByRef: true });
      const deletedList = await t.http().get('/v4/departments?deleted=1').set('Authorization', as(s.admin)).expect(200);
      expect(names(deletedList.body)).toEqual(['Child', 'Gone before', 'Grandchild', 'Top', 'Under gone']);
      expect(deletedList.body.find((o: Org) => o.Name === 'Child')).toMatchObject({ Deleted: true, DeletedByRef: true });
      const live = await t.http().get('/v4/departments').set('Authorization', as(s.admin)).expect(200);
      expect(live.body).toEqual([]);

      const res = await t.http().put(`/v4/departments/${top.id}/undelete`).set('Authorization', as(s.admin)).expect(200);
      expect(res.body).toMatchObject({ ID: top.id, Name: 'Top', Deleted: false, DeletedByRef: false });
      expect(await readOrg(t, child.id)).toMatchObject({ deleted: false, deletedByRef: false });
      expect(await readOrg(t, grandchild.id)).toMatchObject({ deleted: false, deletedByRef: false });
      expect(await readOrg(t, gone.id)).toMatchObject({ deleted: true, deletedByRef: false });
      expect(await readOrg(t, goneChild.id)).toMatchObject({ deleted: true, deletedByRef: true });
      expect(await readMember(t, mTop.id)).toMatchObject({ deletedByRef: false });
      expect(await readMember(t, mGoneChild.id)).toMatchObject({ deletedByRef: true });
      // Bob is still deleted: his memberships stay down.
      expect(await readMember(t, mGrand.id)).toMatchObject({ deletedByRef: true });
      expect(await readMember(t, mBobTop.id)).toMatchObject({ deletedByRef: true });
      expect(await t.ds.getRepository(CommentEntity).findOneBy({ id: comment.id })).toMatchObject({ deleted: false, deletedByRef: false });
    });

    it('undelete is idempotent and answers the record in JSON and XML', async () => {
      const d = await createOrg(t, acme.siteId, { name: 'Phoenix' });
      const live = await t.http().put(`/v4/departments/${d.id}/undelete`).set('Authorization', as(acme.admin)).expect(200);
      expect(live.body).toMatchObject({ ID: d.id, Deleted: false });
      await t.http().delete(`/v4/departments/${d.id}`).set('Authorization', as(acme.admin)).expect(200);
      const xml = await t.http().put(`/v4/departments/${d.id}/undelete`).set('Authorization', as(acme.admin)).set('Accept', 'application/xml').expect(200);
      expect(xml.text).toContain('<Organization xmlns="urn:pms:v4"');
      expect(await codec.decodeXml(xml.text)).toMatchObject({ ID: d.id, Name: 'Phoenix', Deleted: 'false' });
      const again = await t.http().put(`/v4/departments/${d.id}/undelete`).set('Authorization', as(acme.admin)).expect(200);
      expect(again.body.Deleted).toBe(false);
    });

    it('refuses to undelete a record whose parent is deleted (409 parent-deleted)', async () => {
      const top = await createOrg(t, acme.siteId, { name: 'Parent' });
      const child = await createOrg(t, acme.siteId, { name: 'Kid', parentId: top.id });
      await t.http().delete(`/v4/departments/${top.id}`).set('Authorization', as(acme.admin)).expect(200);
      const res = await t.http().put(`/v4/departments/${child.id}/undelete`).set('Authorization', as(acme.admin)).expect(409);
      expect(res.body.type).toBe('urn:pms:problem:parent-deleted');
      expect(await readOrg(t, child.id)).toMatchObject({ deleted: true, deletedByRef: true });
    });

    it('deleting a record deleted by reference makes it deleted in its own right: the parent’s undelete leaves it deleted', async () => {
      const top = await createOrg(t, acme.siteId, { name: 'P2' });
      const child = await createOrg(t, acme.siteId, { name: 'C2', parentId: top.id });
      await t.http().delete(`/v4/departments/${top.id}`).set('Authorization', as(acme.admin)).expect(200);
      await t.http().delete(`/v4/departments/${child.id}`).set('Authorization', as(acme.admin)).expect(200);
      expect(await readOrg(t, child.id)).toMatchObject({ deleted: true, deletedByRef: false });
      await t.http().put(`/v4/departments/${top.id}/undelete`).set('Authorization', as(acme.admin)).expect(200);
      expect(await readOrg(t, child.id)).toMatchObject({ deleted: true, deletedByRef: false });
    });

    it('answers 409 primary-department while it (or one under it) is a live individual’s primary department, changing nothing', async () => {
      const s = await freshSite();
      const top = await createOrg(t, s.siteId, { name: 'Plant' });
      const line = await createOrg(t, s.siteId, { name: 'Line 1', parentId: top.id });
      await createPerson(t, { siteId: s.siteId, orgId: line.id });
      await createPerson(t, { siteId: s.siteId, orgId: line.id });
      const res = await t.http().delete(`/v4/departments/${top.id}`).set('Authorization', as(s.admin)).expect(409);
      expect(res.body.type).toBe('urn:pms:problem:primary-department');
      expect(res.body.detail).toContain('2 live individuals');
      expect(res.body.detail).toContain('PrimaryOrganizationID');
      const direct = await t.http().delete(`/v4/departments/${line.id}`).set('Authorization', as(s.admin)).expect(409);
      expect(direct.body.type).toBe('urn:pms:problem:primary-department');
      expect(await readOrg(t, top.id)).toMatchObject({ deleted: false });
      expect(await readOrg(t, line.id)).toMatchObject({ deleted: false, deletedByRef: false });
      // The root organization holds the site administrator.
      await t.http().delete(`/v4/departments/${s.orgId}`).set('Authorization', as(s.admin)).expect(409);
    });

    it('does not count deleted individuals as holding a primary department', async () => {
      const s = await freshSite();
      const d = await createOrg(t, s.siteId, { name: 'Former' });
      const p = await createPerson(t, { siteId: s.siteId, orgId: d.id });
      await tenant(t, s.siteId).individuals.updateWhere({ id: p.individualId }, { deleted: true });
      await t.http().delete(`/v4/departments/${d.id}`).set('Authorization', as(s.admin)).expect(200);
    });

    it('refuses non-administrators (403 admin-required) and another site’s or an unknown id (404), changing nothing', async () => {
      const d = await createOrg(t, acme.siteId, { name: 'Guarded' });
      const del = await t.http().delete(`/v4/departments/${d.id}`).set('Authorization', as(member)).expect(403);
      expect(del.body.type).toBe('urn:pms:problem:admin-required');
      await t.http().delete(`/v4/departments/${d.id}`).set('Authorization', as(acme.admin)).expect(200);
      const und = await t.http().put(`/v4/departments/${d.id}/undelete`).set('Authorization', as(member)).expect(403);
      expect(und.body.type).toBe('urn:pms:problem:admin-required');
      expect((await readOrg(t, d.id))!.deleted).toBe(true);
      const foreign = await createOrg(t, globex.siteId, { name: 'Far away' });
      await t.http().delete(`/v4/departments/${foreign.id}`).set('Authorization', as(acme.admin)).expect(404);
      expect((await readOrg(t, foreign.id))!.deleted).toBe(false);
      await t.http().delete(`/v4/departments/${foreign.id}`).set('Authorization', as(globex.admin)).expect(200);
      await t.http().put(`/v4/departments/${foreign.id}/undelete`).set('Authorization', as(acme.admin)).expect(404);
      expect((await readOrg(t, foreign.id))!.deleted).toBe(true);
      await t.http().delete(`/v4/departments/${UNKNOWN}`).set('Authorization', as(acme.admin)).expect(404);
      await t.http().put(`/v4/departments/${UNKNOWN}/undelete`).set('Authorization', as(acme.admin)).expect(404);
      await t.http().delete('/v4/departments/not-a-guid').set('Authorization', as(acme.admin)).expect(400);
    });

    it('honours If-Match on delete', async () => {
      const d = await createOrg(t, acme.siteId, { name: 'Careful' });
      await t.http().delete(`/v4/departments/${d.id}`).set('Authorization', as(acme.admin)).set('If-Match', '"stale"').expect(412);
      expect((await readOrg(t, d.id))!.deleted).toBe(false);
      const read = await t.http().get(`/v4/departments/${d.id}`).set('Authorization', as(acme.admin));
      await t.http().delete(`/v4/departments/${d.id}`).set('Authorization', as(acme.admin)).set('If-Match', read.headers.etag).expect(200);
    });
  });

  describe('OpenAPI', () => {
    it('documents every organization and membership route with a summary, a 200 answer and the Organization/OrganizationMember fields', async () => {
      const doc = (await t.http().get('/docs/openapi.json').expect(200)).body as {
        paths: Record<string, Record<string, { summary?: string; responses: Record<string, unknown> }>>;
        components: { schemas: Record<string, { properties: Record<string, { description?: string; readOnly?: boolean; maxLength?: number }> }> };
      };
      const routes: [string, string][] = [
        ['/v4/departments', 'get'],
        ['/v4/departments', 'post'],
        ['/v4/sites/{siteid}/departments', 'get'],
        ['/v4/departments/{id}', 'get'],
        ['/v4/departments/{id}', 'put'],
        ['/v4/departments/{id}', 'delete'],
        ['/v4/departments/{id}/undelete', 'put'],
        ['/v4/me/departments', 'get'],
        ['/v4/individuals/{id}/departments', 'get'],
        ['/v4/organizations', 'get'],
        ['/v4/organizations/{id}', 'get'],
        ['/v4/departments/{id}/departmentmembers', 'get'],
        ['/v4/individuals/{id}/departmentmembers', 'get'],
        ['/v4/departmentmembers', 'post'],
        ['/v4/departmentmembers/{id}', 'put'],
        ['/v4/departmentmembers/{id}', 'delete'],
        ...['get', 'post', 'put', 'delete'].flatMap((m): [string, string][] => [
          ['/v4/individuals/{individualId}/departments/{departmentId}/departmentmembers', m],
          ['/v4/departments/{departmentId}/individuals/{individualId}/departmentmembers', m],
        ]),
      ];
      for (const [path, method] of routes) {
        const op = doc.paths[path]?.[method];
        expect({ path, method, summary: op?.summary ? 'present' : 'missing', ok: op?.responses['200'] ? 'present' : 'missing' }).toEqual({
          path,
          method,
          summary: 'present',
          ok: 'present',
        });
      }
      const org = doc.components.schemas.Organization.properties;
      expect(org.Name).toMatchObject({ maxLength: 255 });
      expect(org.Deleted).toMatchObject({ readOnly: true });
      expect(org.RowType.description).toContain('56');
      const member = doc.components.schemas.OrganizationMember.properties;
      expect(member.IsPrimary).toMatchObject({ readOnly: true });
      expect(member.Title).toMatchObject({ maxLength: 255 });
    });
  });

  describe('GET /v4/me/departments and /v4/individuals/{id}/departments', () => {
    it('lists every organization and department the individual belongs to, primary included, by Rank then Name', async () => {
      const s = await freshSite();
      const p = await createPerson(t, s, { firstName: 'Pat' });
      const other = await createPerson(t, s);
      const eng = await createOrg(t, s.siteId, { name: 'Engineering', rank: 1 });
      const qa = await createOrg(t, s.siteId, { name: 'QA', rank: 1 });
      const old = await createOrg(t, s.siteId, { name: 'Old Team', rank: 0 });
      await createOrg(t, s.siteId, { name: 'Not mine' });
      await addMember(t, s.siteId, p.individualId, qa.id);
      await addMember(t, s.siteId, p.individualId, eng.id);
      await addMember(t, s.siteId, p.individualId, old.id);
      await addMember(t, s.siteId, other.individualId, qa.id);
      await t.http().delete(`/v4/departments/${old.id}`).set('Authorization', as(s.admin)).expect(200);

      const mine = await t.http().get('/v4/me/departments').set('Authorization', as(p)).expect(200);
      expect(names(mine.body)).toEqual(['Root Org', 'Engineering', 'QA']);
      expect(mine.body[0]).toMatchObject({ RowType: 4 });
      expect(mine.headers['x-total-count']).toBe('3');
      const theirs = await t.http().get(`/v4/individuals/${p.individualId}/departments`).set('Authorization', as(other)).expect(200);
      expect(theirs.body).toEqual(mine.body);
      const deleted = await t.http().get(`/v4/individuals/${p.individualId}/departments?deleted=1`).set('Authorization', as(s.admin)).expect(200);
      expect(names(deleted.body)).toEqual(['Old Team']);
      const all = await t.http().get('/v4/me/departments?deleted=2&limit=2').set('Authorization', as(p)).expect(200);
      expect(names(all.body)).toEqual(['Old Team', 'Root Org']);
      expect(all.headers['x-total-count']).toBe('4');
      await t.http().get('/v4/me/departments?deleted=-1').set('Authorization', as(p)).expect(400);
    });

    it('answers XML', async () => {
      const xml = await t.http().get('/v4/me/departments').set('Authorization', as(member)).set('Accept', 'application/xml').expect(200);
      expect(xml.text).toContain(`<ArrayOfOrganization ${XMLNS}><Organization>`);
      expect(await codec.decodeXml(xml.text)).toEqual([expect.objectContaining({ ID: acme.orgId, Name: 'Root Org', RowType: '4' })]);
    });

    it('answers 404 for an unknown individual or one of another site, 400 for a malformed id', async () => {
      await t.http().get(`/v4/individuals/${UNKNOWN}/departments`).set('Authorization', as(member)).expect(404);
      await t.http().get(`/v4/individuals/${globex.admin.individualId}/departments`).set('Authorization', as(member)).expect(404);
      await t.http().get('/v4/individuals/x/departments').set('Authorization', as(member)).expect(400);
    });

    it('keeps listing a deleted individual’s departments (their membership rows remain)', async () => {
      const s = await freshSite();
      const p = await createPerson(t, s);
      const d = await createOrg(t, s.siteId, { name: 'Archive' });
      await addMember(t, s.siteId, p.individualId, d.id);
      await tenant(t, s.siteId).individuals.updateWhere({ id: p.individualId }, { deleted: true });
      await t.ds.getRepository(OrganizationMemberEntity).update({ individualId: p.individualId }, { deletedByRef: true });
      const res = await t.http().get(`/v4/individuals/${p.individualId}/departments`).set('Authorization', as(s.admin)).expect(200);
      expect(names(res.body)).toEqual(['Archive', 'Root Org']);
      expect((await t.ds.getRepository(IndividualEntity).findOneBy({ id: p.individualId }))!.deleted).toBe(true);
    });
  });
});
