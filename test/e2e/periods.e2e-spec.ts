import { bearer, startApp, TestApp, WireCodec } from './harness.js';
import { createPerson, createSite, TestPerson, TestSite } from '../factories/index.js';

const codec = new WireCodec('urn:pms:v4');
const JSON_ORDER = ['ID', 'Name', 'StartDate', 'EndDate', 'Closed', 'SiteID', 'Created', 'CreatedBy', 'Updated', 'UpdatedBy'];
const XML_ORDER = ['Closed', 'Created', 'CreatedBy', 'EndDate', 'ID', 'Name', 'SiteID', 'StartDate', 'Updated', 'UpdatedBy'];

type Period = { ID: number } & Record<string, unknown>;

describe('/v4/periods', () => {
  let t: TestApp;
  let acme: TestSite;
  let member: TestPerson;
  let globex: TestSite;
  const as = (p: { token: string }) => bearer(p.token);
  const create = async (body: Record<string, unknown>, site: TestSite = acme): Promise<Period> =>
    (await t.http().post('/v4/periods').set('Authorization', as(site.admin)).send(body).expect(200)).body;

  beforeAll(async () => {
    t = await startApp();
    acme = await createSite(t, { name: 'Acme' });
    member = await createPerson(t, acme);
    globex = await createSite(t, { name: 'Globex' });
  });
  afterAll(async () => {
    await t.close();
  });

  describe('POST /v4/periods', () => {
    it('creates a period from JSON; ID and Closed are ignored', async () => {
      const res = await t
        .http()
        .post('/v4/periods')
        .set('Authorization', as(acme.admin))
        .send({ ID: 999, Name: ' FY 2026 ', StartDate: '2026-01-01T00:00:00Z', EndDate: '2026-12-31T23:59:59.999Z', Closed: true, SiteID: globex.siteId })
        .expect(200);
      expect(Object.keys(res.body)).toEqual(JSON_ORDER);
      expect(res.body).toMatchObject({
        Name: 'FY 2026',
        StartDate: '2026-01-01T00:00:00.000+00:00',
        EndDate: '2026-12-31T23:59:59.999+00:00',
        Closed: false,
        SiteID: acme.siteId,
        CreatedBy: acme.admin.individualId,
      });
      expect(res.body.ID).not.toBe(999);
      expect(Number.isInteger(res.body.ID)).toBe(true);
      expect(res.headers.etag).toMatch(/^"/);
    });

    it('creates a period from XML in any element order and answers XML (root Period, ordinal order)', async () => {
      const res = await t
        .http()
        .post('/v4/periods')
        .set('Authorization', as(acme.admin))
        .set('Content-Type', 'application/xml')
        .set('Accept', 'application/xml')
        .send(
          '<Period xmlns="urn:pms:v4" xmlns:i="http://www.w3.org/2001/XMLSchema-instance"><EndDate>2027-06-30T23:59:59</EndDate><ID i:nil="true"/><Name>H1 2027</Name><StartDate>2027-01-01T00:00:00+01:00</StartDate></Period>',
        )
        .expect(200);
      expect(res.text).toMatch(/^<\?xml[^>]+\?><Period xmlns="urn:pms:v4"/);
      expect([...res.text.matchAll(/<([A-Za-z]+)[ >/]/g)].map((m) => m[1]).slice(1)).toEqual(XML_ORDER);
      expect(await codec.decodeXml(res.text)).toMatchObject({
        Name: 'H1 2027',
        StartDate: '2026-12-31T23:00:00.000+00:00',
        EndDate: '2027-06-30T23:59:59.000+00:00',
        Closed: 'false',
      });
    });

    it.each(['Name', 'StartDate', 'EndDate'])('answers 400 naming %s when it is missing', async (field) => {
      const body: Record<string, unknown> = { Name: 'P', StartDate: '2030-01-01T00:00:00Z', EndDate: '2030-02-01T00:00:00Z' };
      delete body[field];
      const res = await t.http().post('/v4/periods').set('Authorization', as(acme.admin)).send(body).expect(400);
      expect(res.body.errors).toEqual([{ field, message: `${field} is required` }]);
    });

    it('answers 400 for a long name, wrong types, an unset .NET date and StartDate after EndDate', async () => {
      const long = await t
        .http()
        .post('/v4/periods')
        .set('Authorization', as(acme.admin))
        .send({ Name: 'p'.repeat(256), StartDate: 'soon', EndDate: 5 })
        .expect(400);
      expect(long.body.errors.map((e: { field: string }) => e.field).sort()).toEqual(['EndDate', 'Name', 'StartDate']);
      const unset = await t
        .http()
        .post('/v4/periods')
        .set('Authorization', as(acme.admin))
        .send({ Name: 'P', StartDate: '0001-01-01T00:00:00', EndDate: '2030-01-01T00:00:00Z' })
        .expect(400);
      expect(unset.body.errors).toEqual([{ field: 'StartDate', message: 'StartDate is required' }]);
      const reversed = await t
        .http()
        .post('/v4/periods')
        .set('Authorization', as(acme.admin))
        .send({ Name: 'P', StartDate: '2030-02-01T00:00:00Z', EndDate: '2030-01-31T23:59:59Z' })
        .expect(400);
      expect(reversed.body.errors).toEqual([{ field: 'EndDate', message: 'EndDate must not be before StartDate' }]);
      await create({ Name: 'One instant', StartDate: '2030-03-01T00:00:00Z', EndDate: '2030-03-01T00:00:00Z' });
    });

    it('allows overlapping periods (a year and its quarters)', async () => {
      await create({ Name: 'Q1 2026', StartDate: '2026-01-01T00:00:00Z', EndDate: '2026-03-31T23:59:59Z' });
    });

    it('refuses a non-administrator with 403 admin-required', async () => {
      const res = await t
        .http()
        .post('/v4/periods')
        .set('Authorization', as(member))
        .send({ Name: 'P', StartDate: '2030-01-01T00:00:00Z', EndDate: '2030-02-01T00:00:00Z' })
        .expect(403);
      expect(res.body.type).toBe('urn:pms:problem:admin-required');
    });
  });

  describe('GET /v4/periods and /v4/periods/{id}', () => {
    let mine: Period[];
    let theirs: Period;
    beforeAll(async () => {
      theirs = await create({ Name: 'Globex year', StartDate: '2026-01-01T00:00:00Z', EndDate: '2026-12-31T00:00:00Z' }, globex);
      mine = (await t.http().get('/v4/periods').set('Authorization', as(acme.admin))).body;
    });

    it('lists the site’s periods ordered by StartDate for any member (JSON and XML)', async () => {
      const res = await t.http().get('/v4/periods').set('Authorization', as(member)).expect(200);
      const starts = res.body.map((p: Period) => p.StartDate as string);
      expect(starts).toEqual([...starts].sort());
      expect(res.body.map((p: Period) => p.SiteID)).toEqual(res.body.map(() => acme.siteId));
      expect(res.body.map((p: Period) => p.ID)).not.toContain(theirs.ID);
      expect(res.headers['x-total-count']).toBe(String(res.body.length));
      const xml = await t.http().get('/v4/periods').set('Authorization', as(member)).set('Accept', 'application/xml').expect(200);
      expect(xml.text).toMatch(/<ArrayOfPeriod xmlns="urn:pms:v4"[^>]*><Period>/);
      expect(((await codec.decodeXml(xml.text)) as Record<string, string>[]).map((p) => Number(p.ID))).toEqual(res.body.map((p: Period) => p.ID));
      const page = await t.http().get('/v4/periods?limit=1').set('Authorization', as(member)).expect(200);
      expect(page.body).toHaveLength(1);
      expect(page.headers.link).toBe('</v4/periods?limit=1&offset=1>; rel="next"');
    });

    it('reads one period in JSON and XML', async () => {
      const res = await t.http().get(`/v4/periods/${mine[0].ID}`).set('Authorization', as(member)).expect(200);
      expect(res.body).toEqual(mine[0]);
      const xml = await t.http().get(`/v4/periods/${mine[0].ID}`).set('Authorization', as(member)).set('Accept', 'text/xml').expect(200);
      expect(await codec.decodeXml(xml.text)).toMatchObject({ ID: String(mine[0].ID), Name: mine[0].Name });
    });

    it('answers 404 for an unknown id and another site’s period, 400 for a malformed id', async () => {
      await t.http().get('/v4/periods/987654').set('Authorization', as(member)).expect(404);
      await t.http().get(`/v4/periods/${theirs.ID}`).set('Authorization', as(acme.admin)).expect(404);
      const bad = await t.http().get('/v4/periods/abc').set('Authorization', as(member)).expect(400);
      expect(bad.body.errors).toEqual([{ field: 'id', message: 'id must be a whole number (int32)' }]);
    });
  });

  describe('PUT /v4/periods/{id}', () => {
    let period: Period;
    beforeEach(async () => {
      period = await create({ Name: 'Editable', StartDate: '2031-01-01T00:00:00Z', EndDate: '2031-12-31T00:00:00Z' });
    });
    const put = (id: number | string, who: { token: string } = acme.admin) => t.http().put(`/v4/periods/${id}`).set('Authorization', bearer(who.token));

    it('updates name and dates (JSON); Closed is ignored', async () => {
      const res = await put(period.ID)
        .send({ ...period, Name: 'Edited', EndDate: '2031-06-30T00:00:00Z', Closed: true })
        .expect(200);
      expect(res.body).toMatchObject({ ID: period.ID, Name: 'Edited', EndDate: '2031-06-30T00:00:00.000+00:00', Closed: false });
    });

    it('accepts exactly the XML a client read back', async () => {
      const read = await t.http().get(`/v4/periods/${period.ID}`).set('Authorization', as(acme.admin)).set('Accept', 'application/xml').expect(200);
      const res = await put(period.ID)
        .set('Content-Type', 'application/xml')
        .send(read.text.replace('<Name>Editable</Name>', '<Name>From XML</Name>'))
        .expect(200);
      expect(res.body).toMatchObject({ Name: 'From XML', StartDate: period.StartDate, EndDate: period.EndDate });
    });

    it('answers 400 for a wrong or missing ID, missing fields and reversed dates', async () => {
      await put(period.ID)
        .send({ ...period, ID: period.ID + 1 })
        .expect(400);
      const zero = await put(period.ID)
        .send({ ...period, ID: 0 })
        .expect(400);
      expect(zero.body.errors).toEqual([{ field: 'ID', message: 'ID is required' }]);
      const missing = await put(period.ID).send({ ID: period.ID }).expect(400);
      expect(missing.body.errors.map((e: { field: string }) => e.field).sort()).toEqual(['EndDate', 'Name', 'StartDate']);
      await put(period.ID)
        .send({ ...period, StartDate: '2032-01-01T00:00:00Z' })
        .expect(400);
    });

    it('answers 404 for another site’s period, which stays unchanged, and 403 for a non-administrator', async () => {
      const theirs = await create({ Name: 'Theirs', StartDate: '2031-01-01T00:00:00Z', EndDate: '2031-12-31T00:00:00Z' }, globex);
      await put(theirs.ID)
        .send({ ...theirs, Name: 'Hijacked' })
        .expect(404);
      expect((await t.http().get(`/v4/periods/${theirs.ID}`).set('Authorization', as(globex.admin))).body.Name).toBe('Theirs');
      const res = await put(period.ID, member)
        .send({ ...period, Name: 'Member' })
        .expect(403);
      expect(res.body.type).toBe('urn:pms:problem:admin-required');
    });

    it('answers 409 closed for a closed period, and honours If-Match', async () => {
      const read = await t.http().get(`/v4/periods/${period.ID}`).set('Authorization', as(acme.admin));
      await put(period.ID)
        .set('If-Match', '"stale"')
        .send({ ...period, Name: 'X' })
        .expect(412);
      await put(period.ID)
        .set('If-Match', read.headers.etag)
        .send({ ...period, Name: 'Y' })
        .expect(200);
      await t.http().put(`/v4/periods/${period.ID}/close`).set('Authorization', as(acme.admin)).expect(200);
      const res = await put(period.ID)
        .send({ ...period, Name: 'Z' })
        .expect(409);
      expect(res.body.type).toBe('urn:pms:problem:closed');
    });
  });

  describe('DELETE /v4/periods/{id} and PUT /v4/periods/{id}/close', () => {
    it('deletes an unused period for good and answers {}', async () => {
      const period = await create({ Name: 'Temp', StartDate: '2040-01-01T00:00:00Z', EndDate: '2040-12-31T00:00:00Z' });
      await t.http().delete(`/v4/periods/${period.ID}`).set('Authorization', as(member)).expect(403);
      const res = await t.http().delete(`/v4/periods/${period.ID}`).set('Authorization', as(acme.admin)).expect(200);
      expect(res.body).toEqual({});
      await t.http().get(`/v4/periods/${period.ID}`).set('Authorization', as(acme.admin)).expect(404);
      await t.http().delete(`/v4/periods/${period.ID}`).set('Authorization', as(acme.admin)).expect(404);
    });

    it('refuses to delete a period a goal or commitment still uses (409 in-use), and deletes it once they are gone', async () => {
      const period = await create({ Name: 'Busy', StartDate: '2042-01-01T00:00:00Z', EndDate: '2042-12-31T00:00:00Z' });
      const goal = await t
        .http()
        .post('/v4/goals')
        .set('Authorization', as(member))
        .send({
          IndividualID: member.individualId,
          Name: 'Use the period',
          Completed: false,
          Comment: '',
          Why: '',
          DueDate: '2042-06-30T00:00:00Z',
          PeriodID: period.ID,
          ...Object.fromEntries(
            [1, 2, 3, 4, 5].flatMap((n) => [
              [`Measure${n}`, ''],
              [`Measure${n}Completed`, false],
              [`Measure${n}StartDate`, '2042-01-01T00:00:00Z'],
              [`Measure${n}EndDate`, '2042-02-01T00:00:00Z'],
            ]),
          ),
        })
        .expect(200);
      const refused = await t.http().delete(`/v4/periods/${period.ID}`).set('Authorization', as(acme.admin)).expect(409);
      expect(refused.body.type).toBe('urn:pms:problem:in-use');
      expect(refused.body.detail).toContain('goals');
      await t.http().delete(`/v4/goals/${goal.body.ID}`).set('Authorization', as(member)).expect(200);
      await t.http().delete(`/v4/periods/${period.ID}`).set('Authorization', as(acme.admin)).expect(200);
    });

    it('answers 404 for another site’s period and leaves it in place', async () => {
      const theirs = await create({ Name: 'Keep', StartDate: '2040-01-01T00:00:00Z', EndDate: '2040-12-31T00:00:00Z' }, globex);
      await t.http().delete(`/v4/periods/${theirs.ID}`).set('Authorization', as(acme.admin)).expect(404);
      await t.http().put(`/v4/periods/${theirs.ID}/close`).set('Authorization', as(acme.admin)).expect(404);
      expect((await t.http().get(`/v4/periods/${theirs.ID}`).set('Authorization', as(globex.admin)).expect(200)).body.Closed).toBe(false);
    });

    it('closes a period idempotently (JSON and XML); a closed period cannot be deleted (409 closed)', async () => {
      const period = await create({ Name: 'Closing', StartDate: '2041-01-01T00:00:00Z', EndDate: '2041-12-31T00:00:00Z' });
      const denied = await t.http().put(`/v4/periods/${period.ID}/close`).set('Authorization', as(member)).expect(403);
      expect(denied.body.type).toBe('urn:pms:problem:admin-required');
      const res = await t.http().put(`/v4/periods/${period.ID}/close`).set('Authorization', as(acme.admin)).expect(200);
      expect(res.body).toMatchObject({ ID: period.ID, Closed: true });
      const again = await t.http().put(`/v4/periods/${period.ID}/close`).set('Authorization', as(acme.admin)).set('Accept', 'application/xml').expect(200);
      expect(again.text).toContain('<Closed>true</Closed>');
      const del = await t.http().delete(`/v4/periods/${period.ID}`).set('Authorization', as(acme.admin)).expect(409);
      expect(del.body.type).toBe('urn:pms:problem:closed');
      await t.http().put('/v4/periods/987654/close').set('Authorization', as(acme.admin)).expect(404);
    });
  });
});
