import { randomUUID } from 'node:crypto';
import { bearer, startApp, TestApp } from './harness.js';
import { createPerson, createSite, TestPerson, TestSite } from '../factories/index.js';
import { createPeriod, createPeriods, createUnit, DAY, goalBody } from '../factories/goals.js';
import { IndividualEntity } from '../../src/database/entities/individual.entity.js';
import { GoalEntity } from '../../src/database/entities/goal.entity.js';
import { OrganizationEntity } from '../../src/database/entities/organization.entity.js';
import { OrganizationMemberEntity } from '../../src/database/entities/organization-member.entity.js';
import { PermissionEntity } from '../../src/database/entities/permission.entity.js';
import { SecurityGroupEntity, SecurityGroupMemberEntity } from '../../src/database/entities/security-group.entity.js';
import { ListItemEntity } from '../../src/database/entities/list-item.entity.js';
import { MetricValueEntity } from '../../src/database/entities/metric-value.entity.js';
import { createMetric } from '../factories/metrics.js';
import { BulkWriters } from '../../src/database/registries/bulk-writers.js';
import { RequestContext } from '../../src/common/context/request-context.js';
import { decodeChanges } from '../../src/database/journal.js';

/**
 * The bulk routes of the collections beyond individuals and departments (docs/bulk.md), on SQLite
 * and (DATABASE_URL) MariaDB: each item answered as its single write answers, exactly the valid
 * items written (atomic and not), JSON and XML, roles, tenancy, and the audit rows of a bulk item
 * equal to those of its single write.
 */
type Json = Record<string, unknown>;
const NS = 'urn:pms:v4';
let seq = 0;
const uniq = (p: string) => `${p}${Date.now().toString(36)}${(seq++).toString(36)}`;
const d = (iso: string) => `${iso}T00:00:00.000+00:00`;

/** A record's members as DataContract XML children (nil for null). */
const xmlOf = (record: Json): string =>
  Object.entries(record)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([k, v]) => (v === null ? `<${k} i:nil="true"/>` : `<${k}>${String(v)}</${k}>`))
    .join('');
const xmlBulk = (name: string, items: { Op: string; Record: Json; ExternalRefs?: Json }[]) =>
  `<BulkRequestOf${name} xmlns="${NS}" xmlns:i="http://www.w3.org/2001/XMLSchema-instance"><Items>` +
  items
    .map(
      (it) =>
        `<BulkItemOf${name}>${it.ExternalRefs ? `<ExternalRefs>${xmlOf(it.ExternalRefs)}</ExternalRefs>` : ''}<Op>${it.Op}</Op><Record>${xmlOf(it.Record)}</Record></BulkItemOf${name}>`,
    )
    .join('') +
  `</Items></BulkRequestOf${name}>`;

describe('bulk writes of goals, memberships, security-group members, permissions, list items and metric values', () => {
  let t: TestApp;
  let acme: TestSite;
  let globex: TestSite;
  let manager: TestPerson;
  let report: TestPerson;
  let peer: TestPerson;
  let globexPerson: TestPerson;

  beforeAll(async () => {
    t = await startApp();
    acme = await createSite(t, { name: 'Acme' });
    globex = await createSite(t, { name: 'Globex' });
    manager = await createPerson(t, acme, { firstName: 'Mia', lastName: 'Manager' });
    report = await createPerson(t, acme, { firstName: 'Rob', lastName: 'Report', reportsTo: manager.individualId });
    peer = await createPerson(t, acme, { firstName: 'Pia', lastName: 'Peer' });
    globexPerson = await createPerson(t, globex);
  });
  afterAll(async () => t?.close());

  const auth = (who: TestPerson | string) => bearer(typeof who === 'string' ? who : who.token);
  const bulk = (path: string, body: unknown, who: TestPerson | string = acme.admin, query = '') =>
    t
      .http()
      .post(`/v4/${path}/bulk${query}`)
      .set('Authorization', auth(who))
      .send(body as object);
  const statuses = (body: Json) => (body.Results as Json[]).map((r) => r.Status);
  const results = (body: Json) => body.Results as Json[];
  /** Gives an individual an ExternalID straight in the table (the bulk routes only read it). */
  const keyOf = async (who: TestPerson, key = uniq('HR-')) => {
    await t.ds.getRepository(IndividualEntity).update({ id: who.individualId }, { externalId: key });
    return key;
  };
  const auditCount = async (site: TestSite) =>
    Number(((await t.ds.query('SELECT COUNT(*) AS n FROM audit_log WHERE site_id = ?', [site.siteId])) as { n: number | string }[])[0].n);
  /**
   * The audit rows of one record, as what they say: kind, action, the actor and the changes, with
   * the record's own ID and the instants (which differ between two writes of the same values) left out.
   */
  const auditOf = async (site: TestSite, rowId: string | number, same: Record<string, string> = {}) => {
    const rows = (await t.ds.query('SELECT kind, action, gone, changes, actor_id, actor_kind FROM audit_log WHERE site_id = ? AND row_id = ? ORDER BY seq', [
      site.siteId,
      String(rowId),
    ])) as { kind: string; action: string; gone: unknown; changes: string; actor_id: string; actor_kind: string }[];
    // changes: [{ Field, Before, After }]; the record's ID and the instants are left out.
    const varying = ['ID', 'Created', 'Updated'];
    // `same`: values that differ between the two records compared (another department), by what they stand for.
    const scrub = (changes: { Field: string; Before?: unknown; After?: unknown }[]) =>
      changes
        .filter((c) => !varying.includes(c.Field))
        .map((c) => ({ ...c, Before: same[String(c.Before)] ?? c.Before, After: same[String(c.After)] ?? c.After }));
    return rows.map((r) => ({
      kind: r.kind,
      action: r.action,
      gone: Boolean(Number(r.gone)),
      actor: `${r.actor_kind}:${r.actor_id}`,
      changes: scrub(decodeChanges(String(r.changes))),
    }));
  };

  // ------------------------------------------------------------------------------------------ goals
  describe('POST /v4/goals/bulk', () => {
    let current: number;
    let globexPeriod: number;
    let globexGoal: number;
    const goal = (individualId: string | undefined, over: Json = {}): Json =>
      goalBody(individualId, current, { Measure3: 'Hire a rep', Measure1Completed: true, ...over });
    const goals = (site: TestSite) => t.ds.getRepository(GoalEntity).countBy({ siteId: site.siteId });
    const single = (who: TestPerson, body: Json) => t.http().post('/v4/goals').set('Authorization', auth(who)).send(body);

    beforeAll(async () => {
      current = (await createPeriods(t, acme.siteId)).current.id;
      globexPeriod = (await createPeriods(t, globex.siteId)).current.id;
      const g = await single(globex.admin, goal(globexPerson.individualId, { PeriodID: globexPeriod }));
      expect(g.body).toMatchObject({ Name: 'Grow revenue' });
      globexGoal = g.body.ID;
    });

    /** Valid, invalid, duplicate (two items naming one goal), another site's IDs and ExternalIDs. */
    const mixed = async () => {
      const existing = (await single(acme.admin, goal(report.individualId)).expect(200)).body.ID as number;
      const reportKey = await keyOf(report);
      const globexKey = await keyOf(globexPerson);
      const body = {
        Items: [
          { Op: 'create', Record: goal(report.individualId, { Name: 'First' }) },
          { Op: 'create', Record: goal(report.individualId, { Name: '' }) },
          { Op: 'create', Record: goal(undefined, { Name: 'By key' }), ExternalRefs: { IndividualID: reportKey } },
          { Op: 'update', Record: goal(undefined, { ID: existing, Name: 'Changed once' }) },
          { Op: 'upsert', Record: goal(undefined, { ID: existing, Name: 'Changed twice' }) },
          { Op: 'update', Record: goal(undefined, { ID: 987654321, Name: 'Nobody' }) },
          { Op: 'upsert', Record: goal(undefined, { ID: globexGoal, Name: 'Taken over' }) },
          { Op: 'create', Record: goal(undefined, { Name: 'Their person' }), ExternalRefs: { IndividualID: globexKey } },
          { Op: 'create', Record: goal(globexPerson.individualId, { Name: 'Their person by ID' }) },
          { Op: 'create', Record: goal(report.individualId, { Measure1StartDate: d('2026-05-01') }) },
        ],
      };
      return { body, existing };
    };

    it('answers each item as its single write would, in the order sent, and writes exactly the valid ones', async () => {
      const { body, existing } = await mixed();
      const before = await goals(acme);
      const globexBefore = await goals(globex);
      const res = await bulk('goals', body).expect(200);
      expect(statuses(res.body)).toEqual([200, 400, 200, 200, 200, 404, 404, 400, 400, 400]);
      expect(res.body).toMatchObject({ Atomic: false, Committed: true, Succeeded: 4, Failed: 6 });
      const r = results(res.body);
      expect(r.map((x) => x.Index)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
      expect((r[1].Problem as Json).errors).toEqual([expect.objectContaining({ field: 'Name' })]);
      expect((r[7].Problem as Json).errors).toEqual([expect.objectContaining({ field: 'ExternalRefs.IndividualID' })]);
      expect((r[8].Problem as Json).errors).toEqual([expect.objectContaining({ field: 'IndividualID' })]);
      expect((r[9].Problem as Json).errors).toEqual([expect.objectContaining({ field: 'Measure1EndDate' })]);
      expect((r[5].Problem as Json).type).toBe('urn:pms:problem:not-found');
      expect(r[3].ID).toBe(String(existing));
      expect(r[4].ID).toBe(String(existing));
      expect(await goals(acme)).toBe(before + 2);
      expect(await goals(globex)).toBe(globexBefore);
      const byKey = await t.http().get(`/v4/goals/${r[2].ID}`).set('Authorization', auth(acme.admin)).expect(200);
      expect(byKey.body).toMatchObject({ IndividualID: report.individualId, Name: 'By key' });
      const changed = await t.http().get(`/v4/goals/${existing}`).set('Authorization', auth(acme.admin)).expect(200);
      expect(changed.body.Name).toBe('Changed twice');
      const theirs = await t.ds.getRepository(GoalEntity).findOneByOrFail({ id: globexGoal });
      expect(theirs.name).toBe('Grow revenue');
    });

    it('atomic=true writes nothing when an item fails, and everything when none does', async () => {
      const { body, existing } = await mixed();
      const before = await goals(acme);
      const audit = await auditCount(acme);
      const res = await bulk('goals', body, acme.admin, '?atomic=true').expect(200);
      expect(statuses(res.body)).toEqual([424, 400, 424, 424, 424, 404, 404, 400, 400, 400]);
      expect(res.body).toMatchObject({ Atomic: true, Committed: false, Succeeded: 0, Failed: 10 });
      expect(await goals(acme)).toBe(before);
      expect(await auditCount(acme)).toBe(audit);
      expect((await t.ds.getRepository(GoalEntity).findOneByOrFail({ id: existing })).name).toBe('Grow revenue');

      const ok = await bulk('goals', { Items: body.Items.slice(0, 1).concat(body.Items.slice(2, 5)) }, acme.admin, '?atomic=true').expect(200);
      expect(statuses(ok.body)).toEqual([200, 200, 200, 200]);
      expect(ok.body).toMatchObject({ Atomic: true, Committed: true, Succeeded: 4 });
      expect(await goals(acme)).toBe(before + 2);
    });

    it('writes the audit rows its single writes write, and an unchanged goal sent again writes none', async () => {
      const body = goal(report.individualId, { Name: 'Audited' });
      const one = (await single(acme.admin, body).expect(200)).body.ID as number;
      const res = await bulk('goals', { Items: [{ Op: 'create', Record: body }] }).expect(200);
      const many = Number(results(res.body)[0].ID);
      expect(await auditOf(acme, many)).toEqual(await auditOf(acme, one));
      expect((await auditOf(acme, one)).length).toBe(1);

      const change = goal(undefined, { Name: 'Audited, changed', Completed: true });
      await t
        .http()
        .put(`/v4/goals/${one}`)
        .set('Authorization', auth(acme.admin))
        .send({ ...change, ID: one })
        .expect(200);
      const upd = await bulk('goals', { Items: [{ Op: 'update', Record: { ...change, ID: many } }] }).expect(200);
      expect(statuses(upd.body)).toEqual([200]);
      expect(await auditOf(acme, many)).toEqual(await auditOf(acme, one));
      expect((await auditOf(acme, one)).length).toBe(2);

      const audit = await auditCount(acme);
      const version = (await t.ds.getRepository(GoalEntity).findOneByOrFail({ id: many })).version;
      const again = await bulk('goals', { Items: [{ Op: 'upsert', Record: { ...change, ID: many } }] }).expect(200);
      expect(results(again.body)[0]).toMatchObject({ Status: 200, ID: String(many) });
      expect(await auditCount(acme)).toBe(audit);
      expect((await t.ds.getRepository(GoalEntity).findOneByOrFail({ id: many })).version).toBe(version);
    });

    it('holds each item to its single write’s rule: the individual, their manager or an administrator', async () => {
      const managed = (await single(acme.admin, goal(report.individualId)).expect(200)).body.ID as number;
      const items = [
        { Op: 'create', Record: goal(report.individualId, { Name: 'For my report' }) },
        { Op: 'create', Record: goal(peer.individualId, { Name: 'For a peer' }) },
        { Op: 'update', Record: goal(undefined, { ID: managed, Name: 'Managed' }) },
      ];
      const byManager = await bulk('goals', { Items: items }, manager).expect(200);
      const byPeer = await bulk('goals', { Items: items }, peer).expect(200);
      // Each the status of the single write by the same caller.
      const singleStatus = async (who: TestPerson, it: { Op: string; Record: Json }) =>
        it.Op === 'create'
          ? (await single(who, it.Record)).status
          : (
              await t
                .http()
                .put(`/v4/goals/${String(it.Record.ID)}`)
                .set('Authorization', auth(who))
                .send(it.Record)
            ).status;
      expect(statuses(byManager.body)).toEqual([200, 403, 200]);
      expect(statuses(byPeer.body)).toEqual([403, 200, 403]);
      for (const [who, res] of [
        [manager, byManager],
        [peer, byPeer],
      ] as const) {
        const expected: number[] = [];
        for (const it of items) expected.push(await singleStatus(who, it));
        expect(statuses(res.body)).toEqual(expected);
      }
      const token = async (scopes: string) =>
        (
          await t
            .http()
            .post('/v4/apitokens')
            .set('Authorization', auth(acme.admin))
            .send({ Name: uniq('bulk'), Scopes: scopes })
            .expect(200)
        ).body.Secret as string;
      const denied = await bulk('goals', { Items: items.slice(0, 1) }, await token('goals:read')).expect(403);
      expect(denied.body.type).toBe('urn:pms:problem:insufficient-scope');
      expect(statuses((await bulk('goals', { Items: items.slice(0, 1) }, await token('goals:write')).expect(200)).body)).toEqual([200]);
      await bulk('goals', { Items: items.slice(0, 1) })
        .set('Authorization', '')
        .expect(401);
    });

    it('reads and answers XML (BulkRequestOfGoal → BulkResults)', async () => {
      const key = await keyOf(report);
      const res = await t
        .http()
        .post('/v4/goals/bulk')
        .set('Authorization', auth(acme.admin))
        .set('Content-Type', 'application/xml')
        .set('Accept', 'application/xml')
        .send(
          xmlBulk('Goal', [
            { Op: 'create', Record: goal(undefined, { Name: 'From XML' }), ExternalRefs: { IndividualID: key } },
            { Op: 'create', Record: goal(report.individualId, { Name: '' }) },
          ]),
        )
        .expect(200);
      expect(res.text).toContain('<BulkResults ');
      expect(res.text).toMatch(/<Results><BulkResult><ID>\d+<\/ID><Index>0<\/Index><Problem i:nil="true"\/><Status>200<\/Status><\/BulkResult>/);
      expect(res.text).toContain('<field>Name</field>');
      const id = Number(/<ID>(\d+)<\/ID>/.exec(res.text)![1]);
      const row = await t.ds.getRepository(GoalEntity).findOneByOrFail({ id });
      expect(row).toMatchObject({ siteId: acme.siteId, individualId: report.individualId, name: 'From XML' });
    });

    it('an Idempotency-Key covers the batch: a retry is answered as the first request and writes nothing', async () => {
      const key = randomUUID();
      const body = { Items: [{ Op: 'create', Record: goal(report.individualId, { Name: 'Once' }) }] };
      const before = await goals(acme);
      const first = await bulk('goals', body).set('Idempotency-Key', key).expect(200);
      const again = await bulk('goals', body).set('Idempotency-Key', key).expect(200);
      expect(again.headers['idempotency-replayed']).toBe('true');
      expect(again.body).toEqual(first.body);
      expect(await goals(acme)).toBe(before + 1);
    });
  });

  // ------------------------------------------------------------------------------------ memberships
  describe('POST /v4/departmentmembers/bulk', () => {
    const members = (site: TestSite) => t.ds.getRepository(OrganizationMemberEntity).countBy({ siteId: site.siteId, deletedByRef: false });
    const unit = async (site: TestSite, key?: string) => {
      const u = await createUnit(t, site.siteId, { department: true, name: uniq('Dept ') });
      if (key) await t.ds.getRepository(OrganizationEntity).update({ id: u.id }, { externalId: key });
      return u.id;
    };
    const single = (who: TestPerson, body: Json) => t.http().post('/v4/departmentmembers').set('Authorization', auth(who)).send(body);

    /** Valid, invalid, duplicate pairs, a pair that is no member, another site's records. */
    const mixed = async () => {
      const [aKey, theirKey] = [uniq('D-'), uniq('GD-')];
      const [a, b] = [await unit(acme, aKey), await unit(acme)];
      const theirs = await unit(globex, theirKey);
      const theirMembership = (await single(globex.admin, { IndividualID: globexPerson.individualId, OrganizationID: theirs }).expect(200)).body.ID as string;
      const reportKey = await keyOf(report);
      const body = {
        Items: [
          { Op: 'create', Record: { IndividualID: peer.individualId, OrganizationID: a, Title: 'T1' } },
          { Op: 'create', Record: { IndividualID: peer.individualId, OrganizationID: a, Title: 'Again' } },
          { Op: 'upsert', Record: { Title: 'R1' }, ExternalRefs: { IndividualID: reportKey, OrganizationID: aKey } },
          { Op: 'upsert', Record: { Title: 'R2' }, ExternalRefs: { IndividualID: reportKey, OrganizationID: aKey } },
          { Op: 'update', Record: { IndividualID: peer.individualId, OrganizationID: b, Title: 'Not a member' } },
          { Op: 'create', Record: { IndividualID: report.individualId, OrganizationID: b, Title: 'x'.repeat(256) } },
          { Op: 'update', Record: { ID: theirMembership, Title: 'Taken over' } },
          { Op: 'create', Record: { IndividualID: report.individualId, OrganizationID: theirs } },
          { Op: 'create', Record: { IndividualID: report.individualId }, ExternalRefs: { OrganizationID: theirKey } },
          { Op: 'update', Record: { ID: randomUUID(), Title: 'Nobody' } },
        ],
      };
      return { body, a, b, theirMembership };
    };

    it('answers each item as its single write would, in the order sent, and writes exactly the valid ones', async () => {
      const { body, a, theirMembership } = await mixed();
      const before = await members(acme);
      const globexBefore = await members(globex);
      const res = await bulk('departmentmembers', body).expect(200);
      expect(statuses(res.body)).toEqual([200, 409, 200, 200, 404, 400, 404, 400, 400, 404]);
      expect(res.body).toMatchObject({ Atomic: false, Committed: true, Succeeded: 3, Failed: 7 });
      const r = results(res.body);
      expect((r[1].Problem as Json).type).toBe('urn:pms:problem:duplicate-membership');
      expect((r[5].Problem as Json).errors).toEqual([expect.objectContaining({ field: 'Title' })]);
      expect((r[7].Problem as Json).errors).toEqual([expect.objectContaining({ field: 'OrganizationID' })]);
      expect((r[8].Problem as Json).errors).toEqual([expect.objectContaining({ field: 'ExternalRefs.OrganizationID' })]);
      // The second upsert of the pair changed the membership the first created.
      expect(r[3].ID).toBe(r[2].ID);
      expect(await members(acme)).toBe(before + 2);
      expect(await members(globex)).toBe(globexBefore);
      const pair = await t
        .http()
        .get(`/v4/individuals/${report.individualId}/departments/${a}/departmentmembers`)
        .set('Authorization', auth(acme.admin))
        .expect(200);
      expect(pair.body).toMatchObject({ ID: r[2].ID, Title: 'R2' });
      expect((await t.ds.getRepository(OrganizationMemberEntity).findOneByOrFail({ id: theirMembership })).title).toBeNull();
    });

    it('atomic=true writes nothing when an item fails, and everything when none does', async () => {
      const { body } = await mixed();
      const before = await members(acme);
      const audit = await auditCount(acme);
      const res = await bulk('departmentmembers', body, acme.admin, '?atomic=true').expect(200);
      expect(statuses(res.body)).toEqual([424, 409, 424, 424, 404, 400, 404, 400, 400, 404]);
      expect(res.body).toMatchObject({ Atomic: true, Committed: false, Succeeded: 0 });
      expect(await members(acme)).toBe(before);
      expect(await auditCount(acme)).toBe(audit);
      const ok = await bulk('departmentmembers', { Items: [body.Items[0], body.Items[2], body.Items[3]] }, acme.admin, '?atomic=true').expect(200);
      expect(statuses(ok.body)).toEqual([200, 200, 200]);
      expect(ok.body).toMatchObject({ Committed: true, Succeeded: 3 });
      expect(await members(acme)).toBe(before + 2);
    });

    it('writes the audit rows its single writes write, and an unchanged membership sent again writes none', async () => {
      const [one, many] = [await unit(acme), await unit(acme)];
      const byPost = (await single(acme.admin, { IndividualID: peer.individualId, OrganizationID: one, Title: 'Lead' }).expect(200)).body.ID as string;
      const res = await bulk('departmentmembers', {
        Items: [{ Op: 'create', Record: { IndividualID: peer.individualId, OrganizationID: many, Title: 'Lead' } }],
      }).expect(200);
      const byBulk = results(res.body)[0].ID as string;
      const same = { [one]: '<unit>', [many]: '<unit>' };
      expect((await auditOf(acme, byPost, same)).length).toBe(1);
      expect(await auditOf(acme, byBulk, same)).toEqual(await auditOf(acme, byPost, same));

      await t.http().put(`/v4/departmentmembers/${byPost}`).set('Authorization', auth(acme.admin)).send({ ID: byPost, Title: 'Senior lead' }).expect(200);
      const upd = await bulk('departmentmembers', {
        Items: [{ Op: 'update', Record: { IndividualID: peer.individualId, OrganizationID: many, Title: 'Senior lead' } }],
      }).expect(200);
      expect(results(upd.body)[0]).toMatchObject({ Status: 200, ID: byBulk });
      expect((await auditOf(acme, byPost, same)).length).toBe(2);
      expect(await auditOf(acme, byBulk, same)).toEqual(await auditOf(acme, byPost, same));

      const audit = await auditCount(acme);
      const again = await bulk('departmentmembers', {
        Items: [{ Op: 'upsert', Record: { IndividualID: peer.individualId, OrganizationID: many, Title: 'Senior lead' } }],
      }).expect(200);
      expect(results(again.body)[0]).toMatchObject({ Status: 200, ID: byBulk });
      expect(await auditCount(acme)).toBe(audit);
    });

    it('is for administrators, as its single writes are: a member is refused whole, and a batch applied for a member (an import) fails each item 403', async () => {
      const a = await unit(acme);
      const existing = (await single(acme.admin, { IndividualID: report.individualId, OrganizationID: a }).expect(200)).body.ID as string;
      const items = [
        { Op: 'create' as const, Record: { IndividualID: peer.individualId, OrganizationID: a } },
        { Op: 'update' as const, Record: { ID: existing, Title: 'Mine now' } },
      ];
      const before = await members(acme);
      const refused = await bulk('departmentmembers', { Items: items }, peer).expect(403);
      expect(refused.body.type).toBe('urn:pms:problem:admin-required');
      const writer = t.app.get(BulkWriters).ofPath('departmentmembers')!;
      const asMember = new RequestContext(randomUUID(), undefined, {
        userId: peer.userId,
        userName: peer.userName,
        individualId: peer.individualId,
        siteId: acme.siteId,
        isAdmin: false,
        isGlobalAdmin: false,
        pmEnabled: true,
      });
      const run = await writer.apply(asMember, items, { atomic: false });
      expect(run.outcomes.map((o) => o.status)).toEqual([403, 403]);
      expect(await members(acme)).toBe(before);
      expect((await t.ds.getRepository(OrganizationMemberEntity).findOneByOrFail({ id: existing })).title).toBeNull();
      const byAdmin = await bulk('departmentmembers', { Items: items }).expect(200);
      expect(statuses(byAdmin.body)).toEqual([200, 200]);
    });

    it('reads and answers XML (BulkRequestOfOrganizationMember → BulkResults)', async () => {
      const key = uniq('XD-');
      const a = await unit(acme, key);
      const who = await keyOf(peer);
      const res = await t
        .http()
        .post('/v4/departmentmembers/bulk')
        .set('Authorization', auth(acme.admin))
        .set('Content-Type', 'application/xml')
        .set('Accept', 'application/xml')
        .send(
          xmlBulk('OrganizationMember', [
            { Op: 'upsert', Record: { Title: 'From XML' }, ExternalRefs: { IndividualID: who, OrganizationID: key } },
            { Op: 'create', Record: { IndividualID: peer.individualId, OrganizationID: a } },
          ]),
        )
        .expect(200);
      expect(res.text).toContain('<BulkResults ');
      expect(res.text).toMatch(/<Results><BulkResult><ID>[0-9a-f-]{36}<\/ID><Index>0<\/Index><Problem i:nil="true"\/><Status>200<\/Status><\/BulkResult>/);
      expect(res.text).toContain('<type>urn:pms:problem:duplicate-membership</type>');
      const row = await t.ds
        .getRepository(OrganizationMemberEntity)
        .findOneByOrFail({ siteId: acme.siteId, individualId: peer.individualId, organizationId: a });
      expect(row.title).toBe('From XML');
    });
  });

  // ------------------------------------------------------------------------------------ permissions
  describe('POST /v4/permissions/bulk', () => {
    const permissions = (site: TestSite) => t.ds.getRepository(PermissionEntity).countBy({ siteId: site.siteId });
    const grant = (rowId: string, principalId: string, over: Json = {}): Json => ({
      RowID: rowId,
      PrincipalID: principalId,
      ChildType: null,
      CreateState: 0,
      ReadState: 1,
      UpdateState: 0,
      DeleteState: 0,
      DelegateState: 0,
      ...over,
    });
    const single = (who: TestPerson, body: Json) => t.http().post('/v4/permissions').set('Authorization', auth(who)).send(body);
    /** A fresh individual of Acme: a row no earlier test granted anything on. */
    const row = async () => (await createPerson(t, acme)).individualId;

    const mixed = async () => {
      const [a, b] = [await row(), await row()];
      const theirs = (await single(globex.admin, grant((await createPerson(t, globex)).individualId, globex.admin.userId)).expect(200)).body.ID as string;
      const body = {
        Items: [
          { Op: 'create', Record: grant(a, manager.userId) },
          { Op: 'create', Record: grant(a, manager.userId, { ReadState: 2 }) },
          { Op: 'upsert', Record: grant(b, manager.userId) },
          { Op: 'upsert', Record: grant(b, manager.userId, { ReadState: 2, UpdateState: 2 }) },
          { Op: 'create', Record: grant(a, peer.userId, { ReadState: 7 }) },
          { Op: 'update', Record: grant(a, report.userId) },
          { Op: 'update', Record: { ...grant(a, manager.userId), ID: theirs } },
          { Op: 'create', Record: grant(globexPerson.individualId, manager.userId) },
          { Op: 'create', Record: grant(a, globexPerson.userId) },
        ],
      };
      return { body, a, b, theirs };
    };

    it('answers each item as its single write would, in the order sent, and writes exactly the valid ones', async () => {
      const { body, b, theirs } = await mixed();
      const before = await permissions(acme);
      const globexBefore = await permissions(globex);
      const res = await bulk('permissions', body).expect(200);
      expect(statuses(res.body)).toEqual([200, 409, 200, 200, 400, 404, 404, 400, 400]);
      expect(res.body).toMatchObject({ Atomic: false, Committed: true, Succeeded: 3, Failed: 6 });
      const r = results(res.body);
      expect((r[1].Problem as Json).type).toBe('urn:pms:problem:duplicate-permission');
      expect((r[4].Problem as Json).errors).toEqual([expect.objectContaining({ field: 'ReadState' })]);
      expect((r[7].Problem as Json).errors).toEqual([expect.objectContaining({ field: 'RowID' })]);
      expect((r[8].Problem as Json).errors).toEqual([expect.objectContaining({ field: 'PrincipalID' })]);
      // The second upsert of the grant changed the record the first created.
      expect(r[3].ID).toBe(r[2].ID);
      expect(await permissions(acme)).toBe(before + 2);
      expect(await permissions(globex)).toBe(globexBefore);
      const changed = await t.ds.getRepository(PermissionEntity).findOneByOrFail({ id: r[2].ID as string });
      expect(changed).toMatchObject({ rowId: b, readState: 2, updateState: 2 });
      expect((await t.ds.getRepository(PermissionEntity).findOneByOrFail({ id: theirs })).readState).toBe(1);
    });

    it('atomic=true writes nothing when an item fails, and everything when none does', async () => {
      const { body } = await mixed();
      const before = await permissions(acme);
      const audit = await auditCount(acme);
      const res = await bulk('permissions', body, acme.admin, '?atomic=true').expect(200);
      expect(statuses(res.body)).toEqual([424, 409, 424, 424, 400, 404, 404, 400, 400]);
      expect(res.body).toMatchObject({ Atomic: true, Committed: false, Succeeded: 0 });
      expect(await permissions(acme)).toBe(before);
      expect(await auditCount(acme)).toBe(audit);
      const ok = await bulk('permissions', { Items: [body.Items[0], body.Items[2], body.Items[3]] }, acme.admin, '?atomic=true').expect(200);
      expect(statuses(ok.body)).toEqual([200, 200, 200]);
      expect(await permissions(acme)).toBe(before + 2);
    });

    it('writes the audit rows its single writes write, and an unchanged grant sent again writes none', async () => {
      const [one, many] = [await row(), await row()];
      const byPost = (await single(acme.admin, grant(one, manager.userId)).expect(200)).body.ID as string;
      const res = await bulk('permissions', { Items: [{ Op: 'create', Record: grant(many, manager.userId) }] }).expect(200);
      const byBulk = results(res.body)[0].ID as string;
      const same = { [one]: '<row>', [many]: '<row>' };
      expect((await auditOf(acme, byPost, same)).length).toBe(1);
      expect(await auditOf(acme, byBulk, same)).toEqual(await auditOf(acme, byPost, same));

      const states = { CreateState: 1, ReadState: 2, UpdateState: 1, DeleteState: 2, DelegateState: 0 };
      await t
        .http()
        .put(`/v4/permissions/${byPost}`)
        .set('Authorization', auth(acme.admin))
        .send({ ID: byPost, ...states })
        .expect(200);
      const upd = await bulk('permissions', { Items: [{ Op: 'update', Record: grant(many, manager.userId, states) }] }).expect(200);
      expect(results(upd.body)[0]).toMatchObject({ Status: 200, ID: byBulk });
      expect((await auditOf(acme, byPost, same)).length).toBe(2);
      expect(await auditOf(acme, byBulk, same)).toEqual(await auditOf(acme, byPost, same));

      const audit = await auditCount(acme);
      const again = await bulk('permissions', { Items: [{ Op: 'upsert', Record: grant(many, manager.userId, states) }] }).expect(200);
      expect(results(again.body)[0]).toMatchObject({ Status: 200, ID: byBulk });
      expect(await auditCount(acme)).toBe(audit);
    });

    it('holds each item to its single write’s rule: an administrator or a holder of Delegate on the row', async () => {
      const [a, b] = [await row(), await row()];
      // The peer holds Delegate on row b only.
      await single(acme.admin, grant(b, peer.userId, { DelegateState: 1 })).expect(200);
      const existing = (await single(acme.admin, grant(a, manager.userId)).expect(200)).body.ID as string;
      const items = [
        { Op: 'create', Record: grant(a, report.userId) },
        { Op: 'create', Record: grant(b, report.userId) },
        { Op: 'update', Record: { ...grant(a, manager.userId), ID: existing, ReadState: 2 } },
      ];
      const byPeer = await bulk('permissions', { Items: items }, peer).expect(200);
      // Each the status of the single write by the same caller (item 1 is taken now: 409).
      const expected = [
        (await single(peer, items[0].Record)).status,
        (await single(peer, items[1].Record)).status,
        (
          await t
            .http()
            .put(`/v4/permissions/${existing}`)
            .set('Authorization', auth(peer))
            .send({ ...items[2].Record })
        ).status,
      ];
      expect(expected).toEqual([403, 409, 403]);
      expect(statuses(byPeer.body)).toEqual([403, 200, 403]);
      expect((await t.ds.getRepository(PermissionEntity).findOneByOrFail({ id: existing })).readState).toBe(1);
      const byAdmin = await bulk('permissions', { Items: [items[0], items[2]] }).expect(200);
      expect(statuses(byAdmin.body)).toEqual([200, 200]);
    });

    it('reads and answers XML (BulkRequestOfPermission → BulkResults)', async () => {
      const a = await row();
      const res = await t
        .http()
        .post('/v4/permissions/bulk')
        .set('Authorization', auth(acme.admin))
        .set('Content-Type', 'application/xml')
        .set('Accept', 'application/xml')
        .send(
          xmlBulk('Permission', [
            { Op: 'upsert', Record: grant(a, manager.userId, { ReadState: 2 }) },
            { Op: 'create', Record: grant(a, manager.userId) },
          ]),
        )
        .expect(200);
      expect(res.text).toContain('<BulkResults ');
      expect(res.text).toMatch(/<Results><BulkResult><ID>[0-9a-f-]{36}<\/ID><Index>0<\/Index><Problem i:nil="true"\/><Status>200<\/Status><\/BulkResult>/);
      expect(res.text).toContain('<type>urn:pms:problem:duplicate-permission</type>');
      const rows = await t.ds.getRepository(PermissionEntity).findBy({ siteId: acme.siteId, rowId: a });
      expect(rows.map((p) => p.readState)).toEqual([2]);
    });
  });

  // ------------------------------------------------------------------------------ security-group members
  describe('POST /v4/securitygroups/members/bulk', () => {
    const membersOf = (groupId: string) => t.ds.getRepository(SecurityGroupMemberEntity).countBy({ groupId });
    const group = async (site: TestSite, key?: string) => {
      const id = (
        await t
          .http()
          .post('/v4/securitygroups')
          .set('Authorization', auth(site.admin))
          .send({ Name: uniq('Group ') })
          .expect(200)
      ).body.ID as string;
      if (key) await t.ds.getRepository(SecurityGroupEntity).update({ id }, { externalId: key });
      return id;
    };
    const single = (who: TestPerson, groupId: string, individualId: string) =>
      t.http().put(`/v4/securitygroups/${groupId}/members/${individualId}`).set('Authorization', auth(who));
    const asMember = (who: TestPerson) =>
      new RequestContext(randomUUID(), undefined, {
        userId: who.userId,
        userName: who.userName,
        individualId: who.individualId,
        siteId: acme.siteId,
        isAdmin: false,
        isGlobalAdmin: false,
        pmEnabled: true,
      });

    const mixed = async () => {
      const gKey = uniq('G-');
      const g = await group(acme, gKey);
      const theirs = await group(globex);
      const gone = (await createPerson(t, acme)).individualId;
      await t.http().delete(`/v4/individuals/${gone}`).set('Authorization', auth(acme.admin)).expect(200);
      const reportKey = await keyOf(report);
      const body = {
        Items: [
          { Op: 'create', Record: { SecurityGroupID: g, IndividualID: peer.individualId } },
          { Op: 'create', Record: { SecurityGroupID: g, IndividualID: peer.individualId } },
          { Op: 'upsert', Record: {}, ExternalRefs: { SecurityGroupID: gKey, IndividualID: reportKey } },
          { Op: 'update', Record: { SecurityGroupID: g, IndividualID: manager.individualId } },
          { Op: 'create', Record: { SecurityGroupID: g, IndividualID: globexPerson.individualId } },
          { Op: 'create', Record: { SecurityGroupID: theirs, IndividualID: peer.individualId } },
          { Op: 'create', Record: { SecurityGroupID: g, IndividualID: gone } },
          { Op: 'create', Record: { SecurityGroupID: g, IndividualID: 'not-a-guid' } },
          { Op: 'update', Record: { ID: randomUUID() } },
        ],
      };
      return { body, g, theirs };
    };

    it('answers each item as its single write would, in the order sent, and writes exactly the valid ones', async () => {
      const { body, g, theirs } = await mixed();
      const res = await bulk('securitygroups/members', body).expect(200);
      expect(statuses(res.body)).toEqual([200, 200, 200, 404, 404, 404, 409, 400, 404]);
      expect(res.body).toMatchObject({ Atomic: false, Committed: true, Succeeded: 3, Failed: 6 });
      const r = results(res.body);
      // Adding a member twice is the single write's idempotent 200: one membership.
      expect(r[1].ID).toBe(r[0].ID);
      expect((r[6].Problem as Json).type).toBe('urn:pms:problem:deleted');
      expect((r[7].Problem as Json).errors).toEqual([expect.objectContaining({ field: 'IndividualID' })]);
      expect(await membersOf(g)).toBe(2);
      expect(await membersOf(theirs)).toBe(0);
      const read = await t.http().get(`/v4/securitygroups/${g}`).set('Authorization', auth(acme.admin)).expect(200);
      expect((read.body.Members as Json[]).map((m) => m.IndividualID).sort()).toEqual([peer.individualId, report.individualId].sort());
      // The statuses of the single writes for the failing pairs.
      expect((await single(acme.admin, g, globexPerson.individualId)).status).toBe(404);
      expect((await single(acme.admin, theirs, peer.individualId)).status).toBe(404);
    });

    it('atomic=true writes nothing when an item fails, and everything when none does', async () => {
      const { body, g } = await mixed();
      const audit = await auditCount(acme);
      const res = await bulk('securitygroups/members', body, acme.admin, '?atomic=true').expect(200);
      expect(statuses(res.body)).toEqual([424, 424, 424, 404, 404, 404, 409, 400, 404]);
      expect(res.body).toMatchObject({ Atomic: true, Committed: false, Succeeded: 0 });
      expect(await membersOf(g)).toBe(0);
      expect(await auditCount(acme)).toBe(audit);
      const ok = await bulk('securitygroups/members', { Items: body.Items.slice(0, 3) }, acme.admin, '?atomic=true').expect(200);
      expect(statuses(ok.body)).toEqual([200, 200, 200]);
      expect(await membersOf(g)).toBe(2);
    });

    it('writes the audit rows its single write writes, and a member sent again writes none', async () => {
      const [one, many] = [await group(acme), await group(acme)];
      await single(acme.admin, one, peer.individualId).expect(200);
      const byPut = (await t.ds.getRepository(SecurityGroupMemberEntity).findOneByOrFail({ groupId: one, individualId: peer.individualId })).id;
      const res = await bulk('securitygroups/members', {
        Items: [{ Op: 'create', Record: { SecurityGroupID: many, IndividualID: peer.individualId } }],
      }).expect(200);
      const byBulk = results(res.body)[0].ID as string;
      expect((await t.ds.getRepository(SecurityGroupMemberEntity).findOneByOrFail({ id: byBulk })).groupId).toBe(many);
      const same = { [one]: '<group>', [many]: '<group>' };
      expect((await auditOf(acme, byPut, same)).length).toBe(1);
      expect(await auditOf(acme, byBulk, same)).toEqual(await auditOf(acme, byPut, same));

      const audit = await auditCount(acme);
      const again = await bulk('securitygroups/members', {
        Items: [
          { Op: 'upsert', Record: { SecurityGroupID: many, IndividualID: peer.individualId } },
          { Op: 'update', Record: { ID: byBulk } },
        ],
      }).expect(200);
      expect(results(again.body).map((x) => [x.Status, x.ID])).toEqual([
        [200, byBulk],
        [200, byBulk],
      ]);
      expect(await auditCount(acme)).toBe(audit);
    });

    it('is for administrators, as its single write is: a member is refused whole, and a batch applied for a member (an import) fails each item 403', async () => {
      const g = await group(acme);
      const items = [{ Op: 'create' as const, Record: { SecurityGroupID: g, IndividualID: peer.individualId } }];
      const refused = await bulk('securitygroups/members', { Items: items }, peer).expect(403);
      expect(refused.body.type).toBe('urn:pms:problem:admin-required');
      expect((await single(peer, g, peer.individualId)).status).toBe(403);
      const run = await t.app.get(BulkWriters).ofPath('securitygroups/members')!.apply(asMember(peer), items, { atomic: false });
      expect(run.outcomes.map((o) => o.status)).toEqual([403]);
      expect(await membersOf(g)).toBe(0);
      expect(statuses((await bulk('securitygroups/members', { Items: items }).expect(200)).body)).toEqual([200]);
    });

    it('reads and answers XML (BulkRequestOfSecurityGroupMember → BulkResults)', async () => {
      const key = uniq('XG-');
      const g = await group(acme, key);
      const res = await t
        .http()
        .post('/v4/securitygroups/members/bulk')
        .set('Authorization', auth(acme.admin))
        .set('Content-Type', 'application/xml')
        .set('Accept', 'application/xml')
        .send(
          xmlBulk('SecurityGroupMember', [
            { Op: 'upsert', Record: { IndividualID: peer.individualId }, ExternalRefs: { SecurityGroupID: key } },
            { Op: 'create', Record: { SecurityGroupID: g } },
          ]),
        )
        .expect(200);
      expect(res.text).toContain('<BulkResults ');
      expect(res.text).toMatch(/<Results><BulkResult><ID>[0-9a-f-]{36}<\/ID><Index>0<\/Index><Problem i:nil="true"\/><Status>200<\/Status><\/BulkResult>/);
      expect(res.text).toContain('<field>IndividualID</field>');
      expect(await membersOf(g)).toBe(1);
    });
  });

  // ------------------------------------------------------------------------------------ list items
  describe('POST /v4/{accountabilities,evaluationcriteria,supervisoryscopes,projectscopes}/bulk', () => {
    const itemsOf = (ancestorId: string, kind = 'accountability') => t.ds.getRepository(ListItemEntity).countBy({ ancestorId, kind: kind as never });
    const item = (ancestorId: string | undefined, over: Json = {}): Json => ({
      ...(ancestorId === undefined ? {} : { AncestorID: ancestorId }),
      Rank: 1,
      Name: 'Customer satisfaction',
      Description: 'Keep CSAT above 4.5',
      ...over,
    });
    const single = (who: TestPerson, path: string, body: Json) => t.http().post(`/v4/${path}`).set('Authorization', auth(who)).send(body);

    const mixed = async () => {
      const owner = await createPerson(t, acme, { reportsTo: manager.individualId });
      const ownerKey = await keyOf(owner);
      const existing = (await single(acme.admin, 'accountabilities', item(owner.individualId)).expect(200)).body.ID as string;
      const criterion = (await single(acme.admin, 'evaluationcriteria', item(owner.individualId)).expect(200)).body.ID as string;
      const theirs = (await single(globex.admin, 'accountabilities', item(globexPerson.individualId)).expect(200)).body.ID as string;
      const globexKey = await keyOf(globexPerson);
      const body = {
        Items: [
          { Op: 'create', Record: item(owner.individualId, { Name: 'First' }) },
          { Op: 'create', Record: item(undefined, { Name: 'By key' }), ExternalRefs: { AncestorID: ownerKey } },
          { Op: 'update', Record: item(undefined, { ID: existing, Name: 'Changed once' }) },
          { Op: 'upsert', Record: item(undefined, { ID: existing, Name: 'Changed twice' }) },
          { Op: 'create', Record: item(owner.individualId, { Name: '' }) },
          { Op: 'update', Record: item(undefined, { ID: criterion, Name: 'Another kind' }) },
          { Op: 'update', Record: item(undefined, { ID: theirs, Name: 'Taken over' }) },
          { Op: 'create', Record: item(undefined), ExternalRefs: { AncestorID: globexKey } },
          { Op: 'create', Record: item(globexPerson.individualId) },
        ],
      };
      return { body, owner, existing, criterion, theirs };
    };

    it('answers each item as its single write would, in the order sent, and writes exactly the valid ones', async () => {
      const { body, owner, existing, criterion, theirs } = await mixed();
      const res = await bulk('accountabilities', body).expect(200);
      expect(statuses(res.body)).toEqual([200, 200, 200, 200, 400, 404, 404, 400, 400]);
      expect(res.body).toMatchObject({ Atomic: false, Committed: true, Succeeded: 4, Failed: 5 });
      const r = results(res.body);
      expect((r[4].Problem as Json).errors).toEqual([expect.objectContaining({ field: 'Name' })]);
      expect((r[7].Problem as Json).errors).toEqual([expect.objectContaining({ field: 'ExternalRefs.AncestorID' })]);
      expect((r[8].Problem as Json).errors).toEqual([expect.objectContaining({ field: 'AncestorID' })]);
      expect([r[2].ID, r[3].ID]).toEqual([existing, existing]);
      expect(await itemsOf(owner.individualId)).toBe(3);
      const rows = t.ds.getRepository(ListItemEntity);
      expect((await rows.findOneByOrFail({ id: existing })).name).toBe('Changed twice');
      expect((await rows.findOneByOrFail({ id: r[1].ID as string })).ancestorId).toBe(owner.individualId);
      expect((await rows.findOneByOrFail({ id: criterion })).name).toBe('Customer satisfaction');
      expect((await rows.findOneByOrFail({ id: theirs })).name).toBe('Customer satisfaction');
      // The single PUT answers the other kind's item and the other site's 404 too.
      await t
        .http()
        .put(`/v4/accountabilities/${criterion}`)
        .set('Authorization', auth(acme.admin))
        .send(item(undefined, { ID: criterion }))
        .expect(404);
    });

    it('atomic=true writes nothing when an item fails, and everything when none does', async () => {
      const { body, owner, existing } = await mixed();
      const audit = await auditCount(acme);
      const res = await bulk('accountabilities', body, acme.admin, '?atomic=true').expect(200);
      expect(statuses(res.body)).toEqual([424, 424, 424, 424, 400, 404, 404, 400, 400]);
      expect(await itemsOf(owner.individualId)).toBe(1);
      expect(await auditCount(acme)).toBe(audit);
      expect((await t.ds.getRepository(ListItemEntity).findOneByOrFail({ id: existing })).name).toBe('Customer satisfaction');
      const ok = await bulk('accountabilities', { Items: body.Items.slice(0, 4) }, acme.admin, '?atomic=true').expect(200);
      expect(statuses(ok.body)).toEqual([200, 200, 200, 200]);
      expect(await itemsOf(owner.individualId)).toBe(3);
    });

    it('writes the audit rows its single writes write, and an unchanged item sent again writes none', async () => {
      const owner = (await createPerson(t, acme)).individualId;
      const byPost = (await single(acme.admin, 'supervisoryscopes', item(owner)).expect(200)).body.ID as string;
      const res = await bulk('supervisoryscopes', { Items: [{ Op: 'create', Record: item(owner) }] }).expect(200);
      const byBulk = results(res.body)[0].ID as string;
      expect((await auditOf(acme, byPost)).length).toBe(1);
      expect(await auditOf(acme, byBulk)).toEqual(await auditOf(acme, byPost));
      const change = item(undefined, { Rank: 2, Name: 'Renewals' });
      await t
        .http()
        .put(`/v4/supervisoryscopes/${byPost}`)
        .set('Authorization', auth(acme.admin))
        .send({ ...change, ID: byPost })
        .expect(200);
      expect(statuses((await bulk('supervisoryscopes', { Items: [{ Op: 'update', Record: { ...change, ID: byBulk } }] }).expect(200)).body)).toEqual([200]);
      expect((await auditOf(acme, byPost)).length).toBe(2);
      expect(await auditOf(acme, byBulk)).toEqual(await auditOf(acme, byPost));
      const audit = await auditCount(acme);
      expect(statuses((await bulk('supervisoryscopes', { Items: [{ Op: 'upsert', Record: { ...change, ID: byBulk } }] }).expect(200)).body)).toEqual([200]);
      expect(await auditCount(acme)).toBe(audit);
    });

    it('holds each item to its single write’s rule: the owner, their manager or an administrator', async () => {
      const mine = (await single(acme.admin, 'evaluationcriteria', item(report.individualId)).expect(200)).body.ID as string;
      const items = [
        { Op: 'create', Record: item(report.individualId) },
        { Op: 'create', Record: item(peer.individualId) },
        { Op: 'update', Record: item(undefined, { ID: mine, Name: 'Changed' }) },
      ];
      const statusOf = async (who: TestPerson, it: { Op: string; Record: Json }) =>
        it.Op === 'create'
          ? (await single(who, 'evaluationcriteria', it.Record)).status
          : (
              await t
                .http()
                .put(`/v4/evaluationcriteria/${String(it.Record.ID)}`)
                .set('Authorization', auth(who))
                .send(it.Record)
            ).status;
      for (const [who, expected] of [
        [manager, [200, 403, 200]],
        [peer, [403, 200, 403]],
      ] as const) {
        const res = await bulk('evaluationcriteria', { Items: items }, who).expect(200);
        expect(statuses(res.body)).toEqual(expected);
        const singles: number[] = [];
        for (const it of items) singles.push(await statusOf(who, it));
        expect(singles).toEqual(expected);
      }
    });

    it('reads and answers XML; a project scope’s owner is a project, named by ID only', async () => {
      const project = (
        await t
          .http()
          .post('/v4/projects')
          .set('Authorization', auth(acme.admin))
          .send({ Name: uniq('P '), OwnerID: acme.admin.individualId, OrganizationID: acme.orgId, StartDate: d('2026-01-01'), DueDate: d('2026-06-30') })
          .expect(200)
      ).body.ID as string;
      const res = await t
        .http()
        .post('/v4/projectscopes/bulk')
        .set('Authorization', auth(acme.admin))
        .set('Content-Type', 'application/xml')
        .set('Accept', 'application/xml')
        .send(
          xmlBulk('ListItem', [
            { Op: 'create', Record: item(project, { Name: 'From XML' }) },
            { Op: 'create', Record: item(undefined), ExternalRefs: { AncestorID: await keyOf(peer) } },
          ]),
        )
        .expect(200);
      expect(res.text).toContain('<BulkResults ');
      expect(res.text).toMatch(/<Results><BulkResult><ID>[0-9a-f-]{36}<\/ID><Index>0<\/Index><Problem i:nil="true"\/><Status>200<\/Status><\/BulkResult>/);
      expect(res.text).toContain('<field>ExternalRefs.AncestorID</field>');
      const rows = await t.ds.getRepository(ListItemEntity).findBy({ ancestorId: project });
      expect(rows.map((x) => [x.kind, x.name])).toEqual([['projectscope', 'From XML']]);
    });
  });

  // ---------------------------------------------------------------------------------- metric values
  describe('POST /v4/metrics/values/bulk', () => {
    let current: number;
    let past: number;
    let closed: number;
    let globexPeriod: number;
    const values = (metricId: string) => t.ds.getRepository(MetricValueEntity).countBy({ metricId });
    const metricOf = async (who: TestPerson, site: TestSite = acme) =>
      (await createMetric(t, site.admin.token, { Kind: 'individual', AncestorID: who.individualId, Name: uniq('Metric ') })).ID as string;
    const single = (who: TestPerson, metricId: string, periodId: number, actual: unknown) =>
      t.http().put(`/v4/metrics/${metricId}/values/${periodId}`).set('Authorization', auth(who)).send({ Actual: actual });
    const value = (MetricID: string, PeriodID: number, Actual: unknown): Json => ({ MetricID, PeriodID, Actual });

    beforeAll(async () => {
      const periods = await createPeriods(t, acme.siteId);
      [current, past] = [periods.current.id, periods.past.id];
      closed = (await createPeriod(t, acme.siteId, { start: new Date(Date.now() - 800 * DAY), end: new Date(Date.now() - 700 * DAY), closed: true })).id;
      globexPeriod = (await createPeriods(t, globex.siteId)).current.id;
    });

    const mixed = async () => {
      const [m1, m2] = [await metricOf(report), await metricOf(report)];
      const theirs = await metricOf(globexPerson, globex);
      const body = {
        Items: [
          { Op: 'create', Record: value(m1, current, 10) },
          { Op: 'create', Record: value(m1, current, 11) },
          { Op: 'upsert', Record: value(m2, current, 5) },
          { Op: 'update', Record: value(m2, past, 1) },
          { Op: 'create', Record: value(m1, closed, 3) },
          { Op: 'create', Record: value(m1, current, 'abc') },
          { Op: 'create', Record: value(theirs, current, 1) },
          { Op: 'create', Record: value(m1, globexPeriod, 1) },
          { Op: 'update', Record: { ID: randomUUID(), Actual: 1 } },
        ],
      };
      return { body, m1, m2, theirs };
    };

    it('answers each item as its single write would, in the order sent, and writes exactly the valid ones', async () => {
      const { body, m1, m2, theirs } = await mixed();
      const res = await bulk('metrics/values', body).expect(200);
      expect(statuses(res.body)).toEqual([200, 200, 200, 404, 409, 400, 404, 404, 404]);
      expect(res.body).toMatchObject({ Atomic: false, Committed: true, Succeeded: 3, Failed: 6 });
      const r = results(res.body);
      // Setting a value twice replaces it, as the single PUT does: one value.
      expect(r[1].ID).toBe(r[0].ID);
      expect((r[4].Problem as Json).type).toBe('urn:pms:problem:closed');
      expect((r[5].Problem as Json).errors).toEqual([expect.objectContaining({ field: 'Actual' })]);
      expect([await values(m1), await values(m2), await values(theirs)]).toEqual([1, 1, 0]);
      const read = await t.http().get(`/v4/metrics/${m1}`).set('Authorization', auth(acme.admin)).expect(200);
      expect(read.body.Values).toEqual([expect.objectContaining({ PeriodID: current, Actual: 11 })]);
      // The single writes answer the failing pairs the same.
      expect((await single(acme.admin, m1, closed, 3)).status).toBe(409);
      expect((await single(acme.admin, theirs, current, 1)).status).toBe(404);
      expect((await single(acme.admin, m1, globexPeriod, 1)).status).toBe(404);
    });

    it('atomic=true writes nothing when an item fails, and everything when none does', async () => {
      const { body, m1, m2 } = await mixed();
      const audit = await auditCount(acme);
      const res = await bulk('metrics/values', body, acme.admin, '?atomic=true').expect(200);
      expect(statuses(res.body)).toEqual([424, 424, 424, 404, 409, 400, 404, 404, 404]);
      expect([await values(m1), await values(m2)]).toEqual([0, 0]);
      expect(await auditCount(acme)).toBe(audit);
      const ok = await bulk('metrics/values', { Items: body.Items.slice(0, 3) }, acme.admin, '?atomic=true').expect(200);
      expect(statuses(ok.body)).toEqual([200, 200, 200]);
      expect([await values(m1), await values(m2)]).toEqual([1, 1]);
    });

    it('writes the audit rows its single write writes (the value and its metric), and a value sent again writes none', async () => {
      const [one, many] = [await metricOf(peer), await metricOf(peer)];
      await single(acme.admin, one, current, 42.5).expect(200);
      const byPut = (await t.ds.getRepository(MetricValueEntity).findOneByOrFail({ metricId: one, periodId: current })).id;
      const res = await bulk('metrics/values', { Items: [{ Op: 'create', Record: value(many, current, 42.5) }] }).expect(200);
      const byBulk = results(res.body)[0].ID as string;
      const same = { [one]: '<metric>', [many]: '<metric>' };
      expect((await auditOf(acme, byPut, same)).length).toBe(1);
      expect(await auditOf(acme, byBulk, same)).toEqual(await auditOf(acme, byPut, same));
      // The metric's own rows: created, then changed by its value (its version and Updated).
      const metricRows = async (id: string) =>
        (await auditOf(acme, id, same)).map((a) => ({ ...a, changes: (a.changes as { Field: string }[]).filter((c) => c.Field !== 'Name') }));
      expect(await metricRows(many)).toEqual(await metricRows(one));

      const audit = await auditCount(acme);
      const again = await bulk('metrics/values', {
        Items: [
          { Op: 'upsert', Record: value(many, current, 42.5) },
          { Op: 'update', Record: { ID: byBulk, Actual: '42.50' } },
        ],
      }).expect(200);
      expect(results(again.body).map((x) => [x.Status, x.ID])).toEqual([
        [200, byBulk],
        [200, byBulk],
      ]);
      expect(await auditCount(acme)).toBe(audit);
    });

    it('holds each item to its single write’s rule: the individual, their manager or an administrator', async () => {
      const [mine, theirs] = [await metricOf(peer), await metricOf(report)];
      const items = [
        { Op: 'upsert', Record: value(mine, current, 1) },
        { Op: 'upsert', Record: value(theirs, current, 1) },
      ];
      const res = await bulk('metrics/values', { Items: items }, peer).expect(200);
      expect(statuses(res.body)).toEqual([200, 403]);
      expect([(await single(peer, mine, current, 2)).status, (await single(peer, theirs, current, 2)).status]).toEqual([200, 403]);
      expect(await values(theirs)).toBe(0);
      expect(statuses((await bulk('metrics/values', { Items: items.slice(1) }, manager).expect(200)).body)).toEqual([200]);
    });

    it('reads and answers XML (BulkRequestOfMetricValue → BulkResults)', async () => {
      const m = await metricOf(report);
      const res = await t
        .http()
        .post('/v4/metrics/values/bulk')
        .set('Authorization', auth(acme.admin))
        .set('Content-Type', 'application/xml')
        .set('Accept', 'application/xml')
        .send(
          xmlBulk('MetricValue', [
            { Op: 'upsert', Record: value(m, current, 7.25) },
            { Op: 'create', Record: { MetricID: m, Actual: 1 } },
          ]),
        )
        .expect(200);
      expect(res.text).toContain('<BulkResults ');
      expect(res.text).toMatch(/<Results><BulkResult><ID>[0-9a-f-]{36}<\/ID><Index>0<\/Index><Problem i:nil="true"\/><Status>200<\/Status><\/BulkResult>/);
      expect(res.text).toContain('<field>PeriodID</field>');
      const row = await t.ds.getRepository(MetricValueEntity).findOneByOrFail({ metricId: m, periodId: current });
      expect(Number(row.actual)).toBe(7.25);
    });
  });
});
