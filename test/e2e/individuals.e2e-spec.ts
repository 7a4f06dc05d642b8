import { randomUUID } from 'node:crypto';
import { ADMIN_PASSWORD, bearer, startApp, TestApp, WireCodec } from './harness.js';
import { parametersOf } from './contract.js';
import { createPerson, createSite, TestPerson, TestSite } from '../factories/index.js';
import { createDepartment, INDIVIDUAL_FIELDS, individualRow, insertIndividualComment, membershipRows, userByName, userRow } from '../factories/individuals.js';

// Every request with a password runs scrypt; on a busy CI machine that needs more than 5 s a test.

const codec = new WireCodec('urn:pms:v4');
const ZERO = '00000000-0000-0000-0000-000000000000';
const UNKNOWN = '9b2f3c4d-5e6f-4a0b-8c1d-2e3f4a5b6c7d';
const XML_HEAD = '<Individual xmlns="urn:pms:v4" xmlns:i="http://www.w3.org/2001/XMLSchema-instance">';

type Json = Record<string, unknown>;
let seq = 0;
const uniqueName = (p = 'ind') => `${p}${Date.now().toString(36)}${(seq++).toString(36)}`;

describe('/v4/individuals', () => {
  let t: TestApp;
  let acme: TestSite;
  let globex: TestSite;
  let boss: TestPerson;
  let mgr: TestPerson;
  let rep: TestPerson;
  let peer: TestPerson;
  let foreign: TestPerson;
  let sales: string;

  const auth = (p: TestPerson | string) => bearer(typeof p === 'string' ? p : p.token);
  const get = (path: string, who: TestPerson | string) => t.http().get(path).set('Authorization', auth(who));
  const post = (body: unknown, who: TestPerson | string = acme.admin) =>
    t
      .http()
      .post('/v4/individuals')
      .set('Authorization', auth(who))
      .send(body as object);
  const put = (id: string, body: unknown, who: TestPerson | string = acme.admin) =>
    t
      .http()
      .put(`/v4/individuals/${id}`)
      .set('Authorization', auth(who))
      .send(body as object);

  /** A complete, valid create body for Acme. */
  const createBody = (over: Json = {}): Json => ({
    FirstName: 'Ada',
    LastName: 'Lovelace',
    UserName: uniqueName('ada'),
    Email: 'ada@acme.test',
    PrimaryOrganizationID: acme.orgId,
    PrimaryTitle: 'Analyst',
    PrimaryReportsTo: null,
    UserEmail: 'ada.login@acme.test',
    ...over,
  });

  /** The body of a PUT built from what a GET answered (as a .NET client does). */
  const readBack = async (id: string, over: Json = {}, who: TestPerson | string = acme.admin): Promise<Json> => {
    const res = await get(`/v4/individuals/${id}`, who).expect(200);
    return { ...(res.body as Json), ...over };
  };

  const login = (userName: string, password: string) => t.http().post('/v4/auth/token').send({ UserName: userName, Password: password });

  beforeAll(async () => {
    t = await startApp();
    acme = await createSite(t, { name: 'Acme' });
    globex = await createSite(t, { name: 'Globex' });
    boss = await createPerson(t, acme, { firstName: 'Bea', lastName: 'Boss' });
    mgr = await createPerson(t, acme, { firstName: 'Max', lastName: 'Manager', reportsTo: boss.individualId });
    rep = await createPerson(t, acme, { firstName: 'Rita', lastName: 'Report', reportsTo: mgr.individualId });
    peer = await createPerson(t, acme, { firstName: 'Pete', lastName: 'Peer' });
    foreign = await createPerson(t, globex, { firstName: 'Fred', lastName: 'Foreign' });
    sales = (await createDepartment(t, acme.siteId, { name: 'Sales' })).id;
  });
  afterAll(async () => {
    await t.close();
  });

  // ---------------------------------------------------------------------------------- reads

  describe('GET /v4/individuals', () => {
    it('lists the live individuals of the caller’s site in JSON, ordered by last and first name, with every field in the spec’s order', async () => {
      const res = await get('/v4/individuals', peer).expect(200);
      const rows = res.body as Json[];
      expect(Object.keys(rows[0])).toEqual(INDIVIDUAL_FIELDS);
      expect(rows.every((r) => r.SiteID === acme.siteId)).toBe(true);
      expect(rows.map((r) => r.ID)).not.toContain(foreign.individualId);
      const names = rows.map((r) => `${r.LastName as string}|${r.FirstName as string}`);
      expect(names).toEqual([...names].sort((a, b) => (a.toLowerCase() < b.toLowerCase() ? -1 : a.toLowerCase() > b.toLowerCase() ? 1 : 0)));
      expect(res.headers['x-total-count']).toBe(String(rows.length));
      expect(rows.map((r) => r.ID)).toEqual(expect.arrayContaining([boss.individualId, mgr.individualId, rep.individualId, peer.individualId]));
    });

    it('answers XML: ArrayOfIndividual with Individual children in ordinal element order', async () => {
      const res = await get('/v4/individuals', peer).set('Accept', 'application/xml').expect(200);
      expect(res.text).toContain('<ArrayOfIndividual xmlns="urn:pms:v4" xmlns:i="http://www.w3.org/2001/XMLSchema-instance"><Individual>');
      const first = /<Individual>(.*?)<\/Individual>/.exec(res.text)![1];
      const names = [...first.matchAll(/<([A-Za-z0-9]+)[ >/]/g)].map((m) => m[1]).filter((n) => INDIVIDUAL_FIELDS.includes(n));
      expect(names).toEqual([...INDIVIDUAL_FIELDS].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)));
      const list = (await codec.decodeXml(res.text)) as Json[];
      expect(list.find((r) => r.ID === rep.individualId)).toMatchObject({ FirstName: 'Rita', LastName: 'Report', FullName: 'Rita Report', Deleted: 'false' });
    });

    it('reports the caller’s rights: all for an administrator; read+update on self and reports for a manager; read only otherwise', async () => {
      const asMgr = (await get('/v4/individuals', mgr).expect(200)).body as Json[];
      const rights = (id: string) => {
        const r = asMgr.find((x) => x.ID === id)!;
        return [r.CanRead, r.CanUpdate, r.CanDelete, r.CanDelegate];
      };
      expect(rights(mgr.individualId)).toEqual([true, true, false, false]);
      expect(rights(rep.individualId)).toEqual([true, true, false, false]);
      expect(rights(boss.individualId)).toEqual([true, false, false, false]);
      expect(rights(peer.individualId)).toEqual([true, false, false, false]);
      const asAdmin = (await get('/v4/individuals', acme.admin).expect(200)).body as Json[];
      expect(asAdmin.every((r) => r.CanRead && r.CanUpdate && r.CanDelete && r.CanDelegate)).toBe(true);
    });

    it('pages with limit/offset, X-Total-Count and Link', async () => {
      const all = (await get('/v4/individuals', peer).expect(200)).body as Json[];
      const page = await get('/v4/individuals?limit=2&offset=1', peer).expect(200);
      expect((page.body as Json[]).map((r) => r.ID)).toEqual(all.slice(1, 3).map((r) => r.ID));
      expect(page.headers['x-total-count']).toBe(String(all.length));
      expect(page.headers.link).toBe('</v4/individuals?limit=2&offset=3>; rel="next"');
    });

    it('refuses a bad deleted, limit or offset with 400 naming the parameter', async () => {
      const res = await get('/v4/individuals?deleted=3&limit=0&offset=x', peer).expect(400);
      expect(res.body.errors.map((e: { field: string }) => e.field).sort()).toEqual(['deleted', 'limit', 'offset']);
      await get('/v4/individuals?tz=Mars/Olympus', peer).expect(400);
    });
  });

  describe('GET /v4/sites/{siteid}/individuals', () => {
    it('lists the own site, refuses another for a site administrator (403) and lets a global administrator read it', async () => {
      const own = await get(`/v4/sites/${acme.siteId}/individuals`, peer).expect(200);
      expect((own.body as Json[]).map((r) => r.ID)).toContain(peer.individualId);
      const refused = await get(`/v4/sites/${globex.siteId}/individuals`, acme.admin).expect(403);
      expect(refused.body.type).toBe('urn:pms:problem:forbidden');
      const other = await get(`/v4/sites/${globex.siteId}/individuals`, t.adminToken).expect(200);
      expect((other.body as Json[]).map((r) => r.ID).sort()).toEqual([globex.admin.individualId, foreign.individualId].sort());
      expect(other.headers['x-total-count']).toBe('2');
      const xml = await get(`/v4/sites/${globex.siteId}/individuals`, t.adminToken).set('Accept', 'text/xml').expect(200);
      expect(xml.text).toContain('<ArrayOfIndividual ');
      await get('/v4/sites/not-a-guid/individuals', peer).expect(400);
    });
  });

  describe('GET /v4/individuals/{id} and /v4/me', () => {
    it('reads one individual in JSON with the derived names, account data and an ETag', async () => {
      const created = await post(
        createBody({ Prefix: 'Dr.', Suffix: 'PhD', FirstName: 'Grace', LastName: 'Hopper', PrimaryOrganizationID: sales, PrimaryReportsTo: boss.individualId }),
      ).expect(200);
      const res = await get(`/v4/individuals/${created.body.ID as string}`, peer).expect(200);
      expect(res.body).toMatchObject({
        ID: created.body.ID,
        SiteID: acme.siteId,
        FullName: 'Grace Hopper',
        FormalName: 'Dr. Grace Hopper, PhD',
        FullOrderedName: 'Hopper, Grace',
        PrimaryOrganizationID: sales,
        PrimaryOrganizationName: 'Sales',
        PrimaryReportsTo: boss.individualId,
        UserEmail: 'ada.login@acme.test',
        IsGlobalAdmin: false,
        Password: null,
        ParentID: null,
        CanRead: true,
        CanUpdate: false,
      });
      expect(res.body.UserID).toEqual(expect.stringMatching(/^[0-9a-f-]{36}$/));
      expect(res.headers.etag).toMatch(/^"[A-Za-z0-9_-]+"$/);
    });

    it('answers XML with the root Individual and the values of the record', async () => {
      const res = await get(`/v4/individuals/${rep.individualId}`, peer).set('Accept', 'application/xml').expect(200);
      expect(res.text).toMatch(/^<\?xml[^>]+\?><Individual xmlns="urn:pms:v4" xmlns:i="http:\/\/www.w3.org\/2001\/XMLSchema-instance">/);
      expect(res.text).toContain('<Password i:nil="true"/>');
      expect(res.text).toContain('<ParentID i:nil="true"/>');
      const ind = (await codec.decodeXml(res.text)) as Json;
      expect(ind).toMatchObject({
        ID: rep.individualId,
        FirstName: 'Rita',
        LastName: 'Report',
        PrimaryReportsTo: mgr.individualId,
        UserName: rep.userName,
        Deleted: 'false',
        CanUpdate: 'false',
        LastComment: null,
      });
    });

    it('answers 404 for an unknown id and for an individual of another site; 400 for a malformed id', async () => {
      const unknown = await get(`/v4/individuals/${UNKNOWN}`, peer).expect(404);
      expect(unknown.body.type).toBe('urn:pms:problem:not-found');
      await get(`/v4/individuals/${foreign.individualId}`, acme.admin).expect(404);
      const bad = await get('/v4/individuals/nope', peer).expect(400);
      expect(bad.body.errors).toEqual([{ field: 'id', message: 'id must be a UUID' }]);
    });

    it('GET /me answers the caller’s own individual in JSON and XML', async () => {
      const res = await get('/v4/me', rep).expect(200);
      expect(res.body).toMatchObject({ ID: rep.individualId, UserName: rep.userName, CanRead: true, CanUpdate: true, CanDelete: false });
      const xml = await get('/v4/me', rep).set('Accept', 'application/xml').expect(200);
      expect(xml.text).toContain(XML_HEAD);
      expect(((await codec.decodeXml(xml.text)) as Json).ID).toBe(rep.individualId);
      await t.http().get('/v4/me').expect(401);
      // A global administrator acting in another site has no individual there.
      const inGlobex = await t
        .http()
        .post('/v4/auth/token')
        .send({ UserName: t.config.adminUserName, Password: ADMIN_PASSWORD, SiteID: globex.siteId })
        .expect(200);
      const none = await get('/v4/me', inGlobex.body.access_token as string).expect(404);
      expect(none.body.type).toBe('urn:pms:problem:not-found');
      expect((await get('/v4/me', t.adminToken).expect(200)).body).toMatchObject({ SiteID: t.defaultSiteId, IsGlobalAdmin: true, IsAdmin: true });
    });

    it('renders dates in the tz zone (+01:00 in November for Europe/Berlin)', async () => {
      const created = await post(createBody({ HireDate: '2026-11-21T15:00:00Z' })).expect(200);
      expect(created.body.HireDate).toBe('2026-11-21T15:00:00.000+00:00');
      const berlin = await get(`/v4/individuals/${created.body.ID as string}?tz=Europe/Berlin`, peer).expect(200);
      expect(berlin.body.HireDate).toBe('2026-11-21T16:00:00.000+01:00');
      expect(berlin.body.Created).toMatch(/[+-]\d\d:\d\d$/);
      const windows = await get(`/v4/individuals/${created.body.ID as string}?tz=${encodeURIComponent('W. Europe Standard Time')}`, peer).expect(200);
      expect(windows.body.HireDate).toBe('2026-11-21T16:00:00.000+01:00');
      const list = await get('/v4/individuals?tz=-05:00', peer).expect(200);
      expect((list.body as Json[]).find((r) => r.ID === created.body.ID)!.HireDate).toBe('2026-11-21T10:00:00.000-05:00');
    });

    it('fills LastComment* from the newest live comment (JSON date-time; XML DataContract DateTimeOffset)', async () => {
      const subject = await post(createBody({ FirstName: 'Linus', LastName: 'Commented' })).expect(200);
      const id = subject.body.ID as string;
      await insertIndividualComment(t, acme.siteId, id, { body: 'older', created: new Date('2026-11-20T09:00:00Z'), authorId: peer.individualId });
      await insertIndividualComment(t, acme.siteId, id, { body: 'newest', created: new Date('2026-11-21T15:00:00Z'), authorId: boss.individualId });
      await insertIndividualComment(t, acme.siteId, id, {
        body: 'deleted',
        created: new Date('2026-11-22T15:00:00Z'),
        authorId: peer.individualId,
        deleted: true,
      });
      const res = await get(`/v4/individuals/${id}`, peer).expect(200);
      expect(res.body).toMatchObject({
        LastComment: 'newest',
        LastCommentDate: '2026-11-21T15:00:00.000+00:00',
        LastCommentByID: boss.individualId,
        LastCommentBy: 'Bea Boss',
      });
      const berlin = await get(`/v4/individuals/${id}?tz=Europe/Berlin`, peer).expect(200);
      expect(berlin.body.LastCommentDate).toBe('2026-11-21T16:00:00.000+01:00');
      const xml = await get(`/v4/individuals/${id}?tz=Europe/Berlin`, peer).set('Accept', 'application/xml').expect(200);
      expect(xml.text).toMatch(
        /<LastCommentDate xmlns:a="http:\/\/schemas\.datacontract\.org\/2004\/07\/System"><a:DateTime>2026-11-21T15:00:00(\.000)?Z<\/a:DateTime><a:OffsetMinutes>60<\/a:OffsetMinutes><\/LastCommentDate>/,
      );
      expect(xml.text).toContain('<LastComment>newest</LastComment><LastCommentBy>Bea Boss</LastCommentBy>');
      const utc = await get(`/v4/individuals/${id}`, peer).set('Accept', 'application/xml').expect(200);
      expect(utc.text).toMatch(/<a:DateTime>2026-11-21T15:00:00(\.000)?Z<\/a:DateTime><a:OffsetMinutes>0<\/a:OffsetMinutes>/);
      // The list carries the same values (batched, one query for the page).
      const list = (await get('/v4/individuals', peer).expect(200)).body as Json[];
      expect(list.find((r) => r.ID === id)).toMatchObject({ LastComment: 'newest', LastCommentBy: 'Bea Boss' });
    });
  });

  // ---------------------------------------------------------------------------------- create

  describe('POST /v4/individuals', () => {
    it('creates the individual, its login account and its primary membership (JSON); read-only fields are ignored', async () => {
      const body = createBody({
        Password: 'secret-pass-1',
        IsAdmin: true,
        Prefix: 'Ms.',
        UserDefined1: 'u1',
        UserDefined4: 'u4',
        HireDate: '2020-02-03T00:00:00',
        PrimaryOrganizationID: sales,
        PrimaryReportsTo: mgr.individualId,
        // read-only or ignored on input:
        SiteID: globex.siteId,
        UserID: UNKNOWN,
        IsGlobalAdmin: true,
        SendEvalSurvey: true,
        Deleted: true,
        DeletedByRef: true,
        Created: '2001-01-01T00:00:00Z',
        CreatedBy: UNKNOWN,
        FullName: 'X',
        ParentID: 'not even a guid',
        LastComment: 'x',
        CanDelete: false,
      });
      const res = await post(body).expect(200);
      const ind = res.body as Json;
      expect(Object.keys(ind)).toEqual(INDIVIDUAL_FIELDS);
      expect(ind).toMatchObject({
        SiteID: acme.siteId,
        IsAdmin: true,
        Prefix: 'Ms.',
        FirstName: 'Ada',
        LastName: 'Lovelace',
        UserDefined1: 'u1',
        UserDefined2: null,
        UserDefined4: 'u4',
        Email: 'ada@acme.test',
        PrimaryOrganizationID: sales,
        PrimaryOrganizationName: 'Sales',
        PrimaryTitle: 'Analyst',
        PrimaryReportsTo: mgr.individualId,
        UserName: body.UserName,
        Password: null,
        ParentID: null,
        FormalName: 'Ms. Ada Lovelace',
        Deleted: false,
        DeletedByRef: false,
        IsGlobalAdmin: false,
        SendEvalSurvey: false,
        UserEmail: 'ada.login@acme.test',
        CreatedBy: acme.admin.individualId,
        UpdatedBy: acme.admin.individualId,
        HireDate: '2020-02-03T00:00:00.000+00:00',
        CanDelete: true,
      });
      expect((ind.Created as string).startsWith('2001')).toBe(false);
      expect(ind.UserID).not.toBe(UNKNOWN);
      const user = await userRow(t, ind.UserID as string);
      expect(user).toMatchObject({
        siteId: acme.siteId,
        userName: body.UserName,
        userNameKey: (body.UserName as string).toLowerCase(),
        email: 'ada.login@acme.test',
      });
      expect(user!.passwordHash).toMatch(/^scrypt\$/);
      const members = await membershipRows(t, ind.ID as string);
      expect(members).toEqual([expect.objectContaining({ siteId: acme.siteId, organizationId: sales, title: 'Analyst', deletedByRef: false })]);
      const token = await login(body.UserName as string, 'secret-pass-1').expect(200);
      const me = await get('/v4/me', token.body.access_token as string).expect(200);
      expect(me.body.ID).toBe(ind.ID);
    });

    it('creates from XML with elements in any order and i:nil, answering XML whose values round-trip', async () => {
      const userName = uniqueName('xml');
      const xml =
        XML_HEAD +
        `<UserName>${userName}</UserName><PrimaryReportsTo i:nil="true"/><ParentID i:nil="true"/><LastName>Turing</LastName>` +
        `<Prefix i:nil="true"/><Email>alan@acme.test</Email><PrimaryTitle>Cryptanalyst</PrimaryTitle><IsAdmin>false</IsAdmin>` +
        `<FirstName>Alan</FirstName><UserEmail>alan.login@acme.test</UserEmail><HireDate>2026-11-21T15:00:00</HireDate>` +
        `<PrimaryOrganizationID>${acme.orgId}</PrimaryOrganizationID><Password>enigma-2026</Password><ID i:nil="true"/>` +
        `<SiteID>${globex.siteId}</SiteID><Deleted>true</Deleted></Individual>`;
      const res = await t
        .http()
        .post('/v4/individuals')
        .set('Authorization', auth(acme.admin))
        .set('Content-Type', 'application/xml')
        .set('Accept', 'application/xml')
        .send(xml)
        .expect(200);
      expect(res.text).toContain(XML_HEAD);
      const ind = (await codec.decodeXml(res.text)) as Json;
      expect(ind).toMatchObject({
        SiteID: acme.siteId,
        FirstName: 'Alan',
        LastName: 'Turing',
        UserName: userName,
        Email: 'alan@acme.test',
        PrimaryTitle: 'Cryptanalyst',
        PrimaryOrganizationID: acme.orgId,
        PrimaryOrganizationName: 'Root Org',
        PrimaryReportsTo: null,
        Prefix: null,
        Password: null,
        UserEmail: 'alan.login@acme.test',
        HireDate: '2026-11-21T15:00:00.000+00:00',
        Deleted: 'false',
        IsAdmin: 'false',
      });
      await login(userName, 'enigma-2026').expect(200);
    });

    it('reads the all-zero guid in PrimaryReportsTo as nobody, and uses a supplied free ID', async () => {
      const id = randomUUID();
      const res = await post(createBody({ ID: id, PrimaryReportsTo: ZERO })).expect(200);
      expect(res.body).toMatchObject({ ID: id, PrimaryReportsTo: null });
      const zeroId = await post(createBody({ ID: ZERO })).expect(200);
      expect(zeroId.body.ID).not.toBe(ZERO);
    });

    it('names each required field that is missing (400)', async () => {
      const all = await post({}).expect(400);
      expect(all.body.errors.map((e: { field: string }) => e.field).sort()).toEqual(
        ['Email', 'FirstName', 'LastName', 'PrimaryOrganizationID', 'PrimaryReportsTo', 'PrimaryTitle', 'UserEmail', 'UserName'].sort(),
      );
      for (const field of ['FirstName', 'LastName', 'UserName', 'Email', 'PrimaryOrganizationID', 'PrimaryTitle', 'PrimaryReportsTo', 'UserEmail']) {
        const body = createBody();
        delete body[field];
        const res = await post(body).expect(400);
        expect(res.body.errors).toEqual([{ field, message: expect.stringContaining(`${field} is required`) }]);
      }
      for (const field of ['FirstName', 'LastName', 'UserName', 'Email']) {
        const res = await post(createBody({ [field]: '  ' })).expect(400);
        expect(res.body.errors).toEqual([{ field, message: `${field} must not be empty` }]);
      }
    });

    it('enforces every limit: one character over is 400, at the limit is fine', async () => {
      const limits: Record<string, number> = {
        Prefix: 25,
        Suffix: 25,
        FirstName: 50,
        LastName: 50,
        UserDefined1: 255,
        UserDefined2: 255,
        UserDefined3: 255,
        UserDefined4: 255,
        Email: 255,
        PrimaryTitle: 255,
        UserName: 255,
        UserEmail: 255,
      };
      for (const [field, max] of Object.entries(limits)) {
        const res = await post(createBody({ [field]: 'x'.repeat(max + 1) })).expect(400);
        expect(res.body.errors).toEqual([{ field, message: `${field} must be at most ${max} characters` }]);
      }
      const atLimit = Object.fromEntries(Object.entries(limits).map(([f, max]) => [f, (f === 'UserName' ? uniqueName('lim') : '').padEnd(max, 'y')]));
      const ok = await post(createBody(atLimit)).expect(200);
      expect((ok.body.FirstName as string).length).toBe(50);
      expect((ok.body.UserName as string).length).toBe(255);
    });

    it('refuses wrong types, a short password and bad references with one 400 naming the fields', async () => {
      const types = await post(
        createBody({ IsAdmin: 'yes', HireDate: 'soon', PrimaryOrganizationID: 'abc', PrimaryReportsTo: 12, FirstName: 5, Password: 123456789 }),
      ).expect(400);
      expect(types.body.errors.map((e: { field: string }) => e.field).sort()).toEqual(
        ['FirstName', 'HireDate', 'IsAdmin', 'Password', 'PrimaryOrganizationID', 'PrimaryReportsTo'].sort(),
      );
      const short = await post(createBody({ Password: 'short12' })).expect(400);
      expect(short.body.errors).toEqual([{ field: 'Password', message: 'Password must be at least 8 characters' }]);
      const deletedDept = (await createDepartment(t, acme.siteId, { deleted: true })).id;
      for (const orgId of [globex.orgId, UNKNOWN, deletedDept]) {
        const res = await post(createBody({ PrimaryOrganizationID: orgId })).expect(400);
        expect(res.body.errors).toEqual([{ field: 'PrimaryOrganizationID', message: expect.stringContaining('not a live organization') }]);
      }
      const refs = await post(createBody({ PrimaryOrganizationID: globex.orgId, PrimaryReportsTo: foreign.individualId })).expect(400);
      expect(refs.body.errors.map((e: { field: string }) => e.field).sort()).toEqual(['PrimaryOrganizationID', 'PrimaryReportsTo']);
    });

    it('answers 409 duplicate-username for a user name taken in this or another site, whatever its case', async () => {
      for (const taken of [peer.userName.toUpperCase(), foreign.userName, t.config.adminUserName]) {
        const before = await t.ds.getRepository('users').count();
        const res = await post(createBody({ UserName: taken })).expect(409);
        expect(res.body.type).toBe('urn:pms:problem:duplicate-username');
        expect(await t.ds.getRepository('users').count()).toBe(before);
      }
    });

    it('answers 409 id-taken for a used ID, also another site’s, and writes nothing (one transaction)', async () => {
      for (const id of [peer.individualId, foreign.individualId]) {
        const userName = uniqueName('taken');
        const res = await post(createBody({ ID: id, UserName: userName })).expect(409);
        expect(res.body.type).toBe('urn:pms:problem:id-taken');
        expect(await userByName(t, userName)).toBeNull();
      }
      expect((await individualRow(t, foreign.individualId))!.siteId).toBe(globex.siteId);
    });

    it('is for administrators only: 403 admin-required, nothing created', async () => {
      const userName = uniqueName('nope');
      const res = await post(createBody({ UserName: userName }), mgr).expect(403);
      expect(res.body.type).toBe('urn:pms:problem:admin-required');
      expect(await userByName(t, userName)).toBeNull();
    });
  });

  // ---------------------------------------------------------------------------------- update

  describe('PUT /v4/individuals/{id}', () => {
    let subject: Json;
    beforeEach(async () => {
      subject = (await post(createBody({ Password: 'secret-pass-1', PrimaryReportsTo: mgr.individualId, Prefix: 'Mr.', UserDefined2: 'keep' })).expect(200))
        .body as Json;
    });

    it('updates as an administrator: absent optional fields keep their value, null clears, read-only fields are ignored', async () => {
      const res = await put(subject.ID as string, {
        ID: subject.ID,
        FirstName: 'Augusta',
        LastName: 'King',
        UserName: subject.UserName,
        Prefix: null,
        Suffix: 'Countess',
        HireDate: '2021-05-06T07:08:09.123+02:00',
        SiteID: globex.siteId,
        Deleted: true,
        IsGlobalAdmin: true,
        Created: '2001-01-01T00:00:00Z',
        ParentID: UNKNOWN,
      }).expect(200);
      expect(res.body).toMatchObject({
        ID: subject.ID,
        SiteID: acme.siteId,
        FirstName: 'Augusta',
        LastName: 'King',
        Prefix: null,
        Suffix: 'Countess',
        FormalName: 'Augusta King, Countess',
        FullOrderedName: 'King, Augusta',
        UserDefined2: 'keep',
        Email: subject.Email,
        PrimaryTitle: 'Analyst',
        PrimaryReportsTo: mgr.individualId,
        PrimaryOrganizationID: acme.orgId,
        UserEmail: subject.UserEmail,
        Deleted: false,
        IsGlobalAdmin: false,
        ParentID: null,
        Created: subject.Created,
        HireDate: '2021-05-06T05:08:09.123+00:00',
      });
      expect(res.body.Updated >= (subject.Updated as string)).toBe(true);
    });

    it('accepts the exact XML a client read back (as the individual themself), with a change', async () => {
      const token = (await login(subject.UserName as string, 'secret-pass-1').expect(200)).body.access_token as string;
      await insertIndividualComment(t, acme.siteId, subject.ID as string, {
        body: 'hi',
        created: new Date('2026-11-21T15:00:00Z'),
        authorId: boss.individualId,
      });
      const read = await get(`/v4/individuals/${subject.ID as string}`, token)
        .set('Accept', 'application/xml')
        .expect(200);
      expect(read.text).toContain('<LastCommentDate xmlns:a=');
      const body = read.text.replace('<LastName>Lovelace</LastName>', '<LastName>Byron</LastName>');
      const res = await t
        .http()
        .put(`/v4/individuals/${subject.ID as string}`)
        .set('Authorization', auth(token))
        .set('Content-Type', 'text/xml')
        .set('Accept', 'text/xml')
        .set('If-Match', read.headers.etag)
        .send(body)
        .expect(200);
      const ind = (await codec.decodeXml(res.text)) as Json;
      expect(ind).toMatchObject({
        LastName: 'Byron',
        FirstName: 'Ada',
        Prefix: 'Mr.',
        UserDefined2: 'keep',
        PrimaryReportsTo: mgr.individualId,
        LastComment: 'hi',
      });
      await login(subject.UserName as string, 'secret-pass-1').expect(200);
    });

    it('accepts the JSON a client read back unchanged (ETag stays the same)', async () => {
      const read = await get(`/v4/individuals/${subject.ID as string}`, acme.admin).expect(200);
      const res = await put(subject.ID as string, read.body)
        .set('If-Match', read.headers.etag)
        .expect(200);
      expect(res.body).toMatchObject({ ...read.body, Updated: expect.any(String) });
    });

    it('names each required field that is missing, each limit exceeded by one and wrong types (400), changing nothing', async () => {
      for (const field of ['ID', 'FirstName', 'LastName', 'UserName']) {
        const body = await readBack(subject.ID as string);
        delete body[field];
        const res = await put(subject.ID as string, body).expect(400);
        expect(res.body.errors).toEqual([{ field, message: `${field} is required` }]);
      }
      const limits: Record<string, number> = {
        Prefix: 25,
        Suffix: 25,
        FirstName: 50,
        LastName: 50,
        UserDefined1: 255,
        UserDefined2: 255,
        UserDefined3: 255,
        UserDefined4: 255,
        Email: 255,
        PrimaryTitle: 255,
        UserName: 255,
        UserEmail: 255,
      };
      for (const [field, max] of Object.entries(limits)) {
        const res = await put(subject.ID as string, await readBack(subject.ID as string, { [field]: 'z'.repeat(max + 1) })).expect(400);
        expect(res.body.errors).toEqual([{ field, message: `${field} must be at most ${max} characters` }]);
      }
      const types = await put(subject.ID as string, await readBack(subject.ID as string, { IsAdmin: 'maybe', PrimaryReportsTo: 'x', HireDate: 7 })).expect(400);
      expect(types.body.errors.map((e: { field: string }) => e.field).sort()).toEqual(['HireDate', 'IsAdmin', 'PrimaryReportsTo']);
      const short = await put(subject.ID as string, await readBack(subject.ID as string, { Password: '1234567' })).expect(400);
      expect(short.body.errors[0].field).toBe('Password');
      const row = await individualRow(t, subject.ID as string);
      expect(row).toMatchObject({ firstName: 'Ada', lastName: 'Lovelace', prefix: 'Mr.' });
    });

    it('answers 400 when the body ID differs from the path id', async () => {
      const res = await put(subject.ID as string, await readBack(subject.ID as string, { ID: peer.individualId })).expect(400);
      expect(res.body.errors[0].field).toBe('ID');
    });

    it('honours If-Match: 412 for a stale ETag', async () => {
      const read = await get(`/v4/individuals/${subject.ID as string}`, acme.admin).expect(200);
      await put(subject.ID as string, { ...read.body, FirstName: 'One' })
        .set('If-Match', read.headers.etag)
        .expect(200);
      const res = await put(subject.ID as string, { ...read.body, FirstName: 'Two' })
        .set('If-Match', read.headers.etag)
        .expect(412);
      expect(res.body.type).toBe('urn:pms:problem:precondition-failed');
      expect((await individualRow(t, subject.ID as string))!.firstName).toBe('One');
    });

    it('answers 404 for an unknown id and for another site’s individual (unchanged), 400 for a malformed id', async () => {
      await put(UNKNOWN, { ID: UNKNOWN, FirstName: 'A', LastName: 'B', UserName: uniqueName() }).expect(404);
      const before = await individualRow(t, foreign.individualId);
      await put(foreign.individualId, { ID: foreign.individualId, FirstName: 'Hacked', LastName: 'X', UserName: foreign.userName }).expect(404);
      expect(await individualRow(t, foreign.individualId)).toEqual(before);
      await put('bad', { ID: 'bad', FirstName: 'A', LastName: 'B', UserName: 'c' }).expect(400);
    });

    it('lets the individual and everyone above them update (200), and refuses others (403)', async () => {
      const self = await put(rep.individualId, await readBack(rep.individualId, { UserDefined1: 'by self' }, rep), rep).expect(200);
      expect(self.body.UserDefined1).toBe('by self');
      const byMgr = await put(rep.individualId, await readBack(rep.individualId, { UserDefined1: 'by manager' }, mgr), mgr).expect(200);
      expect(byMgr.body.UserDefined1).toBe('by manager');
      const byBoss = await put(rep.individualId, await readBack(rep.individualId, { UserDefined1: 'by boss' }, boss), boss).expect(200);
      expect(byBoss.body.UserDefined1).toBe('by boss');
      const refused = await put(rep.individualId, await readBack(rep.individualId, { UserDefined1: 'by peer' }, peer), peer).expect(403);
      expect(refused.body.type).toBe('urn:pms:problem:forbidden');
      await put(mgr.individualId, await readBack(mgr.individualId, { UserDefined1: 'by report' }, rep), rep).expect(403);
      expect((await individualRow(t, rep.individualId))!.userDefined1).toBe('by boss');
      expect((await individualRow(t, mgr.individualId))!.userDefined1).toBeNull();
    });

    it('lets only an administrator change IsAdmin; a non-administrator may send the current value', async () => {
      await put(rep.individualId, await readBack(rep.individualId, { IsAdmin: false }, mgr), mgr).expect(200);
      const refused = await put(rep.individualId, await readBack(rep.individualId, { IsAdmin: true }, mgr), mgr).expect(403);
      expect(refused.body.type).toBe('urn:pms:problem:forbidden');
      await put(rep.individualId, await readBack(rep.individualId, { IsAdmin: true }, rep), rep).expect(403);
      expect((await individualRow(t, rep.individualId))!.isAdmin).toBe(false);
      const byAdmin = await put(subject.ID as string, await readBack(subject.ID as string, { IsAdmin: true })).expect(200);
      expect(byAdmin.body.IsAdmin).toBe(true);
      const back = await put(subject.ID as string, await readBack(subject.ID as string, { IsAdmin: false })).expect(200);
      expect(back.body.IsAdmin).toBe(false);
    });

    it('changes UserName, UserEmail and Password on the account (self or administrator only)', async () => {
      const token = (await login(subject.UserName as string, 'secret-pass-1').expect(200)).body.access_token as string;
      const newName = uniqueName('Renamed');
      const res = await put(
        subject.ID as string,
        await readBack(subject.ID as string, { UserName: ` ${newName} `, UserEmail: 'new@acme.test', Password: 'new-password-9' }, token),
        token,
      ).expect(200);
      expect(res.body).toMatchObject({ UserName: newName, UserEmail: 'new@acme.test', Password: null });
      expect(await userRow(t, subject.UserID as string)).toMatchObject({ userName: newName, userNameKey: newName.toLowerCase(), email: 'new@acme.test' });
      await login(subject.UserName as string, 'secret-pass-1').expect(401);
      await login(newName.toUpperCase(), 'new-password-9').expect(200);
      // A manager may update the report, but not take over their login.
      const refused = await put(subject.ID as string, await readBack(subject.ID as string, { Password: 'taken-over-1' }, mgr), mgr).expect(403);
      expect(refused.body.detail).toContain('Password');
      await put(subject.ID as string, await readBack(subject.ID as string, { UserName: uniqueName() }, mgr), mgr).expect(403);
      await login(newName, 'new-password-9').expect(200);
      // An administrator may, and null / "" leave the password alone.
      await put(subject.ID as string, await readBack(subject.ID as string, { Password: 'admin-set-pw-1' })).expect(200);
      await put(subject.ID as string, await readBack(subject.ID as string, { Password: '' })).expect(200);
      await login(newName, 'admin-set-pw-1').expect(200);
      const cleared = await put(subject.ID as string, await readBack(subject.ID as string, { UserEmail: null, Email: null })).expect(200);
      expect(cleared.body).toMatchObject({ UserEmail: null, Email: null });
    });

    it('answers 409 duplicate-username on a rename to a taken name (any case, any site), changing nothing', async () => {
      for (const taken of [peer.userName.toUpperCase(), foreign.userName]) {
        const res = await put(subject.ID as string, await readBack(subject.ID as string, { UserName: taken, FirstName: 'Changed' })).expect(409);
        expect(res.body.type).toBe('urn:pms:problem:duplicate-username');
      }
      expect((await individualRow(t, subject.ID as string))!.firstName).toBe('Ada');
      expect((await userRow(t, subject.UserID as string))!.userName).toBe(subject.UserName);
      // A change of case only of the own name is fine.
      const upper = (subject.UserName as string).toUpperCase();
      const res = await put(subject.ID as string, await readBack(subject.ID as string, { UserName: upper })).expect(200);
      expect(res.body.UserName).toBe(upper);
    });

    it('checks PrimaryReportsTo: same site (400), nobody for null or zeros, 409 cycle for self and for a loop', async () => {
      const foreignRef = await put(subject.ID as string, await readBack(subject.ID as string, { PrimaryReportsTo: foreign.individualId })).expect(400);
      expect(foreignRef.body.errors).toEqual([{ field: 'PrimaryReportsTo', message: expect.stringContaining('not an individual of this site') }]);
      const self = await put(subject.ID as string, await readBack(subject.ID as string, { PrimaryReportsTo: subject.ID })).expect(409);
      expect(self.body.type).toBe('urn:pms:problem:cycle');
      // subject reports to mgr, mgr to boss: boss → subject closes a loop.
      const loop = await put(boss.individualId, await readBack(boss.individualId, { PrimaryReportsTo: subject.ID })).expect(409);
      expect(loop.body.type).toBe('urn:pms:problem:cycle');
      expect((await individualRow(t, boss.individualId))!.primaryReportsTo).toBeNull();
      const zero = await put(subject.ID as string, await readBack(subject.ID as string, { PrimaryReportsTo: ZERO })).expect(200);
      expect(zero.body.PrimaryReportsTo).toBeNull();
      const moved = await put(subject.ID as string, await readBack(subject.ID as string, { PrimaryReportsTo: peer.individualId })).expect(200);
      expect(moved.body.PrimaryReportsTo).toBe(peer.individualId);
      const absent = await readBack(subject.ID as string);
      delete absent.PrimaryReportsTo;
      expect((await put(subject.ID as string, absent).expect(200)).body.PrimaryReportsTo).toBe(peer.individualId);
      expect((await put(subject.ID as string, { ...absent, PrimaryReportsTo: null }).expect(200)).body.PrimaryReportsTo).toBeNull();
    });

    it('moves the primary membership with PrimaryOrganizationID (re-pointed, or merged into an existing membership)', async () => {
      const [original] = await membershipRows(t, subject.ID as string);
      const moved = await put(subject.ID as string, await readBack(subject.ID as string, { PrimaryOrganizationID: sales, PrimaryTitle: 'Seller' })).expect(200);
      expect(moved.body).toMatchObject({ PrimaryOrganizationID: sales, PrimaryOrganizationName: 'Sales', PrimaryTitle: 'Seller' });
      expect(await membershipRows(t, subject.ID as string)).toEqual([expect.objectContaining({ id: original.id, organizationId: sales, title: 'Seller' })]);
      // Already a (secondary) member of the target: that row becomes the primary one, the old row goes.
      const support = (await createDepartment(t, acme.siteId, { name: 'Support' })).id;
      await t.ds.getRepository('organization_members').insert({
        id: randomUUID(),
        siteId: acme.siteId,
        individualId: subject.ID,
        organizationId: support,
        title: 'Helper',
        deletedByRef: false,
        created: new Date(),
        updated: new Date(),
      });
      const merged = await put(subject.ID as string, await readBack(subject.ID as string, { PrimaryOrganizationID: support })).expect(200);
      expect(merged.body).toMatchObject({ PrimaryOrganizationID: support, PrimaryTitle: 'Seller' });
      expect(await membershipRows(t, subject.ID as string)).toEqual([expect.objectContaining({ organizationId: support, title: 'Seller' })]);
      // A title change alone follows onto the membership; null / zeros keep the organization.
      await put(subject.ID as string, await readBack(subject.ID as string, { PrimaryTitle: 'Lead', PrimaryOrganizationID: ZERO })).expect(200);
      expect(await membershipRows(t, subject.ID as string)).toEqual([expect.objectContaining({ organizationId: support, title: 'Lead' })]);
      for (const orgId of [globex.orgId, UNKNOWN]) {
        const res = await put(subject.ID as string, await readBack(subject.ID as string, { PrimaryOrganizationID: orgId })).expect(400);
        expect(res.body.errors[0].field).toBe('PrimaryOrganizationID');
      }
      expect((await individualRow(t, subject.ID as string))!.primaryOrganizationId).toBe(support);
    });

    it('answers 409 deleted for a deleted individual', async () => {
      await t
        .http()
        .delete(`/v4/individuals/${subject.ID as string}`)
        .set('Authorization', auth(acme.admin))
        .expect(200);
      const res = await put(subject.ID as string, { ...subject, FirstName: 'Ghost' }).expect(409);
      expect(res.body.type).toBe('urn:pms:problem:deleted');
      expect((await individualRow(t, subject.ID as string))!.firstName).toBe('Ada');
    });
  });

  // ---------------------------------------------------------------------------------- delete

  describe('DELETE /v4/individuals/{id} and PUT …/undelete', () => {
    const del = (id: string, who: TestPerson | string = acme.admin) => t.http().delete(`/v4/individuals/${id}`).set('Authorization', auth(who));
    const undel = (id: string, who: TestPerson | string = acme.admin) => t.http().put(`/v4/individuals/${id}/undelete`).set('Authorization', auth(who));

    it('soft-deletes: still readable, filtered by deleted, memberships and comments by reference, no login; idempotent; undelete restores', async () => {
      const userName = uniqueName('gone');
      const created = (await post(createBody({ UserName: userName, Password: 'secret-pass-1' })).expect(200)).body as Json;
      const id = created.ID as string;
      const token = (await login(userName, 'secret-pass-1').expect(200)).body.access_token as string;
      const comment = await insertIndividualComment(t, acme.siteId, id, { body: 'note', created: new Date(), authorId: boss.individualId });

      const res = await del(id).expect(200);
      expect(res.body).toEqual({});
      const xml = await del(id).set('Accept', 'application/xml').expect(200);
      expect(xml.text).toMatch(/<Object xmlns="urn:pms:v4"[^>]*\/>/);

      const read = await get(`/v4/individuals/${id}`, peer).expect(200);
      expect(read.body).toMatchObject({ ID: id, Deleted: true, DeletedByRef: false });
      expect(((await get('/v4/individuals', peer).expect(200)).body as Json[]).map((r) => r.ID)).not.toContain(id);
      const deletedOnly = (await get('/v4/individuals?deleted=1', peer).expect(200)).body as Json[];
      expect(deletedOnly.map((r) => r.ID)).toContain(id);
      expect(deletedOnly.every((r) => r.Deleted === true)).toBe(true);
      const all = (await get('/v4/individuals?deleted=2', peer).expect(200)).body as Json[];
      expect(all.map((r) => r.ID)).toEqual(expect.arrayContaining([id, peer.individualId]));
      expect(await membershipRows(t, id)).toEqual([expect.objectContaining({ deletedByRef: true })]);
      expect(await t.ds.getRepository('comments').findOneBy({ id: comment.id })).toMatchObject({ deleted: true, deletedByRef: true });
      await login(userName, 'secret-pass-1').expect(401);
      await get('/v4/me', token).expect(401);

      const restored = await undel(id).expect(200);
      expect(restored.body).toMatchObject({ ID: id, Deleted: false, LastComment: 'note' });
      const again = await undel(id).set('Accept', 'application/xml').expect(200);
      expect(again.text).toContain(XML_HEAD);
      expect(await membershipRows(t, id)).toEqual([expect.objectContaining({ deletedByRef: false })]);
      expect(await t.ds.getRepository('comments').findOneBy({ id: comment.id })).toMatchObject({ deleted: false, deletedByRef: false });
      await login(userName, 'secret-pass-1').expect(200);
    });

    it('does not revive memberships of a department deleted meanwhile', async () => {
      const dept = (await createDepartment(t, acme.siteId)).id;
      const created = (await post(createBody()).expect(200)).body as Json;
      const id = created.ID as string;
      await t.ds.getRepository('organization_members').insert({
        id: randomUUID(),
        siteId: acme.siteId,
        individualId: id,
        organizationId: dept,
        title: null,
        deletedByRef: false,
        created: new Date(),
        updated: new Date(),
      });
      await del(id).expect(200);
      await t.ds.getRepository('organizations').update({ id: dept }, { deleted: true });
      await undel(id).expect(200);
      const rows = await membershipRows(t, id);
      expect(rows.find((r) => r.organizationId === dept)!.deletedByRef).toBe(true);
      expect(rows.find((r) => r.organizationId === acme.orgId)!.deletedByRef).toBe(false);
    });

    it('is for administrators only (403 admin-required), and another site’s individual is 404 and unchanged', async () => {
      const res = await del(peer.individualId, mgr).expect(403);
      expect(res.body.type).toBe('urn:pms:problem:admin-required');
      const un = await undel(peer.individualId, mgr).expect(403);
      expect(un.body.type).toBe('urn:pms:problem:admin-required');
      await del(foreign.individualId).expect(404);
      await undel(foreign.individualId).expect(404);
      expect((await individualRow(t, foreign.individualId))!.deleted).toBe(false);
      expect((await individualRow(t, peer.individualId))!.deleted).toBe(false);
      await del(UNKNOWN).expect(404);
      await del('not-a-guid').expect(400);
    });

    it('refuses an administrator deleting their own individual (403), and honours If-Match (412)', async () => {
      const res = await del(acme.admin.individualId).expect(403);
      expect(res.body.type).toBe('urn:pms:problem:forbidden');
      const created = (await post(createBody()).expect(200)).body as Json;
      await del(created.ID as string)
        .set('If-Match', '"stale"')
        .expect(412);
      expect((await individualRow(t, created.ID as string))!.deleted).toBe(false);
      const read = await get(`/v4/individuals/${created.ID as string}`, acme.admin).expect(200);
      await del(created.ID as string)
        .set('If-Match', read.headers.etag)
        .expect(200);
    });
  });

  describe('OpenAPI', () => {
    it('documents every individual route with a summary, its 200 answer and the field rules', async () => {
      const doc = (await t.http().get('/docs/openapi.json').expect(200)).body as {
        paths: Record<string, Record<string, { summary?: string; responses: Record<string, unknown>; parameters?: { name: string }[] }>>;
        components: {
          schemas: Record<
            string,
            { properties: Record<string, { description?: string; maxLength?: number; readOnly?: boolean; deprecated?: boolean }>; required?: string[] }
          >;
        };
      };
      const routes: [string, string][] = [
        ['/v4/individuals', 'get'],
        ['/v4/individuals', 'post'],
        ['/v4/individuals/{id}', 'get'],
        ['/v4/individuals/{id}', 'put'],
        ['/v4/individuals/{id}', 'delete'],
        ['/v4/individuals/{id}/undelete', 'put'],
        ['/v4/me', 'get'],
        ['/v4/sites/{siteid}/individuals', 'get'],
      ];
      for (const [path, method] of routes) {
        const op = doc.paths[path]?.[method];
        expect(op?.summary).toEqual(expect.any(String));
        expect(op?.responses['200']).toBeDefined();
      }
      expect(parametersOf(doc, doc.paths['/v4/individuals'].get).map((p) => p.name)).toEqual(expect.arrayContaining(['deleted', 'limit', 'offset', 'tz']));
      const ind = doc.components.schemas.Individual.properties;
      expect(Object.keys(ind)).toEqual(INDIVIDUAL_FIELDS);
      expect(ind.FirstName).toMatchObject({ maxLength: 50 });
      expect(ind.Prefix).toMatchObject({ maxLength: 25 });
      expect(ind.UserID).toMatchObject({ readOnly: true });
      expect(ind.UserName.description).toContain('unique across all sites');
      const create = doc.components.schemas.CreateIndividualDto;
      expect(create.required).toEqual(
        expect.arrayContaining(['FirstName', 'LastName', 'UserName', 'Email', 'PrimaryOrganizationID', 'PrimaryTitle', 'PrimaryReportsTo', 'UserEmail']),
      );
      expect(create.properties.ParentID).toMatchObject({ deprecated: true });
      expect(doc.components.schemas.UpdateIndividualDto.required!.sort()).toEqual(['FirstName', 'ID', 'LastName', 'UserName']);
    });
  });
});
