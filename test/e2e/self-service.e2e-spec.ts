import { createUnit } from '../factories/goals.js';
import { bearer, createPerson, createSite, TestPerson, TestSite } from '../factories/index.js';
import { DB_KIND, startApp, TestApp } from './harness.js';

/**
 * Who may move a person (docs/individuals.md, "Administrator-only fields"): IsAdmin, the primary
 * organization and the reporting line are changed only by an administrator. A member or a manager
 * may PUT a record back with the current values, but not detach themselves from their manager or
 * move to another department.
 */
describe(`self-service limits on PUT /individuals/{id} (${DB_KIND})`, () => {
  let t: TestApp;
  let site: TestSite;
  let boss: TestPerson;
  let worker: TestPerson;
  let otherDept: string;

  beforeAll(async () => {
    t = await startApp();
    site = await createSite(t);
    boss = await createPerson(t, site, { firstName: 'Bea', lastName: 'Boss' });
    worker = await createPerson(t, site, { firstName: 'Wes', lastName: 'Worker', reportsTo: boss.individualId });
    otherDept = (await createUnit(t, site.siteId, { department: true, name: 'Elsewhere', parentId: site.orgId })).id;
  });
  afterAll(async () => {
    await t.close();
  });

  const read = async (id: string) => (await t.http().get(`/v4/individuals/${id}`).set('Authorization', bearer(site.admin.token)).expect(200)).body;
  const put = (who: TestPerson, body: Record<string, unknown>) =>
    t
      .http()
      .put(`/v4/individuals/${body.ID as string}`)
      .set('Authorization', bearer(who.token))
      .send(body);

  it('lets a member send their own record back unchanged, and change what is theirs', async () => {
    const mine = await read(worker.individualId);
    const res = await put(worker, { ...mine, UserDefined1: 'likes tea', Password: null });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ UserDefined1: 'likes tea', PrimaryReportsTo: boss.individualId, PrimaryOrganizationID: site.orgId });
  });

  it.each([
    ['detach from their manager', { PrimaryReportsTo: null }, 'PrimaryReportsTo'],
    ['move to another department', { PrimaryOrganizationID: 'OTHER' }, 'PrimaryOrganizationID'],
    ['make themselves an administrator', { IsAdmin: true }, 'IsAdmin'],
  ])('refuses a member who tries to %s (403 naming the field), changing nothing', async (_what, change, field) => {
    const mine = await read(worker.individualId);
    const patch = Object.fromEntries(Object.entries(change).map(([k, v]) => [k, v === 'OTHER' ? otherDept : v]));
    const res = await put(worker, { ...mine, ...patch, UserDefined2: 'sneaky', Password: null });
    expect(res.status).toBe(403);
    expect(res.body.detail).toContain(field);
    const after = await read(worker.individualId);
    expect(after).toMatchObject({ PrimaryReportsTo: boss.individualId, PrimaryOrganizationID: site.orgId, IsAdmin: false, UserDefined2: null });
  });

  it('refuses the same in XML', async () => {
    const mine = await read(worker.individualId);
    const xml =
      `<Individual xmlns="urn:pms:v4" xmlns:i="http://www.w3.org/2001/XMLSchema-instance"><FirstName>${mine.FirstName}</FirstName>` +
      `<ID>${mine.ID}</ID><LastName>${mine.LastName}</LastName><PrimaryReportsTo i:nil="true"/><UserName>${mine.UserName}</UserName></Individual>`;
    const res = await t
      .http()
      .put(`/v4/individuals/${worker.individualId}`)
      .set('Authorization', bearer(worker.token))
      .set('Content-Type', 'application/xml')
      .set('Accept', 'application/xml')
      .send(xml);
    expect(res.status).toBe(403);
    expect(res.text).toContain('PrimaryReportsTo');
    expect((await read(worker.individualId)).PrimaryReportsTo).toBe(boss.individualId);
  });

  it('refuses a manager who moves a report, and lets an administrator do it', async () => {
    const theirs = await read(worker.individualId);
    const byManager = await put(boss, { ...theirs, PrimaryOrganizationID: otherDept, Password: null });
    expect(byManager.status).toBe(403);
    const byAdmin = await put(site.admin, { ...theirs, PrimaryOrganizationID: otherDept, PrimaryReportsTo: null, Password: null });
    expect(byAdmin.status).toBe(200);
    expect(byAdmin.body).toMatchObject({ PrimaryOrganizationID: otherDept, PrimaryReportsTo: null });
  });
});
