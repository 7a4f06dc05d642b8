import { readFileSync } from 'node:fs';
import { IndividualEntity } from '../../src/database/entities/individual.entity.js';
import { SecurityGroupMemberEntity } from '../../src/database/entities/security-group.entity.js';
import { UserEntity } from '../../src/database/entities/user.entity.js';
import { createPerson, createSite, type TestPerson, type TestSite } from '../factories/index.js';
import { ADMIN_PASSWORD, ADMIN_USER, bearer, DB_KIND, startApp, TestApp } from './harness.js';

/**
 * SCIM 2.0 provisioning (docs/identity.md, "SCIM provisioning"), on SQLite and MariaDB: the
 * request sequences Okta and Microsoft Entra ID send (test/fixtures/scim), filters and paging,
 * ETags, uniqueness, SCIM errors, who may call, tenancy, deactivation ending sign-in and tokens,
 * DELETE keeping the records, and concurrent writes.
 */
type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const PATCH_OP = 'urn:ietf:params:scim:api:messages:2.0:PatchOp';
const ERROR = 'urn:ietf:params:scim:api:messages:2.0:Error';
const ENTERPRISE = 'urn:ietf:params:scim:schemas:extension:enterprise:2.0:User';
const SCIM_JSON = 'application/scim+json';
const q = encodeURIComponent;

interface Step {
  name: string;
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  path: string;
  body?: unknown;
  expect: { status: number; body?: Json; absent?: string[] };
  save?: Record<string, string>;
}

describe('SCIM 2.0 provisioning (/scim/v2)', () => {
  let t: TestApp;
  let A: TestSite;
  let B: TestSite;
  /** API tokens with the scope scim of site A and B, and one of A without it. */
  let scimA: string;
  let scimB: string;
  let readOnlyA: string;

  const token = async (site: TestSite, scopes: string) =>
    (
      await t
        .http()
        .post('/v4/apitokens')
        .set('Authorization', bearer(site.admin.token))
        .send({ Name: `SCIM ${scopes}`, Scopes: scopes })
        .expect(200)
    ).body.Secret as string;

  /** A SCIM request of `tok` (A's scim token by default), JSON as application/scim+json. */
  const scim = (method: Step['method'], path: string, body?: unknown, tok: string | null = scimA, headers: Record<string, string> = {}) => {
    const agent = t.http();
    const send = { GET: agent.get, POST: agent.post, PUT: agent.put, PATCH: agent.patch, DELETE: agent.delete }[method].bind(agent);
    let req = send(`/scim/v2${path}`).set('Accept', SCIM_JSON);
    if (tok) req = req.set('Authorization', bearer(tok));
    for (const [k, v] of Object.entries(headers)) req = req.set(k, v);
    return body === undefined ? req : req.set('Content-Type', SCIM_JSON).send(JSON.stringify(body));
  };
  const patchOp = (...Operations: Json[]) => ({ schemas: [PATCH_OP], Operations });
  let seq = 0;
  /** A new User of A through SCIM; answers its resource. */
  const newUser = async (extra: Json = {}, tok = scimA): Promise<Json> => {
    const n = `${Date.now().toString(36)}${seq++}`;
    const res = await scim(
      'POST',
      '/Users',
      { schemas: ['urn:ietf:params:scim:schemas:core:2.0:User'], userName: `u${n}@example.com`, name: { givenName: 'Una', familyName: `N${n}` }, ...extra },
      tok,
    );
    expect(res.status).toBe(201);
    return res.body as Json;
  };
  const expectScimError = (res: { status: number; body: Json; headers: Record<string, string> }, status: number, scimType?: string) => {
    expect(res.status).toBe(status);
    expect(res.headers['content-type']).toMatch(/^application\/scim\+json/);
    expect(res.body).toMatchObject({ schemas: [ERROR], status: String(status), ...(scimType ? { scimType } : {}) });
    expect(typeof res.body.detail).toBe('string');
  };

  beforeAll(async () => {
    t = await startApp();
    A = await createSite(t);
    B = await createSite(t);
    scimA = await token(A, 'scim');
    scimB = await token(B, 'scim');
    readOnlyA = await token(A, '*:read *:write');
  });
  afterAll(async () => {
    await t.close();
  });

  describe.each(['okta', 'entra'])('the %s provisioning sequence', (client) => {
    const fixture = JSON.parse(readFileSync(new URL(`../fixtures/scim/${client}.json`, import.meta.url), 'utf8')) as { steps: Step[] };
    it(`answers every step as the client expects (${fixture.steps.length} steps)`, async () => {
      const saved: Record<string, string> = {};
      const fill = <T>(v: T): T => JSON.parse(JSON.stringify(v).replace(/\{\{(\w+)\}\}/g, (_m, k: string) => saved[k] ?? `{{${k}}}`)) as T;
      for (const step of fixture.steps) {
        const res = await scim(step.method, fill(step.path), step.body === undefined ? undefined : fill(step.body));
        const context = `${client}: ${step.name} → ${res.status} ${res.text.slice(0, 400)}`;
        expect({ step: context, status: res.status }).toEqual({ step: context, status: step.expect.status });
        if (step.expect.body) expect(res.body).toMatchObject(fill(step.expect.body));
        for (const attribute of step.expect.absent ?? []) expect(res.body).not.toHaveProperty(attribute);
        if (res.status !== 204) expect(res.headers['content-type']).toMatch(/^application\/scim\+json/);
        for (const [name, attribute] of Object.entries(step.save ?? {})) saved[name] = res.body[attribute];
      }
    });
  });

  describe('who may call', () => {
    it('answers 401 without a token and with a bad one, as SCIM errors', async () => {
      expectScimError(await scim('GET', '/Users', undefined, null), 401);
      expectScimError(await scim('GET', '/Users', undefined, 'pms_' + 'x'.repeat(46)), 401);
      expectScimError(await scim('GET', '/ServiceProviderConfig', undefined, 'not-a-token'), 401);
    });

    it('answers 403 to a token without the scope scim (even *:write) and to a person, administrator or not', async () => {
      expectScimError(await scim('GET', '/Users', undefined, readOnlyA), 403);
      expectScimError(await scim('POST', '/Users', { userName: 'nobody@example.com' }, readOnlyA), 403);
      expectScimError(await scim('GET', '/Users', undefined, A.admin.token), 403);
      expectScimError(await scim('GET', '/Groups', undefined, t.adminToken), 403);
      // And the scim token cannot use /v4.
      const v4 = await t.http().get('/v4/individuals').set('Authorization', bearer(scimA));
      expect(v4.status).toBe(403);
      expect(v4.body.type).toBe('urn:pms:problem:insufficient-scope');
    });

    it('accepts the scope scim at token creation and lists it', async () => {
      const res = await t
        .http()
        .post('/v4/apitokens')
        .set('Authorization', bearer(A.admin.token))
        .send({ Name: 'x', Scopes: 'scim individuals:read' })
        .expect(200);
      expect(res.body.Scopes).toBe('scim individuals:read');
      await t.http().post('/v4/apitokens').set('Authorization', bearer(A.admin.token)).send({ Name: 'x', Scopes: 'scim:write' }).expect(400);
    });

    it('reads JSON only: application/json too, XML is 415, a malformed body 400 invalidSyntax', async () => {
      const userName = `json${Date.now()}@example.com`;
      const res = await t.http().post('/scim/v2/Users').set('Authorization', bearer(scimA)).set('Content-Type', 'application/json').send({ userName });
      expect(res.status).toBe(201);
      expect(res.headers['content-type']).toMatch(/^application\/scim\+json/);
      const xml = await t
        .http()
        .post('/scim/v2/Users')
        .set('Authorization', bearer(scimA))
        .set('Content-Type', 'application/xml')
        .send('<User><userName>x</userName></User>');
      expectScimError(xml as never, 415);
      const broken = await t.http().post('/scim/v2/Users').set('Authorization', bearer(scimA)).set('Content-Type', SCIM_JSON).send('{"userName": ');
      expectScimError(broken as never, 400, 'invalidSyntax');
    });
  });

  describe('discovery', () => {
    it('describes the service, its resource types and schemas', async () => {
      const config = await scim('GET', '/ServiceProviderConfig').expect(200);
      expect(config.body).toMatchObject({
        patch: { supported: true },
        filter: { supported: true, maxResults: 1000 },
        etag: { supported: true },
        bulk: { supported: false },
      });
      const types = await scim('GET', '/ResourceTypes').expect(200);
      expect(types.body.Resources.map((r: Json) => r.id)).toEqual(['User', 'Group']);
      await scim('GET', '/ResourceTypes/User').expect(200);
      const schemas = await scim('GET', '/Schemas').expect(200);
      expect(schemas.body.totalResults).toBe(3);
      const user = await scim('GET', '/Schemas/urn:ietf:params:scim:schemas:core:2.0:User').expect(200);
      expect(user.body.attributes.map((a: Json) => a.name)).toContain('userName');
      expectScimError(await scim('GET', '/Schemas/urn:nothing'), 404);
    });

    it('appears in the OpenAPI document under the tag SCIM, with SCIM bodies', async () => {
      const doc = (await t.http().get('/docs/openapi.json').expect(200)).body as Json;
      for (const path of [
        '/scim/v2/Users',
        '/scim/v2/Users/{id}',
        '/scim/v2/Groups',
        '/scim/v2/Groups/{id}',
        '/scim/v2/ServiceProviderConfig',
        '/scim/v2/ResourceTypes',
        '/scim/v2/Schemas',
      ])
        for (const op of Object.values(doc.paths[path] as Json)) expect((op as Json).tags).toEqual(['SCIM']);
      expect(doc.paths['/scim/v2/Users'].post.responses['201'].content[SCIM_JSON].schema).toEqual({ $ref: '#/components/schemas/ScimUser' });
      expect(doc.paths['/scim/v2/Users/{id}'].patch.responses['412'].content[SCIM_JSON].schema).toEqual({ $ref: '#/components/schemas/ScimError' });
      expect(doc.tags.map((tag: Json) => tag.name)).toContain('SCIM');
    });

    it('takes every SCIM request example of the OpenAPI document as it stands', async () => {
      const doc = (await t.http().get('/docs/openapi.json').expect(200)).body as Json;
      const example = (path: string, method: string) => doc.paths[path][method].requestBody.content[SCIM_JSON].example as Json;
      const user = await scim('POST', '/Users', example('/scim/v2/Users', 'post')).expect(201);
      await scim('PUT', `/Users/${user.body.id}`, example('/scim/v2/Users/{id}', 'put')).expect(200);
      expect((await scim('PATCH', `/Users/${user.body.id}`, example('/scim/v2/Users/{id}', 'patch')).expect(200)).body.active).toBe(false);
      const group = await scim('POST', '/Groups', example('/scim/v2/Groups', 'post')).expect(201);
      await scim('PUT', `/Groups/${group.body.id}`, example('/scim/v2/Groups/{id}', 'put')).expect(200);
      await scim('PATCH', `/Groups/${group.body.id}`, example('/scim/v2/Groups/{id}', 'patch')).expect(200);
    });
  });

  describe('Users', () => {
    it('maps a User onto an individual and its account of the token’s site', async () => {
      const manager = await newUser();
      const user = await newUser({
        title: 'Engineer',
        emails: [{ value: 'Una@Example.com', type: 'work', primary: true }],
        externalId: 'ext-1',
        [ENTERPRISE]: { manager: { value: manager.id } },
      });
      expect(user).toMatchObject({ title: 'Engineer', active: true, externalId: 'ext-1', [ENTERPRISE]: { manager: { value: manager.id } } });
      expect(user.schemas).toEqual(['urn:ietf:params:scim:schemas:core:2.0:User', ENTERPRISE]);
      const row = await t.ds.getRepository(IndividualEntity).findOneByOrFail({ id: user.id });
      expect(row).toMatchObject({
        siteId: A.siteId,
        firstName: 'Una',
        primaryTitle: 'Engineer',
        primaryReportsTo: manager.id,
        email: 'Una@Example.com',
        externalId: 'ext-1',
        deleted: false,
      });
      const v4 = await t.http().get(`/v4/individuals/${user.id}`).set('Authorization', bearer(A.admin.token)).expect(200);
      expect(v4.body).toMatchObject({ UserName: user.userName, PrimaryReportsTo: manager.id, PrimaryOrganizationID: A.orgId });
    });

    it('refuses bad input with 400 invalidValue naming the attribute, and writes nothing', async () => {
      const before = await t.ds.getRepository(UserEntity).count();
      expectScimError(await scim('POST', '/Users', { name: { givenName: 'x' } }), 400, 'invalidValue');
      expectScimError(await scim('POST', '/Users', { userName: 'long@example.com', name: { givenName: 'x'.repeat(51) } }), 400, 'invalidValue');
      expectScimError(await scim('POST', '/Users', { userName: 'bad\u200b@example.com' }), 400, 'invalidValue');
      expectScimError(await scim('POST', '/Users', { userName: 'act@example.com', active: 'maybe' }), 400, 'invalidValue');
      const orphan = await scim('POST', '/Users', {
        userName: 'orphan@example.com',
        [ENTERPRISE]: { manager: { value: '00000000-0000-4000-8000-000000000000' } },
      });
      expectScimError(orphan, 400, 'invalidValue');
      expect(orphan.body.detail).toMatch(/manager/);
      expectScimError(await scim('POST', '/Users', [1, 2]), 400, 'invalidSyntax');
      expect(await t.ds.getRepository(UserEntity).count()).toBe(before);
    });

    it('answers 409 uniqueness for a taken userName (any case), on create and on change', async () => {
      const user = await newUser();
      expectScimError(await scim('POST', '/Users', { userName: user.userName.toUpperCase() }), 409, 'uniqueness');
      const other = await newUser();
      expectScimError(await scim('PATCH', `/Users/${other.id}`, patchOp({ op: 'replace', path: 'userName', value: user.userName })), 409, 'uniqueness');
      // A userName of another site is taken too (user names are unique across sites).
      expectScimError(await scim('POST', '/Users', { userName: A.admin.userName }, scimB), 409, 'uniqueness');
    });

    it('replaces with PUT: given attributes replace, title and manager absent are cleared, externalId and active absent are kept', async () => {
      const manager = await newUser();
      const user = await newUser({ title: 'Old', externalId: 'keep-me', [ENTERPRISE]: { manager: { value: manager.id } } });
      const res = await scim('PUT', `/Users/${user.id}`, { userName: user.userName, name: { givenName: 'New', familyName: 'Name' } }).expect(200);
      expect(res.body).toMatchObject({ name: { givenName: 'New', familyName: 'Name', formatted: 'New Name' }, externalId: 'keep-me', active: true });
      expect(res.body.title).toBeUndefined();
      expect(res.body[ENTERPRISE]).toBeUndefined();
    });

    it('patches with and without paths, in any case, and ignores attributes it does not keep', async () => {
      const user = await newUser({ title: 'T' });
      const res = await scim(
        'PATCH',
        `/Users/${user.id}`,
        patchOp(
          { op: 'Replace', path: 'Name.GivenName', value: 'Grace' },
          { op: 'add', value: { title: 'Admiral', 'name.familyName': 'Hopper', phoneNumbers: [{ value: '555' }] } },
          { op: 'remove', path: 'externalId' },
          { op: 'add', path: 'addresses[type eq "work"].formatted', value: 'somewhere' },
        ),
      ).expect(200);
      expect(res.body).toMatchObject({ name: { givenName: 'Grace', familyName: 'Hopper' }, title: 'Admiral' });
      expect(res.body.phoneNumbers).toBeUndefined();
      expectScimError(await scim('PATCH', `/Users/${user.id}`, patchOp({ op: 'jump', path: 'title', value: 'x' })), 400, 'invalidSyntax');
      expectScimError(await scim('PATCH', `/Users/${user.id}`, { schemas: [PATCH_OP], Operations: [] }), 400, 'invalidSyntax');
      expectScimError(await scim('PATCH', `/Users/${user.id}`, patchOp({ op: 'remove' })), 400, 'noTarget');
    });

    it('refuses a reporting cycle through the manager with 400 invalidValue', async () => {
      const boss = await newUser();
      const report = await newUser({ [ENTERPRISE]: { manager: { value: boss.id } } });
      const res = await scim('PATCH', `/Users/${boss.id}`, patchOp({ op: 'add', path: `${ENTERPRISE}:manager`, value: { value: report.id } }));
      expectScimError(res, 400, 'invalidValue');
      expect(res.body.detail).toMatch(/cycle/);
    });

    it('carries a weak ETag: If-Match of another version is 412 and changes nothing, If-None-Match of the current one 304', async () => {
      const user = await newUser({ title: 'First' });
      const read = await scim('GET', `/Users/${user.id}`).expect(200);
      const etag = read.headers.etag;
      expect(etag).toMatch(/^W\/"\d+-[A-Za-z0-9_-]+"$/);
      expect(read.body.meta.version).toBe(etag);
      await scim('GET', `/Users/${user.id}`, undefined, scimA, { 'If-None-Match': etag }).expect(304);
      const changed = await scim('PATCH', `/Users/${user.id}`, patchOp({ op: 'replace', path: 'title', value: 'Second' }), scimA, { 'If-Match': etag }).expect(
        200,
      );
      expect(changed.headers.etag).not.toBe(etag);
      expectScimError(await scim('PATCH', `/Users/${user.id}`, patchOp({ op: 'replace', path: 'title', value: 'Third' }), scimA, { 'If-Match': etag }), 412);
      expectScimError(await scim('PUT', `/Users/${user.id}`, { userName: user.userName, title: 'Third' }, scimA, { 'If-Match': etag }), 412);
      expectScimError(await scim('DELETE', `/Users/${user.id}`, undefined, scimA, { 'If-Match': etag }), 412);
      expect((await scim('GET', `/Users/${user.id}`).expect(200)).body).toMatchObject({ title: 'Second', active: true });
      await scim('PUT', `/Users/${user.id}`, { userName: user.userName, title: 'Third' }, scimA, { 'If-Match': changed.headers.etag }).expect(200);
    });

    it('keeps another site’s Users out: 404 on every route, absent from lists and filters, and unchanged', async () => {
      const theirs = await newUser({ title: 'Theirs' }, scimB);
      for (const [method, body] of [
        ['GET', undefined],
        ['PUT', { userName: theirs.userName }],
        ['PATCH', patchOp({ op: 'replace', path: 'active', value: false })],
        ['DELETE', undefined],
      ] as const)
        expectScimError(await scim(method, `/Users/${theirs.id}`, body), 404);
      const list = await scim('GET', `/Users?filter=${q(`userName eq "${theirs.userName}" or id eq "${theirs.id}"`)}`).expect(200);
      expect(list.body.totalResults).toBe(0);
      expect((await scim('GET', `/Users/${theirs.id}`, undefined, scimB).expect(200)).body).toMatchObject({ title: 'Theirs', active: true });
      expectScimError(await scim('GET', '/Users/not-an-id'), 404);
    });
  });

  describe('filters and paging', () => {
    const prefix = `pg${Date.now().toString(36)}`;
    let made: Json[];
    beforeAll(async () => {
      made = [];
      for (let i = 0; i < 5; i++) {
        made.push(
          await newUser({
            userName: `${prefix}.${i}@corp${i % 2}.example`,
            name: { givenName: i < 3 ? 'Ann' : 'Bob', familyName: `F${i}` },
            emails: [{ value: `${prefix}.${i}@corp${i % 2}.example`, type: 'work', primary: true }],
            externalId: `${prefix}-ext-${i}`,
            active: i !== 4,
          }),
        );
      }
    });
    const find = async (filter: string, extra = '') => (await scim('GET', `/Users?filter=${q(filter)}${extra}`).expect(200)).body as Json;
    const ids = (body: Json) => (body.Resources as Json[]).map((r) => r.id).sort();
    const of = (...i: number[]) => i.map((n) => made[n].id).sort();

    it('filters with eq, co, sw, ew, pr, ne, and, or, not and parentheses', async () => {
      expect(ids(await find(`userName eq "${prefix.toUpperCase()}.1@CORP1.EXAMPLE"`))).toEqual(of(1));
      expect(ids(await find(`userName sw "${prefix}."`))).toEqual(of(0, 1, 2, 3, 4));
      expect(ids(await find(`userName sw "${prefix}." and userName co "corp1"`))).toEqual(of(1, 3));
      expect(ids(await find(`userName sw "${prefix}." and (name.givenName eq "bob" or externalId eq "${prefix}-ext-0")`))).toEqual(of(0, 3, 4));
      expect(ids(await find(`userName sw "${prefix}." and not (name.givenName eq "Ann")`))).toEqual(of(3, 4));
      expect(ids(await find(`userName sw "${prefix}." and active eq false`))).toEqual(of(4));
      expect(ids(await find(`userName sw "${prefix}." and active eq "True"`))).toEqual(of(0, 1, 2, 3));
      expect(ids(await find(`externalId eq "${prefix}-ext-2"`))).toEqual(of(2));
      expect(ids(await find(`emails.value ew "@corp0.example" and userName sw "${prefix}"`))).toEqual(of(0, 2, 4));
      expect(ids(await find(`emails[type eq "work" and value co "${prefix}.3@"]`))).toEqual(of(3));
      expect(ids(await find(`emails[type eq "work"].value eq "${prefix}.2@corp0.example"`))).toEqual(of(2));
      expect(ids(await find(`userName sw "${prefix}." and name.familyName ne "F0" and externalId pr`))).toEqual(of(1, 2, 3, 4));
      // LIKE wildcards in a value are plain characters.
      expect((await find(`userName co "%"`)).totalResults).toBe(0);
      expect((await find(`userName sw "_"`)).totalResults).toBe(0);
    });

    it('pages with startIndex (1-based) and count', async () => {
      const all = ids(await find(`userName sw "${prefix}."`));
      const page = await find(`userName sw "${prefix}."`, '&startIndex=3&count=2');
      expect(page).toMatchObject({ totalResults: 5, itemsPerPage: 2, startIndex: 3 });
      const first = await find(`userName sw "${prefix}."`, '&startIndex=1&count=2');
      const last = await find(`userName sw "${prefix}."`, '&startIndex=5&count=2');
      expect([...ids(first), ...ids(page), ...ids(last)].sort()).toEqual(all);
      // startIndex is 1-based: 2 starts at the second of the list as one page orders it.
      const ordered = ((await find(`userName sw "${prefix}."`, '&count=5')).Resources as Json[]).map((r) => r.id);
      const second = ((await find(`userName sw "${prefix}."`, '&startIndex=2&count=2')).Resources as Json[]).map((r) => r.id);
      expect(second).toEqual(ordered.slice(1, 3));
      expect(await find(`userName sw "${prefix}."`, '&count=0')).toMatchObject({ totalResults: 5, itemsPerPage: 0, Resources: [] });
      expect(await find(`userName sw "${prefix}."`, '&startIndex=9')).toMatchObject({ totalResults: 5, itemsPerPage: 0, startIndex: 9 });
      expectScimError(await scim('GET', '/Users?count=many'), 400, 'invalidValue');
    });

    it('answers attributes and excludedAttributes', async () => {
      const only = await find(`externalId eq "${prefix}-ext-1"`, '&attributes=userName,name.givenName');
      expect(Object.keys(only.Resources[0]).sort()).toEqual(['id', 'meta', 'name', 'schemas', 'userName']);
      expect(only.Resources[0].name).toEqual({ givenName: 'Ann' });
      const without = await find(`externalId eq "${prefix}-ext-1"`, '&excludedAttributes=emails,name');
      expect(without.Resources[0].emails).toBeUndefined();
      expect(without.Resources[0].userName).toBeDefined();
    });

    it('answers a filter it cannot read or answer with 400 invalidFilter', async () => {
      for (const filter of ['userName eq', 'userName xx "a"', 'nickName eq "a"', 'title gt "a"', 'active eq "maybe"', '(userName eq "a"', 'x'.repeat(2001)])
        expectScimError(await scim('GET', `/Users?filter=${q(filter)}`), 400, 'invalidFilter');
      expectScimError(await scim('GET', `/Groups?filter=${q('members.display eq "x"')}`), 400, 'invalidFilter');
    });
  });

  describe('deactivation and DELETE', () => {
    let person: TestPerson;
    beforeAll(async () => {
      person = await createPerson(t, A);
    });
    const login = () => t.http().post('/v4/auth/token').send({ UserName: person.userName, Password: person.password });

    it('active false: the person cannot sign in and their token is refused at once; nothing of them is deleted; true restores sign-in', async () => {
      await t.http().get('/v4/me').set('Authorization', bearer(person.token)).expect(200);
      const off = await scim('PATCH', `/Users/${person.individualId}`, patchOp({ op: 'Replace', path: 'active', value: 'False' })).expect(200);
      expect(off.body.active).toBe(false);
      const refused = await t.http().get('/v4/me').set('Authorization', bearer(person.token));
      expect(refused.status).toBe(401);
      expect(refused.body.detail).toMatch(/deactivated/);
      expect((await login()).status).toBe(401);
      const row = await t.ds.getRepository(IndividualEntity).findOneByOrFail({ id: person.individualId });
      expect(row.deleted).toBe(false);
      await t.http().get(`/v4/individuals/${person.individualId}`).set('Authorization', bearer(A.admin.token)).expect(200);
      // Back on: sign-in works again with a new token; the old one stays ended.
      await scim('PATCH', `/Users/${person.individualId}`, patchOp({ op: 'replace', value: { active: true } })).expect(200);
      const again = await login().expect(200);
      await t.http().get('/v4/me').set('Authorization', bearer(again.body.access_token)).expect(200);
      expect((await t.http().get('/v4/me').set('Authorization', bearer(person.token))).status).toBe(401);
      person.token = again.body.access_token;
    });

    it('DELETE deprovisions: sign-in ends, the User is 404 and gone from lists, the individual and its memberships stay; a new POST of the userName brings the person back', async () => {
      const group = (await scim('POST', '/Groups', { displayName: 'Keepers', members: [{ value: person.individualId }] }).expect(201)).body;
      await scim('DELETE', `/Users/${person.individualId}`).expect(204);
      expectScimError(await scim('GET', `/Users/${person.individualId}`), 404);
      expectScimError(await scim('DELETE', `/Users/${person.individualId}`), 404);
      expect((await scim('GET', `/Users?filter=${q(`userName eq "${person.userName}"`)}`).expect(200)).body.totalResults).toBe(0);
      expect((await t.http().get('/v4/me').set('Authorization', bearer(person.token))).status).toBe(401);
      expect((await login()).status).toBe(401);
      const v4 = await t.http().get(`/v4/individuals/${person.individualId}`).set('Authorization', bearer(A.admin.token)).expect(200);
      expect(v4.body.Deleted).toBe(false);
      expect(await t.ds.getRepository(SecurityGroupMemberEntity).countBy({ groupId: group.id, individualId: person.individualId })).toBe(1);
      // Rehired: the same person, active again.
      const back = await scim('POST', '/Users', { userName: person.userName, name: { givenName: 'Back', familyName: 'Again' } }).expect(201);
      expect(back.body).toMatchObject({ id: person.individualId, active: true, name: { givenName: 'Back' } });
      await login().expect(200);
    });

    it('never sees, deactivates, renames or deletes a global administrator (not a User of provisioning: 404)', async () => {
      const defaultToken = (
        await t.http().post('/v4/apitokens').set('Authorization', bearer(t.adminToken)).send({ Name: 'Default SCIM', Scopes: 'scim' }).expect(200)
      ).body.Secret as string;
      expect((await scim('GET', `/Users?filter=${q(`userName eq "${ADMIN_USER}"`)}`, undefined, defaultToken).expect(200)).body.totalResults).toBe(0);
      const me = (await t.http().get('/v4/me').set('Authorization', bearer(t.adminToken)).expect(200)).body as { ID: string };
      expectScimError(await scim('GET', `/Users/${me.ID}`, undefined, defaultToken), 404);
      expectScimError(await scim('PATCH', `/Users/${me.ID}`, patchOp({ op: 'replace', path: 'active', value: false }), defaultToken), 404);
      expectScimError(await scim('PATCH', `/Users/${me.ID}`, patchOp({ op: 'replace', path: 'userName', value: 'taken-over' }), defaultToken), 404);
      expectScimError(await scim('DELETE', `/Users/${me.ID}`, undefined, defaultToken), 404);
      await t.http().post('/v4/auth/token').send({ UserName: ADMIN_USER, Password: ADMIN_PASSWORD }).expect(200);
    });
  });

  describe('Groups', () => {
    it('keeps members of the site only, and another site’s groups out (404)', async () => {
      const mine = await newUser();
      const theirs = await newUser({}, scimB);
      const group = (await scim('POST', '/Groups', { displayName: 'Site A team', members: [{ value: mine.id }] }).expect(201)).body;
      const bad = await scim('PATCH', `/Groups/${group.id}`, patchOp({ op: 'add', path: 'members', value: [{ value: theirs.id }] }));
      expectScimError(bad, 400, 'invalidValue');
      expect(bad.body.detail).toContain(theirs.id);
      const theirGroup = (await scim('POST', '/Groups', { displayName: 'Site B team' }, scimB).expect(201)).body;
      for (const method of ['GET', 'PATCH', 'PUT', 'DELETE'] as const)
        expectScimError(
          await scim(
            method,
            `/Groups/${theirGroup.id}`,
            method === 'PATCH' ? patchOp({ op: 'replace', path: 'displayName', value: 'x' }) : method === 'PUT' ? { displayName: 'x' } : undefined,
          ),
          404,
        );
      expect((await scim('GET', `/Groups?filter=${q('displayName eq "Site B team"')}`).expect(200)).body.totalResults).toBe(0);
      expect((await scim('GET', `/Groups/${theirGroup.id}`, undefined, scimB).expect(200)).body.displayName).toBe('Site B team');
    });

    it('replaces members with PUT and with a replace op; keeps them when PUT leaves members out', async () => {
      const [u1, u2, u3] = [await newUser(), await newUser(), await newUser()];
      const group = (await scim('POST', '/Groups', { displayName: 'Rotating', members: [{ value: u1.id }, { value: u2.id }] }).expect(201)).body;
      const put = await scim('PUT', `/Groups/${group.id}`, { displayName: 'Rotating 2', members: [{ value: u3.id }] }).expect(200);
      expect(put.body.members.map((m: Json) => m.value)).toEqual([u3.id]);
      const kept = await scim('PUT', `/Groups/${group.id}`, { displayName: 'Rotating 3' }).expect(200);
      expect(kept.body.members.map((m: Json) => m.value)).toEqual([u3.id]);
      const replaced = await scim(
        'PATCH',
        `/Groups/${group.id}`,
        patchOp({ op: 'replace', path: 'members', value: [{ value: u1.id }, { value: u2.id }] }),
      ).expect(200);
      expect(replaced.body.members.map((m: Json) => m.value).sort()).toEqual([u1.id, u2.id].sort());
      const emptied = await scim('PATCH', `/Groups/${group.id}`, patchOp({ op: 'remove', path: 'members' })).expect(200);
      expect(emptied.body.members).toEqual([]);
      expectScimError(await scim('POST', '/Groups', { displayName: '' }), 400, 'invalidValue');
    });

    it('lands both of two concurrent PATCHes adding different members to one group (no lost update)', async () => {
      const group = (await scim('POST', '/Groups', { displayName: `Race ${DB_KIND}` }).expect(201)).body;
      for (let round = 0; round < 5; round++) {
        const [x, y] = [await newUser(), await newUser()];
        const [a, b] = await Promise.all([
          scim('PATCH', `/Groups/${group.id}`, patchOp({ op: 'add', path: 'members', value: [{ value: x.id }] })),
          scim('PATCH', `/Groups/${group.id}`, patchOp({ op: 'add', path: 'members', value: [{ value: y.id }] })),
        ]);
        expect([a.status, b.status]).toEqual([200, 200]);
        const members = (await scim('GET', `/Groups/${group.id}`).expect(200)).body.members.map((m: Json) => m.value);
        expect(members).toEqual(expect.arrayContaining([x.id, y.id]));
        expect(members).toHaveLength(2 * (round + 1));
      }
    });
  });

  it('gives one 201 and one 409 uniqueness to two concurrent creates of one userName', async () => {
    for (let round = 0; round < 5; round++) {
      const userName = `twin${round}.${Date.now().toString(36)}@example.com`;
      const answers = await Promise.all([scim('POST', '/Users', { userName }), scim('POST', '/Users', { userName: userName.toUpperCase() })]);
      expect(answers.map((r) => r.status).sort()).toEqual([201, 409]);
      expect(answers.find((r) => r.status === 409)!.body.scimType).toBe('uniqueness');
      expect(await t.ds.getRepository(UserEntity).countBy({ userNameKey: userName })).toBe(1);
    }
  });

  it('refuses a person of the site whose account another site’s token names (the account is the site’s)', async () => {
    const person = await createPerson(t, B);
    expectScimError(await scim('GET', `/Users/${person.individualId}`), 404);
    await scim('GET', `/Users/${person.individualId}`, undefined, scimB).expect(200);
  });
});
