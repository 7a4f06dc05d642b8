import { UserEntity } from '../../src/database/entities/user.entity.js';
import { IndividualEntity } from '../../src/database/entities/individual.entity.js';
import { OrganizationEntity } from '../../src/database/entities/organization.entity.js';
import { createPerson, createSite, type TestPerson, type TestSite } from '../factories/index.js';
import { ADMIN_PASSWORD, ADMIN_USER, bearer, startApp, type TestApp } from '../e2e/harness.js';
import { setTimeout as sleep } from 'node:timers/promises';

/**
 * Issue 46, rows 7 and 8, and what follows from them: privileges are not granted by an
 * integration — IsAdmin, a Password and an administrator's UserName or UserEmail need an
 * administrator's own session or the scope `admin` — SCIM never changes an administrator's
 * sign-in, and nothing a site controls (its administrator, its tokens, its provisioning) reads,
 * renames, deletes or takes over a global administrator (docs/security.md, "Privileges").
 */
const NS = 'urn:pms:v4';
const SCIM = 'application/scim+json';
const patchOp = (...Operations: object[]) => JSON.stringify({ schemas: ['urn:ietf:params:scim:api:messages:2.0:PatchOp'], Operations });

describe('attack: privileges through integrations', () => {
  let t: TestApp;
  let site: TestSite;
  let worker: TestPerson;
  let otherAdmin: TestPerson;
  const tokens: Record<string, string> = {};
  const as = (token: string) => ({ Authorization: bearer(token) });
  let gaIndividual: string;
  let defaultAdmin: TestPerson;
  let defaultTokens: Record<string, string>;

  beforeAll(async () => {
    t = await startApp();
    site = await createSite(t);
    worker = await createPerson(t, site);
    otherAdmin = await createPerson(t, site, { isAdmin: true });
    for (const scopes of ['individuals:write', '*:write', 'individuals:write admin', 'scim', 'scim admin']) {
      tokens[scopes] = (await t.http().post('/v4/apitokens').set(as(site.admin.token)).send({ Name: scopes, Scopes: scopes }).expect(200)).body.Secret;
    }
    gaIndividual = (await t.http().get('/v4/me').set(as(t.adminToken)).expect(200)).body.ID;
    const [org] = await t.ds.getRepository(OrganizationEntity).findBy({ siteId: t.defaultSiteId });
    defaultAdmin = await createPerson(t, { siteId: t.defaultSiteId, orgId: org.id }, { isAdmin: true });
    defaultTokens = {};
    for (const scopes of ['*:write admin', 'scim']) {
      defaultTokens[scopes] = (await t.http().post('/v4/apitokens').set(as(defaultAdmin.token)).send({ Name: scopes, Scopes: scopes }).expect(200)).body.Secret;
    }
  });
  afterAll(async () => {
    await t.close();
  });

  const individual = (id: string) => t.ds.getRepository(IndividualEntity).findOneByOrFail({ id });
  const account = (id: string) => t.ds.getRepository(UserEntity).findOneByOrFail({ id });
  const read = async (id: string) => (await t.http().get(`/v4/individuals/${id}`).set(as(site.admin.token)).expect(200)).body as Record<string, unknown>;

  it('row 7: an API token without the scope admin sets neither IsAdmin nor a Password, in JSON, merge patch or XML', async () => {
    const before = await account(worker.userId);
    for (const token of [tokens['individuals:write'], tokens['*:write']]) {
      const body = { ...(await read(worker.individualId)), IsAdmin: true };
      const json = await t.http().put(`/v4/individuals/${worker.individualId}`).set(as(token)).send(body).expect(403);
      expect(json.body.type).toBe('urn:pms:problem:insufficient-scope');
      expect(json.body.detail).toMatch(/admin/);
      await t.http().patch(`/v4/individuals/${worker.individualId}`).set(as(token)).send({ Password: 'taken-over-1' }).expect(403);
      await t
        .http()
        .patch(`/v4/individuals/${worker.individualId}`)
        .set(as(token))
        .set('Content-Type', 'application/xml')
        .set('Accept', 'application/xml')
        .send(`<Individual xmlns="${NS}"><IsAdmin>true</IsAdmin></Individual>`)
        .expect(403);
      const created = await t
        .http()
        .post('/v4/individuals')
        .set(as(token))
        .send({
          FirstName: 'New',
          LastName: 'Admin',
          UserName: `new-admin-${Date.now()}`,
          Email: 'n@example.com',
          UserEmail: 'n@example.com',
          PrimaryOrganizationID: site.orgId,
          PrimaryTitle: 'x',
          PrimaryReportsTo: null,
          IsAdmin: true,
        });
      expect(created.status).toBe(403);
    }
    expect((await individual(worker.individualId)).isAdmin).toBe(false);
    expect((await account(worker.userId)).passwordHash).toBe(before.passwordHash);
    await t.http().post('/v4/auth/token').send({ UserName: worker.userName, Password: worker.password }).expect(200);
    // The same token changes what is no privilege.
    await t.http().patch(`/v4/individuals/${worker.individualId}`).set(as(tokens['individuals:write'])).send({ FirstName: 'Renamed' }).expect(200);
  });

  it('row 7: an API token without the scope admin moves neither an administrator’s user name nor e-mail (a person’s, it may)', async () => {
    const token = tokens['individuals:write'];
    await t.http().patch(`/v4/individuals/${otherAdmin.individualId}`).set(as(token)).send({ UserName: 'admin-taken-over' }).expect(403);
    await t.http().patch(`/v4/individuals/${otherAdmin.individualId}`).set(as(token)).send({ UserEmail: 'attacker@evil.example' }).expect(403);
    expect((await account(otherAdmin.userId)).userName).toBe(otherAdmin.userName);
    await t
      .http()
      .patch(`/v4/individuals/${worker.individualId}`)
      .set(as(token))
      .send({ UserName: `${worker.userName}-moved` })
      .expect(200);
    worker.userName = `${worker.userName}-moved`;
  });

  it('row 7: with the scope admin (which the docs warn about) it may', async () => {
    const token = tokens['individuals:write admin'];
    await t.http().patch(`/v4/individuals/${worker.individualId}`).set(as(token)).send({ IsAdmin: true }).expect(200);
    expect((await individual(worker.individualId)).isAdmin).toBe(true);
    await t.http().patch(`/v4/individuals/${worker.individualId}`).set(as(token)).send({ IsAdmin: false }).expect(200);
  });

  it('row 8: SCIM never renames, re-mails or re-passwords a site administrator, and sees no global administrator', async () => {
    const scim = (token: string, method: 'GET' | 'PATCH' | 'PUT' | 'DELETE', path: string, body?: string) => {
      const req = t.http()[method.toLowerCase() as 'get'](`/scim/v2${path}`).set(as(token));
      return body === undefined ? req : req.set('Content-Type', SCIM).send(body);
    };
    for (const token of [tokens.scim, tokens['scim admin']]) {
      expect(
        (await scim(token, 'PATCH', `/Users/${otherAdmin.individualId}`, patchOp({ op: 'replace', path: 'userName', value: 'renamed-admin' }))).status,
      ).toBe(403);
      const mail = await scim(
        token,
        'PATCH',
        `/Users/${otherAdmin.individualId}`,
        patchOp({ op: 'replace', path: 'emails', value: [{ value: 'attacker@evil.example', primary: true }] }),
      );
      expect(mail.status).toBe(403);
    }
    expect((await account(otherAdmin.userId)).userName).toBe(otherAdmin.userName);
    // A password in a SCIM body is never written.
    const before = (await account(worker.userId)).passwordHash;
    await scim(tokens.scim, 'PATCH', `/Users/${worker.individualId}`, patchOp({ op: 'replace', path: 'password', value: 'taken-over-2' })).expect(200);
    expect((await account(worker.userId)).passwordHash).toBe(before);
    // The global administrator is no User of the Default site's provisioning.
    const ga = defaultTokens.scim;
    expect((await scim(ga, 'GET', `/Users?filter=${encodeURIComponent(`userName eq "${ADMIN_USER}"`)}`).expect(200)).body.totalResults).toBe(0);
    for (const [method, body] of [
      ['GET', undefined],
      ['PATCH', patchOp({ op: 'replace', path: 'userName', value: 'owned' })],
      ['PATCH', patchOp({ op: 'replace', path: 'active', value: false })],
      ['PUT', JSON.stringify({ schemas: ['urn:ietf:params:scim:schemas:core:2.0:User'], userName: 'owned' })],
      ['DELETE', undefined],
    ] as const)
      expect({ method, status: (await scim(ga, method, `/Users/${gaIndividual}`, body)).status }).toEqual({ method, status: 404 });
    // Nor a member of a group it provisions: not added, not listed, not removed.
    const group = await t
      .http()
      .post('/scim/v2/Groups')
      .set(as(ga))
      .set('Content-Type', SCIM)
      .send(JSON.stringify({ displayName: 'Operators', members: [{ value: gaIndividual }] }));
    expect(group.status).toBe(400);
    const admins = (await t.http().post('/v4/securitygroups').set(as(t.adminToken)).send({ Name: 'With the operator' }).expect(200)).body.ID as string;
    await t.http().put(`/v4/securitygroups/${admins}/members/${gaIndividual}`).set(as(t.adminToken)).expect(200);
    const listed = (await scim(ga, 'GET', `/Groups/${admins}`).expect(200)).body as { members?: { value: string }[] };
    expect((listed.members ?? []).map((m) => m.value)).not.toContain(gaIndividual);
    await scim(
      ga,
      'PUT',
      `/Groups/${admins}`,
      JSON.stringify({ schemas: ['urn:ietf:params:scim:schemas:core:2.0:Group'], displayName: 'With the operator', members: [] }),
    ).expect(200);
    const still = (await t.http().get(`/v4/securitygroups/${admins}`).set(as(t.adminToken)).expect(200)).body as { Members: { IndividualID: string }[] };
    expect(still.Members.map((m) => m.IndividualID)).toContain(gaIndividual);
    await t.http().post('/v4/auth/token').send({ UserName: ADMIN_USER, Password: ADMIN_PASSWORD }).expect(200);
  });

  it('an API token of the global administrator’s site never sees, changes or deletes the global administrator, even with the scope admin', async () => {
    const token = defaultTokens['*:write admin'];
    const list = (await t.http().get('/v4/individuals').set(as(token)).expect(200)).body as { ID: string }[];
    expect(list.map((i) => i.ID)).not.toContain(gaIndividual);
    expect(list.map((i) => i.ID)).toContain(defaultAdmin.individualId);
    await t.http().get(`/v4/individuals/${gaIndividual}`).set(as(token)).expect(404);
    await t.http().get(`/v4/individuals/${gaIndividual}`).set(as(token)).set('Accept', 'application/xml').expect(404);
    await t.http().patch(`/v4/individuals/${gaIndividual}`).set(as(token)).send({ Password: 'taken-over-3' }).expect(404);
    await t.http().delete(`/v4/individuals/${gaIndividual}`).set(as(token)).expect(404);
    await t.http().post('/v4/auth/token').send({ UserName: ADMIN_USER, Password: ADMIN_PASSWORD }).expect(200);
  });

  it('row 9: a bulk write grants nothing its single writes do not: no IsAdmin or Password without the scope admin, no global administrator changed, no /v4 bulk for SCIM', async () => {
    const newcomer = (over: Record<string, unknown>) => ({
      FirstName: 'Bulk',
      LastName: 'Admin',
      UserName: `bulk-admin-${Date.now()}-${Math.random().toString(36).slice(2, 6)}`,
      Email: 'b@example.com',
      UserEmail: 'b@example.com',
      PrimaryOrganizationID: site.orgId,
      PrimaryTitle: 'x',
      PrimaryReportsTo: null,
      ...over,
    });
    const bulk = (token: string, items: object[] | string) => {
      const req = t.http().post('/v4/individuals/bulk').set(as(token));
      return typeof items === 'string' ? req.set('Content-Type', 'application/xml').send(items) : req.send({ Items: items });
    };
    const statuses = (body: { Results: { Status: number; Problem: { type: string } | null }[] }) =>
      body.Results.map((r) => [r.Status, r.Problem?.type ?? null]);
    const before = await account(worker.userId);
    for (const token of [tokens['individuals:write'], tokens['*:write']]) {
      const worker1 = await read(worker.individualId);
      const res = await bulk(token, [
        { Op: 'create', Record: newcomer({ IsAdmin: true }) },
        { Op: 'upsert', Record: { ...worker1, IsAdmin: true } },
        { Op: 'update', Record: { ...worker1, Password: 'taken-over-9' } },
      ]).expect(200);
      expect(statuses(res.body)).toEqual([
        [403, 'urn:pms:problem:insufficient-scope'],
        [403, 'urn:pms:problem:insufficient-scope'],
        [403, 'urn:pms:problem:insufficient-scope'],
      ]);
      const xml = await bulk(
        token,
        `<BulkRequestOfIndividual xmlns="${NS}"><Items><BulkItemOfIndividual><Op>update</Op><Record><ID>${worker.individualId}</ID><FirstName>W</FirstName><LastName>W</LastName><UserName>${worker.userName}</UserName><IsAdmin>true</IsAdmin></Record></BulkItemOfIndividual></Items></BulkRequestOfIndividual>`,
      ).expect(200);
      expect(xml.body.Results[0].Status).toBe(403);
    }
    expect((await individual(worker.individualId)).isAdmin).toBe(false);
    expect((await account(worker.userId)).passwordHash).toBe(before.passwordHash);

    // The global administrator's record: 404 to a token (even with the scope admin), 403 to a site administrator, even unchanged.
    const ga = (await t.http().get(`/v4/individuals/${gaIndividual}`).set(as(defaultAdmin.token)).expect(200)).body as Record<string, unknown>;
    const hidden = await bulk(defaultTokens['*:write admin'], [
      { Op: 'update', Record: { ...ga, FirstName: 'Owned' } },
      { Op: 'upsert', Record: ga },
    ]).expect(200);
    expect(statuses(hidden.body).map(([s]) => s)).toEqual([404, 404]);
    const siteAdmin = await bulk(defaultAdmin.token, [
      { Op: 'update', Record: ga },
      { Op: 'update', Record: { ...ga, Password: 'taken-over-10' } },
      { Op: 'upsert', Record: { ...ga, IsAdmin: false } },
    ]).expect(200);
    expect(statuses(siteAdmin.body).map(([s]) => s)).toEqual([403, 403, 403]);
    await t.http().post('/v4/auth/token').send({ UserName: ADMIN_USER, Password: ADMIN_PASSWORD }).expect(200);
    expect((await individual(gaIndividual)).firstName).toBe(ga.FirstName);

    // A SCIM client reaches no /v4 route, bulk included.
    await bulk(tokens.scim, [{ Op: 'create', Record: newcomer({}) }]).expect(403);
  });

  it('row 10: a file import grants nothing its bulk writes do not: no IsAdmin or Password without the scope admin, no global administrator changed, no import for SCIM', async () => {
    const csv = (rows: Record<string, unknown>[]) => {
      const header = [...new Set(rows.flatMap((r) => Object.keys(r)))];
      return [header.join(','), ...rows.map((r) => header.map((k) => String(r[k] ?? '')).join(','))].join('\r\n');
    };
    /** Posts the file as `token` and waits for a replica to process it; answers the job's failed rows as [status, type]. */
    const imported = async (token: string, file: string, mode = 'upsert') => {
      const posted = await t.http().post(`/v4/imports?kind=individuals&mode=${mode}`).set(as(token)).set('Content-Type', 'text/csv').send(file).expect(202);
      for (let i = 0; i < 150; i++) {
        const job = (await t.http().get(`/v4/imports/${posted.body.ID}`).set(as(token)).expect(200)).body as { State: string };
        if (!['queued', 'running'].includes(job.State)) break;
        await sleep(100);
      }
      const errors = (await t.http().get(`/v4/imports/${posted.body.ID}/errors`).set(as(token)).expect(200)).body as {
        Status: number;
        Problem: { type: string };
      }[];
      return errors.map((e) => [e.Status, e.Problem.type]);
    };
    const before = await account(worker.userId);
    const w = await read(worker.individualId);
    const mine = { ID: w.ID, FirstName: w.FirstName, LastName: w.LastName, UserName: w.UserName, Email: w.Email, UserEmail: w.UserEmail };
    const newcomer = {
      FirstName: 'File',
      LastName: 'Admin',
      UserName: `file-admin-${Date.now()}`,
      Email: 'f@example.com',
      UserEmail: 'f@example.com',
      PrimaryOrganizationID: site.orgId,
      PrimaryTitle: 'x',
      PrimaryReportsTo: '',
      IsAdmin: 'true',
    };
    expect(await imported(tokens['*:write'], csv([newcomer, { ...mine, IsAdmin: 'true' }]))).toEqual([
      [403, 'urn:pms:problem:insufficient-scope'],
      [403, 'urn:pms:problem:insufficient-scope'],
    ]);
    expect(await imported(tokens['*:write'], csv([{ ...mine, Password: 'taken-over-11' }]), 'update')).toEqual([[403, 'urn:pms:problem:insufficient-scope']]);
    expect((await individual(worker.individualId)).isAdmin).toBe(false);
    expect((await account(worker.userId)).passwordHash).toBe(before.passwordHash);

    // The global administrator's record: 404 to a token (even with the scope admin), 403 to a site administrator.
    const ga = (await t.http().get(`/v4/individuals/${gaIndividual}`).set(as(defaultAdmin.token)).expect(200)).body as Record<string, unknown>;
    const gaRow = { ID: ga.ID, FirstName: 'Owned', LastName: ga.LastName, UserName: ga.UserName, Email: ga.Email, UserEmail: ga.UserEmail };
    expect((await imported(defaultTokens['*:write admin'], csv([gaRow]), 'update')).map(([s]) => s)).toEqual([404]);
    expect((await imported(defaultAdmin.token, csv([gaRow]), 'update')).map(([s]) => s)).toEqual([403]);
    expect((await individual(gaIndividual)).firstName).toBe(ga.FirstName);

    // A SCIM client reaches no /v4 route, imports included; nor does a token without imports:write.
    await t
      .http()
      .post('/v4/imports?kind=individuals&mode=upsert')
      .set(as(tokens.scim))
      .set('Content-Type', 'text/csv')
      .send(csv([newcomer]))
      .expect(403);
    await t
      .http()
      .post('/v4/imports?kind=individuals&mode=upsert')
      .set(as(tokens['individuals:write']))
      .set('Content-Type', 'text/csv')
      .send(csv([newcomer]))
      .expect(403);
  });

  it('a site administrator of the global administrator’s site is never more than that: no password, name, e-mail, deletion or demotion of the global administrator', async () => {
    const token = defaultAdmin.token;
    const ga = (await t.http().get(`/v4/individuals/${gaIndividual}`).set(as(token)).expect(200)).body;
    for (const change of [
      { Password: 'taken-over-4' },
      { UserName: 'owned' },
      { UserEmail: 'attacker@evil.example' },
      { IsAdmin: false },
      { FirstName: 'Owned' },
    ]) {
      const res = await t.http().patch(`/v4/individuals/${gaIndividual}`).set(as(token)).send(change);
      expect({ change, status: res.status }).toEqual({ change, status: 403 });
    }
    await t
      .http()
      .put(`/v4/individuals/${gaIndividual}`)
      .set(as(token))
      .send({ ...ga, Password: 'taken-over-5' })
      .expect(403);
    await t.http().delete(`/v4/individuals/${gaIndividual}`).set(as(token)).expect(403);
    await t.http().post('/v4/auth/token').send({ UserName: ADMIN_USER, Password: ADMIN_PASSWORD }).expect(200);
    // The global administrator may change their own record.
    await t.http().patch(`/v4/individuals/${gaIndividual}`).set(as(t.adminToken)).send({ FirstName: 'Operator' }).expect(200);
  });
});
