import { bearer, startApp, TestApp, WireCodec } from './harness.js';
import { createPerson } from '../factories/index.js';
import { createItem, createTeamSite, deleteIndividual, TeamSite } from '../factories/performance.js';
import { RequestContext } from '../../src/common/context/request-context.js';
import { TenantDb } from '../../src/database/tenant-db.js';
import { deleteListItemsByRef, undeleteListItemsByRef } from '../../src/modules/list-items/list-item-cascade.js';
import { INDIVIDUAL_KINDS } from '../../src/modules/list-items/list-item-kinds.js';

const codec = new WireCodec('urn:pms:v4');
const UNKNOWN = '1b4e28ba-2fa1-4d3b-a3f5-ef19b5a7633b';
const XML_HEAD = '<ListItem xmlns="urn:pms:v4" xmlns:i="http://www.w3.org/2001/XMLSchema-instance">';
/** The fields of ListItem in the spec's table order (JSON) and in ordinal order (XML). */
const JSON_ORDER = ['ID', 'AncestorID', 'Rank', 'Name', 'Description', 'SiteID', 'Deleted', 'DeletedByRef', 'Created', 'CreatedBy', 'Updated', 'UpdatedBy'];
const XML_ORDER = ['AncestorID', 'Created', 'CreatedBy', 'Deleted', 'DeletedByRef', 'Description', 'ID', 'Name', 'Rank', 'SiteID', 'Updated', 'UpdatedBy'];
const DATE_RE = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}\+00:00$/;

type Item = { ID: string } & Record<string, unknown>;

describe('/v4/accountabilities', () => {
  let t: TestApp;
  let acme: TeamSite;
  let globex: TeamSite;
  const as = (p: { token: string }) => bearer(p.token);

  beforeAll(async () => {
    t = await startApp();
    acme = await createTeamSite(t, { name: 'Acme' });
    globex = await createTeamSite(t, { name: 'Globex' });
  });
  afterAll(async () => {
    await t.close();
  });

  const getOne = (id: string, token = acme.admin.token) => t.http().get(`/v4/accountabilities/${id}`).set('Authorization', bearer(token));

  describe('POST /v4/accountabilities', () => {
    it('creates one for oneself from JSON, fields in spec order, read-only fields ignored', async () => {
      const res = await t
        .http()
        .post('/v4/accountabilities')
        .set('Authorization', as(acme.worker))
        .send({
          AncestorID: acme.worker.individualId,
          Rank: 3,
          Name: '  Own the build  ',
          Description: 'Keep CI green',
          SiteID: globex.siteId,
          Deleted: true,
          DeletedByRef: true,
          Created: '2001-01-01T00:00:00Z',
          CreatedBy: acme.peer.individualId,
          UpdatedBy: acme.peer.individualId,
          Unknown: 'x',
        })
        .expect(200);
      expect(Object.keys(res.body)).toEqual(JSON_ORDER);
      expect(res.body).toEqual({
        ID: expect.stringMatching(/^[0-9a-f-]{36}$/),
        AncestorID: acme.worker.individualId,
        Rank: 3,
        Name: 'Own the build',
        Description: 'Keep CI green',
        SiteID: acme.siteId,
        Deleted: false,
        DeletedByRef: false,
        Created: expect.stringMatching(DATE_RE),
        CreatedBy: acme.worker.individualId,
        Updated: expect.stringMatching(DATE_RE),
        UpdatedBy: acme.worker.individualId,
      });
      expect(res.body.Created.startsWith('2001')).toBe(false);
      expect(res.headers.etag).toMatch(/^"[A-Za-z0-9_-]+"$/);
      const read = await getOne(res.body.ID).expect(200);
      expect(read.body).toEqual([res.body]);
    });

    it('creates one from XML with elements in any order and i:nil, and answers XML in ordinal order', async () => {
      const res = await t
        .http()
        .post('/v4/accountabilities')
        .set('Authorization', as(acme.worker))
        .set('Content-Type', 'application/xml')
        .set('Accept', 'application/xml')
        .send(
          `<ListItem xmlns="urn:pms:v4" xmlns:i="http://www.w3.org/2001/XMLSchema-instance"><Name>R&amp;D – Überblick</Name><ID i:nil="true"/>` +
            `<Description>Line 1\nLine 2</Description><SiteID i:nil="true"/><Rank>7</Rank><AncestorID>${acme.worker.individualId}</AncestorID></ListItem>`,
        )
        .expect(200);
      expect(res.headers['content-type']).toMatch(/^application\/xml/);
      expect(res.text.startsWith(`<?xml version="1.0" encoding="utf-8"?>${XML_HEAD}`)).toBe(true);
      expect([...res.text.matchAll(/<([A-Za-z]+)[ >/]/g)].map((m) => m[1]).slice(1)).toEqual(XML_ORDER);
      const item = (await codec.decodeXml(res.text)) as Record<string, string>;
      expect(item).toMatchObject({
        AncestorID: acme.worker.individualId,
        Rank: '7',
        Name: 'R&D – Überblick',
        Description: 'Line 1\nLine 2',
        SiteID: acme.siteId,
        Deleted: 'false',
        DeletedByRef: 'false',
      });
      const json = await getOne(item.ID).expect(200);
      expect(json.body[0]).toMatchObject({ Rank: 7, Name: 'R&D – Überblick', Description: 'Line 1\nLine 2' });
    });

    it('lets anyone up the reporting chain and an administrator create for an individual', async () => {
      for (const who of [acme.manager, acme.boss, acme.admin]) {
        await t
          .http()
          .post('/v4/accountabilities')
          .set('Authorization', as(who))
          .send({ AncestorID: acme.worker.individualId, Rank: 1, Name: 'Set by others', Description: '' })
          .expect(200);
      }
    });

    it('refuses a peer and a subordinate with 403, and creates nothing', async () => {
      const before = await t.http().get(`/v4/individuals/${acme.manager.individualId}/accountabilities?deleted=2`).set('Authorization', as(acme.admin));
      for (const who of [acme.peer, acme.worker]) {
        const res = await t
          .http()
          .post('/v4/accountabilities')
          .set('Authorization', as(who))
          .send({ AncestorID: acme.manager.individualId, Rank: 1, Name: 'Nope', Description: 'x' })
          .expect(403);
        expect(res.body.type).toBe('urn:pms:problem:forbidden');
      }
      const after = await t.http().get(`/v4/individuals/${acme.manager.individualId}/accountabilities?deleted=2`).set('Authorization', as(acme.admin));
      expect(after.body).toEqual(before.body);
    });

    it('uses a supplied ID, answers 409 id-taken when it is used, and generates one for the all-zero guid', async () => {
      const id = '6a1f7c2e-5b3d-4e8f-9a0b-1c2d3e4f5a60';
      const body = { ID: id, AncestorID: acme.worker.individualId, Rank: 1, Name: 'Fixed', Description: 'd' };
      const res = await t.http().post('/v4/accountabilities').set('Authorization', as(acme.worker)).send(body).expect(200);
      expect(res.body.ID).toBe(id);
      const again = await t.http().post('/v4/accountabilities').set('Authorization', as(acme.worker)).send(body).expect(409);
      expect(again.body.type).toBe('urn:pms:problem:id-taken');
      const zero = await t
        .http()
        .post('/v4/accountabilities')
        .set('Authorization', as(acme.worker))
        .send({ ...body, ID: '00000000-0000-0000-0000-000000000000' })
        .expect(200);
      expect(zero.body.ID).not.toBe('00000000-0000-0000-0000-000000000000');
    });

    it.each(['AncestorID', 'Rank', 'Name', 'Description'])('answers 400 naming %s when it is missing', async (field) => {
      const body: Record<string, unknown> = { AncestorID: acme.worker.individualId, Rank: 1, Name: 'N', Description: 'D' };
      delete body[field];
      const res = await t.http().post('/v4/accountabilities').set('Authorization', as(acme.worker)).send(body).expect(400);
      expect(res.body.errors).toEqual([{ field, message: `${field} is required` }]);
    });

    it('names every required field of an empty body, and a null Description (i:nil) as missing', async () => {
      const res = await t.http().post('/v4/accountabilities').set('Authorization', as(acme.worker)).send({}).expect(400);
      expect(res.body.errors.map((e: { field: string }) => e.field).sort()).toEqual(['AncestorID', 'Description', 'Name', 'Rank']);
      const xml = await t
        .http()
        .post('/v4/accountabilities')
        .set('Authorization', as(acme.worker))
        .set('Content-Type', 'text/xml')
        .set('Accept', 'text/xml')
        .send(`${XML_HEAD}<AncestorID>${acme.worker.individualId}</AncestorID><Description i:nil="true"/><Name>N</Name><Rank>1</Rank></ListItem>`)
        .expect(400);
      expect(xml.headers['content-type']).toMatch(/^application\/problem\+xml/);
      expect(xml.text).toContain('<field>Description</field>');
    });

    it('enforces Name at most 255 characters and not blank, Description at most 10,000', async () => {
      const base = { AncestorID: acme.worker.individualId, Rank: 1, Description: 'D' };
      await t
        .http()
        .post('/v4/accountabilities')
        .set('Authorization', as(acme.worker))
        .send({ ...base, Name: 'n'.repeat(255), Description: 'd'.repeat(10000) })
        .expect(200);
      const long = await t
        .http()
        .post('/v4/accountabilities')
        .set('Authorization', as(acme.worker))
        .send({ ...base, Name: 'n'.repeat(256), Description: 'd'.repeat(10001) })
        .expect(400);
      expect(long.body.errors).toEqual(
        expect.arrayContaining([
          { field: 'Name', message: 'Name must be at most 255 characters' },
          { field: 'Description', message: 'Description must be at most 10000 characters' },
        ]),
      );
      const blank = await t
        .http()
        .post('/v4/accountabilities')
        .set('Authorization', as(acme.worker))
        .send({ ...base, Name: '   ' })
        .expect(400);
      expect(blank.body.errors).toEqual([{ field: 'Name', message: 'Name must not be empty' }]);
    });

    it('answers 400 naming each field of a wrong type', async () => {
      const res = await t
        .http()
        .post('/v4/accountabilities')
        .set('Authorization', as(acme.worker))
        .send({ AncestorID: 'abc', Rank: 'three', Name: 5, Description: true, ID: 12 })
        .expect(400);
      expect(res.body.errors.map((e: { field: string }) => e.field).sort()).toEqual(['AncestorID', 'Description', 'ID', 'Name', 'Rank']);
      const fraction = await t
        .http()
        .post('/v4/accountabilities')
        .set('Authorization', as(acme.worker))
        .send({ AncestorID: acme.worker.individualId, Rank: 1.5, Name: 'N', Description: 'D' })
        .expect(400);
      expect(fraction.body.errors).toEqual([{ field: 'Rank', message: 'Rank must be a whole number (int32)' }]);
    });

    it('answers 400 naming AncestorID for an individual of another site, an unknown one and a deleted one', async () => {
      const gone = await createPerson(t, acme, { reportsTo: acme.manager.individualId });
      await deleteIndividual(t, acme.siteId, gone.individualId);
      for (const ancestor of [globex.worker.individualId, UNKNOWN, gone.individualId]) {
        const res = await t
          .http()
          .post('/v4/accountabilities')
          .set('Authorization', as(acme.admin))
          .send({ AncestorID: ancestor, Rank: 1, Name: 'N', Description: 'D' })
          .expect(400);
        expect(res.body.errors).toEqual([{ field: 'AncestorID', message: expect.stringContaining(ancestor) }]);
      }
      const theirs = await t.http().get(`/v4/individuals/${globex.worker.individualId}/accountabilities?deleted=2`).set('Authorization', as(globex.admin));
      expect(theirs.body).toEqual([]);
    });

    it('answers 401 without a token and 400 for malformed XML', async () => {
      await t.http().post('/v4/accountabilities').send({}).expect(401);
      await t
        .http()
        .post('/v4/accountabilities')
        .set('Authorization', as(acme.worker))
        .set('Content-Type', 'application/xml')
        .send('<ListItem><Name>')
        .expect(400);
    });
  });

  describe('GET /v4/individuals/{individualid}/accountabilities and /v4/me/accountabilities', () => {
    let owner: { individualId: string; token: string };
    let deleted: Item;
    beforeAll(async () => {
      owner = await createPerson(t, acme, { reportsTo: acme.manager.individualId });
      for (const [Rank, Name] of [
        [2, 'Beta'],
        [1, 'Zeta'],
        [2, 'Alpha'],
      ] as const) {
        await createItem(t, 'accountabilities', owner.token, { AncestorID: owner.individualId, Rank, Name });
      }
      deleted = await createItem(t, 'accountabilities', owner.token, { AncestorID: owner.individualId, Rank: 0, Name: 'Gone' });
      await t.http().delete(`/v4/accountabilities/${deleted.ID}`).set('Authorization', as(owner)).expect(200);
      await createItem(t, 'evaluationcriteria', owner.token, { AncestorID: owner.individualId, Name: 'Other kind' });
    });
    const names = (body: { Name: string }[]) => body.map((i) => i.Name);

    it('lists live items ordered by Rank, then Name, with X-Total-Count (JSON)', async () => {
      const res = await t.http().get(`/v4/individuals/${owner.individualId}/accountabilities`).set('Authorization', as(owner)).expect(200);
      expect(names(res.body)).toEqual(['Zeta', 'Alpha', 'Beta']);
      expect(res.headers['x-total-count']).toBe('3');
      expect(res.body.every((i: Record<string, unknown>) => i.AncestorID === owner.individualId && i.Deleted === false)).toBe(true);
    });

    it('answers XML: root List with ListItem children', async () => {
      const res = await t
        .http()
        .get(`/v4/individuals/${owner.individualId}/accountabilities`)
        .set('Authorization', as(owner))
        .set('Accept', 'application/xml')
        .expect(200);
      expect(res.text).toMatch(/^<\?xml[^>]+\?><List xmlns="urn:pms:v4" xmlns:i="http:\/\/www.w3.org\/2001\/XMLSchema-instance"><ListItem><AncestorID>/);
      expect((res.text.match(/<ListItem>/g) ?? []).length).toBe(3);
      const items = (await codec.decodeXml(res.text)) as Record<string, string>[];
      expect(items.map((i) => [i.Rank, i.Name])).toEqual([
        ['1', 'Zeta'],
        ['2', 'Alpha'],
        ['2', 'Beta'],
      ]);
    });

    it('filters with deleted=0, 1 and 2, and refuses other values with 400', async () => {
      const get = (q: string) => t.http().get(`/v4/individuals/${owner.individualId}/accountabilities?${q}`).set('Authorization', as(owner));
      expect(names((await get('deleted=0').expect(200)).body)).toEqual(['Zeta', 'Alpha', 'Beta']);
      const one = await get('deleted=1').expect(200);
      expect(one.body).toEqual([expect.objectContaining({ ID: deleted.ID, Deleted: true })]);
      expect(names((await get('deleted=2').expect(200)).body)).toEqual(['Gone', 'Zeta', 'Alpha', 'Beta']);
      for (const bad of ['deleted=3', 'deleted=yes', 'deleted=-1']) {
        const res = await get(bad).expect(400);
        expect(res.body.errors[0].field).toBe('deleted');
      }
    });

    it('pages with limit and offset and a Link to the next page', async () => {
      const res = await t.http().get(`/v4/individuals/${owner.individualId}/accountabilities?limit=2`).set('Authorization', as(owner)).expect(200);
      expect(names(res.body)).toEqual(['Zeta', 'Alpha']);
      expect(res.headers['x-total-count']).toBe('3');
      expect(res.headers.link).toBe(`</v4/individuals/${owner.individualId}/accountabilities?limit=2&offset=2>; rel="next"`);
      const next = await t.http().get(`/v4/individuals/${owner.individualId}/accountabilities?limit=2&offset=2`).set('Authorization', as(owner)).expect(200);
      expect(names(next.body)).toEqual(['Beta']);
    });

    it('lets managers up the chain and administrators read, and refuses a peer with 403', async () => {
      for (const who of [acme.manager, acme.boss, acme.admin]) {
        const res = await t.http().get(`/v4/individuals/${owner.individualId}/accountabilities`).set('Authorization', as(who)).expect(200);
        expect(res.body).toHaveLength(3);
      }
      const res = await t.http().get(`/v4/individuals/${owner.individualId}/accountabilities`).set('Authorization', as(acme.peer)).expect(403);
      expect(res.body.type).toBe('urn:pms:problem:forbidden');
    });

    it('answers 404 for an unknown individual and one of another site, 400 for a malformed id', async () => {
      await t.http().get(`/v4/individuals/${UNKNOWN}/accountabilities`).set('Authorization', as(acme.admin)).expect(404);
      await t.http().get(`/v4/individuals/${globex.worker.individualId}/accountabilities`).set('Authorization', as(acme.admin)).expect(404);
      const bad = await t.http().get('/v4/individuals/nope/accountabilities').set('Authorization', as(acme.admin)).expect(400);
      expect(bad.body.errors).toEqual([{ field: 'individualid', message: 'individualid must be a UUID' }]);
    });

    it('/me/accountabilities lists the caller’s own items in JSON and XML, with the deleted filter', async () => {
      const res = await t.http().get('/v4/me/accountabilities').set('Authorization', as(owner)).expect(200);
      expect(names(res.body)).toEqual(['Zeta', 'Alpha', 'Beta']);
      const xml = await t.http().get('/v4/me/accountabilities?deleted=1').set('Authorization', as(owner)).set('Accept', 'text/xml').expect(200);
      expect(xml.text).toContain('<List xmlns="urn:pms:v4"');
      expect(await codec.decodeXml(xml.text)).toEqual([expect.objectContaining({ ID: deleted.ID, Deleted: 'true' })]);
      const peers = await t.http().get('/v4/me/accountabilities').set('Authorization', as(acme.peer)).expect(200);
      expect(peers.body).toEqual([]);
      await t.http().get('/v4/me/accountabilities?deleted=9').set('Authorization', as(owner)).expect(400);
    });
  });

  describe('GET /v4/accountabilities/{id} and /v4/individuals/{individualid}/accountabilities/{id}', () => {
    let item: Item;
    beforeAll(async () => {
      item = await createItem(t, 'accountabilities', acme.worker.token, { AncestorID: acme.worker.individualId, Name: 'Readable' });
    });

    it('answers a List holding the one item (JSON and XML)', async () => {
      const res = await getOne(item.ID, acme.worker.token).expect(200);
      expect(res.body).toEqual([item]);
      const xml = await getOne(item.ID, acme.worker.token).set('Accept', 'application/xml').expect(200);
      expect(xml.text).toMatch(/<List xmlns="urn:pms:v4"[^>]*><ListItem><AncestorID>/);
      expect(await codec.decodeXml(xml.text)).toEqual([expect.objectContaining({ ID: item.ID, Name: 'Readable' })]);
    });

    it('answers the individual path as a List of one, and 404 when the item belongs to someone else', async () => {
      const res = await t
        .http()
        .get(`/v4/individuals/${acme.worker.individualId}/accountabilities/${item.ID}`)
        .set('Authorization', as(acme.manager))
        .expect(200);
      expect(res.body).toEqual([item]);
      const xml = await t
        .http()
        .get(`/v4/individuals/${acme.worker.individualId}/accountabilities/${item.ID}`)
        .set('Authorization', as(acme.manager))
        .set('Accept', 'application/xml')
        .expect(200);
      expect(await codec.decodeXml(xml.text)).toEqual([expect.objectContaining({ ID: item.ID })]);
      await t.http().get(`/v4/individuals/${acme.manager.individualId}/accountabilities/${item.ID}`).set('Authorization', as(acme.admin)).expect(404);
      await t.http().get(`/v4/individuals/${UNKNOWN}/accountabilities/${item.ID}`).set('Authorization', as(acme.admin)).expect(404);
      await t.http().get(`/v4/individuals/${acme.worker.individualId}/accountabilities/${UNKNOWN}`).set('Authorization', as(acme.admin)).expect(404);
      await t.http().get(`/v4/individuals/${acme.worker.individualId}/accountabilities/${item.ID}`).set('Authorization', as(acme.peer)).expect(403);
      await t.http().get(`/v4/individuals/${acme.worker.individualId}/accountabilities/bad`).set('Authorization', as(acme.admin)).expect(400);
    });

    it('still answers a deleted item', async () => {
      const gone = await createItem(t, 'accountabilities', acme.worker.token, { AncestorID: acme.worker.individualId, Name: 'Soon gone' });
      await t.http().delete(`/v4/accountabilities/${gone.ID}`).set('Authorization', as(acme.worker)).expect(200);
      const res = await getOne(gone.ID).expect(200);
      expect(res.body).toEqual([expect.objectContaining({ ID: gone.ID, Deleted: true, DeletedByRef: false })]);
    });

    it('answers 404 for an unknown id, an id of another site and an id of another kind; 400 for a malformed id', async () => {
      await getOne(UNKNOWN).expect(404);
      const theirs = await createItem(t, 'accountabilities', globex.worker.token, { AncestorID: globex.worker.individualId });
      const res = await getOne(theirs.ID).expect(404);
      expect(res.body.type).toBe('urn:pms:problem:not-found');
      const criterion = await createItem(t, 'evaluationcriteria', acme.worker.token, { AncestorID: acme.worker.individualId });
      await getOne(criterion.ID).expect(404);
      const bad = await getOne('123').expect(400);
      expect(bad.body.errors[0].field).toBe('id');
    });

    it('refuses a peer with 403', async () => {
      const res = await getOne(item.ID, acme.peer.token).expect(403);
      expect(res.body.type).toBe('urn:pms:problem:forbidden');
    });
  });

  describe('PUT /v4/accountabilities/{id}', () => {
    let item: Item;
    beforeEach(async () => {
      item = await createItem(t, 'accountabilities', acme.worker.token, { AncestorID: acme.worker.individualId, Rank: 1, Name: 'Before', Description: 'Old' });
    });
    const put = (id: string, who: { token: string }) => t.http().put(`/v4/accountabilities/${id}`).set('Authorization', bearer(who.token));

    it('updates Rank, Name and Description; AncestorID and read-only fields are ignored (JSON)', async () => {
      const res = await put(item.ID, acme.worker)
        .send({ ...item, AncestorID: acme.manager.individualId, Rank: 5, Name: 'After', Description: 'New', Deleted: true, SiteID: globex.siteId })
        .expect(200);
      expect(res.body).toMatchObject({
        ID: item.ID,
        AncestorID: acme.worker.individualId,
        Rank: 5,
        Name: 'After',
        Description: 'New',
        Deleted: false,
        SiteID: acme.siteId,
      });
      expect(res.body.Created).toBe(item.Created);
      expect(res.headers.etag).toMatch(/^"/);
      expect((await getOne(item.ID).expect(200)).body[0]).toEqual(res.body);
    });

    it('accepts exactly the XML a client read back, read-only fields included, and answers XML', async () => {
      const created = await t
        .http()
        .post('/v4/accountabilities')
        .set('Authorization', as(acme.worker))
        .set('Accept', 'application/xml')
        .send({ AncestorID: acme.worker.individualId, Rank: 2, Name: 'Round trip', Description: 'As read' })
        .expect(200);
      const id = ((await codec.decodeXml(created.text)) as Record<string, string>).ID;
      const same = await put(id, acme.worker).set('Content-Type', 'application/xml').set('Accept', 'application/xml').send(created.text).expect(200);
      expect(same.text).toContain(XML_HEAD);
      expect(await codec.decodeXml(same.text)).toMatchObject({ ID: id, Name: 'Round trip', Description: 'As read', Rank: '2' });
      const changed = await put(id, acme.worker)
        .set('Content-Type', 'text/xml')
        .send(created.text.replace('<Name>Round trip</Name>', '<Name>Renamed</Name>').replace('<Rank>2</Rank>', '<Rank>9</Rank>'))
        .expect(200);
      expect(changed.body).toMatchObject({ ID: id, Name: 'Renamed', Rank: 9, Description: 'As read', AncestorID: acme.worker.individualId });
    });

    it('answers 400 when the body ID differs from the path id', async () => {
      const other = await put(item.ID, acme.worker).send({ ID: UNKNOWN, Rank: 1, Name: 'X', Description: 'D' }).expect(400);
      expect(other.body.errors).toEqual([{ field: 'ID', message: expect.stringContaining('does not match') }]);
    });

    it.each(['ID', 'Rank', 'Name', 'Description'])('answers 400 naming %s when it is missing, and changes nothing', async (field) => {
      const body: Record<string, unknown> = { ID: item.ID, Rank: 4, Name: 'Changed', Description: 'Changed' };
      delete body[field];
      const res = await put(item.ID, acme.worker).send(body).expect(400);
      expect(res.body.errors).toEqual([{ field, message: `${field} is required` }]);
      expect((await getOne(item.ID).expect(200)).body[0]).toMatchObject({ Name: 'Before', Rank: 1 });
    });

    it('enforces the Name limit and types', async () => {
      const res = await put(item.ID, acme.worker)
        .send({ ID: item.ID, Rank: 'x', Name: 'n'.repeat(256), Description: 'D' })
        .expect(400);
      expect(res.body.errors.map((e: { field: string }) => e.field).sort()).toEqual(['Name', 'Rank']);
    });

    it('answers 404 for an unknown id and for an item of another site, which stays unchanged', async () => {
      await put(UNKNOWN, acme.admin).send({ ID: UNKNOWN, Rank: 1, Name: 'X', Description: 'D' }).expect(404);
      const theirs = await createItem(t, 'accountabilities', globex.worker.token, { AncestorID: globex.worker.individualId, Name: 'Theirs' });
      await put(theirs.ID, acme.admin).send({ ID: theirs.ID, Rank: 1, Name: 'Hijacked', Description: 'D' }).expect(404);
      const still = await t.http().get(`/v4/accountabilities/${theirs.ID}`).set('Authorization', as(globex.admin)).expect(200);
      expect(still.body[0]).toEqual(theirs);
    });

    it('refuses a peer with 403 and lets the manager change it', async () => {
      const body = { ID: item.ID, Rank: 1, Name: 'Peer edit', Description: 'D' };
      const res = await put(item.ID, acme.peer).send(body).expect(403);
      expect(res.body.type).toBe('urn:pms:problem:forbidden');
      expect((await getOne(item.ID).expect(200)).body[0].Name).toBe('Before');
      const ok = await put(item.ID, acme.manager)
        .send({ ...body, Name: 'Manager edit' })
        .expect(200);
      expect(ok.body.UpdatedBy).toBe(acme.manager.individualId);
    });

    it('answers 409 deleted for a deleted item', async () => {
      await t.http().delete(`/v4/accountabilities/${item.ID}`).set('Authorization', as(acme.worker)).expect(200);
      const res = await put(item.ID, acme.worker).send({ ID: item.ID, Rank: 1, Name: 'Zombie', Description: 'D' }).expect(409);
      expect(res.body.type).toBe('urn:pms:problem:deleted');
    });

    it('honours If-Match: 412 for a stale ETag, 200 for the current one', async () => {
      const body = { ID: item.ID, Rank: 1, Name: 'Guarded', Description: 'D' };
      await put(item.ID, acme.worker).set('If-Match', '"stale"').send(body).expect(412);
      const step = await t
        .http()
        .put(`/v4/accountabilities/${item.ID}`)
        .set('Authorization', as(acme.worker))
        .send({ ...body, Name: 'Step 1' })
        .expect(200);
      await put(item.ID, acme.worker).set('If-Match', step.headers.etag).send(body).expect(200);
      await put(item.ID, acme.worker).set('If-Match', step.headers.etag).send(body).expect(412);
    });
  });

  describe('DELETE /v4/accountabilities/{id} and PUT /v4/accountabilities/{id}/undelete', () => {
    let item: Item;
    beforeEach(async () => {
      item = await createItem(t, 'accountabilities', acme.worker.token, { AncestorID: acme.worker.individualId, Name: 'Deletable' });
    });
    const del = (id: string, who: { token: string }) => t.http().delete(`/v4/accountabilities/${id}`).set('Authorization', bearer(who.token));
    const undel = (id: string, who: { token: string }) => t.http().put(`/v4/accountabilities/${id}/undelete`).set('Authorization', bearer(who.token));

    it('deletes softly and idempotently, answering {} in JSON and <Object/> in XML', async () => {
      const res = await del(item.ID, acme.worker).expect(200);
      expect(res.body).toEqual({});
      const again = await del(item.ID, acme.worker).set('Accept', 'application/xml').expect(200);
      expect(again.text).toMatch(/<Object xmlns="urn:pms:v4"[^>]*\/>$/);
      expect((await getOne(item.ID).expect(200)).body[0]).toMatchObject({ Deleted: true, DeletedByRef: false });
      const live = await t.http().get('/v4/me/accountabilities').set('Authorization', as(acme.worker));
      expect(live.body.map((i: Item) => i.ID)).not.toContain(item.ID);
      const gone = await t.http().get('/v4/me/accountabilities?deleted=1').set('Authorization', as(acme.worker));
      expect(gone.body.map((i: Item) => i.ID)).toContain(item.ID);
    });

    it('undeletes idempotently, answering a List of the restored item (JSON and XML)', async () => {
      await del(item.ID, acme.worker).expect(200);
      const res = await undel(item.ID, acme.worker).expect(200);
      expect(res.body).toEqual([expect.objectContaining({ ID: item.ID, Deleted: false, Name: 'Deletable' })]);
      const again = await undel(item.ID, acme.worker).set('Accept', 'application/xml').expect(200);
      expect(again.text).toMatch(/<List xmlns="urn:pms:v4"[^>]*><ListItem>/);
      expect(await codec.decodeXml(again.text)).toEqual([expect.objectContaining({ ID: item.ID, Deleted: 'false' })]);
      await t
        .http()
        .put(`/v4/accountabilities/${item.ID}`)
        .set('Authorization', as(acme.worker))
        .send({ ID: item.ID, Rank: 1, Name: 'Back', Description: 'D' })
        .expect(200);
    });

    it('answers 404 for unknown ids and ids of another site (unchanged), 400 for malformed ones', async () => {
      await del(UNKNOWN, acme.admin).expect(404);
      await undel(UNKNOWN, acme.admin).expect(404);
      await del('nope', acme.admin).expect(400);
      const theirs = await createItem(t, 'accountabilities', globex.worker.token, { AncestorID: globex.worker.individualId });
      await del(theirs.ID, acme.admin).expect(404);
      expect((await t.http().get(`/v4/accountabilities/${theirs.ID}`).set('Authorization', as(globex.admin))).body[0].Deleted).toBe(false);
      await t.http().delete(`/v4/accountabilities/${theirs.ID}`).set('Authorization', as(globex.admin)).expect(200);
      await undel(theirs.ID, acme.admin).expect(404);
      expect((await t.http().get(`/v4/accountabilities/${theirs.ID}`).set('Authorization', as(globex.admin))).body[0].Deleted).toBe(true);
    });

    it('refuses a peer with 403 for delete and undelete, and changes nothing', async () => {
      const res = await del(item.ID, acme.peer).expect(403);
      expect(res.body.type).toBe('urn:pms:problem:forbidden');
      expect((await getOne(item.ID).expect(200)).body[0].Deleted).toBe(false);
      await del(item.ID, acme.worker).expect(200);
      await undel(item.ID, acme.peer).expect(403);
      expect((await getOne(item.ID).expect(200)).body[0].Deleted).toBe(true);
    });

    it('takes items down with their individual and brings back exactly those (deleteListItemsByRef)', async () => {
      const person = await createPerson(t, acme, { reportsTo: acme.manager.individualId });
      const kept = await createItem(t, 'accountabilities', person.token, { AncestorID: person.individualId, Name: 'Kept' });
      const before = await createItem(t, 'accountabilities', person.token, { AncestorID: person.individualId, Name: 'Deleted before' });
      const criterion = await createItem(t, 'evaluationcriteria', person.token, { AncestorID: person.individualId, Name: 'Criterion' });
      await del(before.ID, person).expect(200);
      const db = t.app.get(TenantDb);
      const ctx = RequestContext.system(acme.siteId);
      expect(await db.transaction(ctx, (tx) => deleteListItemsByRef(tx, INDIVIDUAL_KINDS, [person.individualId]))).toBe(2);
      expect((await getOne(kept.ID).expect(200)).body[0]).toMatchObject({ Deleted: true, DeletedByRef: true });
      const refused = await undel(kept.ID, acme.admin).expect(409);
      expect(refused.body.type).toBe('urn:pms:problem:deleted');
      expect(await db.transaction(ctx, (tx) => undeleteListItemsByRef(tx, INDIVIDUAL_KINDS, [person.individualId]))).toBe(2);
      expect((await getOne(kept.ID).expect(200)).body[0]).toMatchObject({ Deleted: false, DeletedByRef: false });
      expect((await getOne(before.ID).expect(200)).body[0]).toMatchObject({ Deleted: true, DeletedByRef: false });
      const crit = await t.http().get(`/v4/evaluationcriteria/${criterion.ID}`).set('Authorization', as(acme.admin)).expect(200);
      expect(crit.body[0].Deleted).toBe(false);
    });
  });
});
