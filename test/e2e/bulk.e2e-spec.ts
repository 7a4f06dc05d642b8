import { randomUUID } from 'node:crypto';
import { bearer, startApp, TestApp } from './harness.js';
import { createPerson, createSite, TestPerson, TestSite } from '../factories/index.js';
import { individualBody } from '../factories/individuals.js';
import { IndividualEntity } from '../../src/database/entities/individual.entity.js';
import { OrganizationEntity } from '../../src/database/entities/organization.entity.js';
import { BulkWriters } from '../../src/database/registries/bulk-writers.js';
import { HttpMetrics } from '../../src/http/pipeline/http-metrics.js';
import { RequestContext } from '../../src/common/context/request-context.js';

/**
 * Bulk writes and external keys (docs/bulk.md): POST /v4/individuals/bulk and
 * /v4/departments/bulk, on SQLite and (DATABASE_URL) MariaDB.
 */
type Json = Record<string, unknown>;
const NS = 'urn:pms:v4';
let seq = 0;
const uniq = (p: string) => `${p}${Date.now().toString(36)}${(seq++).toString(36)}`;

describe('bulk writes and ExternalID', () => {
  let t: TestApp;
  let acme: TestSite;
  let globex: TestSite;
  let member: TestPerson;

  beforeAll(async () => {
    t = await startApp();
    acme = await createSite(t);
    globex = await createSite(t);
    member = await createPerson(t, acme);
  });
  afterAll(async () => t?.close());

  const auth = (who: TestPerson | string) => bearer(typeof who === 'string' ? who : who.token);
  const bulk = (path: string, body: unknown, who: TestPerson | string = acme.admin, query = '') =>
    t
      .http()
      .post(`/v4/${path}/bulk${query}`)
      .set('Authorization', auth(who))
      .send(body as object);
  const person = (site: TestSite, over: Json = {}): Json => individualBody(site.orgId, over, 'bulk.');
  const individuals = (site: TestSite) => t.ds.getRepository(IndividualEntity).countBy({ siteId: site.siteId });
  const auditRows = async (site: TestSite) =>
    Number(((await t.ds.query('SELECT COUNT(*) AS n FROM audit_log WHERE site_id = ?', [site.siteId])) as { n: number | string }[])[0].n);
  const statuses = (body: Json) => (body.Results as Json[]).map((r) => r.Status);

  describe('ExternalID on the single writes', () => {
    it('is written, answered, kept by a PUT that does not send it, and unique per site (409 duplicate-external-id)', async () => {
      const key = uniq('HR-');
      const created = await t
        .http()
        .post('/v4/individuals')
        .set('Authorization', auth(acme.admin))
        .send(person(acme, { ExternalID: ` ${key} ` }))
        .expect(200);
      expect(created.body.ExternalID).toBe(key);
      // A client that does not know the field (a .NET DataContract class of before) PUTs back what it knows.
      const { ExternalID: _dropped, ...known } = created.body as Json;
      const put = await t.http().put(`/v4/individuals/${created.body.ID}`).set('Authorization', auth(acme.admin)).send(known).expect(200);
      expect(put.body.ExternalID).toBe(key);
      const dupe = await t
        .http()
        .post('/v4/individuals')
        .set('Authorization', auth(acme.admin))
        .send(person(acme, { ExternalID: key }))
        .expect(409);
      expect(dupe.body.type).toBe('urn:pms:problem:duplicate-external-id');
      expect(dupe.body.detail).toContain(key);
      // Another site may use the same key.
      const other = await t
        .http()
        .post('/v4/individuals')
        .set('Authorization', auth(globex.admin))
        .send(person(globex, { ExternalID: key }))
        .expect(200);
      expect(other.body.ExternalID).toBe(key);
      // Blank clears.
      const cleared = await t
        .http()
        .put(`/v4/individuals/${created.body.ID}`)
        .set('Authorization', auth(acme.admin))
        .send({ ...known, ExternalID: '  ' })
        .expect(200);
      expect(cleared.body.ExternalID).toBeNull();
    });

    it('is SCIM’s externalId: a provisioned person is upserted by it, and a SCIM clash is 409 uniqueness', async () => {
      const scimToken = (
        await t
          .http()
          .post('/v4/apitokens')
          .set('Authorization', auth(acme.admin))
          .send({ Name: uniq('scim'), Scopes: 'scim' })
          .expect(200)
      ).body.Secret as string;
      const key = uniq('okta-');
      const scim = (body: Json) =>
        t
          .http()
          .post('/scim/v2/Users')
          .set('Authorization', bearer(scimToken))
          .set('Content-Type', 'application/scim+json')
          .send(JSON.stringify({ schemas: ['urn:ietf:params:scim:schemas:core:2.0:User'], name: { givenName: 'Sam', familyName: 'Scim' }, ...body }));
      const user = await scim({ userName: `${key}@example.com`, externalId: key }).expect(201);
      const read = await t.http().get(`/v4/individuals/${user.body.id}`).set('Authorization', auth(acme.admin)).expect(200);
      expect(read.body.ExternalID).toBe(key);
      const res = await bulk('individuals', {
        Items: [{ Op: 'update', Record: { ExternalID: key, FirstName: 'Samuel', LastName: 'Scim', UserName: `${key}@example.com` } }],
      }).expect(200);
      expect((res.body.Results as Json[])[0]).toMatchObject({ Status: 200, ID: user.body.id });
      const again = await t.http().get(`/v4/individuals/${user.body.id}`).set('Authorization', auth(acme.admin)).expect(200);
      expect(again.body.FirstName).toBe('Samuel');
      const clash = await scim({ userName: `${uniq('other')}@example.com`, externalId: key });
      expect(clash.status).toBe(409);
      expect(clash.body.scimType).toBe('uniqueness');
    });

    it('departments carry one too, in JSON and XML (ordinal order)', async () => {
      const key = uniq('ORG-');
      const res = await t.http().post('/v4/departments').set('Authorization', auth(acme.admin)).send({ Name: 'Sales', ExternalID: key }).expect(200);
      expect(res.body.ExternalID).toBe(key);
      const xml = await t.http().get(`/v4/departments/${res.body.ID}`).set('Authorization', auth(acme.admin)).set('Accept', 'application/xml').expect(200);
      expect(xml.text).toContain(`<ExternalID>${key}</ExternalID>`);
      expect(xml.text.indexOf('<Description')).toBeLessThan(xml.text.indexOf('<ExternalID>'));
      expect(xml.text.indexOf('<ExternalID>')).toBeLessThan(xml.text.indexOf('<ID>'));
      await t.http().post('/v4/departments').set('Authorization', auth(acme.admin)).send({ Name: 'Sales 2', ExternalID: key }).expect(409);
    });
  });

  describe('POST /v4/individuals/bulk', () => {
    /** Valid, invalid, a forward reference and duplicates, in one batch. */
    const mixed = () => {
      const manager = uniq('M-');
      const body = {
        Items: [
          { Op: 'create', Record: person(acme, { ExternalID: uniq('E-') }), ExternalRefs: { PrimaryReportsTo: manager } },
          { Op: 'create', Record: person(acme, { FirstName: '' }) },
          { Op: 'upsert', Record: person(acme, { ExternalID: manager }) },
          { Op: 'create', Record: person(acme, { ExternalID: manager }) },
          { Op: 'update', Record: person(acme, { ExternalID: uniq('nobody-') }) },
          { Op: 'create', Record: person(acme), ExternalRefs: { PrimaryOrganizationID: uniq('no-org-') } },
        ],
      };
      return { body, manager };
    };

    it('answers each item as its single write would, in the order sent, and writes exactly the valid ones', async () => {
      const { body, manager } = mixed();
      const before = await individuals(acme);
      const res = await bulk('individuals', body).expect(200);
      expect(statuses(res.body)).toEqual([200, 400, 200, 409, 404, 400]);
      expect(res.body).toMatchObject({ Atomic: false, Committed: true, Succeeded: 2, Failed: 4 });
      const results = res.body.Results as Json[];
      expect(results.map((r) => r.Index)).toEqual([0, 1, 2, 3, 4, 5]);
      expect((results[1].Problem as Json).type).toBe('urn:pms:problem:validation-failed');
      expect((results[1].Problem as Json).errors).toEqual([expect.objectContaining({ field: 'FirstName' })]);
      expect((results[3].Problem as Json).type).toBe('urn:pms:problem:duplicate-external-id');
      expect((results[5].Problem as Json).errors).toEqual([expect.objectContaining({ field: 'ExternalRefs.PrimaryOrganizationID' })]);
      expect(results[3].ID).toBeNull();
      expect(await individuals(acme)).toBe(before + 2);
      // The forward reference: item 0 reports to the manager item 2 created.
      const worker = await t.http().get(`/v4/individuals/${results[0].ID}`).set('Authorization', auth(acme.admin)).expect(200);
      expect(worker.body.PrimaryReportsTo).toBe(results[2].ID);
      const boss = await t.http().get(`/v4/individuals/${results[2].ID}`).set('Authorization', auth(acme.admin)).expect(200);
      expect(boss.body.ExternalID).toBe(manager);
    });

    it('atomic=true writes nothing when an item fails, and everything when none does', async () => {
      const { body } = mixed();
      const before = await individuals(acme);
      const audit = await auditRows(acme);
      const res = await bulk('individuals', body, acme.admin, '?atomic=true').expect(200);
      expect(statuses(res.body)).toEqual([424, 400, 424, 409, 404, 400]);
      expect(res.body).toMatchObject({ Atomic: true, Committed: false, Succeeded: 0, Failed: 6 });
      expect((res.body.Results as Json[])[0]).toMatchObject({ ID: null, Problem: { type: 'urn:pms:problem:not-applied', status: 424 } });
      expect(await individuals(acme)).toBe(before);
      expect(await auditRows(acme)).toBe(audit);

      const manager = uniq('M-');
      const ok = await bulk(
        'individuals',
        {
          Items: [
            { Op: 'create', Record: person(acme), ExternalRefs: { PrimaryReportsTo: manager } },
            { Op: 'create', Record: person(acme, { ExternalID: manager }) },
          ],
        },
        acme.admin,
        '?atomic=true',
      ).expect(200);
      expect(statuses(ok.body)).toEqual([200, 200]);
      expect(ok.body).toMatchObject({ Atomic: true, Committed: true, Succeeded: 2, Failed: 0 });
      expect(await individuals(acme)).toBe(before + 2);
    });

    it('answers a user name or an ID already taken (by another site, or by an earlier item) as the single POST does, and writes the others whole', async () => {
      // On MySQL/MariaDB an item's inserts travel together at its end (docs/bulk.md, "Round trips"):
      // when one is refused there, the item runs again with each write sent at once, so the
      // refusal is the single write's own 409, and nothing of the item stays.
      const taken = uniq('taken.');
      await bulk('individuals', { Items: [{ Op: 'create', Record: person(globex, { UserName: taken }) }] }, globex.admin).expect(200);
      const twice = uniq('twice.');
      const id = randomUUID();
      const foreign = ((await bulk('individuals', { Items: [{ Op: 'create', Record: person(globex) }] }, globex.admin).expect(200)).body.Results as Json[])[0]
        .ID as string;
      const before = await individuals(acme);
      const audit = await auditRows(acme);
      const users = async () =>
        Number(((await t.ds.query('SELECT COUNT(*) AS n FROM users WHERE site_id = ?', [acme.siteId])) as { n: number | string }[])[0].n);
      const accounts = await users();
      const items = [
        { Op: 'create', Record: person(acme, { UserName: taken }) },
        { Op: 'create', Record: person(acme, { UserName: twice }) },
        { Op: 'create', Record: person(acme, { UserName: twice }) },
        { Op: 'create', Record: person(acme, { ID: id }) },
        { Op: 'create', Record: person(acme, { ID: id }) },
        { Op: 'create', Record: person(acme, { ID: foreign }) },
        { Op: 'create', Record: person(acme) },
      ];
      const res = await bulk('individuals', { Items: items }).expect(200);
      expect(statuses(res.body)).toEqual([409, 200, 409, 200, 409, 409, 200]);
      const problems = (res.body.Results as Json[]).map((r) => (r.Problem as Json | null)?.type ?? null);
      expect(problems).toEqual([
        'urn:pms:problem:duplicate-username',
        null,
        'urn:pms:problem:duplicate-username',
        null,
        'urn:pms:problem:id-taken',
        'urn:pms:problem:id-taken',
        null,
      ]);
      expect((res.body.Results as Json[])[3].ID).toBe(id);
      // Three people, each whole: an account, an individual and a membership, and their audit rows.
      expect(await individuals(acme)).toBe(before + 3);
      expect(await users()).toBe(accounts + 3);
      expect(await auditRows(acme)).toBe(audit + 9);
      const written = (res.body.Results as Json[]).filter((r) => r.Status === 200).map((r) => r.ID as string);
      for (const w of written) {
        const read = await t.http().get(`/v4/individuals/${w}`).set('Authorization', auth(acme.admin)).expect(200);
        expect(read.body.PrimaryOrganizationID).toBe(acme.orgId);
      }
      // The other site's record and account are untouched.
      const theirs = await t.ds.getRepository(IndividualEntity).findOneByOrFail({ id: foreign });
      expect(theirs.siteId).toBe(globex.siteId);

      // atomic=true: the same refusals, and nothing written.
      const again = items.map((item, i) => (i === 6 || i === 1 ? { Op: 'create', Record: person(acme) } : item));
      const atomic = await bulk('individuals', { Items: again }, acme.admin, '?atomic=true').expect(200);
      expect(statuses(atomic.body)).toEqual([409, 424, 409, 409, 409, 409, 424]);
      expect(await individuals(acme)).toBe(before + 3);
      expect(await auditRows(acme)).toBe(audit + 9);

      // An update whose held UPDATE is refused where the read after it carries it (the primary
      // membership's title changes too): the single PUT's 409, and nothing of it written.
      const [first, second] = written;
      const key = uniq('X-');
      const keyed = {
        Op: 'update',
        Record: { ...person(acme), ...(await t.http().get(`/v4/individuals/${first}`).set('Authorization', auth(acme.admin))).body, ExternalID: key },
      };
      await bulk('individuals', { Items: [keyed] }).expect(200);
      const current = (await t.http().get(`/v4/individuals/${second}`).set('Authorization', auth(acme.admin)).expect(200)).body as Json;
      const clash = await bulk('individuals', { Items: [{ Op: 'update', Record: { ...current, ExternalID: key, PrimaryTitle: 'Clash' } }] }).expect(200);
      expect(statuses(clash.body)).toEqual([409]);
      expect(((clash.body.Results as Json[])[0].Problem as Json).type).toBe('urn:pms:problem:duplicate-external-id');
      const after = (await t.http().get(`/v4/individuals/${second}`).set('Authorization', auth(acme.admin)).expect(200)).body as Json;
      expect(after.PrimaryTitle).toBe(current.PrimaryTitle);
      expect(after.ExternalID).toBe(current.ExternalID);
    });

    it('an upsert by ExternalID sent twice changes nothing the second time: same IDs, no version, no audit row', async () => {
      const keys = [uniq('U-'), uniq('U-')];
      const items = keys.map((k) => ({ Op: 'upsert', Record: person(acme, { ExternalID: k, UserName: `u.${k}` }) }));
      const first = await bulk('individuals', { Items: items }).expect(200);
      expect(statuses(first.body)).toEqual([200, 200]);
      const ids = (first.body.Results as Json[]).map((r) => r.ID);
      const versions = async () => (await t.ds.getRepository(IndividualEntity).findBy({ siteId: acme.siteId, externalId: keys[0] })).map((r) => r.version);
      const v1 = await versions();
      const audit = await auditRows(acme);
      const count = await individuals(acme);
      const second = await bulk('individuals', { Items: items }).expect(200);
      expect(statuses(second.body)).toEqual([200, 200]);
      expect((second.body.Results as Json[]).map((r) => r.ID)).toEqual(ids);
      expect(await versions()).toEqual(v1);
      expect(await auditRows(acme)).toBe(audit);
      expect(await individuals(acme)).toBe(count);
      // A change is written (and recorded).
      const third = await bulk('individuals', { Items: [{ Op: 'upsert', Record: { ...items[0].Record, PrimaryTitle: 'Lead' } }] }).expect(200);
      expect(statuses(third.body)).toEqual([200]);
      expect(await auditRows(acme)).toBeGreaterThan(audit);
      const read = await t.http().get(`/v4/individuals/${ids[0]}`).set('Authorization', auth(acme.admin)).expect(200);
      expect(read.body.PrimaryTitle).toBe('Lead');
    });

    it('never matches another site’s ExternalID (tenancy)', async () => {
      const key = uniq('T-');
      const mine = await bulk('individuals', { Items: [{ Op: 'upsert', Record: person(acme, { ExternalID: key }) }] }).expect(200);
      const globexBefore = await individuals(globex);
      // The same key in another site creates a record there; it neither updates nor names Acme's.
      const theirs = await bulk('individuals', { Items: [{ Op: 'upsert', Record: person(globex, { ExternalID: key }) }] }, globex.admin).expect(200);
      expect(statuses(theirs.body)).toEqual([200]);
      expect((theirs.body.Results as Json[])[0].ID).not.toBe((mine.body.Results as Json[])[0].ID);
      expect(await individuals(globex)).toBe(globexBefore + 1);
      const update = await bulk('individuals', { Items: [{ Op: 'update', Record: person(globex, { ExternalID: uniq('only-acme-') }) }] }, globex.admin);
      expect(statuses(update.body)).toEqual([404]);
      const ref = await bulk(
        'individuals',
        { Items: [{ Op: 'create', Record: person(globex), ExternalRefs: { PrimaryOrganizationID: uniq('x') } }] },
        globex.admin,
      ).expect(200);
      expect(statuses(ref.body)).toEqual([400]);
      // Acme's record by ID, from Globex: not found, as the single PUT answers.
      const byId = await bulk('individuals', { Items: [{ Op: 'update', Record: person(globex, { ID: (mine.body.Results as Json[])[0].ID }) }] }, globex.admin);
      expect(statuses(byId.body)).toEqual([404]);
      const row = await t.ds.getRepository(IndividualEntity).findOneByOrFail({ id: (mine.body.Results as Json[])[0].ID as string });
      expect(row.siteId).toBe(acme.siteId);
    });

    it('holds each item to the single write’s access rule: a member may not create (403) but may change what their PUT may', async () => {
      const self = await t.http().get('/v4/me').set('Authorization', auth(member)).expect(200);
      const res = await bulk(
        'individuals',
        {
          Items: [
            { Op: 'create', Record: person(acme) },
            { Op: 'update', Record: { ...(self.body as Json), UserDefined1: 'set by me' } },
            { Op: 'update', Record: { ...person(acme), ID: acme.admin.individualId, UserName: acme.admin.userName } },
          ],
        },
        member,
      ).expect(200);
      expect(statuses(res.body)).toEqual([403, 200, 403]);
      expect((res.body.Results as Json[])[0].Problem).toMatchObject({ type: 'urn:pms:problem:admin-required' });
      const me = await t.http().get('/v4/me').set('Authorization', auth(member)).expect(200);
      expect(me.body.UserDefined1).toBe('set by me');
    });

    it('takes an API token’s scopes as the single write does', async () => {
      const token = async (scopes: string) =>
        (
          await t
            .http()
            .post('/v4/apitokens')
            .set('Authorization', auth(acme.admin))
            .send({ Name: uniq('bulk'), Scopes: scopes })
            .expect(200)
        ).body.Secret as string;
      const body = { Items: [{ Op: 'upsert', Record: person(acme, { ExternalID: uniq('S-') }) }] };
      const read = await bulk('individuals', body, await token('individuals:read')).expect(403);
      expect(read.body.type).toBe('urn:pms:problem:insufficient-scope');
      const other = await bulk('individuals', body, await token('goals:write')).expect(403);
      expect(other.body.type).toBe('urn:pms:problem:insufficient-scope');
      const write = await bulk('individuals', body, await token('individuals:write')).expect(200);
      expect(statuses(write.body)).toEqual([200]);
      await bulk('individuals', body).set('Authorization', '').expect(401);
    });

    it('reads and answers XML (BulkRequestOfIndividual → BulkResults)', async () => {
      const key = uniq('X-');
      const boss = uniq('XB-');
      const rec = (p: Json) =>
        Object.entries(p)
          .map(([k, v]) => (v === null ? `<${k} i:nil="true"/>` : `<${k}>${String(v)}</${k}>`))
          .join('');
      const xml =
        `<BulkRequestOfIndividual xmlns="${NS}" xmlns:i="http://www.w3.org/2001/XMLSchema-instance"><Items>` +
        `<BulkItemOfIndividual><ExternalRefs><PrimaryReportsTo>${boss}</PrimaryReportsTo></ExternalRefs><Op>upsert</Op><Record>${rec(person(acme, { ExternalID: key }))}</Record></BulkItemOfIndividual>` +
        `<BulkItemOfIndividual><Op>create</Op><Record>${rec(person(acme, { ExternalID: boss }))}</Record></BulkItemOfIndividual>` +
        `<BulkItemOfIndividual><Op>create</Op><Record>${rec(person(acme, { LastName: null }))}</Record></BulkItemOfIndividual>` +
        `</Items></BulkRequestOfIndividual>`;
      const res = await t
        .http()
        .post('/v4/individuals/bulk')
        .set('Authorization', auth(acme.admin))
        .set('Content-Type', 'application/xml')
        .set('Accept', 'application/xml')
        .send(xml)
        .expect(200);
      expect(res.text).toContain('<BulkResults ');
      expect(res.text).toMatch(/<Results><BulkResult><ID>[0-9a-f-]{36}<\/ID><Index>0<\/Index><Problem i:nil="true"\/><Status>200<\/Status><\/BulkResult>/);
      expect(res.text).toContain('<Index>2</Index><Problem><detail>');
      expect(res.text).toContain('<field>LastName</field>');
      const row = await t.ds.getRepository(IndividualEntity).findOneByOrFail({ siteId: acme.siteId, externalId: key });
      const bossRow = await t.ds.getRepository(IndividualEntity).findOneByOrFail({ siteId: acme.siteId, externalId: boss });
      expect(row.primaryReportsTo).toBe(bossRow.id);
    });

    it('refuses a body of the wrong shape with a 400 problem, never a 500', async () => {
      const too = { Items: Array.from({ length: 1001 }, () => ({ Op: 'create', Record: {} })) };
      const many = await bulk('individuals', too).expect(400);
      expect(JSON.stringify(many.body.errors)).toContain('at most 1000 items');
      for (const body of [
        {},
        { Items: 'x' },
        { Items: [{ Op: 'delete', Record: {} }] },
        { Items: [{ Op: 'create' }] },
        { Items: [{ Op: 'create', Record: [] }] },
        [],
      ]) {
        const res = await bulk('individuals', body);
        expect(res.status).toBe(400);
        expect(res.body.type).toBe('urn:pms:problem:validation-failed');
      }
      await t.http().post('/v4/individuals/bulk').set('Authorization', auth(acme.admin)).set('Content-Type', 'application/xml').send('<Oops').expect(400);
      const empty = await bulk('individuals', { Items: [] }).expect(200);
      expect(empty.body).toMatchObject({ Committed: false, Succeeded: 0, Failed: 0, Results: [] });
    });

    it('takes bodies over 1 MiB up to its own limit', async () => {
      const items = Array.from({ length: 700 }, () => ({
        Op: 'create',
        Record: person(acme, {
          UserDefined1: 'x'.repeat(255),
          UserDefined2: 'y'.repeat(255),
          UserDefined3: 'z'.repeat(255),
          UserDefined4: 'w'.repeat(255),
          Email: 'e'.repeat(250),
          PrimaryTitle: 't'.repeat(250),
          FirstName: '',
        }),
      }));
      const body = JSON.stringify({ Items: items });
      expect(Buffer.byteLength(body)).toBeGreaterThan(1024 * 1024);
      const res = await t
        .http()
        .post('/v4/individuals/bulk')
        .set('Authorization', auth(acme.admin))
        .set('Content-Type', 'application/json')
        .send(body)
        .expect(200);
      expect(res.body.Failed).toBe(700);
    });

    it('refuses a body over 16 MiB with 413, and keeps 1 MiB on the single routes', async () => {
      const huge = JSON.stringify({ Items: [{ Op: 'create', Record: { FirstName: 'x'.repeat(17 * 1024 * 1024) } }] });
      const res = await t
        .http()
        .post('/v4/individuals/bulk')
        .set('Authorization', auth(acme.admin))
        .set('Content-Type', 'application/json')
        .send(huge)
        .expect(413);
      expect(res.body.detail).toContain('16 MiB');
      const single = JSON.stringify(person(acme, { UserDefined1: 'x'.repeat(2 * 1024 * 1024) }));
      await t.http().post('/v4/individuals').set('Authorization', auth(acme.admin)).set('Content-Type', 'application/json').send(single).expect(413);
    });

    it('an Idempotency-Key covers the whole batch: a retry is answered as the first request, nothing is written twice', async () => {
      const key = randomUUID();
      const body = {
        Items: [
          { Op: 'create', Record: person(acme) },
          { Op: 'create', Record: person(acme, { FirstName: '' }) },
        ],
      };
      const before = await individuals(acme);
      const first = await bulk('individuals', body).set('Idempotency-Key', key).expect(200);
      expect(statuses(first.body)).toEqual([200, 400]);
      const again = await bulk('individuals', body).set('Idempotency-Key', key).expect(200);
      expect(again.headers['idempotency-replayed']).toBe('true');
      expect(again.body).toEqual(first.body);
      expect(await individuals(acme)).toBe(before + 1);
    });
  });

  describe('the bulk writers registry (what a file import calls)', () => {
    it('finds each collection that declares bulk writes, and applies a batch as its route does', async () => {
      const writers = t.app.get(BulkWriters);
      expect(writers.paths()).toEqual([
        'accountabilities',
        'departmentmembers',
        'departments',
        'evaluationcriteria',
        'goals',
        'individuals',
        'metrics/values',
        'permissions',
        'projectscopes',
        'securitygroups/members',
        'supervisoryscopes',
      ]);
      const key = uniq('I-');
      const ctx = RequestContext.system(acme.siteId, { individualId: acme.admin.individualId, isGlobalAdmin: false });
      const items = [
        { Op: 'upsert' as const, Record: person(acme, { ExternalID: key }) },
        { Op: 'create' as const, Record: person(acme, { LastName: '' }) },
      ];
      const run = await writers.ofPath('individuals')!.apply(ctx, items, { atomic: false });
      expect(run.committed).toBe(true);
      expect(run.outcomes.map((o) => o.status)).toEqual([200, 400]);
      const row = await t.ds.getRepository(IndividualEntity).findOneByOrFail({ siteId: acme.siteId, externalId: key });
      expect(row.id).toBe(run.outcomes[0].id);
      expect(writers.ofPath('colors')).toBeUndefined();
    });
  });

  describe('POST /v4/departments/bulk', () => {
    it('upserts a tree by ExternalID in any order, ParentID and ManagerID by ExternalRefs', async () => {
      const root = uniq('R-');
      const child = uniq('C-');
      const boss = uniq('B-');
      await bulk('individuals', { Items: [{ Op: 'create', Record: person(acme, { ExternalID: boss }) }] }).expect(200);
      const items = [
        { Op: 'upsert', Record: { Name: 'Child', ExternalID: child }, ExternalRefs: { ParentID: root, ManagerID: boss } },
        { Op: 'upsert', Record: { Name: 'Root', ExternalID: root, RowType: 4 } },
        { Op: 'upsert', Record: { Name: '' } },
      ];
      const res = await bulk('departments', { Items: items }).expect(200);
      expect(statuses(res.body)).toEqual([200, 200, 400]);
      const rows = t.ds.getRepository(OrganizationEntity);
      const c = await rows.findOneByOrFail({ siteId: acme.siteId, externalId: child });
      const r = await rows.findOneByOrFail({ siteId: acme.siteId, externalId: root });
      expect(c.parentId).toBe(r.id);
      expect(r.rowType).toBe(4);
      const audit = await auditRows(acme);
      const again = await bulk('departments', { Items: items.slice(0, 2) }).expect(200);
      expect(statuses(again.body)).toEqual([200, 200]);
      expect(await auditRows(acme)).toBe(audit);
      // A member may not create units.
      const denied = await bulk('departments', { Items: [{ Op: 'create', Record: { Name: 'Nope' } }] }, member).expect(200);
      expect(statuses(denied.body)).toEqual([403]);
    });
  });

  describe('metrics of the chunks (GET /metrics on the metrics port)', () => {
    /** A series' value in the exposition text: the line of `name` whose labels are all of `labels`; 0 when there is none yet. */
    const value = (text: string, name: string, labels: Record<string, string>): number => {
      const line = text.split('\n').find((l) => l.startsWith(`${name}{`) && Object.entries(labels).every(([k, v]) => l.includes(`${k}="${v}"`)));
      return line ? Number(line.slice(line.lastIndexOf(' ') + 1)) : 0;
    };
    const phases = ['reads_ahead', 'items', 'commit'] as const;
    const figures = async (metrics: HttpMetrics, resource: string) => {
      const text = await metrics.text();
      return {
        items: value(text, 'pms_bulk_items_total', { resource }),
        chunks: phases.map((phase) => value(text, 'pms_bulk_chunk_phase_seconds_count', { resource, phase })),
        seconds: phases.map((phase) => value(text, 'pms_bulk_chunk_phase_seconds_sum', { resource, phase })),
      };
    };

    it("count each chunk's items and time its three phases, by resource, whatever the items' outcomes", async () => {
      const metrics = t.app.get(HttpMetrics);
      const before = await figures(metrics, 'Individual');
      const units = await figures(metrics, 'Department');
      const res = await bulk('individuals', {
        Items: [
          { Op: 'create', Record: person(acme, { ExternalID: uniq('MX-') }) },
          { Op: 'create', Record: person(acme, { FirstName: '' }) },
          { Op: 'upsert', Record: person(acme, { ExternalID: uniq('MX-') }) },
        ],
      }).expect(200);
      expect(statuses(res.body)).toEqual([200, 400, 200]);
      const after = await figures(metrics, 'Individual');
      expect({ items: after.items - before.items, chunks: after.chunks.map((n, i) => n - before.chunks[i]) }).toEqual({ items: 3, chunks: [1, 1, 1] });
      for (const [i, s] of after.seconds.entries()) expect(s).toBeGreaterThanOrEqual(before.seconds[i]);
      // Another resource's chunks are its own series.
      expect(await figures(metrics, 'Department')).toEqual(units);
    });

    it('an app that closed no longer counts the chunks of the process', async () => {
      const other = await startApp();
      const closed = other.app.get(HttpMetrics);
      await other.close();
      const before = await figures(closed, 'Individual');
      await bulk('individuals', { Items: [{ Op: 'create', Record: person(acme, { ExternalID: uniq('MC-') }) }] }).expect(200);
      expect(await figures(closed, 'Individual')).toEqual(before);
    });
  });
});
