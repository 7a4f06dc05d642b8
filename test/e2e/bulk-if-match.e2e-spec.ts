import { randomUUID } from 'node:crypto';
import { bearer, startApp, TestApp } from './harness.js';
import { createPerson, createSite, TestPerson, TestSite } from '../factories/index.js';
import { individualBody } from '../factories/individuals.js';
import { createPeriods, createUnit, goalBody } from '../factories/goals.js';
import { createMetric } from '../factories/metrics.js';
import { IndividualEntity } from '../../src/database/entities/individual.entity.js';
import { GoalEntity } from '../../src/database/entities/goal.entity.js';

/**
 * A bulk item's IfMatch (docs/bulk.md, "Preconditions"): the single PUT's If-Match header, item
 * by item, through the shared bulk path — on every bulk collection whose records carry an ETag
 * (individuals, departments, goals, list items, memberships, permissions), in JSON and XML, on
 * SQLite and (DATABASE_URL) MariaDB.
 */
type Json = Record<string, unknown>;
const NS = 'urn:pms:v4';
let seq = 0;
const uniq = (p: string) => `${p}${Date.now().toString(36)}${(seq++).toString(36)}`;

/** A record's members as DataContract XML children, in ordinal (alphabetical) order. */
const xmlOf = (record: Json): string =>
  Object.entries(record)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([k, v]) => (v === null ? `<${k} i:nil="true"/>` : `<${k}>${String(v)}</${k}>`))
    .join('');
const escape = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/"/g, '&quot;');

describe('bulk items with IfMatch', () => {
  let t: TestApp;
  let acme: TestSite;
  let globex: TestSite;
  let member: TestPerson;
  let period: number;
  let globexPeriod: number;

  beforeAll(async () => {
    t = await startApp();
    acme = await createSite(t, { name: 'Acme' });
    globex = await createSite(t, { name: 'Globex' });
    member = await createPerson(t, acme);
    period = (await createPeriods(t, acme.siteId)).current.id;
    globexPeriod = (await createPeriods(t, globex.siteId)).current.id;
  });
  afterAll(async () => t?.close());

  const auth = (who: TestPerson) => bearer(who.token);
  const bulk = (path: string, body: unknown, who: TestPerson = acme.admin, query = '') =>
    t
      .http()
      .post(`/v4/${path}/bulk${query}`)
      .set('Authorization', auth(who))
      .send(body as object);
  const results = (body: Json) => body.Results as Json[];
  const statuses = (body: Json) => results(body).map((r) => r.Status);
  const auditCount = async (site: TestSite) =>
    Number(((await t.ds.query('SELECT COUNT(*) AS n FROM audit_log WHERE site_id = ?', [site.siteId])) as { n: number | string }[])[0].n);
  /** The problem document without what is the request's own (requestId, instance). */
  const problemOf = (body: Json) => ({ type: body.type, title: body.title, status: body.status, detail: body.detail });

  /**
   * One collection with ETags: how to make a record of a site, where its single GET and PUT are,
   * and an update Record that sets its `field` to a value.
   */
  interface Case {
    path: string;
    /** The path of its single GET, when not `{path}/{id}` (a membership is read by its pair). */
    get?: (id: string | number) => string;
    field: string;
    make(site: TestSite): Promise<string | number>;
    /** The update Record of the record `id` (as its GET answered it) with `field` set to `value`. */
    update(id: string | number, current: Json, value: string): Json;
  }
  const person = (site: TestSite): Json => individualBody(site.orgId, {}, 'im.');
  const goal = (individualId: string, over: Json = {}): Json => goalBody(individualId, period, over);
  const post = async (site: TestSite, path: string, body: Json) => {
    const res = await t.http().post(`/v4/${path}`).set('Authorization', auth(site.admin)).send(body);
    if (res.status !== 200) throw new Error(`POST /v4/${path}: ${res.status} ${res.text}`);
    return res.body.ID as string | number;
  };
  const CASES: Case[] = [
    {
      path: 'individuals',
      field: 'PrimaryTitle',
      make: (site) => post(site, 'individuals', { ...person(site), ExternalID: uniq('HR-') }),
      update: (id, c, value) => ({ ID: id, FirstName: c.FirstName, LastName: c.LastName, UserName: c.UserName, PrimaryTitle: value }),
    },
    {
      path: 'departments',
      field: 'Name',
      make: (site) => post(site, 'departments', { Name: uniq('Dept '), ExternalID: uniq('D-') }),
      update: (id, _c, value) => ({ ID: id, Name: value }),
    },
    {
      path: 'goals',
      field: 'Name',
      make: async (site) => post(site, 'goals', goal((await createPerson(t, site)).individualId, { PeriodID: site === globex ? globexPeriod : period })),
      update: (id, c, value) => goal(c.IndividualID as string, { ID: id, Name: value, PeriodID: c.PeriodID }),
    },
    {
      path: 'accountabilities',
      field: 'Name',
      make: async (site) =>
        post(site, 'accountabilities', { AncestorID: (await createPerson(t, site)).individualId, Rank: 1, Name: 'CSAT', Description: 'Keep it up' }),
      update: (id, _c, value) => ({ ID: id, Rank: 1, Name: value, Description: 'Keep it up' }),
    },
    {
      path: 'departmentmembers',
      field: 'Title',
      make: async (site) => {
        const [individual, unit] = [
          (await createPerson(t, site)).individualId,
          (await createUnit(t, site.siteId, { department: true, name: uniq('Dept ') })).id,
        ];
        const id = await post(site, 'departmentmembers', { IndividualID: individual, OrganizationID: unit, Title: 'Lead' });
        pairs.set(String(id), `individuals/${individual}/departments/${unit}/departmentmembers`);
        return id;
      },
      get: (id) => pairs.get(String(id))!,
      update: (id, _c, value) => ({ ID: id, Title: value }),
    },
    {
      path: 'permissions',
      field: 'ReadState',
      make: async (site) =>
        post(site, 'permissions', {
          RowID: (await createPerson(t, site)).individualId,
          PrincipalID: site.admin.userId,
          ChildType: null,
          CreateState: 0,
          ReadState: 1,
          UpdateState: 0,
          DeleteState: 0,
          DelegateState: 0,
        }),
      // ReadState takes 0, 1, 2: the values below are mapped onto them.
      update: (id, c, value) => ({
        ID: id,
        RowID: c.RowID,
        PrincipalID: c.PrincipalID,
        ChildType: c.ChildType,
        CreateState: 0,
        ReadState: STATES[value] ?? Number(value),
        UpdateState: 0,
        DeleteState: 0,
        DelegateState: 0,
      }),
    },
  ];
  /** Membership → the path of its pair (its single GET). */
  const pairs = new Map<string, string>();
  /** Values of `field` as a permission's ReadState holds them (the other cases take the text). */
  const STATES: Record<string, number> = { A: 2, B: 0, C: 1 };
  const valueIn = (c: Case, v: string): unknown => (c.path === 'permissions' ? STATES[v] : v);

  /** The record as its single GET answers it, and its ETag (a list item's GET answers a List of one). */
  const read = async (c: Case, id: string | number, site: TestSite = acme) => {
    const res = await t
      .http()
      .get(`/v4/${c.get ? c.get(id) : `${c.path}/${id}`}`)
      .set('Authorization', auth(site.admin))
      .expect(200);
    const body = (Array.isArray(res.body) ? res.body[0] : res.body) as Json;
    expect(res.headers.etag).toMatch(/^"\d+-[A-Za-z0-9_-]+"$/);
    return { body, etag: res.headers.etag as string };
  };

  describe.each(CASES)('POST /v4/$path/bulk', (c) => {
    it('writes an update whose IfMatch is the current ETag (200, a new ETag that the next GET answers and the next item may give), and answers a stale one 412 with the single PUT’s problem, writing nothing', async () => {
      const id = await c.make(acme);
      const first = await read(c, id);

      const fresh = await bulk(c.path, { Items: [{ Op: 'update', Record: c.update(id, first.body, 'A'), IfMatch: first.etag }] }).expect(200);
      expect(results(fresh.body)[0]).toMatchObject({ Index: 0, Status: 200, ID: String(id), Problem: null });
      const second = await read(c, id);
      expect(second.body[c.field]).toEqual(valueIn(c, 'A'));
      expect(second.etag).not.toBe(first.etag);

      // The first ETag is stale now: the item is 412, with the problem the single PUT answers, and nothing of it is written.
      const audit = await auditCount(acme);
      const stale = await bulk(c.path, { Items: [{ Op: 'update', Record: c.update(id, first.body, 'B'), IfMatch: first.etag }] }).expect(200);
      expect(stale.body).toMatchObject({ Committed: false, Succeeded: 0, Failed: 1 });
      const r = results(stale.body)[0];
      expect(r.Status).toBe(412);
      const put = await t
        .http()
        .put(`/v4/${c.path}/${id}`)
        .set('Authorization', auth(acme.admin))
        .set('If-Match', first.etag)
        .send(c.update(id, first.body, 'B'))
        .expect(412);
      expect(r.Problem).toEqual({ ...problemOf(put.body as Json), errors: null });
      expect((r.Problem as Json).type).toBe('urn:pms:problem:precondition-failed');
      const after = await read(c, id);
      expect(after.body[c.field]).toEqual(valueIn(c, 'A'));
      expect(after.etag).toBe(second.etag);
      expect(await auditCount(acme)).toBe(audit);

      // The ETag the GET answered is the one an item gives next; an upsert of the record is held to it too.
      const upsert = await bulk(c.path, {
        Items: [
          { Op: 'upsert', Record: c.update(id, after.body, 'C'), IfMatch: after.etag },
          { Op: 'upsert', Record: c.update(id, after.body, 'B'), IfMatch: after.etag },
        ],
      }).expect(200);
      expect(statuses(upsert.body)).toEqual([200, 412]);
      expect((await read(c, id)).body[c.field]).toEqual(valueIn(c, 'C'));
    });

    it('an unchanged record with a matching IfMatch is 200 and writes nothing; with a stale one, 412', async () => {
      const id = await c.make(acme);
      const first = await read(c, id);
      await bulk(c.path, { Items: [{ Op: 'update', Record: c.update(id, first.body, 'A') }] }).expect(200);
      const second = await read(c, id);
      const audit = await auditCount(acme);
      const same = await bulk(c.path, { Items: [{ Op: 'update', Record: c.update(id, second.body, 'A'), IfMatch: second.etag }] }).expect(200);
      expect(statuses(same.body)).toEqual([200]);
      expect((await read(c, id)).etag).toBe(second.etag);
      expect(await auditCount(acme)).toBe(audit);
      // The values equal the record's, but the client read another version: the update is not "unchanged" for it.
      const stale = await bulk(c.path, { Items: [{ Op: 'update', Record: c.update(id, second.body, 'A'), IfMatch: first.etag }] }).expect(200);
      expect(statuses(stale.body)).toEqual([412]);
      expect((await read(c, id)).etag).toBe(second.etag);
      expect(await auditCount(acme)).toBe(audit);
    });

    it('tenancy: another site’s record is 404 whatever IfMatch it gives, its own ETag included, and stays as it was', async () => {
      const theirs = await c.make(globex);
      const before = await read(c, theirs, globex);
      const res = await bulk(c.path, {
        Items: [
          { Op: 'update', Record: c.update(theirs, before.body, 'A'), IfMatch: before.etag },
          { Op: 'update', Record: c.update(theirs, before.body, 'A'), IfMatch: '"99999-AAAAAAAAAAAAAAAAAAAAAA"' },
        ],
      }).expect(200);
      expect(statuses(res.body)).toEqual([404, 404]);
      expect((results(res.body)[0].Problem as Json).type).toBe('urn:pms:problem:not-found');
      const after = await read(c, theirs, globex);
      expect(after.etag).toBe(before.etag);
      expect(after.body[c.field]).toEqual(before.body[c.field]);
    });
  });

  describe('batches (individuals and goals)', () => {
    const individual = CASES[0];
    const goals = CASES[2];

    it('a non-atomic batch of fresh and stale items writes exactly the fresh ones', async () => {
      const ids = [await individual.make(acme), await individual.make(acme), await goals.make(acme), await goals.make(acme)];
      const [p1, p2, g1, g2] = await Promise.all([read(individual, ids[0]), read(individual, ids[1]), read(goals, ids[2]), read(goals, ids[3])]);
      // p2 and g2 change after their client read them.
      await bulk('individuals', { Items: [{ Op: 'update', Record: individual.update(ids[1], p2.body, 'Elsewhere') }] }).expect(200);
      await bulk('goals', { Items: [{ Op: 'update', Record: goals.update(ids[3], g2.body, 'Elsewhere') }] }).expect(200);

      const people = await bulk('individuals', {
        Items: [
          { Op: 'update', Record: individual.update(ids[0], p1.body, 'Fresh'), IfMatch: p1.etag },
          { Op: 'update', Record: individual.update(ids[1], p2.body, 'Stale'), IfMatch: p2.etag },
          { Op: 'create', Record: person(acme) },
        ],
      }).expect(200);
      expect(statuses(people.body)).toEqual([200, 412, 200]);
      expect(people.body).toMatchObject({ Atomic: false, Committed: true, Succeeded: 2, Failed: 1 });
      const theGoals = await bulk('goals', {
        Items: [
          { Op: 'update', Record: goals.update(ids[3], g2.body, 'Stale'), IfMatch: g2.etag },
          { Op: 'upsert', Record: goals.update(ids[2], g1.body, 'Fresh'), IfMatch: g1.etag },
        ],
      }).expect(200);
      expect(statuses(theGoals.body)).toEqual([412, 200]);
      expect(results(theGoals.body)[0].ID).toBe(String(ids[3]));

      expect((await read(individual, ids[0])).body.PrimaryTitle).toBe('Fresh');
      expect((await read(individual, ids[1])).body.PrimaryTitle).toBe('Elsewhere');
      expect((await read(goals, ids[2])).body.Name).toBe('Fresh');
      expect((await read(goals, ids[3])).body.Name).toBe('Elsewhere');
    });

    it('an atomic batch with one stale item writes nothing: the stale item 412, the others 424', async () => {
      const ids = [await goals.make(acme), await goals.make(acme), await goals.make(acme)];
      const reads = await Promise.all(ids.map((id) => read(goals, id)));
      await bulk('goals', { Items: [{ Op: 'update', Record: goals.update(ids[1], reads[1].body, 'Elsewhere') }] }).expect(200);
      const countBefore = await t.ds.getRepository(GoalEntity).countBy({ siteId: acme.siteId });
      const audit = await auditCount(acme);
      const res = await bulk(
        'goals',
        {
          Items: [
            ...ids.map((id, i) => ({ Op: 'update', Record: goals.update(id, reads[i].body, 'All or nothing'), IfMatch: reads[i].etag })),
            { Op: 'create', Record: goal(acme.admin.individualId, { Name: 'New' }) },
          ],
        },
        acme.admin,
        '?atomic=true',
      ).expect(200);
      expect(statuses(res.body)).toEqual([424, 412, 424, 424]);
      expect(res.body).toMatchObject({ Atomic: true, Committed: false, Succeeded: 0, Failed: 4 });
      expect((results(res.body)[1].Problem as Json).type).toBe('urn:pms:problem:precondition-failed');
      expect(await auditCount(acme)).toBe(audit);
      expect(await t.ds.getRepository(GoalEntity).countBy({ siteId: acme.siteId })).toBe(countBefore);
      for (const [i, id] of ids.entries()) {
        const now = await read(goals, id);
        expect(now.body.Name).toBe(i === 1 ? 'Elsewhere' : 'Grow revenue');
        if (i !== 1) expect(now.etag).toBe(reads[i].etag);
      }
      // The same batch with the fresh tag: everything is written.
      const fresh = await read(goals, ids[1]);
      const ok = await bulk(
        'goals',
        { Items: ids.map((id, i) => ({ Op: 'update', Record: goals.update(id, reads[i].body, 'All'), IfMatch: i === 1 ? fresh.etag : reads[i].etag })) },
        acme.admin,
        '?atomic=true',
      ).expect(200);
      expect(statuses(ok.body)).toEqual([200, 200, 200]);
      for (const id of ids) expect((await read(goals, id)).body.Name).toBe('All');
    });
  });

  describe('records that do not exist, and the forms of IfMatch', () => {
    const individual = CASES[0];

    it('a create, or an upsert that creates, with a tag is 412 and creates nothing; with * it creates; an update of a record that does not exist is 404, as the single PUT answers', async () => {
      const count = () => t.ds.getRepository(IndividualEntity).countBy({ siteId: acme.siteId });
      const before = await count();
      const [k1, k2, k3] = [uniq('N-'), uniq('N-'), uniq('N-')];
      const tag = '"99999-AAAAAAAAAAAAAAAAAAAAAA"';
      const res = await bulk('individuals', {
        Items: [
          { Op: 'create', Record: { ...person(acme), ExternalID: k1 }, IfMatch: tag },
          { Op: 'upsert', Record: { ...person(acme), ExternalID: k2 }, IfMatch: tag },
          { Op: 'upsert', Record: { ...person(acme), ExternalID: k3 }, IfMatch: '*' },
          { Op: 'update', Record: { ...person(acme), ID: randomUUID() }, IfMatch: tag },
          { Op: 'update', Record: { ...person(acme), ExternalID: uniq('N-') }, IfMatch: tag },
        ],
      }).expect(200);
      expect(statuses(res.body)).toEqual([412, 412, 200, 404, 404]);
      expect((results(res.body)[0].Problem as Json).type).toBe('urn:pms:problem:precondition-failed');
      expect(await count()).toBe(before + 1);
      expect(await t.ds.getRepository(IndividualEntity).countBy({ siteId: acme.siteId, externalId: k3 })).toBe(1);
      // The single PUT of a record that does not exist, with If-Match: 404 too.
      const missing = randomUUID();
      await t
        .http()
        .put(`/v4/individuals/${missing}`)
        .set('Authorization', auth(acme.admin))
        .set('If-Match', tag)
        .send({ ...person(acme), ID: missing })
        .expect(404);
      // The upsert by ExternalID of a record that exists is held to the tag (another site's key is not matched: it would create).
      const existing = await individual.make(acme);
      const cur = await read(individual, existing);
      const byKey = await bulk('individuals', {
        Items: [{ Op: 'upsert', Record: { ...individual.update(existing, cur.body, 'By key'), ID: undefined, ExternalID: cur.body.ExternalID }, IfMatch: tag }],
      }).expect(200);
      expect(statuses(byKey.body)).toEqual([412]);
      expect(results(byKey.body)[0].ID).toBe(existing);
    });

    it('tenancy: an upsert by another site’s ExternalID with a tag is answered as for a key no site uses (412, it would create), and writes nothing anywhere', async () => {
      const theirs = await individual.make(globex);
      const theirRead = await read(individual, theirs, globex);
      const tag = theirRead.etag;
      const upsert = (key: unknown) => ({ Op: 'upsert', Record: { ...person(acme), ExternalID: key }, IfMatch: tag });
      const counts = async () => [
        await t.ds.getRepository(IndividualEntity).countBy({ siteId: acme.siteId }),
        await t.ds.getRepository(IndividualEntity).countBy({ siteId: globex.siteId }),
      ];
      const before = await counts();
      const res = await bulk('individuals', { Items: [upsert(theirRead.body.ExternalID), upsert(uniq('nobody-'))] }).expect(200);
      expect(statuses(res.body)).toEqual([412, 412]);
      expect(results(res.body)[0].Problem).toEqual(results(res.body)[1].Problem);
      expect(await counts()).toEqual(before);
      expect((await read(individual, theirs, globex)).etag).toBe(tag);
    });

    it('takes a tag as the header does: weak, in a list, padded; a blank or null IfMatch is no condition; the request’s own If-Match header is not read', async () => {
      const id = await individual.make(acme);
      let cur = await read(individual, id);
      const step = async (value: string, ifMatch: unknown, headers: Record<string, string> = {}) => {
        const req = t.http().post('/v4/individuals/bulk').set('Authorization', auth(acme.admin));
        for (const [k, v] of Object.entries(headers)) req.set(k, v);
        const res = await req.send({ Items: [{ Op: 'update', Record: individual.update(id, cur.body, value), IfMatch: ifMatch }] }).expect(200);
        cur = await read(individual, id);
        return statuses(res.body)[0];
      };
      expect(await step('Weak', `W/${cur.etag}`)).toBe(200);
      expect(await step('Listed', `"99999-AAAAAAAAAAAAAAAAAAAAAA", ${cur.etag}`)).toBe(200);
      expect(await step('Padded', `  ${cur.etag} `)).toBe(200);
      expect(await step('Blank', '  ')).toBe(200);
      expect(await step('Null', null)).toBe(200);
      // Well formed, but none of them is a version of this record: 412, as the header.
      expect(await step('Foreign', '"not-ours"')).toBe(412);
      expect(await step('Old', '"99999-AAAAAAAAAAAAAAAAAAAAAA", "99998-AAAAAAAAAAAAAAAAAAAAAA"')).toBe(412);
      expect(cur.body.PrimaryTitle).toBe('Null');
      // A stale If-Match header on the bulk request does not hold its items: each item's IfMatch does.
      expect(await step('Header ignored', undefined as never, { 'If-Match': '"99999-AAAAAAAAAAAAAAAAAAAAAA"' })).toBe(200);
      expect(cur.body.PrimaryTitle).toBe('Header ignored');
    });

    it('a malformed IfMatch is that item’s 400 naming IfMatch; the other items go on', async () => {
      const id = await individual.make(acme);
      const cur = await read(individual, id);
      const bad = [cur.etag.slice(1, -1), `"${cur.etag}`, `${cur.etag},`, 'W/', '**', `${cur.etag}; x`, `"a b"`, `"${'x'.repeat(1100)}"`];
      const res = await bulk('individuals', {
        Items: [
          ...bad.map((tag) => ({ Op: 'update', Record: individual.update(id, cur.body, 'Never'), IfMatch: tag })),
          { Op: 'update', Record: individual.update(id, cur.body, 'Good'), IfMatch: cur.etag },
        ],
      }).expect(200);
      expect(statuses(res.body)).toEqual([...bad.map(() => 400), 200]);
      for (const r of results(res.body).slice(0, bad.length)) {
        expect(r.Problem).toMatchObject({ type: 'urn:pms:problem:validation-failed', status: 400, errors: [expect.objectContaining({ field: 'IfMatch' })] });
      }
      expect((await read(individual, id)).body.PrimaryTitle).toBe('Good');
      // Not a string at all: the request's shape is wrong (as an Op that is no text).
      await bulk('individuals', { Items: [{ Op: 'update', Record: individual.update(id, cur.body, 'Never'), IfMatch: 3 }] }).expect(400);
    });

    it('roles: an item the caller may not write is 403 whatever its IfMatch (authorization comes before the precondition, as in the PUT)', async () => {
      const id = await individual.make(acme);
      const cur = await read(individual, id);
      const res = await bulk(
        'individuals',
        {
          Items: [
            { Op: 'update', Record: individual.update(id, cur.body, 'Mine'), IfMatch: cur.etag },
            { Op: 'update', Record: individual.update(id, cur.body, 'Mine'), IfMatch: '"99999-AAAAAAAAAAAAAAAAAAAAAA"' },
            { Op: 'create', Record: person(acme), IfMatch: cur.etag },
          ],
        },
        member,
      ).expect(200);
      expect(statuses(res.body)).toEqual([403, 403, 403]);
      expect((await read(individual, id)).etag).toBe(cur.etag);
    });

    it('metric values and security-group members have no ETag of their own: an IfMatch is the item’s 400', async () => {
      const metric = await createMetric(t, acme.admin.token, { Kind: 'individual', AncestorID: acme.admin.individualId });
      const values = await bulk('metrics/values', {
        Items: [
          { Op: 'upsert', Record: { MetricID: metric.ID, PeriodID: period, Actual: 1 }, IfMatch: '*' },
          { Op: 'upsert', Record: { MetricID: metric.ID, PeriodID: period, Actual: 2 } },
        ],
      }).expect(200);
      expect(statuses(values.body)).toEqual([400, 200]);
      expect((results(values.body)[0].Problem as Json).errors).toEqual([expect.objectContaining({ field: 'IfMatch' })]);
      const group = await t
        .http()
        .post('/v4/securitygroups')
        .set('Authorization', auth(acme.admin))
        .send({ Name: uniq('G ') })
        .expect(200);
      const members = await bulk('securitygroups/members', {
        Items: [
          { Op: 'create', Record: { SecurityGroupID: group.body.ID, IndividualID: member.individualId }, IfMatch: group.headers.etag as string },
          { Op: 'create', Record: { SecurityGroupID: group.body.ID, IndividualID: member.individualId }, IfMatch: '' },
        ],
      }).expect(200);
      expect(statuses(members.body)).toEqual([400, 200]);
    });
  });

  describe('XML', () => {
    const individual = CASES[0];
    const xmlItem = (op: string, record: Json, ifMatch?: string) =>
      `<BulkItemOfIndividual>${ifMatch === undefined ? '' : `<IfMatch>${escape(ifMatch)}</IfMatch>`}<Op>${op}</Op><Record>${xmlOf(record)}</Record></BulkItemOfIndividual>`;
    const send = (items: string[]) =>
      t
        .http()
        .post('/v4/individuals/bulk')
        .set('Authorization', auth(acme.admin))
        .set('Content-Type', 'application/xml')
        .set('Accept', 'application/xml')
        .send(
          `<BulkRequestOfIndividual xmlns="${NS}" xmlns:i="http://www.w3.org/2001/XMLSchema-instance"><Items>${items.join('')}</Items></BulkRequestOfIndividual>`,
        )
        .expect(200);

    it('reads IfMatch in its ordinal place (after ExternalRefs, before Op); an item without it loses nothing', async () => {
      const [a, b, c] = [await individual.make(acme), await individual.make(acme), await individual.make(acme)];
      const [ra, rb, rc] = [await read(individual, a), await read(individual, b), await read(individual, c)];
      await bulk('individuals', { Items: [{ Op: 'update', Record: individual.update(b, rb.body, 'Elsewhere') }] }).expect(200);
      const res = await send([
        xmlItem('update', individual.update(a, ra.body, 'From XML'), ra.etag),
        xmlItem('update', individual.update(b, rb.body, 'Stale XML'), rb.etag),
        xmlItem('update', individual.update(c, rc.body, 'No IfMatch')),
        `<BulkItemOfIndividual><IfMatch i:nil="true"/><Op>create</Op><Record>${xmlOf(person(acme))}</Record></BulkItemOfIndividual>`,
        xmlItem('update', individual.update(a, ra.body, 'Bad'), 'no-quotes'),
      ]);
      expect(res.text).toContain('<BulkResults ');
      const statusesXml = [...res.text.matchAll(/<Status>(\d+)<\/Status>/g)].map((m) => Number(m[1]));
      expect(statusesXml).toEqual([200, 412, 200, 200, 400]);
      expect(res.text).toContain('<type>urn:pms:problem:precondition-failed</type>');
      expect(res.text).toContain('<field>IfMatch</field>');
      expect((await read(individual, a)).body.PrimaryTitle).toBe('From XML');
      expect((await read(individual, b)).body.PrimaryTitle).toBe('Elsewhere');
      expect((await read(individual, c)).body.PrimaryTitle).toBe('No IfMatch');
    });

    it('the XML Schema declares IfMatch in each conditional item, optional, between ExternalRefs and Op', async () => {
      const xsd = (await t.http().get('/docs/pms-v4.xsd').expect(200)).text;
      for (const name of ['Individual', 'Organization', 'Goal', 'ListItem', 'OrganizationMember', 'Permission']) {
        const type = new RegExp(`<xs:complexType name="BulkItemOf${name}">([\\s\\S]*?)</xs:complexType>`).exec(xsd)?.[1] ?? '';
        const order = [...type.matchAll(/<xs:element name="(\w+)"([^>]*)>/g)].map((m) => m[1]);
        expect(order).toEqual([...(name === 'Permission' ? [] : ['ExternalRefs']), 'IfMatch', 'Op', 'Record']);
        expect(type).toMatch(/<xs:element name="IfMatch"[^>]*minOccurs="0"/);
      }
    });
  });
});
