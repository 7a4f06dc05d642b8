import { randomUUID } from 'node:crypto';
import { IndividualEntity } from '../../src/database/entities/individual.entity.js';
import { OrganizationMemberEntity } from '../../src/database/entities/organization-member.entity.js';
import { bearer, startApp, TestApp, WireCodec } from './harness.js';
import { createPerson, createSite, TestPerson, TestSite } from '../factories/index.js';
import { addMember, createOrg, readMember, tenant } from '../factories/organizations.js';

const codec = new WireCodec('urn:pms:v4');
const XMLNS = 'xmlns="urn:pms:v4" xmlns:i="http://www.w3.org/2001/XMLSchema-instance"';
const UNKNOWN = '1b4e28ba-2fa1-4d3b-a3f5-ef19b5a7633b';
const MEMBER_FIELDS = [
  'Created',
  'CreatedBy',
  'ID',
  'IndividualID',
  'IndividualName',
  'IsPrimary',
  'OrganizationID',
  'OrganizationName',
  'SiteID',
  'Title',
  'Updated',
  'UpdatedBy',
];

type Member = Record<string, unknown> & { ID: string; IndividualID: string; OrganizationID: string };

/** Both {pair} path forms of the spec. */
const FORMS = [
  ['individual first', (i: string, d: string) => `/v4/individuals/${i}/departments/${d}/departmentmembers`],
  ['department first', (i: string, d: string) => `/v4/departments/${d}/individuals/${i}/departmentmembers`],
] as const;

describe('department members (OrganizationMember)', () => {
  let t: TestApp;
  let acme: TestSite;
  let globex: TestSite;
  let ann: TestPerson;
  let ben: TestPerson;
  let sales: string;
  let foreignDept: string;

  beforeAll(async () => {
    t = await startApp();
    acme = await createSite(t, { name: 'Acme' });
    globex = await createSite(t, { name: 'Globex' });
    ann = await createPerson(t, acme, { firstName: 'Ann', lastName: 'Adams' });
    ben = await createPerson(t, acme, { firstName: 'Ben', lastName: 'Brown' });
    sales = (await createOrg(t, acme.siteId, { name: 'Sales' })).id;
    foreignDept = (await createOrg(t, globex.siteId, { name: 'Globex Sales' })).id;
  });
  afterAll(async () => {
    await t.close();
  });

  const admin = () => bearer(acme.admin.token);
  const memberRows = (individualId: string, organizationId: string) => t.ds.getRepository(OrganizationMemberEntity).findBy({ individualId, organizationId });

  describe('concurrent creates of the same membership', () => {
    it('answer one 200 and 409 duplicate-membership for the rest (never id-taken, never 500), leaving one row', async () => {
      const dept = (await createOrg(t, acme.siteId, { name: 'Race' })).id;
      const person = await createPerson(t, acme);
      const results = await Promise.all(
        Array.from({ length: 6 }, () =>
          t
            .http()
            .post('/v4/departmentmembers')
            .set('Authorization', admin())
            .send({ IndividualID: person.individualId, OrganizationID: dept, Title: 'Racer' }),
        ),
      );
      expect(results.filter((r) => r.status === 200)).toHaveLength(1);
      expect(results.filter((r) => r.status !== 200).map((r) => [r.status, r.body.type])).toEqual(Array(5).fill([409, 'urn:pms:problem:duplicate-membership']));
      expect(await memberRows(person.individualId, dept)).toHaveLength(1);
    });
  });

  describe('POST /v4/departmentmembers', () => {
    it('adds a member from JSON, ignoring read-only fields', async () => {
      const d = await createOrg(t, acme.siteId, { name: 'Marketing' });
      const res = await t
        .http()
        .post('/v4/departmentmembers')
        .set('Authorization', admin())
        .send({
          IndividualID: ann.individualId,
          OrganizationID: d.id,
          Title: 'Analyst',
          IsPrimary: true,
          SiteID: globex.siteId,
          IndividualName: 'X',
          Created: '2001-01-01T00:00:00Z',
        })
        .expect(200);
      expect(res.body).toEqual({
        ID: expect.any(String),
        SiteID: acme.siteId,
        IndividualID: ann.individualId,
        OrganizationID: d.id,
        Title: 'Analyst',
        IsPrimary: false,
        IndividualName: 'Ann Adams',
        OrganizationName: 'Marketing',
        Created: expect.not.stringMatching(/^2001/),
        CreatedBy: acme.admin.individualId,
        Updated: expect.any(String),
        UpdatedBy: acme.admin.individualId,
      });
      expect(res.headers.etag).toBeDefined();
      expect(await readMember(t, res.body.ID)).toMatchObject({ siteId: acme.siteId, title: 'Analyst', deletedByRef: false });
    });

    it('adds a member from XML (any element order, i:nil) and answers XML', async () => {
      const d = await createOrg(t, acme.siteId, { name: 'Research' });
      const res = await t
        .http()
        .post('/v4/departmentmembers')
        .set('Authorization', admin())
        .set('Content-Type', 'application/xml')
        .set('Accept', 'application/xml')
        .send(
          `<OrganizationMember ${XMLNS}><Title i:nil="true"/><OrganizationID>${d.id}</OrganizationID><ID i:nil="true"/><IndividualID>${ben.individualId}</IndividualID></OrganizationMember>`,
        )
        .expect(200);
      expect(res.text).toMatch(/^<\?xml[^>]+\?><OrganizationMember xmlns="urn:pms:v4"/);
      const inner = /<OrganizationMember [^>]*>(.*)<\/OrganizationMember>/.exec(res.text)![1];
      expect(inner.match(/<([A-Za-z]+)[ >/]/g)!.map((m) => m.slice(1, -1))).toEqual(MEMBER_FIELDS);
      expect(await codec.decodeXml(res.text)).toMatchObject({
        IndividualID: ben.individualId,
        OrganizationID: d.id,
        Title: null,
        IsPrimary: 'false',
        OrganizationName: 'Research',
      });
    });

    it.each([
      ['IndividualID missing', (d: string) => ({ OrganizationID: d }), 'IndividualID', 'IndividualID is required'],
      ['OrganizationID missing', () => ({ IndividualID: UNKNOWN }), 'OrganizationID', 'OrganizationID is required'],
      ['IndividualID not a guid', (d: string) => ({ IndividualID: 'ann', OrganizationID: d }), 'IndividualID', expect.stringContaining('UUID')],
      ['OrganizationID a number', () => ({ IndividualID: UNKNOWN, OrganizationID: 5 }), 'OrganizationID', expect.stringContaining('UUID')],
      [
        'Title 256 characters',
        (d: string) => ({ IndividualID: UNKNOWN, OrganizationID: d, Title: 't'.repeat(256) }),
        'Title',
        'Title must be at most 255 characters',
      ],
      ['Title not a string', (d: string) => ({ IndividualID: UNKNOWN, OrganizationID: d, Title: { a: 1 } }), 'Title', 'Title must be a string'],
    ])('answers 400 for %s', async (_label, body, field, message) => {
      const res = await t.http().post('/v4/departmentmembers').set('Authorization', admin()).send(body(sales)).expect(400);
      expect(res.body.errors).toEqual([{ field, message }]);
    });

    it('answers 400 when the individual or department is unknown, of another site, or deleted (nothing written)', async () => {
      const gone = await createOrg(t, acme.siteId, { name: 'Closed' });
      await t.http().delete(`/v4/departments/${gone.id}`).set('Authorization', admin()).expect(200);
      const cases: [Record<string, string>, string, RegExp][] = [
        [{ IndividualID: UNKNOWN, OrganizationID: sales }, 'IndividualID', /names no individual of this site/],
        [{ IndividualID: globex.admin.individualId, OrganizationID: sales }, 'IndividualID', /names no individual of this site/],
        [{ IndividualID: ann.individualId, OrganizationID: foreignDept }, 'OrganizationID', /names no organization or department of this site/],
        [{ IndividualID: ann.individualId, OrganizationID: gone.id }, 'OrganizationID', /names a deleted department/],
      ];
      for (const [body, field, message] of cases) {
        const res = await t.http().post('/v4/departmentmembers').set('Authorization', admin()).send(body).expect(400);
        expect(res.body.errors).toEqual([{ field, message: expect.stringMatching(message) }]);
      }
      expect(await memberRows(ann.individualId, foreignDept)).toEqual([]);
      expect(await memberRows(ann.individualId, gone.id)).toEqual([]);
      const both = await t
        .http()
        .post('/v4/departmentmembers')
        .set('Authorization', admin())
        .send({ IndividualID: UNKNOWN, OrganizationID: UNKNOWN })
        .expect(400);
      expect(both.body.errors.map((e: { field: string }) => e.field)).toEqual(['IndividualID', 'OrganizationID']);
    });

    it('answers 400 for a deleted individual', async () => {
      const p = await createPerson(t, acme);
      await tenant(t, acme.siteId).individuals.updateWhere({ id: p.individualId }, { deleted: true });
      const res = await t
        .http()
        .post('/v4/departmentmembers')
        .set('Authorization', admin())
        .send({ IndividualID: p.individualId, OrganizationID: sales })
        .expect(400);
      expect(res.body.errors).toEqual([{ field: 'IndividualID', message: expect.stringMatching(/names a deleted individual/) }]);
    });

    it('answers 409 duplicate-membership for an existing membership, the primary one included', async () => {
      const d = await createOrg(t, acme.siteId, { name: 'Twice' });
      await t.http().post('/v4/departmentmembers').set('Authorization', admin()).send({ IndividualID: ann.individualId, OrganizationID: d.id }).expect(200);
      const res = await t
        .http()
        .post('/v4/departmentmembers')
        .set('Authorization', admin())
        .send({ IndividualID: ann.individualId, OrganizationID: d.id })
        .expect(409);
      expect(res.body.type).toBe('urn:pms:problem:duplicate-membership');
      expect(res.body.detail).toContain('Ann Adams');
      await t
        .http()
        .post('/v4/departmentmembers')
        .set('Authorization', admin())
        .send({ IndividualID: ann.individualId, OrganizationID: acme.orgId })
        .expect(409);
      expect(await memberRows(ann.individualId, d.id)).toHaveLength(1);
    });

    it('uses a supplied ID, and answers 409 id-taken when any site uses it', async () => {
      const d = await createOrg(t, acme.siteId);
      const id = randomUUID();
      const res = await t
        .http()
        .post('/v4/departmentmembers')
        .set('Authorization', admin())
        .send({ ID: id, IndividualID: ben.individualId, OrganizationID: d.id })
        .expect(200);
      expect(res.body.ID).toBe(id);
      const foreign = await addMember(t, globex.siteId, globex.admin.individualId, foreignDept, 'Theirs');
      const d2 = await createOrg(t, acme.siteId);
      const taken = await t
        .http()
        .post('/v4/departmentmembers')
        .set('Authorization', admin())
        .send({ ID: foreign.id, IndividualID: ben.individualId, OrganizationID: d2.id })
        .expect(409);
      expect(taken.body.type).toBe('urn:pms:problem:id-taken');
      expect(await readMember(t, foreign.id)).toMatchObject({ siteId: globex.siteId, title: 'Theirs', organizationId: foreignDept });
    });

    it('revives a membership left marked by reference once both ends are live again', async () => {
      const d = await createOrg(t, acme.siteId, { name: 'Revival' });
      const m = await addMember(t, acme.siteId, ben.individualId, d.id, 'Old title');
      await tenant(t, acme.siteId).members.updateWhere({ id: m.id }, { deletedByRef: true });
      const res = await t
        .http()
        .post('/v4/departmentmembers')
        .set('Authorization', admin())
        .send({ IndividualID: ben.individualId, OrganizationID: d.id, Title: 'New title' })
        .expect(200);
      expect(res.body).toMatchObject({ ID: m.id, Title: 'New title' });
      expect(await readMember(t, m.id)).toMatchObject({ deletedByRef: false, title: 'New title' });
    });

    it('refuses a non-administrator with 403 admin-required', async () => {
      const d = await createOrg(t, acme.siteId);
      const res = await t
        .http()
        .post('/v4/departmentmembers')
        .set('Authorization', bearer(ann.token))
        .send({ IndividualID: ann.individualId, OrganizationID: d.id })
        .expect(403);
      expect(res.body.type).toBe('urn:pms:problem:admin-required');
      expect(await memberRows(ann.individualId, d.id)).toEqual([]);
    });
  });

  describe.each(FORMS)('{pair} paths, %s', (_form, pair) => {
    it('POST adds the member (JSON), GET reads it (JSON and XML)', async () => {
      const d = await createOrg(t, acme.siteId, { name: 'Pair Dept' });
      const created = await t.http().post(pair(ann.individualId, d.id)).set('Authorization', admin()).send({ Title: 'Lead' }).expect(200);
      expect(created.body).toMatchObject({
        IndividualID: ann.individualId,
        OrganizationID: d.id,
        Title: 'Lead',
        IsPrimary: false,
        OrganizationName: 'Pair Dept',
      });
      const read = await t.http().get(pair(ann.individualId, d.id)).set('Authorization', bearer(ben.token)).expect(200);
      expect(read.body).toEqual(created.body);
      const xml = await t.http().get(pair(ann.individualId, d.id)).set('Authorization', bearer(ben.token)).set('Accept', 'text/xml').expect(200);
      expect(xml.text).toContain('<OrganizationMember xmlns="urn:pms:v4"');
      expect(await codec.decodeXml(xml.text)).toMatchObject({ ID: created.body.ID, Title: 'Lead', IndividualName: 'Ann Adams' });
      expect(xml.headers.etag).toBe(read.headers.etag);
    });

    it('POST takes an XML body, and an empty one', async () => {
      const d = await createOrg(t, acme.siteId);
      const res = await t
        .http()
        .post(pair(ben.individualId, d.id))
        .set('Authorization', admin())
        .set('Content-Type', 'application/xml')
        .set('Accept', 'application/xml')
        .send(
          `<OrganizationMember ${XMLNS}><Title>Rep</Title><IndividualID>${ben.individualId}</IndividualID><OrganizationID i:nil="true"/></OrganizationMember>`,
        )
        .expect(200);
      expect(await codec.decodeXml(res.text)).toMatchObject({ IndividualID: ben.individualId, OrganizationID: d.id, Title: 'Rep' });
      const d2 = await createOrg(t, acme.siteId);
      const empty = await t.http().post(pair(ben.individualId, d2.id)).set('Authorization', admin()).expect(200);
      expect(empty.body).toMatchObject({ OrganizationID: d2.id, Title: null });
    });

    it('POST answers 400 when body ids differ from the path, 404 for unknown or foreign path ids, 409 for deleted ends or an existing membership', async () => {
      const d = await createOrg(t, acme.siteId);
      const mismatch = await t
        .http()
        .post(pair(ann.individualId, d.id))
        .set('Authorization', admin())
        .send({ IndividualID: ben.individualId, OrganizationID: sales })
        .expect(400);
      expect(mismatch.body.errors.map((e: { field: string }) => e.field)).toEqual(['IndividualID', 'OrganizationID']);
      await t
        .http()
        .post(pair(ann.individualId, d.id))
        .set('Authorization', admin())
        .send({ Title: 't'.repeat(256) })
        .expect(400);
      await t.http().post(pair(UNKNOWN, d.id)).set('Authorization', admin()).send({}).expect(404);
      await t.http().post(pair(ann.individualId, UNKNOWN)).set('Authorization', admin()).send({}).expect(404);
      await t.http().post(pair(globex.admin.individualId, d.id)).set('Authorization', admin()).send({}).expect(404);
      await t.http().post(pair(ann.individualId, foreignDept)).set('Authorization', admin()).send({}).expect(404);
      await t.http().post(pair('nope', d.id)).set('Authorization', admin()).send({}).expect(400);
      expect(await memberRows(ann.individualId, d.id)).toEqual([]);
      expect(await memberRows(ann.individualId, foreignDept)).toEqual([]);
      const gone = await createOrg(t, acme.siteId);
      await t.http().delete(`/v4/departments/${gone.id}`).set('Authorization', admin()).expect(200);
      const deleted = await t.http().post(pair(ann.individualId, gone.id)).set('Authorization', admin()).send({}).expect(409);
      expect(deleted.body.type).toBe('urn:pms:problem:deleted');
      await t.http().post(pair(ann.individualId, d.id)).set('Authorization', admin()).send({}).expect(200);
      const dup = await t.http().post(pair(ann.individualId, d.id)).set('Authorization', admin()).send({}).expect(409);
      expect(dup.body.type).toBe('urn:pms:problem:duplicate-membership');
    });

    it('GET answers IsPrimary for the primary membership, and 404 without a membership or for foreign ids', async () => {
      const primary = await t.http().get(pair(ann.individualId, acme.orgId)).set('Authorization', admin()).expect(200);
      expect(primary.body).toMatchObject({ IsPrimary: true, OrganizationName: 'Root Org', Title: 'Tester' });
      const d = await createOrg(t, acme.siteId);
      const none = await t.http().get(pair(ann.individualId, d.id)).set('Authorization', admin()).expect(404);
      expect(none.body.type).toBe('urn:pms:problem:not-found');
      await t.http().get(pair(UNKNOWN, d.id)).set('Authorization', admin()).expect(404);
      await t.http().get(pair(globex.admin.individualId, globex.orgId)).set('Authorization', admin()).expect(404);
    });

    it('PUT changes only the title (JSON and XML); IndividualID and OrganizationID are ignored', async () => {
      const d = await createOrg(t, acme.siteId, { name: 'Put Dept' });
      const m = await addMember(t, acme.siteId, ben.individualId, d.id, 'Before');
      const res = await t
        .http()
        .put(pair(ben.individualId, d.id))
        .set('Authorization', admin())
        .send({ Title: 'After', IndividualID: ann.individualId, OrganizationID: sales, IsPrimary: true })
        .expect(200);
      expect(res.body).toMatchObject({ ID: m.id, IndividualID: ben.individualId, OrganizationID: d.id, Title: 'After', IsPrimary: false });
      const read = await t.http().get(pair(ben.individualId, d.id)).set('Authorization', admin()).set('Accept', 'application/xml').expect(200);
      const xmlBody = read.text.replace('<Title>After</Title>', '<Title>Via XML</Title>');
      const xml = await t
        .http()
        .put(pair(ben.individualId, d.id))
        .set('Authorization', admin())
        .set('Content-Type', 'application/xml')
        .set('Accept', 'application/xml')
        .send(xmlBody)
        .expect(200);
      expect(await codec.decodeXml(xml.text)).toMatchObject({ ID: m.id, Title: 'Via XML' });
      const kept = await t.http().put(pair(ben.individualId, d.id)).set('Authorization', admin()).send({}).expect(200);
      expect(kept.body.Title).toBe('Via XML');
      const cleared = await t.http().put(pair(ben.individualId, d.id)).set('Authorization', admin()).send({ Title: null }).expect(200);
      expect(cleared.body.Title).toBeNull();
      expect(await memberRows(ben.individualId, d.id)).toEqual([expect.objectContaining({ id: m.id, title: null })]);
    });

    it('PUT answers 400 for a body ID of another membership or a long title, 404 without a membership, 412 for a stale ETag, 403 for a non-administrator', async () => {
      const d = await createOrg(t, acme.siteId);
      await addMember(t, acme.siteId, ben.individualId, d.id, 'Same');
      const put = (body: object, token = admin()) => t.http().put(pair(ben.individualId, d.id)).set('Authorization', token).send(body);
      expect((await put({ ID: UNKNOWN, Title: 'X' }).expect(400)).body.errors[0].field).toBe('ID');
      expect((await put({ Title: 'x'.repeat(256) }).expect(400)).body.errors[0].field).toBe('Title');
      await t.http().put(pair(ann.individualId, d.id)).set('Authorization', admin()).send({ Title: 'X' }).expect(404);
      await t.http().put(pair(ben.individualId, d.id)).set('Authorization', admin()).set('If-Match', '"stale"').send({ Title: 'X' }).expect(412);
      const denied = await put({ Title: 'X' }, bearer(ben.token)).expect(403);
      expect(denied.body.type).toBe('urn:pms:problem:admin-required');
      expect(await memberRows(ben.individualId, d.id)).toEqual([expect.objectContaining({ title: 'Same' })]);
    });

    it('DELETE removes the membership (answering {}), then 404; the primary membership is 409 primary-membership', async () => {
      const d = await createOrg(t, acme.siteId, { name: 'Short-lived' });
      await addMember(t, acme.siteId, ann.individualId, d.id);
      const res = await t.http().delete(pair(ann.individualId, d.id)).set('Authorization', admin()).expect(200);
      expect(res.body).toEqual({});
      expect(await memberRows(ann.individualId, d.id)).toEqual([]);
      await t.http().delete(pair(ann.individualId, d.id)).set('Authorization', admin()).expect(404);
      const primary = await t.http().delete(pair(ann.individualId, acme.orgId)).set('Authorization', admin()).expect(409);
      expect(primary.body.type).toBe('urn:pms:problem:primary-membership');
      expect(primary.body.detail).toBe(
        '"Root Org" is the primary department of Ann Adams: that membership cannot be removed. Change the individual\'s PrimaryOrganizationID first.',
      );
      expect(await memberRows(ann.individualId, acme.orgId)).toHaveLength(1);
    });

    it('DELETE answers 403 for a non-administrator, 404 for foreign ids, 412 for a stale ETag (changing nothing)', async () => {
      const d = await createOrg(t, acme.siteId);
      await addMember(t, acme.siteId, ben.individualId, d.id);
      const res = await t.http().delete(pair(ben.individualId, d.id)).set('Authorization', bearer(ben.token)).expect(403);
      expect(res.body.type).toBe('urn:pms:problem:admin-required');
      await t.http().delete(pair(ben.individualId, d.id)).set('Authorization', admin()).set('If-Match', '"stale"').expect(412);
      const foreign = await createPerson(t, { siteId: globex.siteId, orgId: foreignDept });
      await t.http().delete(pair(foreign.individualId, foreignDept)).set('Authorization', admin()).expect(404);
      expect(await memberRows(ben.individualId, d.id)).toHaveLength(1);
      expect(await memberRows(foreign.individualId, foreignDept)).toHaveLength(1);
    });
  });

  describe('PUT and DELETE /v4/departmentmembers/{id}', () => {
    it('PUT changes the title; the body ID must equal the path id', async () => {
      const d = await createOrg(t, acme.siteId);
      const m = await addMember(t, acme.siteId, ann.individualId, d.id, 'One');
      const missing = await t.http().put(`/v4/departmentmembers/${m.id}`).set('Authorization', admin()).send({ Title: 'Two' }).expect(400);
      expect(missing.body.errors).toEqual([{ field: 'ID', message: 'ID is required on update' }]);
      await t.http().put(`/v4/departmentmembers/${m.id}`).set('Authorization', admin()).send({ ID: UNKNOWN, Title: 'Two' }).expect(400);
      const res = await t
        .http()
        .put(`/v4/departmentmembers/${m.id}`)
        .set('Authorization', admin())
        .send({ ID: m.id, Title: 'Two', OrganizationID: sales, IndividualID: ben.individualId })
        .expect(200);
      expect(res.body).toMatchObject({ ID: m.id, Title: 'Two', OrganizationID: d.id, IndividualID: ann.individualId });
      const xml = await t
        .http()
        .put(`/v4/departmentmembers/${m.id}`)
        .set('Authorization', admin())
        .set('Content-Type', 'text/xml')
        .set('Accept', 'text/xml')
        .send(`<OrganizationMember ${XMLNS}><Title>Three</Title><ID>${m.id}</ID></OrganizationMember>`)
        .expect(200);
      expect(await codec.decodeXml(xml.text)).toMatchObject({ ID: m.id, Title: 'Three' });
    });

    it('PUT on the primary membership also sets the individual’s PrimaryTitle', async () => {
      const p = await createPerson(t, acme, { firstName: 'Pia' });
      const [primary] = await memberRows(p.individualId, acme.orgId);
      const res = await t.http().put(`/v4/departmentmembers/${primary.id}`).set('Authorization', admin()).send({ ID: primary.id, Title: 'Chief' }).expect(200);
      expect(res.body).toMatchObject({ IsPrimary: true, Title: 'Chief' });
      expect(await t.ds.getRepository(IndividualEntity).findOneBy({ id: p.individualId })).toMatchObject({ primaryTitle: 'Chief' });
    });

    it('DELETE removes a membership by id; the primary one is 409; unknown and foreign ids are 404', async () => {
      const d = await createOrg(t, acme.siteId);
      const m = await addMember(t, acme.siteId, ann.individualId, d.id);
      const xml = await t.http().delete(`/v4/departmentmembers/${m.id}`).set('Authorization', admin()).set('Accept', 'application/xml').expect(200);
      expect(xml.text).toMatch(/<Object xmlns="urn:pms:v4"[^>]*\/>$/);
      expect(await readMember(t, m.id)).toBeNull();
      await t.http().delete(`/v4/departmentmembers/${m.id}`).set('Authorization', admin()).expect(404);
      const [primary] = await memberRows(ann.individualId, acme.orgId);
      const res = await t.http().delete(`/v4/departmentmembers/${primary.id}`).set('Authorization', admin()).expect(409);
      expect(res.body.type).toBe('urn:pms:problem:primary-membership');
      const foreignTeam = await createOrg(t, globex.siteId);
      const foreign = await addMember(t, globex.siteId, globex.admin.individualId, foreignTeam.id, 'Keep');
      await t.http().delete(`/v4/departmentmembers/${foreign.id}`).set('Authorization', admin()).expect(404);
      await t.http().put(`/v4/departmentmembers/${foreign.id}`).set('Authorization', admin()).send({ ID: foreign.id, Title: 'Mine' }).expect(404);
      expect(await readMember(t, foreign.id)).toMatchObject({ title: 'Keep' });
      await t.http().put(`/v4/departmentmembers/${UNKNOWN}`).set('Authorization', admin()).send({ ID: UNKNOWN, Title: 'X' }).expect(404);
      await t.http().delete('/v4/departmentmembers/xyz').set('Authorization', admin()).expect(400);
    });

    it('refuses non-administrators with 403 admin-required', async () => {
      const d = await createOrg(t, acme.siteId);
      const m = await addMember(t, acme.siteId, ann.individualId, d.id, 'Fixed');
      const put = await t
        .http()
        .put(`/v4/departmentmembers/${m.id}`)
        .set('Authorization', bearer(ann.token))
        .send({ ID: m.id, Title: 'Self-promoted' })
        .expect(403);
      expect(put.body.type).toBe('urn:pms:problem:admin-required');
      const del = await t.http().delete(`/v4/departmentmembers/${m.id}`).set('Authorization', bearer(ann.token)).expect(403);
      expect(del.body.type).toBe('urn:pms:problem:admin-required');
      expect(await readMember(t, m.id)).toMatchObject({ title: 'Fixed' });
    });
  });

  describe('GET /v4/departments/{id}/departmentmembers and /v4/individuals/{id}/departmentmembers', () => {
    it('lists a department’s members by last name, then first name, in JSON and XML, paged', async () => {
      const s = await createSite(t);
      const d = await createOrg(t, s.siteId, { name: 'Team' });
      const zed = await createPerson(t, s, { firstName: 'Zed', lastName: 'Alpha' });
      const amy = await createPerson(t, s, { firstName: 'Amy', lastName: 'Omega' });
      const bob = await createPerson(t, { siteId: s.siteId, orgId: d.id }, { firstName: 'Bob', lastName: 'Alpha' });
      await addMember(t, s.siteId, amy.individualId, d.id, 'Two');
      await addMember(t, s.siteId, zed.individualId, d.id, 'One');
      const res = await t.http().get(`/v4/departments/${d.id}/departmentmembers`).set('Authorization', bearer(amy.token)).expect(200);
      expect(res.body.map((m: Member) => m.IndividualName)).toEqual(['Bob Alpha', 'Zed Alpha', 'Amy Omega']);
      expect(res.body.map((m: Member) => m.IsPrimary)).toEqual([true, false, false]);
      expect(res.headers['x-total-count']).toBe('3');
      expect(res.body[0]).toMatchObject({ IndividualID: bob.individualId, OrganizationID: d.id, OrganizationName: 'Team', SiteID: s.siteId });
      const xml = await t
        .http()
        .get(`/v4/departments/${d.id}/departmentmembers`)
        .set('Authorization', bearer(amy.token))
        .set('Accept', 'application/xml')
        .expect(200);
      expect(xml.text).toContain(`<ArrayOfOrganizationMember ${XMLNS}><OrganizationMember><Created>`);
      expect(((await codec.decodeXml(xml.text)) as Member[]).map((m) => m.Title)).toEqual(['Tester', 'One', 'Two']);
      const page = await t.http().get(`/v4/departments/${d.id}/departmentmembers?limit=1&offset=1`).set('Authorization', bearer(amy.token)).expect(200);
      expect(page.body.map((m: Member) => m.IndividualName)).toEqual(['Zed Alpha']);
      expect(page.headers.link).toBe(`</v4/departments/${d.id}/departmentmembers?limit=1&offset=2>; rel="next"`);
      await t.http().get(`/v4/departments/${d.id}/departmentmembers?limit=0`).set('Authorization', bearer(amy.token)).expect(400);
    });

    it('lists an individual’s memberships by department Rank, then Name, the primary one flagged', async () => {
      const s = await createSite(t);
      const p = await createPerson(t, s, { firstName: 'Ida' });
      const late = await createOrg(t, s.siteId, { name: 'Aardvarks', rank: 9 });
      const early = await createOrg(t, s.siteId, { name: 'Zebras', rank: -1 });
      await addMember(t, s.siteId, p.individualId, late.id);
      await addMember(t, s.siteId, p.individualId, early.id);
      const res = await t.http().get(`/v4/individuals/${p.individualId}/departmentmembers`).set('Authorization', bearer(s.admin.token)).expect(200);
      expect(res.body.map((m: Member) => m.OrganizationName)).toEqual(['Zebras', 'Root Org', 'Aardvarks']);
      expect(res.body.map((m: Member) => m.IsPrimary)).toEqual([false, true, false]);
      const xml = await t
        .http()
        .get(`/v4/individuals/${p.individualId}/departmentmembers`)
        .set('Authorization', bearer(p.token))
        .set('Accept', 'application/xml')
        .expect(200);
      expect(xml.text).toContain('<ArrayOfOrganizationMember ');
      expect(((await codec.decodeXml(xml.text)) as Member[]).map((m) => m.IsPrimary)).toEqual(['false', 'true', 'false']);
    });

    it('does not list memberships taken down by reference, and lists them again after the undelete', async () => {
      const s = await createSite(t);
      const p = await createPerson(t, s, { lastName: 'Keeper' });
      const d = await createOrg(t, s.siteId, { name: 'Cyclical' });
      const m = await addMember(t, s.siteId, p.individualId, d.id);
      await t.http().delete(`/v4/departments/${d.id}`).set('Authorization', bearer(s.admin.token)).expect(200);
      const byDept = await t.http().get(`/v4/departments/${d.id}/departmentmembers`).set('Authorization', bearer(s.admin.token)).expect(200);
      expect(byDept.body).toEqual([]);
      const byInd = await t.http().get(`/v4/individuals/${p.individualId}/departmentmembers`).set('Authorization', bearer(s.admin.token)).expect(200);
      expect(byInd.body.map((x: Member) => x.OrganizationName)).toEqual(['Root Org']);
      await t.http().get(`/v4/individuals/${p.individualId}/departments/${d.id}/departmentmembers`).set('Authorization', bearer(s.admin.token)).expect(404);
      await t.http().put(`/v4/departmentmembers/${m.id}`).set('Authorization', bearer(s.admin.token)).send({ ID: m.id, Title: 'X' }).expect(404);
      await t.http().put(`/v4/departments/${d.id}/undelete`).set('Authorization', bearer(s.admin.token)).expect(200);
      const back = await t.http().get(`/v4/departments/${d.id}/departmentmembers`).set('Authorization', bearer(s.admin.token)).expect(200);
      expect(back.body.map((x: Member) => x.ID)).toEqual([m.id]);
    });

    it('answers 404 for an unknown or foreign department or individual, 400 for a malformed id', async () => {
      await t.http().get(`/v4/departments/${UNKNOWN}/departmentmembers`).set('Authorization', admin()).expect(404);
      await t.http().get(`/v4/departments/${foreignDept}/departmentmembers`).set('Authorization', admin()).expect(404);
      await t.http().get(`/v4/individuals/${UNKNOWN}/departmentmembers`).set('Authorization', admin()).expect(404);
      await t.http().get(`/v4/individuals/${globex.admin.individualId}/departmentmembers`).set('Authorization', admin()).expect(404);
      await t.http().get('/v4/individuals/1/departmentmembers').set('Authorization', admin()).expect(400);
    });
  });
});
