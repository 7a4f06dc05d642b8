import { randomUUID } from 'node:crypto';
import { bearer, countStatements, NO_BACKGROUND_ROUNDS, startApp, TestApp, WireCodec } from './harness.js';
import { createPerson, createSite, TestPerson, TestSite } from '../factories/index.js';
import { createPeriods, createUnit } from '../factories/goals.js';

const codec = new WireCodec('urn:pms:v4');
const SLOW = 120_000;
type Json = Record<string, unknown>;

/** States of a permission body: C, R, U, D, G (Delegate). */
const states = (c: number, r: number, u: number, d: number, g: number) => ({ CreateState: c, ReadState: r, UpdateState: u, DeleteState: d, DelegateState: g });
const NONE = states(0, 0, 0, 0, 0);

/**
 * Permission records, security groups and the authorization engine (docs/authorization.md):
 * the resources in JSON and XML, their validation, tenancy and role rules, and the evaluation —
 * Deny beats Allow, a group's records apply to its members, ChildType 19 reaches sub-departments,
 * Delegate is needed to manage records, Individual.Can* follow, and lists cost the same whatever
 * the records in play.
 */
describe('/v4 permissions and security groups', () => {
  let t: TestApp;
  let acme: TestSite;
  let globex: TestSite;
  let boss: TestPerson;
  let worker: TestPerson;
  let peer: TestPerson;
  let hr: TestPerson;
  let globexPerson: TestPerson;
  let dept: string;
  let sub: string;
  let subSub: string;
  const http = () => t.http();
  const as = (p: TestPerson) => bearer(p.token);
  const fields = (res: { body: { errors?: { field: string }[] } }) => (res.body.errors ?? []).map((e) => e.field).sort();

  async function grant(row: string, principal: string, s: Json, childType: number | null = null): Promise<Json> {
    const res = await http()
      .post('/v4/permissions')
      .set('Authorization', as(acme.admin))
      .send({ RowID: row, PrincipalID: principal, ChildType: childType, ...s });
    if (res.status !== 200) throw new Error(`grant failed: ${res.status} ${res.text}`);
    return res.body as Json;
  }
  const revoke = (id: unknown) =>
    http()
      .delete(`/v4/permissions/${String(id)}`)
      .set('Authorization', as(acme.admin))
      .expect(200);
  const group = async (name: string, members: TestPerson[]) => {
    const g = (await http().post('/v4/securitygroups').set('Authorization', as(acme.admin)).send({ Name: name }).expect(200)).body as Json;
    for (const m of members)
      await http()
        .put(`/v4/securitygroups/${String(g.ID)}/members/${m.individualId}`)
        .set('Authorization', as(acme.admin))
        .expect(200);
    return g;
  };

  beforeAll(async () => {
    t = await startApp(NO_BACKGROUND_ROUNDS);
    acme = await createSite(t, { name: 'Acme' });
    globex = await createSite(t, { name: 'Globex' });
    boss = await createPerson(t, acme, { firstName: 'Bea', lastName: 'Boss' });
    worker = await createPerson(t, acme, { firstName: 'Wil', lastName: 'Worker', reportsTo: boss.individualId });
    peer = await createPerson(t, acme, { firstName: 'Pia', lastName: 'Peer' });
    hr = await createPerson(t, acme, { firstName: 'Hal', lastName: 'Human' });
    globexPerson = await createPerson(t, globex, { firstName: 'Gus', lastName: 'Globex' });
    dept = (await createUnit(t, acme.siteId, { name: 'Sales', department: true, parentId: acme.orgId })).id;
    sub = (await createUnit(t, acme.siteId, { name: 'Inside sales', department: true, parentId: dept })).id;
    subSub = (await createUnit(t, acme.siteId, { name: 'Renewals', department: true, parentId: sub })).id;
    await createPeriods(t, acme.siteId);
  }, SLOW);
  afterAll(() => t?.close(), SLOW);

  describe('the Permission resource', () => {
    it('creates, reads, updates and deletes a permission in JSON, with names, texts and the row type', async () => {
      const created = await http()
        .post('/v4/permissions')
        .set('Authorization', as(acme.admin))
        .send({
          RowID: worker.individualId,
          PrincipalID: hr.userId,
          ChildType: null,
          ...states(0, 1, 1, 2, 0),
          SiteID: globex.siteId,
          RowType: 4,
          PrincipalType: 2,
        })
        .expect(200);
      expect(created.body).toMatchObject({
        RowID: worker.individualId,
        PrincipalID: hr.userId,
        ChildType: null,
        SiteID: acme.siteId,
        RowType: 39,
        RowName: 'Wil Worker',
        PrincipalType: 1,
        PrincipalName: 'Hal Human',
        CreateState: 0,
        ReadState: 1,
        UpdateState: 1,
        DeleteState: 2,
        DelegateState: 0,
        CreateText: 'Not Set',
        ReadText: 'Allow',
        UpdateText: 'Allow',
        DeleteText: 'Deny',
        DelegateText: 'Not Set',
      });
      const id = created.body.ID as string;
      const read = await http().get(`/v4/permissions/${id}`).set('Authorization', as(acme.admin)).expect(200);
      expect(read.body).toEqual(created.body);
      // RowID, PrincipalID and ChildType do not move on update; the states change.
      const updated = await http()
        .put(`/v4/permissions/${id}`)
        .set('Authorization', as(acme.admin))
        .set('If-Match', read.headers.etag as string)
        .send({ ...read.body, RowID: peer.individualId, PrincipalID: boss.userId, ChildType: 19, ...states(2, 2, 2, 2, 2) })
        .expect(200);
      expect(updated.body).toMatchObject({ RowID: worker.individualId, PrincipalID: hr.userId, ChildType: null, ...states(2, 2, 2, 2, 2), ReadText: 'Deny' });
      await http()
        .put(`/v4/permissions/${id}`)
        .set('Authorization', as(acme.admin))
        .set('If-Match', read.headers.etag as string)
        .send(read.body)
        .expect(412);
      await revoke(id);
      await http().get(`/v4/permissions/${id}`).set('Authorization', as(acme.admin)).expect(404);
    });

    it('speaks XML: a Permission root in ordinal order with i:nil, and takes the XML it answered back', async () => {
      const res = await http()
        .post('/v4/permissions')
        .set('Authorization', as(acme.admin))
        .set('Content-Type', 'application/xml')
        .set('Accept', 'application/xml')
        .send(
          `<Permission xmlns="urn:pms:v4" xmlns:i="http://www.w3.org/2001/XMLSchema-instance"><ChildType i:nil="true"/><CreateState>1</CreateState><DelegateState>0</DelegateState><DeleteState>0</DeleteState><PrincipalID>${peer.userId}</PrincipalID><ReadState>1</ReadState><RowID>${dept}</RowID><UpdateState>0</UpdateState></Permission>`,
        )
        .expect(200);
      expect(res.text).toMatch(/^<\?xml[^>]+\?><Permission xmlns="urn:pms:v4"/);
      const names = [...res.text.matchAll(/<([A-Za-z]+)[ >/]/g)].map((m) => m[1]).slice(1);
      expect(names).toEqual([...names].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)));
      expect(res.text).toContain('<ChildType i:nil="true"/>');
      const body = (await codec.decodeXml(res.text)) as Json;
      expect(body).toMatchObject({ RowID: dept, RowType: '56', RowName: 'Sales', PrincipalType: '1', CreateText: 'Allow', ReadText: 'Allow' });
      const back = res.text.replace('<UpdateState>0</UpdateState>', '<UpdateState>2</UpdateState>');
      const put = await http()
        .put(`/v4/permissions/${String(body.ID)}`)
        .set('Authorization', as(acme.admin))
        .set('Content-Type', 'application/xml')
        .send(back)
        .expect(200);
      expect(put.body).toMatchObject({ UpdateState: 2, UpdateText: 'Deny', RowID: dept });
      const list = await http().get(`/v4/permissions?rowid=${dept}`).set('Authorization', as(acme.admin)).set('Accept', 'application/xml').expect(200);
      expect(list.text).toContain('<ArrayOfPermission xmlns="urn:pms:v4"');
      await revoke(body.ID);
    });

    it('answers 400 naming every missing or invalid field, and stores any ChildType outside the table as null', async () => {
      const res = await http().post('/v4/permissions').set('Authorization', as(acme.admin)).send({}).expect(400);
      expect(fields(res)).toEqual(['CreateState', 'DelegateState', 'DeleteState', 'PrincipalID', 'ReadState', 'RowID', 'UpdateState']);
      const bad = await http()
        .post('/v4/permissions')
        .set('Authorization', as(acme.admin))
        .send({ RowID: worker.individualId, PrincipalID: peer.userId, ...states(3, -1, 1, 1, 1) })
        .expect(400);
      expect(fields(bad)).toEqual(['CreateState', 'ReadState']);
      for (const [row, principal, field] of [
        [randomUUID(), peer.userId, 'RowID'],
        [globexPerson.individualId, peer.userId, 'RowID'],
        [worker.individualId, randomUUID(), 'PrincipalID'],
        [worker.individualId, globexPerson.userId, 'PrincipalID'],
        [worker.individualId, peer.individualId, 'PrincipalID'], // an individual's ID is not its UserID
      ]) {
        const r = await http()
          .post('/v4/permissions')
          .set('Authorization', as(acme.admin))
          .send({ RowID: row, PrincipalID: principal, ...NONE })
          .expect(400);
        expect(fields(r)).toEqual([field]);
      }
      const odd = await grant(worker.individualId, peer.userId, NONE, 77);
      expect(odd.ChildType).toBeNull();
      // (RowID, PrincipalID, ChildType) is unique: 77 was stored as null, so null again is a duplicate.
      const dup = await http()
        .post('/v4/permissions')
        .set('Authorization', as(acme.admin))
        .send({ RowID: worker.individualId, PrincipalID: peer.userId, ChildType: null, ...NONE })
        .expect(409);
      expect(dup.body.type).toBe('urn:pms:problem:duplicate-permission');
      const scoped = await grant(dept, peer.userId, NONE, 9);
      expect(scoped.ChildType).toBe(9);
      await revoke(odd.ID);
      await revoke(scoped.ID);
      const wrong = await http()
        .put(`/v4/permissions/${randomUUID()}`)
        .set('Authorization', as(acme.admin))
        .send({ ID: randomUUID(), ...NONE })
        .expect(400);
      expect(fields(wrong)).toEqual(['ID']);
    });

    it('keeps sites apart: another site’s permission is 404 and never listed', async () => {
      const theirs = await http()
        .post('/v4/permissions')
        .set('Authorization', as(globex.admin))
        .send({ RowID: globexPerson.individualId, PrincipalID: globexPerson.userId, ...states(0, 1, 0, 0, 0) })
        .expect(200);
      const id = theirs.body.ID as string;
      await http().get(`/v4/permissions/${id}`).set('Authorization', as(acme.admin)).expect(404);
      await http()
        .put(`/v4/permissions/${id}`)
        .set('Authorization', as(acme.admin))
        .send({ ID: id, ...NONE })
        .expect(404);
      await http().delete(`/v4/permissions/${id}`).set('Authorization', as(acme.admin)).expect(404);
      await http().get(`/v4/individuals/${globexPerson.individualId}/permissions`).set('Authorization', as(acme.admin)).expect(404);
      const all = await http().get('/v4/permissions').set('Authorization', as(acme.admin)).expect(200);
      expect(JSON.stringify(all.body)).not.toContain(globex.siteId);
      expect((await http().get(`/v4/permissions/${id}`).set('Authorization', as(globex.admin)).expect(200)).body.ReadState).toBe(1);
    });

    it('lists a row’s permissions under each kind’s path, and 404s a row of the wrong kind', async () => {
      const p = await grant(sub, hr.userId, states(0, 1, 0, 0, 0));
      const list = await http().get(`/v4/departments/${sub}/permissions`).set('Authorization', as(acme.admin)).expect(200);
      expect(list.body.map((x: Json) => x.ID)).toEqual([p.ID]);
      await http().get(`/v4/organizations/${sub}/permissions`).set('Authorization', as(acme.admin)).expect(404);
      await http().get(`/v4/individuals/${sub}/permissions`).set('Authorization', as(acme.admin)).expect(404);
      await http().get(`/v4/departments/${sub}/permissions`).set('Authorization', as(peer)).expect(403);
      await revoke(p.ID);
    });

    it('needs Delegate on the row to create, change or remove its permissions; it shows a member their own records', async () => {
      const body = { RowID: peer.individualId, PrincipalID: hr.userId, ...states(0, 1, 0, 0, 0) };
      await http().post('/v4/permissions').set('Authorization', as(worker)).send(body).expect(403);
      const delegate = await grant(peer.individualId, worker.userId, states(0, 0, 0, 0, 1));
      expect((await http().get(`/v4/individuals/${peer.individualId}`).set('Authorization', as(worker)).expect(200)).body.CanDelegate).toBe(true);
      const made = await http().post('/v4/permissions').set('Authorization', as(worker)).send(body).expect(200);
      await http()
        .put(`/v4/permissions/${String(made.body.ID)}`)
        .set('Authorization', as(worker))
        .send({ ID: made.body.ID, ...states(0, 2, 0, 0, 0) })
        .expect(200);
      // Delegate on one row is not Delegate on another.
      await http()
        .post('/v4/permissions')
        .set('Authorization', as(worker))
        .send({ ...body, RowID: boss.individualId })
        .expect(403);
      const listed = await http().get(`/v4/individuals/${peer.individualId}/permissions`).set('Authorization', as(worker)).expect(200);
      expect(listed.body.map((x: Json) => x.ID).sort()).toEqual([delegate.ID, made.body.ID].sort());
      // hr sees the record naming them, and nothing else without a rowid they delegate.
      const mine = await http().get('/v4/permissions').set('Authorization', as(hr)).expect(200);
      expect(mine.body.map((x: Json) => x.ID)).toEqual([made.body.ID]);
      await http()
        .get(`/v4/permissions/${String(delegate.ID)}`)
        .set('Authorization', as(hr))
        .expect(404);
      await http()
        .delete(`/v4/permissions/${String(made.body.ID)}`)
        .set('Authorization', as(worker))
        .expect(200);
      await revoke(delegate.ID);
      await http().post('/v4/permissions').set('Authorization', as(worker)).send(body).expect(403);
    });

    it('holds under concurrency: of six identical creates one wins (409 for the rest); six adds of one member leave one membership', async () => {
      const body = { RowID: boss.individualId, PrincipalID: peer.userId, ChildType: 15, ...states(0, 1, 0, 0, 0) };
      const creates = await Promise.all(Array.from({ length: 6 }, () => http().post('/v4/permissions').set('Authorization', as(acme.admin)).send(body)));
      expect(creates.map((r) => r.status).sort()).toEqual([200, 409, 409, 409, 409, 409]);
      const stored = await http().get(`/v4/permissions?rowid=${boss.individualId}&principalid=${peer.userId}`).set('Authorization', as(acme.admin)).expect(200);
      expect(stored.body).toHaveLength(1);
      await revoke(stored.body[0].ID);
      const g = await group('Crowded', []);
      const adds = await Promise.all(
        Array.from({ length: 6 }, () =>
          http()
            .put(`/v4/securitygroups/${String(g.ID)}/members/${hr.individualId}`)
            .set('Authorization', as(acme.admin)),
        ),
      );
      expect(adds.map((r) => r.status)).toEqual([200, 200, 200, 200, 200, 200]);
      const read = await http()
        .get(`/v4/securitygroups/${String(g.ID)}`)
        .set('Authorization', as(acme.admin))
        .expect(200);
      expect(read.body.Members).toEqual([{ IndividualID: hr.individualId, FullName: 'Hal Human' }]);
      await http()
        .delete(`/v4/securitygroups/${String(g.ID)}`)
        .set('Authorization', as(acme.admin))
        .expect(200);
    });

    it('requires a token', async () => {
      await http().get('/v4/permissions').expect(401);
      await http().post('/v4/permissions').send({}).expect(401);
    });
  });

  describe('security groups', () => {
    it('are created, read, renamed and deleted by administrators, with their members, in JSON and XML', async () => {
      const g = await group('Auditors', [worker, peer]);
      const read = await http()
        .get(`/v4/securitygroups/${String(g.ID)}`)
        .set('Authorization', as(acme.admin))
        .expect(200);
      expect(read.body).toMatchObject({
        Name: 'Auditors',
        Description: null,
        SiteID: acme.siteId,
        Members: [
          { IndividualID: peer.individualId, FullName: 'Pia Peer' },
          { IndividualID: worker.individualId, FullName: 'Wil Worker' },
        ],
      });
      const xml = await http()
        .get(`/v4/securitygroups/${String(g.ID)}`)
        .set('Authorization', as(acme.admin))
        .set('Accept', 'application/xml')
        .expect(200);
      expect(xml.text).toMatch(/<SecurityGroup xmlns="urn:pms:v4"[^>]*>/);
      expect(xml.text).toContain('<Members><SecurityGroupMember><FullName>Pia Peer</FullName>');
      const renamed = await http()
        .put(`/v4/securitygroups/${String(g.ID)}`)
        .set('Authorization', as(acme.admin))
        .send({ ...read.body, Name: '  Internal audit ', Members: [] })
        .expect(200);
      expect(renamed.body).toMatchObject({ Name: 'Internal audit', Members: [{ FullName: 'Pia Peer' }, { FullName: 'Wil Worker' }] });
      // idempotent membership changes
      await http()
        .put(`/v4/securitygroups/${String(g.ID)}/members/${peer.individualId}`)
        .set('Authorization', as(acme.admin))
        .expect(200);
      const less = await http()
        .delete(`/v4/securitygroups/${String(g.ID)}/members/${peer.individualId}`)
        .set('Authorization', as(acme.admin))
        .expect(200);
      expect(less.body.Members).toEqual([{ IndividualID: worker.individualId, FullName: 'Wil Worker' }]);
      await http()
        .delete(`/v4/securitygroups/${String(g.ID)}/members/${peer.individualId}`)
        .set('Authorization', as(acme.admin))
        .expect(200);
      const p = await grant(boss.individualId, String(g.ID), states(0, 0, 1, 0, 0));
      expect(p).toMatchObject({ PrincipalType: 2, PrincipalName: 'Internal audit' });
      await http()
        .delete(`/v4/securitygroups/${String(g.ID)}`)
        .set('Authorization', as(acme.admin))
        .expect(200);
      await http()
        .get(`/v4/securitygroups/${String(g.ID)}`)
        .set('Authorization', as(acme.admin))
        .expect(404);
      // its permissions went with it
      await http()
        .get(`/v4/permissions/${String(p.ID)}`)
        .set('Authorization', as(acme.admin))
        .expect(404);
    });

    it('validate, keep sites apart and refuse non-administrators', async () => {
      const res = await http()
        .post('/v4/securitygroups')
        .set('Authorization', as(acme.admin))
        .send({ Name: ' ', Description: 'x'.repeat(4001) })
        .expect(400);
      expect(fields(res)).toEqual(['Description', 'Name']);
      await http().get('/v4/securitygroups').set('Authorization', as(worker)).expect(403);
      await http().post('/v4/securitygroups').set('Authorization', as(worker)).send({ Name: 'Mine' }).expect(403);
      const theirs = (await http().post('/v4/securitygroups').set('Authorization', as(globex.admin)).send({ Name: 'Theirs' }).expect(200)).body as Json;
      await http()
        .get(`/v4/securitygroups/${String(theirs.ID)}`)
        .set('Authorization', as(acme.admin))
        .expect(404);
      await http()
        .put(`/v4/securitygroups/${String(theirs.ID)}/members/${worker.individualId}`)
        .set('Authorization', as(acme.admin))
        .expect(404);
      const mine = await group('Mine', []);
      await http()
        .put(`/v4/securitygroups/${String(mine.ID)}/members/${globexPerson.individualId}`)
        .set('Authorization', as(acme.admin))
        .expect(404);
      const list = await http().get('/v4/securitygroups').set('Authorization', as(acme.admin)).expect(200);
      expect(list.body.map((g: Json) => g.Name)).not.toContain('Theirs');
      await http()
        .delete(`/v4/securitygroups/${String(mine.ID)}`)
        .set('Authorization', as(acme.admin))
        .expect(200);
    });
  });

  describe('the evaluation', () => {
    it('hides an individual behind a Deny on Read (404, absent from lists) and Deny beats an Allow from a group', async () => {
      const allowGroup = await group('Readers', [worker]);
      const allow = await grant(peer.individualId, String(allowGroup.ID), states(0, 1, 1, 0, 0));
      const before = await http().get(`/v4/individuals/${peer.individualId}`).set('Authorization', as(worker)).expect(200);
      expect(before.body).toMatchObject({ CanRead: true, CanUpdate: true, CanDelete: false, CanDelegate: false });
      await http().get(`/v4/individuals/${peer.individualId}/dashboards`).set('Authorization', as(worker)).expect(200);
      const deny = await grant(peer.individualId, worker.userId, states(0, 2, 0, 0, 0));
      await http().get(`/v4/individuals/${peer.individualId}`).set('Authorization', as(worker)).expect(404);
      await http().get(`/v4/individuals/${peer.individualId}/goals`).set('Authorization', as(worker)).expect(404);
      const list = await http().get('/v4/individuals?limit=500').set('Authorization', as(worker)).expect(200);
      expect(list.body.map((i: Json) => i.ID)).not.toContain(peer.individualId);
      expect(Number(list.headers['x-total-count'])).toBe(list.body.length);
      // … and everywhere else it would show: memberships, its projects, its comments
      const members = await http().get(`/v4/departments/${acme.orgId}/departmentmembers`).set('Authorization', as(worker)).expect(200);
      expect(members.body.map((m: Json) => m.IndividualID)).not.toContain(peer.individualId);
      expect(members.body.map((m: Json) => m.IndividualID)).toContain(boss.individualId);
      await http().get(`/v4/individuals/${peer.individualId}/projects`).set('Authorization', as(worker)).expect(404);
      await http().get(`/v4/individuals/${peer.individualId}/comments`).set('Authorization', as(worker)).expect(404);
      await http().get(`/v4/individuals/${peer.individualId}/departmentmembers`).set('Authorization', as(worker)).expect(404);
      await http().get(`/v4/individuals/${peer.individualId}/dashboards`).set('Authorization', as(worker)).expect(404);
      const counts = await http().get(`/v4/sites/${acme.siteId}/individuals/basicroles`).set('Authorization', as(worker)).expect(200);
      expect(counts.body.map((c: Json) => c.IndividualID)).not.toContain(peer.individualId);
      expect(Number(counts.headers['x-total-count'])).toBe(counts.body.length);
      // others still see them; the administrator too
      await http().get(`/v4/individuals/${peer.individualId}`).set('Authorization', as(boss)).expect(200);
      await http().get(`/v4/individuals/${peer.individualId}`).set('Authorization', as(acme.admin)).expect(200);
      await revoke(deny.ID);
      await revoke(allow.ID);
      await http()
        .delete(`/v4/securitygroups/${String(allowGroup.ID)}`)
        .set('Authorization', as(acme.admin))
        .expect(200);
      await http().get(`/v4/individuals/${peer.individualId}`).set('Authorization', as(worker)).expect(200);
    });

    it('applies a group’s Deny to its members, and an Allow opens what the defaults close', async () => {
      // By default a peer may not update someone outside their reporting line …
      const peerBody = (await http().get(`/v4/individuals/${peer.individualId}`).set('Authorization', as(hr)).expect(200)).body as Json;
      expect(peerBody.CanUpdate).toBe(false);
      await http().put(`/v4/individuals/${peer.individualId}`).set('Authorization', as(hr)).send(peerBody).expect(403);
      await http().get(`/v4/individuals/${peer.individualId}/goals`).set('Authorization', as(hr)).expect(403);
      // … an Allow to them opens it …
      const allow = await grant(peer.individualId, hr.userId, states(1, 1, 1, 0, 0));
      expect((await http().get(`/v4/individuals/${peer.individualId}`).set('Authorization', as(hr)).expect(200)).body.CanUpdate).toBe(true);
      await http().put(`/v4/individuals/${peer.individualId}`).set('Authorization', as(hr)).send(peerBody).expect(200);
      await http().get(`/v4/individuals/${peer.individualId}/goals`).set('Authorization', as(hr)).expect(200);
      // … and a Deny to a group of theirs closes it again.
      const g = await group('Frozen', [hr]);
      const deny = await grant(peer.individualId, String(g.ID), states(0, 0, 2, 0, 0));
      const after = (await http().get(`/v4/individuals/${peer.individualId}`).set('Authorization', as(hr)).expect(200)).body as Json;
      expect(after).toMatchObject({ CanRead: true, CanUpdate: false });
      await http().put(`/v4/individuals/${peer.individualId}`).set('Authorization', as(hr)).send(after).expect(403);
      // leaving the group takes its Deny away
      await http()
        .delete(`/v4/securitygroups/${String(g.ID)}/members/${hr.individualId}`)
        .set('Authorization', as(acme.admin))
        .expect(200);
      expect((await http().get(`/v4/individuals/${peer.individualId}`).set('Authorization', as(hr)).expect(200)).body.CanUpdate).toBe(true);
      await revoke(deny.ID);
      await revoke(allow.ID);
      await http()
        .delete(`/v4/securitygroups/${String(g.ID)}`)
        .set('Authorization', as(acme.admin))
        .expect(200);
    });

    it('lets ChildType 19 on a department reach every department below it, not the department itself', async () => {
      const deny = await grant(dept, peer.userId, states(0, 2, 0, 0, 0), 19);
      await http().get(`/v4/departments/${dept}`).set('Authorization', as(peer)).expect(200);
      await http().get(`/v4/departments/${sub}`).set('Authorization', as(peer)).expect(404);
      await http().get(`/v4/departments/${subSub}`).set('Authorization', as(peer)).expect(404);
      await http().get(`/v4/departments/${sub}/dashboards`).set('Authorization', as(peer)).expect(404);
      const boards = await http().get('/v4/dashboards?limit=500').set('Authorization', as(peer)).expect(200);
      expect(boards.body.map((d: Json) => d.ID)).not.toContain(sub);
      const list = await http().get('/v4/departments?limit=500').set('Authorization', as(peer)).expect(200);
      const ids = list.body.map((d: Json) => d.ID);
      expect(ids).toContain(dept);
      expect(ids).not.toContain(sub);
      expect(ids).not.toContain(subSub);
      await http().get(`/v4/departments/${sub}`).set('Authorization', as(worker)).expect(200);
      // an Allow on Update of the sub-departments lets a non-manager rename them
      const allow = await grant(dept, worker.userId, states(0, 0, 1, 0, 0), 19);
      const s = (await http().get(`/v4/departments/${subSub}`).set('Authorization', as(worker)).expect(200)).body as Json;
      await http()
        .put(`/v4/departments/${subSub}`)
        .set('Authorization', as(worker))
        .send({ ...s, Name: 'Renewals team' })
        .expect(200);
      await http().put(`/v4/departments/${dept}`).set('Authorization', as(worker)).send({ ID: dept, Name: 'Sales!' }).expect(403);
      await revoke(allow.ID);
      await revoke(deny.ID);
      await http().get(`/v4/departments/${sub}`).set('Authorization', as(peer)).expect(200);
    });

    it('explains each decision: administrator, the record (through a group or a row above), or the default', async () => {
      const g = await group('Explained', [worker]);
      const p1 = await grant(dept, String(g.ID), states(0, 2, 1, 0, 0), 19);
      const res = await http().get(`/v4/permissions/effective?rowid=${sub}&principalid=${worker.userId}`).set('Authorization', as(acme.admin)).expect(200);
      const byOp = Object.fromEntries((res.body.Decisions as Json[]).map((d) => [d.Operation, d]));
      expect(res.body).toMatchObject({ RowID: sub, RowType: 56, RowName: 'Inside sales', PrincipalType: 1, PrincipalName: 'Wil Worker' });
      expect(byOp.Read).toMatchObject({
        Allowed: false,
        Rule: 'permission',
        State: 'Deny',
        PermissionID: p1.ID,
        ViaGroupID: g.ID,
        ThroughRowID: dept,
        ChildType: 19,
      });
      expect(byOp.Update).toMatchObject({ Allowed: true, Rule: 'permission', State: 'Allow' });
      expect(byOp.Delete).toMatchObject({ Allowed: false, Rule: 'default', State: null, PermissionID: null });
      expect(byOp.Delegate).toMatchObject({ Allowed: false, Rule: 'default' });
      const admin = await http()
        .get(`/v4/permissions/effective?rowid=${sub}&principalid=${acme.admin.userId}`)
        .set('Authorization', as(acme.admin))
        .expect(200);
      expect((admin.body.Decisions as Json[]).every((d) => d.Allowed === true && d.Rule === 'administrator')).toBe(true);
      const xml = await http().get(`/v4/permissions/effective?rowid=${sub}`).set('Authorization', as(acme.admin)).set('Accept', 'application/xml').expect(200);
      expect(xml.text).toContain('<EffectivePermissions xmlns="urn:pms:v4"');
      expect(xml.text).toContain('<Decisions><PermissionDecision>');
      // only administrators and Delegate holders may ask; a bad row is 400
      await http().get(`/v4/permissions/effective?rowid=${sub}`).set('Authorization', as(worker)).expect(403);
      const bad = await http().get(`/v4/permissions/effective?rowid=${randomUUID()}`).set('Authorization', as(acme.admin)).expect(400);
      expect(fields(bad)).toEqual(['rowid']);
      await http().get('/v4/permissions/effective').set('Authorization', as(acme.admin)).expect(400);
      await revoke(p1.ID);
      await http()
        .delete(`/v4/securitygroups/${String(g.ID)}`)
        .set('Authorization', as(acme.admin))
        .expect(200);
    });

    it(
      'reads a page of 500 individuals with 50 records in play in as many statements as a page of 5',
      async () => {
        const bulk = await createSite(t, { name: 'Bulk' });
        const reader = await createPerson(t, bulk, { firstName: 'Rita', lastName: 'Reader' });
        const people: TestPerson[] = [];
        for (let k = 0; k < 60; k++) people.push(await createPerson(t, bulk, { lastName: `P${String(k).padStart(3, '0')}` }));
        const g = (await http().post('/v4/securitygroups').set('Authorization', as(bulk.admin)).send({ Name: 'Many' }).expect(200)).body as Json;
        await http()
          .put(`/v4/securitygroups/${String(g.ID)}/members/${reader.individualId}`)
          .set('Authorization', as(bulk.admin))
          .expect(200);
        for (let k = 0; k < 50; k++) {
          await http()
            .post('/v4/permissions')
            .set('Authorization', as(bulk.admin))
            .send({ RowID: people[k].individualId, PrincipalID: k % 2 ? reader.userId : g.ID, ...states(0, k % 10 === 0 ? 2 : 1, k % 3 === 0 ? 1 : 0, 0, 0) })
            .expect(200);
        }
        async function statements(limit: number): Promise<{ n: number; ids: string[] }> {
          await http().get('/v4/me').set('Authorization', as(reader)).expect(200); // the caller (and its records) cached
          const { result: res, statements: n } = await countStatements(t, () =>
            http().get(`/v4/individuals?limit=${limit}`).set('Authorization', as(reader)).expect(200),
          );
          return { n, ids: res.body.map((i: Json) => i.ID) };
        }
        const small = await statements(5);
        const large = await statements(500);
        expect(large.n).toBe(small.n);
        expect(small.ids).toHaveLength(5);
        // the five Denied (k = 0, 10, 20, 30, 40) are left out, everyone else is there
        expect(large.ids).toHaveLength(62 - 5);
        for (const k of [0, 10, 20, 30, 40]) expect(large.ids).not.toContain(people[k].individualId);
      },
      SLOW,
    );
  });
});
